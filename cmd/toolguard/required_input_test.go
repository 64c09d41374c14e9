package main

import "testing"

// TestRoutesRequiredInput: a tool call sent without what its class needs —
// a shell command that is a number, a list, null or empty; tool_input null;
// a Write or Read without a path — is answered with on_error (deny) in the
// agent's dialect, through the real hook path for Claude Code and Gemini
// CLI. Before, 7 of 11 dialects wrote no reply (a pass). The look-alikes
// must pass.
func TestRoutesRequiredInput(t *testing.T) {
	runRoutes(t, []routeCase{
		{tool: "Bash", in: `{"command":5}`, want: "deny"},
		{tool: "Bash", in: `{"command":["rm","-rf","/"]}`, want: "deny"}, // an argv Claude Code would not run: judged as "rm -rf /"
		{tool: "Bash", in: `{"command":null}`, want: "deny"},
		{tool: "Bash", in: `{"command":""}`, want: "deny"},
		{tool: "Bash", in: `null`, want: "deny"},
		{tool: "Bash", in: `{}`, want: "deny"},
		{tool: "Write", in: `{"content":"x"}`, want: "deny"},
		{tool: "Write", in: `{"file_path":3,"content":"x"}`, want: "deny"},
		{tool: "Read", in: `{}`, want: "deny"},
		// Look-alikes.
		{tool: "Bash", in: `{"command":"ls -la"}`, want: "pass"},
		{tool: "Write", in: `{"file_path":"notes.md","content":""}`, want: "pass"},
		{tool: "Read", in: `{"file_path":"README.md"}`, want: "pass"},
		{tool: "Task", in: `{}`, want: "pass"},
	})
}
