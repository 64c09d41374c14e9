package policy

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/knowledge"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// Where keys belong (knowledge.KeyHomes, places.toml [[key_home]]): an
// HTTP client's request that names a provider's key variable and goes to
// a host that is not the provider's sends the key away. The request's
// hosts are every URL and bare host among its operands, --url, and a
// proxy; a request whose destination the string cannot pin down (no host
// spelled out, a dynamic URL, --resolve/--connect-to, a proxy from the
// environment, --location-trusted) is not proven to go home.

// httpClients are the programs whose arguments are checked.
var httpClients = map[string]bool{"curl": true, "wget": true, "http": true, "https": true, "xh": true, "xhs": true, "httpie": true}

var envRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)`) })

// bareHost is an operand that names a host without a scheme (curl and
// httpie default to http): api.x.com, api.x.com:8443/v1, 10.0.0.1/x.
var bareHost = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^((?:[A-Za-z0-9-]+\.)+[A-Za-z]{2,}|localhost|\d{1,3}(?:\.\d{1,3}){3})(?::\d+)?(?:[/?#].*)?$`)
})

// hostValueOpts take a value that is a destination; skipValueOpts take one
// that is not (a file, a header, data), so it is not read as a host.
var (
	hostValueOpts = map[string]bool{"--url": true, "-x": true, "--proxy": true, "--preproxy": true}
	skipValueOpts = map[string]bool{
		"-o": true, "--output": true, "-d": true, "--data": true, "--data-raw": true, "--data-binary": true, "--data-urlencode": true,
		"--data-ascii": true, "--json": true, "-H": true, "--header": true, "-u": true, "--user": true, "-X": true, "--request": true,
		"-A": true, "--user-agent": true, "-e": true, "--referer": true, "-b": true, "--cookie": true, "-c": true, "--cookie-jar": true,
		"-w": true, "--write-out": true, "-T": true, "--upload-file": true, "-F": true, "--form": true, "--form-string": true,
		"-m": true, "--max-time": true, "--connect-timeout": true, "-r": true, "--range": true, "-K": true, "--config": true,
		"--cacert": true, "--capath": true, "--cert": true, "-E": true, "--key": true, "--retry": true, "-C": true, "--continue-at": true,
		"-O": true, "--output-document": true, "-P": true, "--directory-prefix": true, "--post-data": true, "--post-file": true,
		"--body-data": true, "--body-file": true, "--method": true, "-a": true, "--auth": true, "--oauth2-bearer": true, "--aws-sigv4": true,
		"-D": true, "--dump-header": true, "--stderr": true, "--trace": true, "--trace-ascii": true, "--limit-rate": true, "-Y": true, "-y": true,
	}
	// unpinned options send the request somewhere the URL does not say.
	unpinned = map[string]bool{"--resolve": true, "--connect-to": true, "--location-trusted": true, "--doh-url": true, "--unix-socket": true, "--abstract-unix-socket": true}
)

// keyHomeEffects is sends-secret (and network-send) when cmd is an HTTP
// client naming a key of knowledge.KeyHomes and some destination of the
// request is not that key's home, or the destination is not pinned down.
func keyHomeEffects(cmd *shellparse.Command) []string {
	if !httpClients[cmd.Name] || len(knowledge.KeyHomes) == 0 {
		return nil
	}
	var homes []*knowledge.KeyHome
	for _, a := range cmd.Args {
		if !strings.Contains(a, "$") {
			continue
		}
		for _, m := range envRef().FindAllStringSubmatch(a, -1) {
			for i := range knowledge.KeyHomes {
				k := &knowledge.KeyHomes[i]
				if anyWild(k.Vars, []string{m[1]}) && !slices.Contains(homes, k) {
					homes = append(homes, k)
				}
			}
		}
	}
	if len(homes) == 0 {
		return nil
	}
	sends := []string{knowledge.SendsSecret, knowledge.NetworkSend}
	for _, e := range cmd.Env {
		if name, _, _ := strings.Cut(strings.ToLower(e), "="); name == "http_proxy" || name == "https_proxy" || name == "all_proxy" {
			return sends
		}
	}
	hosts, pinned := requestHosts(cmd.Args, cmd.Name != "curl" && cmd.Name != "wget")
	if !pinned || len(hosts) == 0 {
		return sends
	}
	for _, h := range hosts {
		for _, k := range homes {
			if !hostIn(h, k.Hosts) {
				return sends
			}
		}
	}
	return nil
}

// httpieItem is an httpie/xh request item (Header:value, field=value,
// field:=json, param==value, field@file), not a destination.
var httpieItem = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.\[\]-]+(:=@|=@|:=|==|=|:|@)`) })

// requestHosts are the hosts an HTTP client's arguments send the request
// to; pinned is false when an argument makes the destination unknowable.
// items: the program takes httpie-style request items (http, xh).
func requestHosts(args []string, items bool) (hosts []string, pinned bool) {
	add := func(s string) bool {
		if items && !strings.Contains(s, "://") && httpieItem().MatchString(s) && !bareHost().MatchString(s) {
			return true // a header, a field or a parameter
		}
		if strings.Contains(s, "$") || strings.Contains(s, "`") {
			return false // a dynamic destination
		}
		if strings.Contains(s, "://") {
			u, err := url.Parse(s)
			if err != nil || u.Hostname() == "" {
				return false
			}
			hosts = append(hosts, strings.ToLower(u.Hostname()))
			return true
		}
		if m := bareHost().FindStringSubmatch(s); m != nil {
			hosts = append(hosts, strings.ToLower(m[1]))
		}
		return true
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			for _, r := range args[i+1:] {
				if !add(r) {
					return nil, false
				}
			}
			break
		}
		if strings.HasPrefix(a, "-") {
			name, val, hasVal := strings.Cut(a, "=")
			switch {
			case unpinned[name]:
				return nil, false
			case hostValueOpts[name]:
				if !hasVal {
					if i+1 >= len(args) {
						return nil, false
					}
					i++
					val = args[i]
				}
				if n := len(hosts); !add(val) || len(hosts) == n {
					return nil, false // a proxy or --url that names no host we can read
				}
			case skipValueOpts[name] && !hasVal:
				i++
			}
			continue
		}
		if !add(a) {
			return nil, false
		}
	}
	return hosts, true
}

// hostIn reports whether host is one of the globs: "*.x.com" is x.com
// itself and any subdomain; anything else is the host exactly.
func hostIn(host string, globs []string) bool {
	for _, g := range globs {
		if d, ok := strings.CutPrefix(g, "*."); ok {
			if host == d || strings.HasSuffix(host, "."+d) {
				return true
			}
		} else if host == g {
			return true
		}
	}
	return false
}
