package protocol

import "github.com/toolguard/toolguard/internal/call"

// requireInput fails a decoded tool call that lacks what its class needs to
// be judged: a shell tool without a command string, a file tool that names
// no path. Such a payload is malformed (a field missing, null or of the
// wrong type: "command": 5, "tool_input": null, a Write without file_path),
// and a call the policy cannot see is never passed: the hook answers it
// with on_error, in the agent's dialect.
func requireInput(c call.Call) error {
	switch c.Kind {
	case call.KindShell:
		if c.Command == "" {
			return decodeErr(-1, "tool %q: tool_input has no command string (missing, empty, null or not a string)", c.Tool)
		}
	case call.KindWrite, call.KindEdit, call.KindRead:
		if len(c.Paths) == 0 && len(c.Patterns) == 0 {
			return decodeErr(-1, "tool %q: tool_input names no file path (missing, empty, null or not a string)", c.Tool)
		}
	}
	return nil
}
