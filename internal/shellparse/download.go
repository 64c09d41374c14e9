package shellparse

import (
	"path"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// SourceDownload marks a file the same string downloaded earlier and a
// command then executes: `curl -o x.sh URL && bash x.sh`, `wget URL && ./x`.
const SourceDownload SourceClass = 3

// maxDownloads bounds the downloaded files followed in one analysis.
const maxDownloads = 64

// downloads finds commands that execute a file an earlier command of the
// same analysis fetched from the network (directly, through tee, or
// copied, moved or linked on): the program itself, or the script a shell,
// an interpreter or source reads. Files are matched by base name, which
// survives cd and relative spellings. Each such command gets a Source of
// class SourceDownload (Via "file") naming the program that fetched it.
func (a *analyzer) downloads() {
	var got map[string]string // base name → fetching program
	for i := range a.cmds {
		c := &a.cmds[i]
		if len(got) > 0 && !c.Dynamic {
			if src, ok := a.executesDownload(c, got); ok {
				c.Sources = appendSources(c.Sources, Source{Name: src, Class: SourceDownload, Via: "file"})
			}
		}
		src := fetcher(c)
		if src == "" && len(got) > 0 && (c.Name == "rm" || c.Name == "unlink" || c.Name == "shred") {
			// Deleted: whatever runs under that name later is not it.
			for _, p := range c.Paths {
				if !p.Dynamic && p.Op == call.OpDelete {
					delete(got, path.Base(p.Path))
				}
			}
			continue
		}
		if src == "" && len(got) > 0 && c.Name == "ln" {
			for _, arg := range c.Args {
				if s, ok := got[path.Base(arg)]; ok && !strings.HasPrefix(arg, "-") {
					src = s
					break
				}
			}
		}
		if src == "" && len(got) > 0 {
			// A copy, move or link of a downloaded file is one too.
			for _, p := range c.Paths {
				if !p.Dynamic && (p.Op == call.OpRead || p.Op == call.OpDelete) {
					if s, ok := got[path.Base(p.Path)]; ok {
						src = s
						break
					}
				}
			}
		}
		if src == "" {
			continue
		}
		if got == nil {
			got = map[string]string{}
		}
		for _, p := range c.Paths {
			if !p.Dynamic && p.Op.Writes() && len(got) < maxDownloads {
				got[path.Base(p.Path)] = src
			}
		}
		for _, n := range remoteNames(c) {
			if len(got) < maxDownloads {
				got[n] = src
			}
		}
	}
}

// fetcher names the program whose network or decoded content c writes to
// files: a network client, a decoder (base64 -d > x.sh), a command fed by
// one (tee), rsync/scp from a remote.
func fetcher(c *Command) string {
	if c.Dynamic {
		return ""
	}
	if classify(c) == SourceDecoder {
		return c.Name
	}
	if network(c.Name) {
		if c.Name == "curl" && localCopy(c.Args) {
			return "" // a local copy
		}
		return c.Name
	}
	if (c.Name == "rsync" || c.Name == "scp") && slices.ContainsFunc(c.Args, func(s string) bool {
		return !strings.HasPrefix(s, "-") && isRemotePath(s)
	}) {
		return c.Name
	}
	for _, s := range c.Sources {
		if s.Class == SourceNetwork || s.Class == SourceDecoder {
			return s.Name
		}
	}
	return ""
}

// remoteNames are the files curl -O or wget (without -O) saves: the last
// segment of each URL (with or without a scheme: curl and wget take
// example.com/x.sh). Options are read with curlOpts and wgetOpts, so a
// value (-XPOST, -x http://proxy/p) is not taken for -O or a URL.
func remoteNames(c *Command) []string {
	var urls []field
	switch c.Name {
	case "curl":
		opts, us := curlArgs(argFields(c.Args))
		if has(opts, "-J", "--remote-header-name") || !has(opts, "-O", "--remote-name", "--remote-name-all") {
			return nil // -J: the server names the file
		}
		urls = us
	case "wget":
		opts, us := wgetOpts.parse(argFields(c.Args))
		if has(opts, "-O", "--output-document") {
			return nil
		}
		urls = us
	default:
		return nil
	}
	var out []string
	for _, u := range urls {
		if !u.lit {
			continue
		}
		s := u.s
		if i := strings.Index(s, "://"); i >= 0 {
			s = s[i+3:]
		}
		s, _, _ = strings.Cut(s, "?")
		s, _, _ = strings.Cut(s, "#")
		i := strings.LastIndexByte(s, '/')
		if i < 0 || i == len(s)-1 {
			continue
		}
		out = append(out, s[i+1:])
	}
	return out
}

// localCopy reports a curl whose URLs are all file:// URLs.
func localCopy(args []string) bool {
	_, urls := curlArgs(argFields(args))
	for _, u := range urls {
		if !u.lit || !strings.HasPrefix(strings.ToLower(u.s), "file://") {
			return false
		}
	}
	return len(urls) > 0
}

// executesDownload reports whether c runs a downloaded file.
func (a *analyzer) executesDownload(c *Command, got map[string]string) (string, bool) {
	if s, ok := got[c.Name]; ok {
		return s, true
	}
	if !isShell(c.Name) && interpreter(c.Name) == "" && c.Name != "source" && c.Name != "." &&
		c.Name != "pwsh" && c.Name != "powershell" && c.Name != "exec" {
		return "", false
	}
	for _, p := range c.Paths {
		if p.Op == call.OpRead && !p.Dynamic {
			if s, ok := got[path.Base(p.Path)]; ok {
				return s, true
			}
		}
	}
	if c.Name == "pwsh" || c.Name == "powershell" {
		for i, s := range c.Args {
			if strings.EqualFold(s, "-File") && i+1 < len(c.Args) {
				if src, ok := got[path.Base(c.Args[i+1])]; ok {
					return src, true
				}
			}
		}
	}
	return "", false
}
