// Matching a command's arguments: a rule's command prefix, args, args_all,
// args_none and args_from, with each program's options that take values.

package policy

import (
	"slices"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/shellparse"
)

// matchPrefix matches rule tokens against a command: token 0 against the
// program name, the others against the next positional words, skipping
// options (and the values of options known to take one). It returns the
// arguments after the matched prefix.
func matchPrefix(prefix []string, name string, args []string) ([]string, bool) {
	if ok, _ := globMatch(prefix[0], name); !ok {
		return nil, false
	}
	valued := valueOptions()[name]
	i := 0
	for _, tok := range prefix[1:] {
		for {
			if i >= len(args) {
				return nil, false
			}
			a := args[i]
			if a == "--" {
				i++
				if i >= len(args) {
					return nil, false
				}
				a = args[i]
				break
			}
			if len(a) > 1 && a[0] == '-' {
				i++
				if valued[a] && i < len(args) {
					i++ // the option's value
				}
				continue
			}
			break
		}
		if ok, _ := globMatch(tok, args[i]); !ok {
			return nil, false
		}
		i++
	}
	return args[i:], true
}

// valueOptions lists, per program, the global options that take their
// value as the next word, so that `git -C dir push` is `git push`. Built
// on the first shell call, not at every hook start (as noneValues).
var valueOptions = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"git":       set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--exec-path", "--list-cmds"),
		"kubectl":   set("-n", "--namespace", "--context", "--cluster", "--kubeconfig", "--user", "-s", "--server", "--token", "--as", "--as-group", "--request-timeout", "--certificate-authority", "--client-certificate", "--client-key", "--cache-dir", "-v"),
		"helm":      set("-n", "--namespace", "--kube-context", "--kubeconfig", "--repository-config", "--repository-cache", "--registry-config", "--burst-limit", "--kube-apiserver", "--kube-as-user", "--kube-token"),
		"docker":    set("-c", "--context", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"),
		"podman":    set("-c", "--connection", "--url", "--root", "--runroot", "--log-level", "--storage-driver"),
		"aws":       set("--profile", "--region", "--output", "--endpoint-url", "--query", "--color", "--cli-read-timeout", "--cli-connect-timeout", "--ca-bundle"),
		"gcloud":    set("--project", "--account", "--configuration", "--format", "--verbosity", "--impersonate-service-account", "--billing-project", "--flatten", "--filter"),
		"az":        set("--subscription", "-o", "--output", "--query"),
		"npm":       set("--prefix", "-w", "--workspace", "--registry", "--userconfig", "--cache", "--otp", "--tag", "--access"),
		"pnpm":      set("-C", "--dir", "--filter", "-F", "-w", "--workspace"),
		"yarn":      set("--cwd"),
		"cargo":     set("--manifest-path", "-Z", "--config", "-C", "--color", "--target-dir"),
		"pulumi":    set("-C", "--cwd", "-s", "--stack"),
		"terraform": set(),
		"redis-cli": set("-h", "-p", "-a", "-n", "-u", "--user", "--pass", "-s", "-r", "-i"),
		"gh":        set("-R", "--repo"),
		"systemctl": set("-H", "--host", "-M", "--machine"),
		// toolguard's own value flags, so that `toolguard approvals --state-dir
		// D approve ID` is `toolguard approvals approve` (cobra finds the
		// subcommand past flags and their values).
		"toolguard": toolguardValueFlags(),
	}
})

// toolguardValueFlags are toolguard's options that take the next word as
// their value (cobra/pflag take it even when it starts with "-").
var toolguardValueFlags = sync.OnceValue(func() map[string]bool {
	return set("--policy", "--layer", "--state-dir", "--provider", "--scope", "--dir", "--command",
		"--preset", "--reason", "--older-than", "-o", "--output", "--mode", "--workspace", "--audit-log", "--file",
		"--since", "--key", "--grants-dir", "--listen", "--socket", "--tool", "--path", "--mcp", "--url", "--payload",
		"--cwd", "-c", "--server", "--token-file")
})

// argList is a command's arguments after the matched prefix; for programs
// that end their options at "--" (endsOptions), the words from optEnd on
// are operands, which option patterns do not match: `git rm -f -- file`
// is forced, `git rm -- -f` removes a file named -f.
type argList struct {
	args     []string
	optEnd   int
	lastWins bool            // --no-X switches an earlier --X off for args too (git's parse-options)
	values   map[string]bool // options whose next word is their value, not an option (args_none only)
}

