package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRuleGlobNegatedClass: `[!…]` in a rule's command, args, tool and
// input globs means "none of", as in sh, gitignore and the path globs —
// path.Match alone reads it as "'!' or one of", which turns a deny rule
// inside out. Through the real hook path for Claude Code and Gemini CLI,
// with look-alikes the rule must not catch.
func TestRuleGlobNegatedClass(t *testing.T) {
	const pol = `version = 1
[[rule]]
id = "org-push-not-origin"
decision = "deny"
command = ["git push [!o]*"]
justification = "push only to origin"

[[rule]]
id = "org-branch-not-lower"
decision = "deny"
command = ["git branch"]
args = ['[!a-z\-]*']
justification = "branch names start lower-case"
`
	cases := []struct{ cmd, want string }{
		{"git push upstream main", "deny"},
		{"git push origin main", "pass"},
		{"git push ! main", "deny"}, // '!' is not 'o': the old reading let this one through as a member
		{"git branch Feature", "deny"},
		{"git branch feature", "pass"},
		{"git branch -d old", "pass"},
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(file, []byte(pol), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, c := range cases {
			t.Run(agent+"/"+c.cmd, func(t *testing.T) {
				f, sys := newFake(t, routePayload(t, agent, routeCase{cmd: c.cmd}), map[string]string{"HOME": "/home/user"})
				sys.etc = "/home/user/etc"
				if code := run(context.Background(), []string{"hook", "--provider", agent, "--policy", file}, sys); code != 0 {
					t.Fatalf("exit %d, stderr %q", code, f.stderr.String())
				}
				if got, reason := routeDecision(t, agent, f.stdout.String()); got != c.want {
					t.Fatalf("got %s (%q), want %s", got, reason, c.want)
				}
			})
		}
	}
}
