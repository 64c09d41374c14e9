package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestRelativeXDGIgnored: the user's policy is found through
// XDG_CONFIG_HOME only when it is an absolute path (workspace's one XDG
// rule). A relative XDG_CONFIG_HOME (".", "rel") would make a file of the
// hook's working directory the trusted user layer; it is ignored, and the
// user policy is looked for at ~/.config/toolguard. The look-alike, the
// same directory named absolutely, is the user layer and decides.
func TestRelativeXDGIgnored(t *testing.T) {
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, tc := range []struct {
			name, xdg string // xdg: relative to home when not "abs"
			want      string
		}{
			{"relative", "rel", ""},
			{"dot-relative", "./rel", ""},
			{"absolute look-alike", "abs", "deny"},
		} {
			home := t.TempDir()
			dir := filepath.Join(home, "rel", "toolguard")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			pol := "version = 1\n[[rule]]\nid = \"no-hello\"\ndecision = \"deny\"\ncommand = [\"echo hello\"]\n"
			if err := os.WriteFile(filepath.Join(dir, "policy.toml"), []byte(pol), 0o644); err != nil {
				t.Fatal(err)
			}
			xdg := tc.xdg
			if xdg == "abs" {
				xdg = filepath.Join(home, "rel")
			}
			f, sys := newFake(t, payload(agent, home, "echo hello"), map[string]string{"HOME": home, "XDG_CONFIG_HOME": xdg})
			sys.getwd = func() (string, error) { return home, nil }
			code := run(context.Background(), []string{"hook", "--provider", agent}, sys)
			r := hookReply{agent, replyDecision(t, agent, f.stdout.String()), f.stdout.String(), f.stderr.String(), code}
			wantDecision(t, agent+" "+tc.name, r, tc.want)
		}
	}
}