// noneValues lists, per program, options that take the next word as
// their value, for args_none: the value is not an option, so `chmod -R
// --reference --help /` is a recursive chmod of /, not a help request.
// (args and args_all still see every word: a wrong entry here can only
// make a rule match more.)
var noneValues = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		// `toolguard approvals reject ID --reason -h` rejects: -h is the reason.
		"toolguard": toolguardValueFlags(),
		"go":        toolguardValueFlags(), // go run ./cmd/toolguard install --command --dry-run
		"chmod":     set("--reference"),
		"chown":     set("--reference", "--from"),
		"chgrp":     set("--reference"),
		"git": set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path",
			"--replace-text", "--replace-message", "--replace-refs", "--paths-from-file", "--path", "--path-glob",
			"--path-regex", "--path-rename", "--subdirectory-filter", "--to-subdirectory-filter", "--refs",
			"-m", "--message", "-o", "--push-option", "--repo", "--receive-pack", "--exec", "--source", "-s"),
		"http":  set("-o", "--output", "-a", "--auth", "--session", "--session-read-only"),
		"https": set("-o", "--output", "-a", "--auth", "--session", "--session-read-only"),
		"xh":    set("-o", "--output", "-a", "--auth", "--session"),
	}
})

// endsOptions are the programs whose option parsing stops at "--"
// wherever it stands. (find and the wrappers are not among them: `find --
// . -delete` still deletes.)
var endsOptions = set("git")

func optionsEnd(name string, args []string) int {
	if endsOptions[name] {
		if i := slices.Index(args, "--"); i >= 0 {
			return i
		}
	}
	return len(args)
}

// any reports whether some argument matches some pattern.
//
// A pattern like "-f" (one short flag) also matches inside a cluster of
// short flags ("-fu", "-rf"); a long option "--force" also matches
// "--force=value"; anything else is a glob over the whole argument.
func (l argList) any(patterns []string) bool {
	return l.match(patterns, false)
}

// anyKept is any for args_none: a long option that a later --no-OPTION
// switches off again (`git rm --cached --no-cached --force`; the last one
// wins in git and GNU tools) does not count as present. For args, that is
// only trusted for git, whose option parser gives every boolean option
// its --no- form (`git rm --force --no-force`); elsewhere a --no-X that
// a program does not know would let the rule be dodged.
func (l argList) anyKept(patterns []string) bool {
	return l.match(patterns, true)
}

func (l argList) match(patterns []string, kept bool) bool {
	for i, a := range l.args {
		if kept && i > 0 && i < l.optEnd && l.values[l.args[i-1]] {
			continue // chmod -R --reference --help /: --help names the reference file
		}
		for _, p := range patterns {
			if i >= l.optEnd && strings.HasPrefix(p, "-") && !(i == l.optEnd && p == "--") {
				continue // an operand; only a "--" pattern matches the "--" itself
			}
			if argMatch(p, a) && !((kept || l.lastWins) && i < l.optEnd && negatedLater(a, l.args[i+1:l.optEnd])) {
				return true
			}
		}
	}
	return false
}

// negatedLater reports whether a long option --X (or --X=value) is
// followed by --no-X.
func negatedLater(a string, later []string) bool {
	name, _, _ := strings.Cut(a, "=")
	if !strings.HasPrefix(name, "--") || strings.HasPrefix(name, "--no-") || len(name) < 3 {
		return false
	}
	return slices.Contains(later, "--no-"+name[2:])
}

func argMatch(p, a string) bool {
	if p == a {
		return true
	}
	if len(p) == 2 && p[0] == '-' && p[1] != '-' && len(a) > 2 && len(a) <= maxCluster && a[0] == '-' && a[1] != '-' && isFlagCluster(a[1:]) {
		return strings.IndexByte(a[1:], p[1]) >= 0
	}
	if strings.HasPrefix(p, "--") && strings.HasPrefix(a, p+"=") {
		return true
	}
	return wildMatch(p, a)
}

// anyWild reports whether some value matches some glob.
func anyWild(globs, values []string) bool {
	for _, v := range values {
		for _, g := range globs {
			if wildMatch(g, v) {
				return true
			}
		}
	}
	return false
}

// maxCluster bounds what counts as a cluster of short flags: "-rf",
// "-fdx", "-xzvf" are clusters; "-bfeature" (git checkout -b feature) or
// "-Command" (PowerShell) are not.
const maxCluster = 5

// wildMatch is path.Match where '*' and '?' also match '/': arguments are
// not paths (`+*` matches `+refs/heads/main`).
func wildMatch(p, s string) bool {
	if !strings.ContainsAny(p, "*?[\\") {
		return p == s
	}
	ok, _ := globMatch(strings.ReplaceAll(p, "/", "\x00"), strings.ReplaceAll(s, "/", "\x00"))
	return ok
}

func isFlagCluster(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func fedBy(patterns []string, sources []shellparse.Source) bool {
	for _, s := range sources {
		for _, p := range patterns {
			if p == s.Class.String() {
				return true
			}
			if ok, _ := globMatch(p, s.Name); ok {
				return true
			}
		}
	}
	return false
}

// --- paths ---------------------------------------------------------------
