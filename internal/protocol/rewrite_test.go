package protocol

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// TestUpdatedInput: an allow with an edited input carries it in the
// dialects that have a rewrite field, and becomes a deny in every other,
// so that the unedited call never runs.
func TestUpdatedInput(t *testing.T) {
	t.Parallel()
	in := json.RawMessage(`{"command":"git tag v1.0.1"}`)
	v := call.Verdict{Decision: call.Allow, Reason: "ok", UpdatedInput: in}
	shell := call.Call{Kind: call.KindShell, Tool: "Bash"}
	tests := []struct {
		name, want string
	}{
		{NameClaude, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok","updatedInput":{"command":"git tag v1.0.1"}}}` + "\n"},
		{NameCodeBuddy, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"ok","updatedInput":{"command":"git tag v1.0.1"},"modifiedInput":{"command":"git tag v1.0.1"}}}` + "\n"},
		{NameGemini, `{"decision":"allow","hookSpecificOutput":{"tool_input":{"command":"git tag v1.0.1"}}}` + "\n"},
		{NameCodex, "deny"},
		{NameCopilot, "deny"},
		{NameCursor, "deny"},
		{NameUniversal, "deny"},
	}
	for _, tt := range tests {
		c, err := Lookup(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range []Reply{c.Encode(v), EncodeFor(c, shell, v)} {
			got := string(r.Stdout) + string(r.Stderr)
			if tt.want == "deny" {
				if !strings.Contains(got, "deny") || !strings.Contains(got, "edited") || strings.Contains(got, "v1.0.1") {
					t.Errorf("%s: %q, want a deny naming the edit, without the input", tt.name, got)
				}
				continue
			}
			if got != tt.want {
				t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
			}
		}
		// without an edit, the allow is unchanged
		plain := c.Encode(call.Verdict{Decision: call.Allow, Reason: "ok"})
		if strings.Contains(string(plain.Stdout), "nput") {
			t.Errorf("%s: plain allow carries an input: %s", tt.name, plain.Stdout)
		}
	}
	// what is proven in e2e: Claude/CodeBuddy Write (not Bash, not Edit), Gemini write_file and shell, no Codex
	for _, tt := range []struct {
		codec string
		c     call.Call
		want  bool
	}{
		{NameClaude, shell, false},
		{NameClaude, call.Call{Kind: call.KindWrite, Tool: "Write"}, true},
		{NameClaude, call.Call{Kind: call.KindEdit, Tool: "Edit"}, false},
		{NameGemini, call.Call{Kind: call.KindEdit, Tool: "replace"}, false},
		{NameCodeBuddy, call.Call{Kind: call.KindWrite, Tool: "Write"}, true},
		{NameGemini, call.Call{Kind: call.KindShell, Tool: "run_shell_command"}, true},
		{NameGemini, call.Call{Kind: call.KindWrite, Tool: "write_file"}, true},
		{NameGemini, call.Call{Kind: call.KindMCP, Tool: "mcp_x_y"}, false},
		{NameCodex, shell, false},
		{NameCursor, call.Call{Kind: call.KindWrite, Tool: "Write"}, false},
	} {
		c, _ := Lookup(tt.codec)
		if got := Rewrites(c, tt.c); got != tt.want {
			t.Errorf("Rewrites(%s, %s) = %v, want %v", tt.codec, tt.c.Tool, got, tt.want)
		}
	}
}
