package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestLockIsAFloor: a locked rule stops later layers loosening it, not
// tightening it. Under the locked ask shell-env-file-write, a policy's
// deny of the same write denies (before, the locked ask won, so an
// imported or platform deny came out as an ask), while a policy's allow,
// even at priority 100, still asks. Through the real hook path for Claude
// Code and Gemini CLI.
func TestLockIsAFloor(t *testing.T) {
	cases := []struct {
		name, rule, want string
	}{
		{"deny-tightens", `decision = "deny"
path = ["~/.bashrc"]
op = ["write"]`, "deny"},
		{"allow-cannot-loosen", `decision = "allow"
priority = 100
path = ["~/.bashrc"]
op = ["write"]`, "ask"},
		{"deny-on-other-file", `decision = "deny"
path = ["~/.vimrc"]
op = ["write"]`, "ask"},
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, tc := range cases {
			t.Run(agent+"/"+tc.name, func(t *testing.T) {
				dir := t.TempDir()
				pol := filepath.Join(dir, "policy.toml")
				if err := os.WriteFile(pol, []byte("version = 1\n[[rule]]\nid = \"org-bashrc\"\n"+tc.rule+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				c := routeCase{tool: "Write", in: `{"file_path":"/home/user/.bashrc","content":"export X=1\n"}`}
				if agent == "gemini" {
					c.tool = "write_file"
				}
				f, sys := newFake(t, routePayload(t, agent, c), map[string]string{"HOME": "/home/user"})
				sys.etc = "/home/user/etc"
				if code := run(context.Background(), []string{"hook", "--provider", agent, "--policy", pol}, sys); code != 0 {
					t.Fatalf("exit %d, stderr %q", code, f.stderr.String())
				}
				if got, reason := routeDecision(t, agent, f.stdout.String()); got != tc.want {
					t.Fatalf("got %s (%q), want %s", got, reason, tc.want)
				}
			})
		}
	}
}
