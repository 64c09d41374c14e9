package protocol

import (
	"errors"
	"testing"
)

// TestDecodeRequiresInput: a tool call whose class needs a command or a
// path, sent without one (missing, null, empty or of the wrong type), is a
// DecodeError, which the hook answers with on_error. These decoded as an
// empty call before and were passed. The look-alikes must still decode.
func TestDecodeRequiresInput(t *testing.T) {
	t.Parallel()
	bad := []struct{ codec, payload string }{
		{NameClaude, `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash","tool_input":null}`},
		{NameClaude, `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"Bash"}`},
		{NameClaude, hookJSON("Bash", `{"command":5}`)},
		{NameClaude, hookJSON("Bash", `{"command":null}`)},
		{NameClaude, hookJSON("Bash", `{"command":{"a":1}}`)},
		{NameClaude, hookJSON("Bash", `{"command":""}`)},
		{NameClaude, hookJSON("Write", `{"content":"x"}`)},
		{NameClaude, hookJSON("Write", `{"file_path":7,"content":"x"}`)},
		{NameClaude, hookJSON("Edit", `{"old_string":"a","new_string":"b"}`)},
		{NameClaude, hookJSON("Read", `{}`)},
		{NameCodeBuddy, hookJSON("Bash", `{"command":["x",1]}`)},
		{NameCodex, hookJSON("apply_patch", `{"command":""}`)},
		{NameCodex, hookJSON("Bash", `{"command":[]}`)},
		{NameGemini, geminiJSON("run_shell_command", `{"command":42}`, "")},
		{NameGemini, geminiJSON("write_file", `{"content":"x"}`, "")},
		{NameCopilot, copilotCamel("bash", `{"command":true}`)},
		{NameUniversal, `{"sessionId":"u1","toolName":"bash","toolArgs":{},"workspace_roots":["/w"]}`},
	}
	for _, tc := range bad {
		t.Run(tc.codec+"/"+tc.payload, func(t *testing.T) {
			t.Parallel()
			_, err := mustLookup(t, tc.codec).Decode([]byte(tc.payload))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("want a DecodeError, got %v", err)
			}
		})
	}
	good := []struct{ codec, payload string }{
		{NameClaude, hookJSON("Bash", `{"command":"ls"}`)},
		{NameClaude, hookJSON("Write", `{"file_path":"a","content":""}`)},
		{NameClaude, hookJSON("mcp__github__create_issue", `{"title":"x"}`)},
		{NameClaude, hookJSON("Task", `{}`)},
		{NameClaude, hookJSON("WebSearch", `{"query":"x"}`)},
		{NameCodex, hookJSON("Bash", `{"command":["bash","-lc","ls"]}`)},
		{NameGemini, geminiJSON("run_shell_command", `{"command":"ls"}`, "")},
	}
	for _, tc := range good {
		t.Run("ok/"+tc.codec+"/"+tc.payload, func(t *testing.T) {
			t.Parallel()
			if _, err := mustLookup(t, tc.codec).Decode([]byte(tc.payload)); err != nil {
				t.Fatal(err)
			}
		})
	}
}
