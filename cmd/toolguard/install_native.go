package main

import (
	"fmt"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// runNative is `install --native` / `uninstall --native`: the locked deny
// rules of the policy in effect (or --policy files) that Claude Code can
// express, written into (removed from) its permissions.deny, and the allow
// rules proven exact (install.ClaudeAllows) into its permissions.allow. The logic is
// internal/install's (native.go); this is wiring.
func runNative(sys *system, o *installOptions, provider string, uninstall bool) error {
	if provider != "claude-code" {
		return usagef("--native writes Claude Code's permission rules: use it with --provider claude-code")
	}
	if o.command != "" || o.portable || o.preToolOnly {
		return usagef("--native writes permission rules, no hook: --command, --portable and --pre-tool-only do not apply")
	}
	cwd, _ := sys.getwd()
	dir := sys.env().CurrentProject()
	if o.dir != "" {
		dir = workspace.ProjectOf(workspace.ArgPath(o.dir, cwd, sys.home()))
	}
	opts := install.Options{Provider: provider, Scope: o.scope, Dir: dir, Home: sys.home(), DryRun: o.dryRun}
	prefix := ""
	if o.dryRun {
		prefix = "(dry run) "
	}
	if uninstall {
		res, err := install.UninstallNative(opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(sys.stdout, "%s%s\n", prefix, res.Summary)
		return nil
	}
	pf := policyFlags{}
	for _, p := range o.policies {
		pf.Files = append(pf.Files, workspace.ArgPath(p, cwd, sys.home()))
	}
	ps, err := pf.load(sys, dir)
	if err != nil {
		return fmt.Errorf("the policy does not load, nothing was written: %w", err)
	}
	rules, skips := install.ClaudeRules(ps.Pol, o.scope, policy.Env{Home: sys.home(), Workspace: dir})
	res, err := install.InstallNative(opts, rules)
	if err != nil {
		return err
	}
	printInstall(sys, o.dryRun, res, false)
	for _, s := range skips {
		fmt.Fprintf(sys.stdout, "left to the hook: rule %s: %s\n", s.From, s.Why)
	}
	return nil
}
