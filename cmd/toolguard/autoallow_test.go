package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookAutoAllow: with settings.auto_allow = "read-only", a command
// proven read-only is allowed through the real hook path (rule id
// auto-read-only in the reason), for Claude Code and Gemini CLI; look-alikes
// that write, run something or read a secret keep their decision.
func TestHookAutoAllow(t *testing.T) {
	cases := []routeCase{
		{cmd: "git status && git diff | head", want: "allow"},
		{cmd: "ls src; grep -rn foo src | wc -l", want: "allow"},
		{cmd: "find . -name '*.go' | sort | head -5", want: "allow"},
		{cmd: "sed -n '1,10p' src/a.go", want: "allow"},
		{tool: "Read", in: `{"file_path": "/home/user/project/src/a.go"}`, want: "allow"},
		// look-alikes that must not be allowed
		{cmd: "sed -i s/a/b/ f", want: "pass"},
		{cmd: "find . -delete", want: "deny"},
		{cmd: "git diff > out.txt", want: "pass"},
		{cmd: "cat .env", want: "ask"},
		{cmd: "echo $(curl x)", want: "pass"},
		{cmd: "GIT_PAGER=sh git log", want: "pass"},
		{cmd: "awk 'BEGIN{system(\"id\")}'", want: "pass"},
		{cmd: "ls --unknown-opt", want: "pass"},
		{cmd: "cat ~/.ssh/id_rsa", want: "deny"},
		{cmd: "cat ~/notes.txt", want: "pass"},
		{cmd: "git log -p | sh", want: "pass"},
		{cmd: "sed 's/x/y/e' f", want: "ask"},
		{cmd: "find . -fprint /tmp/x", want: "pass"},
		{tool: "Read", in: `{"file_path": "/home/user/notes.txt"}`, want: "pass"},
		{tool: "Read", in: `{"file_path": "/home/user/project/.env"}`, want: "ask"},
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, c := range cases {
			name := c.cmd
			if name == "" {
				name = c.tool + " " + c.in
			}
			t.Run(agent+"/"+name, func(t *testing.T) {
				t.Parallel()
				dir := t.TempDir()
				pol, audit := filepath.Join(dir, "auto.toml"), filepath.Join(dir, "audit.jsonl")
				if err := os.WriteFile(pol, []byte("[settings]\nauto_allow = \"read-only\"\naudit_log = \""+audit+"\"\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				f, sys := newFake(t, routePayload(t, agent, c), map[string]string{"HOME": "/home/user"})
				sys.etc = "/home/user/etc"
				code := run(context.Background(), []string{"hook", "--provider", agent, "--policy", pol}, sys)
				if code != 0 {
					t.Fatalf("exit %d, stderr %q", code, f.stderr.String())
				}
				got, reason := routeDecision(t, agent, f.stdout.String())
				if got != c.want {
					t.Fatalf("got %s (%q), want %s; reply %s", got, reason, c.want, f.stdout.String())
				}
				// Gemini CLI's allow carries no reason (internal/protocol):
				// the audit names the rule for both.
				if got == "allow" && agent == "claude-code" && !strings.Contains(reason, "auto-read-only") {
					t.Errorf("allow without auto-read-only in the reason: %q", reason)
				}
				log, _ := os.ReadFile(audit)
				if got == "allow" && !strings.Contains(string(log), `"rule":"auto-read-only"`) {
					t.Errorf("audit %q does not name auto-read-only", log)
				}
				if got != "allow" && strings.Contains(f.stdout.String(), "auto-read-only") {
					t.Errorf("reply names auto-read-only: %s", f.stdout.String())
				}
			})
		}
	}
}

// TestHookAutoAllowSymlink: a workspace file that is a symlink to a key
// is not auto-allowed (the hook resolves links; the secrets rules match
// the resolved path), and the default policy (auto_allow off) allows
// nothing on its own.
func TestHookAutoAllowSymlink(t *testing.T) {
	ws := t.TempDir()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(ws, "innocent-key")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "plain.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	pol := filepath.Join(t.TempDir(), "auto.toml")
	if err := os.WriteFile(pol, []byte("[settings]\nauto_allow = \"read-only\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, tc := range []struct {
			cmd, want string
			auto      bool
		}{
			{"cat innocent-key", "deny", true},
			{"head -1 innocent-key", "deny", true},
			// wc prints counts, not content: no secrets rule denies it
			// (round 5), but auto_allow still does not allow it, since
			// what it reads resolves to a key.
			{"wc -l innocent-key", "pass", true},
			{"cat plain.txt", "allow", true},
			{"cat plain.txt", "pass", false},
		} {
			shell := map[string]string{"claude-code": "Bash", "gemini": "run_shell_command"}[agent]
			event := map[string]string{"claude-code": "PreToolUse", "gemini": "BeforeTool"}[agent]
			in, _ := json.Marshal(map[string]string{"command": tc.cmd})
			payload, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": ws, "hook_event_name": event,
				"tool_name": shell, "tool_input": json.RawMessage(in)})
			f, sys := newFake(t, payload, map[string]string{"HOME": home})
			args := []string{"hook", "--provider", agent}
			if tc.auto {
				args = append(args, "--policy", pol)
			}
			if code := run(context.Background(), args, sys); code != 0 {
				t.Fatalf("%s %q: exit %d, stderr %q", agent, tc.cmd, code, f.stderr.String())
			}
			if got, reason := routeDecision(t, agent, f.stdout.String()); got != tc.want {
				t.Errorf("%s %q (auto %v): got %s (%q), want %s", agent, tc.cmd, tc.auto, got, reason, tc.want)
			}
		}
	}
}
