package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// TestMutateRuleSeesPastValueFlags: the locked rule toolguard-cli-mutate
// denies `toolguard approvals approve|reject|prune` whatever flags come
// before the subcommand. cobra takes the word after a value flag as its
// value, so the policy must know every one of them (internal/policy
// args.go, toolguardValueFlags): a flag it does not know makes its value
// look like the subcommand, and `toolguard approvals --server URL approve
// ID` would pass. The flags come from the real command tree, so a new
// one fails here until the policy knows it. Through the real hook path,
// Claude Code and Codex; the read-only `list` with the same flag passes.
func TestMutateRuleSeesPastValueFlags(t *testing.T) {
	_, sys := newFake(t, nil, nil)
	root := newRootCmd(sys)
	appr, _, err := root.Find([]string{"approvals"})
	if err != nil || appr.Name() != "approvals" {
		t.Fatalf("approvals: %v", err)
	}
	var flags []string
	visit := func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			return
		}
		flags = append(flags, "--"+f.Name)
		if f.Shorthand != "" {
			flags = append(flags, "-"+f.Shorthand)
		}
	}
	appr.PersistentFlags().VisitAll(visit)
	root.PersistentFlags().VisitAll(visit)
	if !strings.Contains(strings.Join(flags, " "), "--server") || !strings.Contains(strings.Join(flags, " "), "--state-dir") {
		t.Fatalf("the flags of approvals: %v", flags)
	}
	e := newTrustEnv(t)
	for _, agent := range []string{"claude-code", "codex"} {
		for _, f := range flags {
			for _, form := range []string{f + " unix:///run/x.sock", f + "=unix:///run/x.sock"} {
				for _, sub := range []string{"approve req_x", "reject req_x --reason no", "prune"} {
					cmd := "toolguard approvals " + form + " " + sub
					r := e.hook(agent, e.project, cmd)
					wantDecision(t, agent+": "+cmd, r, "deny")
					if !strings.Contains(r.stdout, "toolguard-cli-mutate") {
						t.Errorf("%s: %s: not the mutate rule: %s", agent, cmd, r.stdout)
					}
				}
				cmd := "toolguard approvals " + form + " list"
				wantDecision(t, agent+": "+cmd, e.hook(agent, e.project, cmd), "")
			}
		}
	}
}
