package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

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

// amendProposal is the rule --amend proposes for a request.
type amendProposal struct {
	snippet string // TOML: one [[rule]] and one [[test]]
}

// proposeAmend returns the smallest allow rule for r's call — its exact
// command words, or for a write or edit its exact path — with a priority
// above every rule that asked, and a [[test]] for it. It refuses calls it
// cannot express exactly (shell syntax, a redacted or cut command), rules
// broader than the call (a program that runs arbitrary code, a bare
// program name), and asks by a locked rule, which no allow can override.
func proposeAmend(r approval.Request, pol *policy.Policy) (amendProposal, error) {
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
			return amendProposal{}, fmt.Errorf("rule %s is locked: no allow rule can override it", id)
		}
		if rule.Priority >= prio {
			prio = rule.Priority + 1
		}
	}
	if len(r.Rules) == 0 {
		return amendProposal{}, errors.New("no rule asked about this call (a default or the parser did): there is no rule to amend; set the policy by hand")
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
			return amendProposal{}, errors.New("the command was redacted or cut in the request: write the rule by hand")
		}
		argv := strings.Fields(cmd)
		for _, w := range argv {
			if !safeWord().MatchString(w) {
				return amendProposal{}, fmt.Errorf("the command has shell syntax (%q): a prefix rule cannot express it exactly; write the rule by hand", w)
			}
		}
		if len(argv) < 2 {
			return amendProposal{}, fmt.Errorf("a rule for the bare program name %q would allow every use of it", cmd)
		}
		if prog := filepath.Base(argv[0]); broadPrograms[prog] {
			return amendProposal{}, fmt.Errorf("%s runs whatever it is given: an allow rule for %q allows more than this call", prog, strings.Join(argv, " "))
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
		return amendProposal{snippet: head + "command = " + strconv.Quote(strings.Join(prefix, " ")) +
			"\nregex = '^" + regexp.QuoteMeta(joined) + "$'\n\n[[test]]\ncommand = " +
			strconv.Quote(joined) + "\nexpect = \"allow\"\n"}, nil
	case "write", "edit":
		path := ""
		if r.Preview != nil {
			path = r.Preview.Path
		}
		if path == "" || !filepath.IsAbs(path) {
			return amendProposal{}, errors.New("the request names no absolute path: write the rule by hand")
		}
		tool := r.Kind // a [[test]]'s tool is a kind (write, edit)
		return amendProposal{snippet: head + "path = [" + strconv.Quote(path) + "]\nop = [\"write\"]\n\n[[test]]\ntool = " +
			strconv.Quote(tool) + "\npath = " + strconv.Quote(path) + "\nexpect = \"allow\"\n"}, nil
	}
	return amendProposal{}, fmt.Errorf("--amend proposes rules for shell commands and file writes, not for %s calls", r.Kind)
}

// amendPolicy shows the diff of the policy file with p appended, checks
// that the result validates with its new [[test]], asks the human (unless
// yes), and writes it. It returns whether the file was written.
func amendPolicy(sys *system, file string, p amendProposal, yes bool) (bool, error) {
	old, err := os.ReadFile(file)
	mode := os.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = []byte("version = 1\n")
	case err != nil:
		return false, err
	default:
		if fi, err := os.Stat(file); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	text := string(old)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	updated := text + p.snippet
	pol, err := policy.Load([]policy.Source{{Path: file, Data: []byte(updated)}}, policy.LoadOptions{})
	if err != nil {
		return false, fmt.Errorf("the amended policy does not load, nothing written: %w", err)
	}
	if probs := pol.Check(); len(probs) > 0 {
		var b strings.Builder
		for _, pr := range probs {
			b.WriteString("\n  " + pr.String())
		}
		return false, fmt.Errorf("the amended policy does not validate, nothing written:%s", b.String())
	}
	oldLines := strings.Count(text, "\n")
	add := strings.Split(strings.TrimSuffix(p.snippet, "\n"), "\n")
	fmt.Fprintf(sys.stdout, "--- %s\n+++ %s\n@@ -%d,0 +%d,%d @@\n", file, file, oldLines, oldLines+1, len(add))
	for _, l := range add {
		fmt.Fprintf(sys.stdout, "+%s\n", l)
	}
	if !yes {
		fmt.Fprint(sys.stdout, "write this to the policy? [y/N] ")
		line, _ := bufio.NewReader(sys.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(sys.stdout, "not written")
			return false, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".policy-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(updated); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
		return false, err
	}
	fmt.Fprintf(sys.stdout, "wrote %s\n", file)
	return true, nil
}

// amendFor proposes, shows and (once confirmed) writes the allow rule for
// request id; nothing is approved unless it was written.
func amendFor(sys *system, st *approval.Store, id string, o *approvalsOptions) error {
	r, err := st.Get(id)
	if err != nil {
		return err
	}
	ps, err := o.load(sys, sys.env().CurrentProject())
	if err != nil {
		return fmt.Errorf("--amend: the policy does not load: %w", err)
	}
	prop, err := proposeAmend(r, ps.Pol)
	if err != nil {
		return fmt.Errorf("--amend %s: %w; nothing changed", id, err)
	}
	file := o.amendFile
	if file == "" {
		file = sys.env().UserPolicyFile()
	}
	if file == "" {
		return errors.New("--amend: no policy file: set --amend-file, XDG_CONFIG_HOME or HOME")
	}
	cwd, _ := sys.getwd()
	file = workspace.ArgPath(file, cwd, sys.home())
	written, err := amendPolicy(sys, file, prop, o.yes)
	if err != nil {
		return err
	}
	if !written {
		return &exitError{code: exitFailure, msg: "--amend: the policy was not changed and the request was not approved"}
	}
	return nil
}
