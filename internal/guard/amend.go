package guard

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/policy"
)

// approve --amend: the allow rule a request proposes (cmd/toolguard writes it).

// broadPrograms run whatever code or command they are given: an allow
// rule naming one of them as its command prefix allows far more than the
// call a human saw (bash -c, python -c, env X, sudo X, xargs X, …).
var broadPrograms = map[string]bool{
	"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "fish": true, "csh": true, "tcsh": true,
	"busybox": true, "pwsh": true, "powershell": true, "cmd": true,
	"python": true, "python2": true, "python3": true, "pypy": true, "pypy3": true, "node": true, "nodejs": true, "deno": true, "bun": true,
	"ruby": true, "perl": true, "php": true, "lua": true, "luajit": true, "tclsh": true, "Rscript": true, "julia": true, "osascript": true,
	"awk": true, "gawk": true, "mawk": true, "nawk": true,
	"env": true, "sudo": true, "doas": true, "su": true, "pkexec": true, "runuser": true, "xargs": true, "parallel": true,
	"eval": true, "exec": true, "command": true, "builtin": true, "nohup": true, "timeout": true, "nice": true, "ionice": true,
	"time": true, "stdbuf": true, "setsid": true, "chroot": true, "nsenter": true, "unshare": true, "flock": true, "watch": true,
	"ssh": true, "script": true, "expect": true, "npx": true, "uvx": true, "pipx": true, "dotnet": true, "java": true,
	"make": true, "find": true,
}

// safeWord is a shell word with no syntax in it: no quotes, expansions,
// globs, operators or redirections.
var safeWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,^-]+$`) })

// Amendment is the rule --amend proposes for a request.
type Amendment struct {
	Rule    string // the new rule's id
	Snippet string // TOML: one [[rule]] and one [[test]]
}

// ProposeAmend returns the smallest allow rule for r's call — its exact
// command words, or for a write or edit its exact path — with a priority
// above every rule that asked, and a [[test]] for it. It refuses calls it
// cannot express exactly (shell syntax, a redacted or cut command), rules
// broader than the call (a program that runs arbitrary code, a bare
// program name), and asks by a locked rule, which no allow can override.
func ProposeAmend(r approval.Request, pol *policy.Policy) (Amendment, error) {
	prio := 0
	ids := append([]string(nil), r.Rules...)
	if r.Preview != nil {
		for _, rp := range r.Preview.Rules { // every rule that asked, not only the one that decided
			ids = append(ids, rp.ID)
		}
	}
	for _, id := range ids {
		rule := pol.Rule(id)
		if rule == nil {
			continue
		}
		if rule.Locked {
			return Amendment{}, fmt.Errorf("rule %s is locked: no allow rule can override it", id)
		}
		if rule.Priority >= prio {
			prio = rule.Priority + 1
		}
	}
	if len(r.Rules) == 0 {
		return Amendment{}, errors.New("no rule asked about this call (a default or the parser did): there is no rule to amend; set the policy by hand")
	}
	id := "amend-" + r.ID
	head := fmt.Sprintf("\n# added by toolguard approvals approve --amend %s\n[[rule]]\nid = %s\ndecision = \"allow\"\npriority = %d\n"+
		"justification = %s\n", r.ID, strconv.Quote(id), prio, strconv.Quote("Approved by a human for request "+r.ID+"."))
	switch r.Kind {
	case "shell":
		cmd := r.Summary
		if r.Preview != nil && r.Preview.Command != "" {
			cmd = r.Preview.Command
		}
		if strings.Contains(cmd, "***") || strings.Contains(cmd, "…") {
			return Amendment{}, errors.New("the command was redacted or cut in the request: write the rule by hand")
		}
		argv := strings.Fields(cmd)
		for _, w := range argv {
			if !safeWord().MatchString(w) {
				return Amendment{}, fmt.Errorf("the command has shell syntax (%q): a prefix rule cannot express it exactly; write the rule by hand", w)
			}
		}
		if len(argv) < 2 {
			return Amendment{}, fmt.Errorf("a rule for the bare program name %q would allow every use of it", cmd)
		}
		if prog := filepath.Base(argv[0]); broadPrograms[prog] {
			return Amendment{}, fmt.Errorf("%s runs whatever it is given: an allow rule for %q allows more than this call", prog, strings.Join(argv, " "))
		}
		// command: the program and the words before the first option (a
		// rule's command prefix skips options); regex: the whole command
		// line, exactly, so that the rule allows this call and no longer one.
		prefix := argv[:1]
		for _, w := range argv[1:] {
			if strings.HasPrefix(w, "-") {
				break
			}
			prefix = append(prefix, w)
		}
		joined := strings.Join(argv, " ")
		return Amendment{Rule: id, Snippet: head + "command = " + strconv.Quote(strings.Join(prefix, " ")) +
			"\nregex = '^" + regexp.QuoteMeta(joined) + "$'\n\n[[test]]\ncommand = " +
			strconv.Quote(joined) + "\nexpect = \"allow\"\n"}, nil
	case "write", "edit":
		path := ""
		if r.Preview != nil {
			path = r.Preview.Path
		}
		if path == "" || !filepath.IsAbs(path) {
			return Amendment{}, errors.New("the request names no absolute path: write the rule by hand")
		}
		tool := r.Kind // a [[test]]'s tool is a kind (write, edit)
		return Amendment{Rule: id, Snippet: head + "path = [" + strconv.Quote(path) + "]\nop = [\"write\"]\n\n[[test]]\ntool = " +
			strconv.Quote(tool) + "\npath = " + strconv.Quote(path) + "\nexpect = \"allow\"\n"}, nil
	}
	return Amendment{}, fmt.Errorf("--amend proposes rules for shell commands and file writes, not for %s calls", r.Kind)
}
