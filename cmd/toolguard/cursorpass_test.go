package main

import (
	"context"
	"testing"
)

// TestCursorPassIsExplicitAllow: install sets Cursor's failClosed, under
// which an empty reply blocks; so through the real hook path every call
// toolguard lets through (a pass: no rule matched) is printed as
// {"permission":"allow"} on every Cursor event, while a deny stays a deny.
// Look-alikes: the same pass in Claude Code's and Gemini's dialects is
// still no output.
func TestCursorPassIsExplicitAllow(t *testing.T) {
	const allow = `{"permission":"allow"}` + "\n"
	cases := []struct {
		name, provider, payload, want string
	}{
		{"shell pass", "cursor", `{"hook_event_name":"beforeShellExecution","conversation_id":"c1","workspace_roots":["/tmp/p"],"command":"git status","cwd":"/tmp/p"}`, allow},
		{"preToolUse pass", "cursor", `{"hook_event_name":"preToolUse","conversation_id":"c1","workspace_roots":["/tmp/p"],"tool_name":"Shell","tool_input":{"command":"ls -la"},"cwd":"/tmp/p"}`, allow},
		{"read pass", "cursor", `{"hook_event_name":"beforeReadFile","conversation_id":"c1","workspace_roots":["/tmp/p"],"file_path":"/tmp/p/README.md","content":"x"}`, allow},
		{"mcp pass", "cursor", `{"hook_event_name":"beforeMCPExecution","conversation_id":"c1","workspace_roots":["/tmp/p"],"tool_name":"search","tool_input":"{\"q\":\"x\"}","url":"https://mcp.example"}`, allow},
		{"shell deny", "cursor", `{"hook_event_name":"beforeShellExecution","conversation_id":"c1","workspace_roots":["/tmp/p"],"command":"git push --force origin main","cwd":"/tmp/p"}`, "deny"},
		{"read deny", "cursor", `{"hook_event_name":"beforeReadFile","conversation_id":"c1","workspace_roots":["/tmp/p"],"file_path":"/home/u/.ssh/id_rsa","content":"x"}`, `{"permission":"deny"}` + "\n"},
		{"claude pass (look-alike)", "claude-code", `{"session_id":"s1","cwd":"/tmp/p","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git status"}}`, ""},
		{"gemini pass (look-alike)", "gemini", `{"session_id":"s1","cwd":"/tmp/p","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"git status"}}`, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, sys := newFake(t, []byte(tc.payload), map[string]string{"HOME": "/home/u"})
			code := run(context.Background(), []string{"hook", "--provider", tc.provider}, sys)
			out := f.stdout.String()
			if code != 0 {
				t.Fatalf("exit %d: %s%s", code, out, f.stderr.String())
			}
			if tc.want == "deny" {
				if len(out) < 22 || out[:22] != `{"permission":"deny","` {
					t.Errorf("reply %q, want a deny with messages", out)
				}
				return
			}
			if out != tc.want {
				t.Errorf("reply %q, want %q", out, tc.want)
			}
		})
	}
}
