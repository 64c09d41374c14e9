package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/shellparse"
)

type installOptions struct {
	provider    string
	scope       string
	dir         string
	policies    []string
	dryRun      bool
	command     string
	portable    bool
	preToolOnly bool
}

func newInstallCmd(sys *system, uninstall bool) *cobra.Command {
	var o installOptions
	use, short := "install", "Add toolguard as an agent's PreToolUse hook (idempotent, keeps a backup)"
	if uninstall {
		use, short = "uninstall", "Remove toolguard's hook entries from an agent's settings, and nothing else"
	}
	cmd := &cobra.Command{
		Use:   use + " --provider P [--scope project|user] [--dir D]",
		Short: short,
		Long: short + `.

Settings files written (project scope / user scope):
  claude-code  .claude/settings.json      ~/.claude/settings.json
  codebuddy    .codebuddy/settings.json   ~/.codebuddy/settings.json
  codex        .codex/hooks.json          ~/.codex/hooks.json
  gemini       .gemini/settings.json      ~/.gemini/settings.json
  cursor       .cursor/hooks.json         ~/.cursor/hooks.json
  copilot      .github/hooks/toolguard.json  ~/.copilot/hooks/toolguard.json

The project is the git top level of --dir (default: the current directory), as for
init and doctor. Other keys and other hooks are left as they are; a file that does not
parse is not touched. Besides the pre-tool event, the same command goes on the agent's
prompt, session and post-tool events (docs/agents.md) unless --pre-tool-only.

The hook command is the path this binary was run by (a package manager's symlink on
PATH is kept, not its versioned target), after asking it ("version") that it is
toolguard, with "hook --provider P" and any --policy files (made absolute; each must
load, or nothing is written). A binary in the Go build cache (go run) is refused.
--portable writes a bare "toolguard" instead, looked up on PATH when the hook runs:
for files a team commits; see docs/install.md for what that trusts.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInstall(sys, &o, uninstall) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.provider, "provider", "", "agent: claude-code (claude), codebuddy, codex, gemini, cursor, copilot, windsurf")
	fl.StringVar(&o.scope, "scope", install.ScopeProject, "project or user")
	fl.StringVar(&o.dir, "dir", "", "project directory (default: the git top level of the current directory)")
	fl.BoolVar(&o.dryRun, "dry-run", false, "show what would change; write nothing")
	if uninstall {
		fl.StringVar(&o.command, "command", "", "also remove hooks running this binary when it is not named toolguard (default: this one)")
	} else {
		fl.StringArrayVar(&o.policies, "policy", nil, "policy file the hook should load (repeatable; must load)")
		fl.StringVar(&o.command, "command", "", "the toolguard binary to run (default: this one)")
		fl.BoolVar(&o.portable, "portable", false, "write a bare `toolguard` (found on PATH when the hook runs) instead of an absolute path")
		fl.BoolVar(&o.preToolOnly, "pre-tool-only", false, "add only the pre-tool hook, not the prompt, session and post-tool ones")
	}
	return cmd
}

// argv0 is the name this process was started by (tests replace it).
var argv0 = func() string {
	if len(os.Args) == 0 {
		return ""
	}
	return os.Args[0]
}

func runInstall(sys *system, o *installOptions, uninstall bool) error {
	if o.provider == "" {
		return usagef("--provider is required (one of %s)", strings.Join(protocol.Names(), ", "))
	}
	codec, err := protocol.Lookup(o.provider)
	if err != nil || codec.Name() == "universal" {
		return usagef("unknown provider %q (want %s)", o.provider, strings.Join(protocol.Names(), ", "))
	}
	if o.scope != install.ScopeProject && o.scope != install.ScopeUser {
		return usagef("--scope wants project or user, got %q", o.scope)
	}
	if o.portable && o.command != "" {
		return usagef("--portable and --command exclude each other")
	}
	cwd, _ := sys.getwd()
	dir := projectDir(sys)
	if o.dir != "" {
		dir = projectOf(argPath(o.dir, cwd, sys.home()))
	}
	opts := install.Options{Provider: codec.Name(), Scope: o.scope, Dir: dir, Home: sys.home(),
		DryRun: o.dryRun, PreToolOnly: o.preToolOnly}
	if !uninstall {
		// --policy first: a hook whose policy does not load denies every call.
		var abs []string
		for _, p := range o.policies {
			abs = append(abs, argPath(p, cwd, sys.home()))
		}
		if len(abs) > 0 {
			pf := policyFlags{files: abs}
			if _, err := pf.load(sys, dir); err != nil {
				return fmt.Errorf("--policy does not load, nothing was written: %w", err)
			}
		}
		bin, err := installBinary(sys, o)
		if err != nil {
			return err
		}
		opts.Program = bin
		parts := []string{shellparse.Quote(bin), "hook", "--provider", codec.Name()}
		for _, p := range abs {
			parts = append(parts, "--policy", shellparse.Quote(p))
		}
		opts.Command = strings.Join(parts, " ")
	} else if o.command != "" {
		opts.Program = argPath(o.command, cwd, sys.home())
	} else if exe, err := sys.executable(); err == nil {
		opts.Program = stableBinary(sys, exe)
	}
	var res install.Result
	if uninstall {
		res, err = install.Uninstall(opts)
	} else {
		res, err = install.Install(opts)
	}
	if err != nil {
		return err
	}
	prefix := ""
	if o.dryRun {
		prefix = "(dry run) "
	}
	fmt.Fprintf(sys.stdout, "%s%s\n", prefix, res.Summary)
	if res.Backup != "" {
		fmt.Fprintf(sys.stdout, "%sbackup: %s\n", prefix, res.Backup)
	}
	if !uninstall {
		for _, n := range res.Notes {
			fmt.Fprintf(sys.stdout, "note: %s\n", n)
		}
	}
	return nil
}

// installBinary is the program the hook command runs: "toolguard" with
// --portable; --command as given (absolute, or found on PATH); else the
// path this binary was started by. Anything but --portable must answer
// `version` as toolguard, and must not be in Go's build cache.
func installBinary(sys *system, o *installOptions) (string, error) {
	if o.portable {
		return "toolguard", nil
	}
	var bin string
	if o.command != "" {
		cwd, _ := sys.getwd()
		bin = expandTilde(o.command, sys.home())
		if !strings.ContainsRune(bin, filepath.Separator) {
			p, err := exec.LookPath(bin)
			if err != nil {
				return "", fmt.Errorf("--command %s: not found on PATH: %v", o.command, err)
			}
			bin = p
		}
		bin = absFrom(cwd, bin)
	} else {
		exe, err := sys.executable()
		if err != nil {
			return "", fmt.Errorf("cannot find this binary's path (%v); pass --command", err)
		}
		bin = stableBinary(sys, exe)
	}
	if cache := buildCache(sys, bin); cache != "" {
		return "", fmt.Errorf("%s is in Go's build cache or a `go run` work directory (%s): `go run` builds a binary that is deleted later, and the hook would then fail open in most agents; "+
			"build or install toolguard (go build -o ~/bin/toolguard ./cmd/toolguard, go install …) and run install with that binary, or pass --command PATH", bin, cache)
	}
	if _, err := askVersion(bin); err != nil {
		return "", fmt.Errorf("%s is not a working toolguard, nothing was written: %v", bin, err)
	}
	return bin, nil
}

// stableBinary prefers the path this process was started by (argv[0],
// looked up on PATH when it is a bare name) over os.Executable's, when
// both are the same file: a package manager's symlink
// (/usr/local/bin/toolguard -> ../Cellar/toolguard/1.2/bin/toolguard)
// survives upgrades, its versioned target does not.
func stableBinary(sys *system, exe string) string {
	a := argv0()
	if a == "" {
		return exe
	}
	if !strings.ContainsRune(a, filepath.Separator) {
		p, err := exec.LookPath(a)
		if err != nil {
			return exe
		}
		a = p
	}
	cwd, _ := sys.getwd()
	a = filepath.Clean(absFrom(cwd, a))
	fa, err1 := os.Stat(a)
	fe, err2 := os.Stat(exe)
	if err1 == nil && err2 == nil && os.SameFile(fa, fe) {
		return a
	}
	return exe
}

// buildCache returns the Go build cache or go-build work directory bin
// (or its target) lies in, or "".
func buildCache(sys *system, bin string) string {
	paths := []string{bin}
	if r, err := filepath.EvalSymlinks(bin); err == nil && r != bin {
		paths = append(paths, r)
	}
	var caches []string
	if c := sys.getenv("GOCACHE"); c != "" && c != "off" {
		caches = append(caches, c)
	}
	if d, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(d, "go-build"))
	}
	for _, p := range paths {
		for _, c := range caches {
			if rel, err := filepath.Rel(c, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return c
			}
		}
		for _, part := range strings.Split(filepath.ToSlash(p), "/") {
			if isGoBuildDir(part) {
				return part
			}
		}
	}
	return ""
}

// isGoBuildDir: the build cache's "go-build", or a `go run` work directory
// ("go-build" and digits, in the temp dir).
func isGoBuildDir(name string) bool {
	rest, ok := strings.CutPrefix(name, "go-build")
	return ok && strings.Trim(rest, "0123456789") == ""
}

// askVersion runs `bin version` and returns its first line when it is
// toolguard's ("toolguard …"); a missing binary, a failure or another
// answer is an error.
func askVersion(bin string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "version")
	cmd.Stdin = nil
	out, err := cmd.Output()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if ctx.Err() != nil {
		return "", fmt.Errorf("`%s version` did not answer within 10 s", bin)
	}
	if err != nil {
		return "", fmt.Errorf("`%s version`: %v", bin, err)
	}
	if !strings.HasPrefix(line, "toolguard ") {
		return "", fmt.Errorf("`%s version` answered %q, not toolguard's version line", bin, truncateLine(line, 80))
	}
	return line, nil
}

func truncateLine(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

type doctorOptions struct {
	policyFlags
	json    bool
	require bool
	agent   string
	noProbe bool
	dir     string
}

func newDoctorCmd(sys *system) *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show which agents are guarded by toolguard, proved by running each hook",
		Long: `doctor looks for each agent's settings (user and project) and runs every pre-tool hook
command that is (or looks like) toolguard's exactly as the agent would — sh -c LINE, the
payload on stdin in that agent's dialect — once with a call that must be denied (` + install.DenyProbeCommand + `)
and once with one that must pass (` + install.PassProbeCommand + `), and reports what came back. It also
asks the hook's binary whether it is toolguard, loads the --policy files on the hook line,
reports Codex's trust state, settings that switch hooks off, and commands found through PATH.
An agent is guarded when a hook proved itself and nothing switches it off.
--require-enforcement exits 1 when an agent judged (only --agent X when given) is not guarded.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(sys, &o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.require, "require-enforcement", false, "exit 1 if an agent judged is not guarded")
	cmd.Flags().StringVar(&o.agent, "agent", "", "judge only this agent (claude-code, codex, …): what a platform runs before starting it")
	cmd.Flags().BoolVar(&o.noProbe, "no-probe", false, "read the settings only; do not run the hooks (nothing is proved)")
	cmd.Flags().StringVar(&o.dir, "dir", "", "project directory (default: the current git top level)")
	o.register(cmd)
	return cmd
}

type doctorReport struct {
	Agents    []doctorAgent `json:"agents"`
	Policy    *doctorPolicy `json:"policy"`
	Unguarded []string      `json:"unguarded"`
	// RequireEnforcement: the policy's settings.require_enforcement is on.
	RequireEnforcement bool `json:"require_enforcement,omitempty"`
}

// doctorAgent is what Inspect read plus what running the hooks showed.
type doctorAgent struct {
	install.AgentStatus
	Checks []hookCheck `json:"checks,omitempty"`
	Proved bool        `json:"proved"` // some pre-tool hook denied the deny probe and passed the pass probe
	// AgentVersion is what the agent's CLI answered to --version, when it
	// is on PATH (install.AgentVersion); Warnings say when the conformance
	// table (docs/agents.md) does not cover it. They do not make the agent
	// unguarded.
	AgentVersion string   `json:"agent_version,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	Problems     []string `json:"problems"` // why the agent is not guarded, or warnings
}

// hookCheck is one hook command line, run.
type hookCheck struct {
	Command  string                `json:"command"`
	Files    []string              `json:"files"`
	Program  string                `json:"program"`            // the word before "hook"
	Resolved string                `json:"resolved,omitempty"` // where PATH leads, for a program that is not an absolute path
	Version  string                `json:"version,omitempty"`  // what `PROGRAM version` answered
	Policies []hookPolicy          `json:"policies,omitempty"` // the --policy files on the line
	Probes   []install.ProbeResult `json:"probes,omitempty"`
	Problems []string              `json:"problems"`
}

type hookPolicy struct {
	File  string `json:"file"`
	Loads bool   `json:"loads"`
	Hash  string `json:"hash,omitempty"`
	Rules int    `json:"rules,omitempty"`
	Error string `json:"error,omitempty"`
}

type doctorPolicy struct {
	Layers []policy.Layer `json:"layers"`
	Hash   string         `json:"hash"`
	Rules  int            `json:"rules"`
	Error  string         `json:"error,omitempty"`
	// Ignored: what an untrusted project policy could not do (trust.go).
	Ignored []ignoredPart `json:"ignored,omitempty"`
	// Nested: .toolguard/policy.toml files below the workspace root, which
	// are never read (docs/trust.md).
	Nested []string `json:"nested,omitempty"`
	// GuardGaps are the locked default rules (self-protection) the policy
	// does not enforce: docs/surfaces.md.
	GuardGaps []policy.GuardGap `json:"guard_gaps,omitempty"`
}

func runDoctor(sys *system, o *doctorOptions) error {
	project := o.dir
	cwd, _ := sys.getwd()
	if project == "" {
		project = projectDir(sys)
	}
	project = absFrom(cwd, project)
	if o.agent != "" {
		if o.agent == "claude" {
			o.agent = "claude-code"
		}
		if _, err := install.SettingsPath(o.agent, install.ScopeUser, project, "/"); err != nil {
			return usagef("--agent: %v", err)
		}
	}
	rep := doctorReport{Policy: &doctorPolicy{}, Unguarded: []string{}}
	if ps, err := o.load(sys, project); err != nil {
		rep.Policy.Error = err.Error()
	} else {
		rep.Policy.Layers = ps.pol.Layers
		rep.Policy.Hash, rep.Policy.Rules = ps.pol.Hash(), ps.pol.RuleCount()
		rep.Policy.Ignored = ignoredParts(sys, ps.pol)
		rep.Policy.GuardGaps = ps.pol.GuardGaps()
		if ps.pol.Settings.RequireEnforcement {
			o.require = true // settings.require_enforcement: the policy asks for it
			rep.RequireEnforcement = true
		}
	}
	rep.Policy.Nested = nestedPolicies(project)
	checked := map[string]*hookCheck{}
	for _, st := range install.Inspect(sys.home(), project) {
		if o.agent != "" && st.Agent != o.agent {
			continue
		}
		rep.Agents = append(rep.Agents, judgeAgent(sys, o, st, project, checked))
	}
	for _, a := range rep.Agents {
		judged := o.agent != "" || (a.Detected && a.Enforceable)
		if judged && !a.guarded() {
			rep.Unguarded = append(rep.Unguarded, a.Agent)
		}
	}
	if o.json {
		if err := writeJSON(sys, rep); err != nil {
			return err
		}
	} else {
		printDoctor(sys.stdout, &rep)
	}
	if o.require && len(rep.Unguarded) > 0 {
		msg := "not guarded: " + strings.Join(rep.Unguarded, ", ")
		if rep.RequireEnforcement {
			msg += " (settings.require_enforcement is on)"
		}
		return &exitError{code: exitFailure, msg: msg}
	}
	if o.require && rep.Policy.Error != "" && o.agent == "" {
		return &exitError{code: exitFailure, msg: "the policy does not load"}
	}
	return nil
}

// guarded: the agent runs a toolguard hook that proved itself (or, with
// --no-probe, is configured), nothing switches hooks off, and Codex does
// not lack a trust record.
func (a doctorAgent) guarded() bool {
	if !a.Detected || !a.Enforceable || a.Disabled || a.CodexTrust == "untrusted" && len(a.Hooks) > 0 {
		return false
	}
	if a.Checks == nil {
		return a.Guarded
	}
	return a.Proved
}

func judgeAgent(sys *system, o *doctorOptions, st install.AgentStatus, project string, checked map[string]*hookCheck) doctorAgent {
	a := doctorAgent{AgentStatus: st, Problems: []string{}}
	switch {
	case !st.Detected:
		a.Problems = append(a.Problems, "not detected: no settings of this agent were found")
		return a
	case !st.Enforceable:
		return a
	case st.Disabled:
		a.Problems = append(a.Problems, "hooks are switched off by a settings file (see the note)")
	case len(st.Hooks) == 0:
		a.Problems = append(a.Problems, "no pre-tool hook runs toolguard")
	}
	if st.Agent == "codex" && st.CodexTrust == "untrusted" && len(st.Hooks) > 0 {
		a.Problems = append(a.Problems, "Codex has no trust record for its hooks: it skips them until trusted in /hooks")
	}
	if o.noProbe {
		return a
	}
	if v, warn, found := install.AgentVersion(context.Background(), st.Agent); found {
		a.AgentVersion = v
		if warn != "" {
			a.Warnings = append(a.Warnings, warn)
		}
	}
	byCmd := map[string]int{}
	for _, h := range st.Hooks {
		if i, ok := byCmd[h.Command]; ok {
			if !slices.Contains(a.Checks[i].Files, h.File) {
				a.Checks[i].Files = append(a.Checks[i].Files, h.File)
			}
			continue
		}
		key := st.Agent + "\x00" + h.Command
		c, ok := checked[key]
		if !ok {
			c = checkHook(sys, st.Agent, h.Command, project)
			checked[key] = c
		}
		cc := *c
		cc.Files = []string{h.File}
		byCmd[h.Command] = len(a.Checks)
		a.Checks = append(a.Checks, cc)
		if len(cc.Problems) == 0 {
			a.Proved = true
		}
	}
	if len(st.Hooks) > 0 && !a.Proved {
		a.Problems = append(a.Problems, "no hook command proved itself (deny probe denied, pass probe passed)")
	}
	return a
}

// checkHook runs one hook command line the way agent does and reports.
func checkHook(sys *system, agent, line, project string) *hookCheck {
	c := &hookCheck{Command: line, Problems: []string{}}
	words := hookWords(line)
	c.Program = words.program
	if c.Program != "" {
		prog := c.Program
		if w := install.PathLookup(line); w != "" || !filepath.IsAbs(prog) {
			if p, err := exec.LookPath(prog); err == nil {
				c.Resolved = p
				prog = p
			}
			c.Problems = append(c.Problems, fmt.Sprintf("the program %q is found through PATH when the hook runs (now: %s): a toolguard earlier on the agent's PATH takes over the hook", c.Program, orNone(c.Resolved)))
		}
		if v, err := askVersion(prog); err != nil {
			c.Problems = append(c.Problems, "the hook's binary is not toolguard: "+err.Error())
		} else {
			c.Version = v
		}
	}
	cwd, _ := sys.getwd()
	for _, f := range words.policies {
		hp := hookPolicy{File: f}
		pf := policyFlags{files: []string{argPath(f, cwd, sys.home())}, noBuiltin: words.noBuiltin}
		if ps, err := pf.load(sys, project); err != nil {
			hp.Error = err.Error()
			c.Problems = append(c.Problems, fmt.Sprintf("policy %s on the hook line does not load (every call is denied): %v", f, err))
		} else {
			hp.Loads, hp.Hash, hp.Rules = true, ps.pol.Hash(), ps.pol.RuleCount()
		}
		c.Policies = append(c.Policies, hp)
	}
	c.Probes = install.Probe(context.Background(), agent, line, project, os.Environ())
	for _, p := range c.Probes {
		if !p.OK() {
			msg := fmt.Sprintf("%s probe (%s): got %s, exit %d", p.Want, p.Call, p.Got, p.Exit)
			if p.Problem != "" {
				msg += ": " + p.Problem
			}
			if p.Stderr != "" {
				msg += " (stderr: " + truncateLine(p.Stderr, 160) + ")"
			}
			c.Problems = append(c.Problems, msg)
		}
	}
	return c
}

func orNone(s string) string {
	if s == "" {
		return "not found"
	}
	return s
}

type hookLine struct {
	program   string
	policies  []string
	noBuiltin bool
}

// hookWords finds the program before "hook" and the --policy files after
// it in a hook command line.
func hookWords(line string) hookLine {
	var h hookLine
	words := install.SplitWords(line)
	for i := 0; i+1 < len(words); i++ {
		if words[i+1] != "hook" {
			continue
		}
		h.program = words[i]
		rest := words[i+2:]
		for j := 0; j < len(rest); j++ {
			switch w := rest[j]; {
			case w == "--policy" && j+1 < len(rest):
				h.policies = append(h.policies, rest[j+1])
				j++
			case strings.HasPrefix(w, "--policy="):
				h.policies = append(h.policies, strings.TrimPrefix(w, "--policy="))
			case w == "--no-builtin":
				h.noBuiltin = true
			}
		}
		break
	}
	return h
}

func printDoctor(w io.Writer, rep *doctorReport) {
	for _, a := range rep.Agents {
		state := "not detected"
		switch {
		case a.Detected && !a.Enforceable:
			state = "policy not enforced"
		case a.guarded() && a.Checks != nil:
			state = "guarded (proved: the hook denied the deny probe and passed the pass probe)"
		case a.guarded():
			state = "guarded (configured; not probed)"
		case a.Detected:
			state = "NOT GUARDED"
		}
		fmt.Fprintf(w, "%-12s %s\n", a.Agent, state)
		if len(a.Checks) == 0 {
			for _, c := range a.Commands {
				fmt.Fprintf(w, "    hook: %s\n", c)
			}
		}
		for _, c := range a.Checks {
			fmt.Fprintf(w, "    hook: %s\n", c.Command)
			fmt.Fprintf(w, "      in: %s\n", strings.Join(c.Files, ", "))
			if c.Version != "" {
				fmt.Fprintf(w, "      binary: %s\n", c.Version)
			}
			for _, p := range c.Policies {
				if p.Loads {
					fmt.Fprintf(w, "      policy %s: loads, %d rules, %s\n", p.File, p.Rules, p.Hash)
				} else {
					fmt.Fprintf(w, "      policy %s: DOES NOT LOAD: %s\n", p.File, p.Error)
				}
			}
			for _, p := range c.Probes {
				mark := "ok"
				if !p.OK() {
					mark = "FAILED"
				}
				fmt.Fprintf(w, "      probe %q (must %s): %s, exit %d — %s\n", p.Call, p.Want, p.Got, p.Exit, mark)
			}
			for _, p := range c.Problems {
				fmt.Fprintf(w, "      problem: %s\n", p)
			}
		}
		if a.AgentVersion != "" && a.Detected {
			fmt.Fprintf(w, "    agent version: %s\n", a.AgentVersion)
		}
		for _, x := range a.Warnings {
			fmt.Fprintf(w, "    warning: %s\n", x)
		}
		if a.CodexTrust != "" && a.Detected {
			fmt.Fprintf(w, "    codex trust: %s\n", a.CodexTrust)
		}
		if a.Note != "" && a.Detected {
			fmt.Fprintf(w, "    %s\n", a.Note)
		}
		if a.Detected && a.Enforceable && !a.guarded() {
			for _, p := range a.Problems {
				fmt.Fprintf(w, "    problem: %s\n", p)
			}
		}
	}
	if rep.Policy.Error != "" {
		fmt.Fprintf(w, "policy: does not load: %s\n", rep.Policy.Error)
	} else {
		fmt.Fprintf(w, "policy: %d rules, %s\n", rep.Policy.Rules, rep.Policy.Hash)
		for _, l := range rep.Policy.Layers {
			trust := ""
			if l.Untrusted {
				trust = " (untrusted: it can only tighten)"
			}
			fmt.Fprintf(w, "    %-10s %s %s%s\n", l.Name, l.File, l.Hash, trust)
		}
		writeIgnored(w, rep.Policy.Ignored)
		printGuardGaps(w, rep.Policy.GuardGaps)
	}
	for _, n := range rep.Policy.Nested {
		fmt.Fprintf(w, "    not read: %s (below the workspace root; only <root>/.toolguard/policy.toml is)\n", n)
	}
}

// printGuardGaps says which locked default rules are off, grouped by why.
func printGuardGaps(w io.Writer, gaps []policy.GuardGap) {
	var whys []string
	byWhy := map[string][]string{}
	for _, g := range gaps {
		if byWhy[g.Why] == nil {
			whys = append(whys, g.Why)
		}
		byWhy[g.Why] = append(byWhy[g.Why], g.Rule)
	}
	for _, why := range whys {
		fmt.Fprintf(w, "self-protection OFF: %d locked default rule(s) %s: %s\n", len(byWhy[why]), why, strings.Join(byWhy[why], ", "))
	}
}
