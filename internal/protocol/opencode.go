package protocol

import "github.com/toolguard/toolguard/internal/call"

// NameOpencode is opencode's provider name (`toolguard hook --provider opencode`).
const NameOpencode = "opencode"

// opencodeClient is the "client" field toolguard's opencode plugin puts in
// every payload, so that Detect can tell it from Claude Code's.
const opencodeClient = "opencode"

// opencodeCodec speaks the dialect of toolguard's own opencode plugin
// (hooks/opencode/toolguard.js). opencode has no command hooks; the plugin's
// tool.execute.before handler builds a Claude-style snake_case payload
// {session_id, cwd, hook_event_name: "PreToolUse", tool_name, tool_input,
// tool_use_id, client: "opencode"} from opencode's (input {tool, sessionID, callID}, output
// {args}) and reads the Claude-style reply: a deny — or any reply, exit
// code or output it cannot read — makes it throw, which blocks the tool and
// hands the message to the model. Tool names are opencode's (bash, write,
// edit, read, glob, grep, list, …; file paths in filePath).
//
// A plugin cannot open a prompt from tool.execute.before, so opencode has no
// ask: SupportsAsk is false and an ask becomes a deny that records an
// approval request (as for Codex).
type opencodeCodec struct{}

func (opencodeCodec) Name() string      { return NameOpencode }
func (opencodeCodec) SupportsAsk() bool { return false }

func (k opencodeCodec) Decode(payload []byte) (call.Call, error) {
	return k.decode(payload, DecodeOptions{})
}

func (opencodeCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	return decodeHook(NameOpencode, payload, o, inputObject)
}

// Encode is Claude's reply without continue/stopReason: the plugin reads
// hookSpecificOutput only.
func (opencodeCodec) Encode(v call.Verdict) Reply {
	v.StopTurn = false
	return claudeCodec{name: NameOpencode}.Encode(v)
}
