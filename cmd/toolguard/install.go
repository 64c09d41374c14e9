package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/shellparse"
)

type installOptions struct {
	provider string
	scope    string
	dir      string
	policies []string
	dryRun   bool
	command  string
}

func newInstallCmd(sys *system, uninstall bool) *cobra.Command {
	var o installOptions
	use, short := "install", "Add toolguard as an agent's PreToolUse hook (idempotent, keeps a backup)"
	if uninstall {
		use, short = "uninstall", "Remove toolguard's hook entry from an agent's settings, and nothing else"
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

Other keys and other hooks are left as they are; a file that does not parse is not
touched. The hook command is this binary's absolute path with "hook --provider P" and
any --policy files (made absolute).`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInstall(sys, &o, uninstall) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.provider, "provider", "", "agent: claude-code (claude), codebuddy, codex, gemini, cursor, copilot")
	fl.StringVar(&o.scope, "scope", install.ScopeProject, "project or user")
	fl.StringVar(&o.dir, "dir", "", "project directory (default: the current directory)")
	fl.BoolVar(&o.dryRun, "dry-run", false, "show what would change; write nothing")
	if !uninstall {
		fl.StringArrayVar(&o.policies, "policy", nil, "policy file the hook should load (repeatable)")
		fl.StringVar(&o.command, "command", "", "the toolguard binary to run (default: this one)")
	}
	return cmd
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
	cwd, _ := sys.getwd()
	dir := absFrom(cwd, o.dir)
	if dir == "" {
		dir = cwd
	}
	bin := o.command
	if bin == "" {
		exe, err := sys.executable()
		if err != nil {
			return fmt.Errorf("cannot find this binary's path (%v); pass --command", err)
		}
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		bin = exe
	}
	parts := []string{shellparse.Quote(bin), "hook", "--provider", codec.Name()}
	for _, p := range o.policies {
		abs := absFrom(cwd, expandTilde(p, sys.home()))
		if _, err := os.Stat(abs); err != nil {
			return fmt.Errorf("policy %s: %w", p, err)
		}
		parts = append(parts, "--policy", shellparse.Quote(abs))
	}
	opts := install.Options{Provider: codec.Name(), Scope: o.scope, Dir: dir, Home: sys.home(),
		Command: strings.Join(parts, " "), DryRun: o.dryRun}
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

type doctorOptions struct {
	policyFlags
	json    bool
	require bool
	dir     string
}

func newDoctorCmd(sys *system) *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show which agents are guarded by toolguard and which policy is in force",
		Long: `doctor looks for each agent's settings (user and project), reports whether toolguard
is its PreToolUse hook and with which command line, agents that cannot be guarded by a
hook ("policy not enforced"), and the policy files in force with their hashes.
--require-enforcement exits 1 when any detected agent is not guarded.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(sys, &o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.require, "require-enforcement", false, "exit 1 if a detected agent is not guarded")
	cmd.Flags().StringVar(&o.dir, "dir", "", "project directory (default: the current git top level)")
	o.register(cmd)
	return cmd
}

type doctorReport struct {
	Agents    []install.AgentStatus `json:"agents"`
	Policy    *doctorPolicy         `json:"policy"`
	Unguarded []string              `json:"unguarded"`
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
	rep := doctorReport{Agents: install.Inspect(sys.home(), project), Policy: &doctorPolicy{}, Unguarded: []string{}}
	if ps, err := o.load(sys, project); err != nil {
		rep.Policy.Error = err.Error()
	} else {
		rep.Policy.Layers = ps.pol.Layers
		rep.Policy.Hash, rep.Policy.Rules = ps.pol.Hash(), len(ps.pol.Rules())
		rep.Policy.Ignored = ignoredParts(sys, ps.pol)
		rep.Policy.GuardGaps = ps.pol.GuardGaps()
	}
	rep.Policy.Nested = nestedPolicies(project)
	for _, a := range rep.Agents {
		if a.Detected && !a.Guarded {
			rep.Unguarded = append(rep.Unguarded, a.Agent)
		}
	}
	if o.json {
		if err := writeJSON(sys, rep); err != nil {
			return err
		}
	} else {
		w := sys.stdout
		for _, a := range rep.Agents {
			state := "not detected"
			switch {
			case a.Detected && !a.Enforceable:
				state = "policy not enforced"
			case a.Detected && a.Guarded:
				state = "guarded"
			case a.Detected:
				state = "NOT GUARDED"
			}
			fmt.Fprintf(w, "%-12s %s\n", a.Agent, state)
			for _, c := range a.Commands {
				fmt.Fprintf(w, "    hook: %s\n", c)
			}
			if a.Note != "" && a.Detected {
				fmt.Fprintf(w, "    %s\n", a.Note)
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
	if o.require && len(rep.Unguarded) > 0 {
		return &exitError{code: exitFailure, msg: "not guarded: " + strings.Join(rep.Unguarded, ", ")}
	}
	if o.require && rep.Policy.Error != "" {
		return &exitError{code: exitFailure, msg: "the policy does not load"}
	}
	return nil
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
