package protocol

import (
	"github.com/toolguard/toolguard/internal/call"
)

// Provider names, as used with --provider and in call.Call.Provider.
const (
	NameClaude    = "claude-code"
	NameCodeBuddy = "codebuddy"
	NameCodex     = "codex"
	NameGemini    = "gemini"
	NameCursor    = "cursor"
	NameCopilot   = "copilot"
	NameUniversal = "universal"
)

// claudeCodec speaks Claude Code's PreToolUse dialect (Claude Code hooks reference;
// samples in testdata/payloads/claude-code/) and,
// with name "codebuddy", CodeBuddy Code's, which is the same on the wire
// for everything toolguard reads and writes.
type claudeCodec struct{ name string }

func (k claudeCodec) Name() string      { return k.name }
func (k claudeCodec) SupportsAsk() bool { return true }

func (k claudeCodec) Decode(payload []byte) (call.Call, error) {
	return DecodeWith(k, payload, DecodeOptions{})
}

func (k claudeCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	return decodeHook(k.name, payload, o, inputObject)
}

// decodeHook decodes the snake_case payload shared by Claude Code,
// CodeBuddy and Codex: session_id, cwd, hook_event_name, permission_mode,
// tool_name, tool_input.
func decodeHook(provider string, payload []byte, o DecodeOptions, mode inputMode) (call.Call, error) {
	c, obj, in, err := decodeSnake(provider, payload, mode)
	if err != nil {
		return call.Call{}, err
	}
	c.PermissionMode = obj.str("permission_mode")
	classify(&c, in, pather{cwd: c.Cwd, home: o.Home})
	return c, nil
}

// decodeSnake reads what every snake_case payload carries (Claude Code,
// CodeBuddy, Codex, Gemini): tool_name (required), tool_input,
// hook_event_name, session_id and cwd. The caller classifies the tool.
func decodeSnake(provider string, payload []byte, mode inputMode) (call.Call, object, input, error) {
	obj, err := parseObject(payload)
	if err != nil {
		return call.Call{}, obj, input{}, err
	}
	tool, err := obj.requireString("tool_name")
	if err != nil {
		return call.Call{}, obj, input{}, err
	}
	in, err := obj.input("tool_input", mode)
	if err != nil {
		return call.Call{}, obj, input{}, err
	}
	return call.Call{
		Provider:  provider,
		Event:     obj.str("hook_event_name"),
		SessionID: obj.str("session_id"),
		Cwd:       cleanCwd(obj.str("cwd")),
		Tool:      tool,
		Input:     in.raw,
	}, obj, in, nil
}

// claudeReply is Claude Code's PreToolUse reply. Continue and StopReason
// stop the whole turn (CodeBuddy accepts both keys).
type claudeReply struct {
	HookSpecificOutput claudeOutput `json:"hookSpecificOutput"`
	Continue           *bool        `json:"continue,omitempty"`
	StopReason         string       `json:"stopReason,omitempty"`
}

// Encode: pass → nothing; allow/ask/deny → hookSpecificOutput with that
// permissionDecision (a reason is always given for ask and deny). StopTurn
// on a deny adds "continue":false and "stopReason"; the deny stays, so the
// tool is blocked whether or not the turn ends.
//
// Defer on a deny (Claude Code only) sends permissionDecision "defer"
// with the reason instead: ask_fallback chose it (cmd/toolguard headless.go).
func (k claudeCodec) Encode(v call.Verdict) Reply {
	d := decision(v.Decision)
	switch d {
	case call.Pass:
		return noReply()
	case call.Allow:
		out := preToolUse(d, v.Reason)
		if len(v.UpdatedInput) > 0 {
			out.UpdatedInput = v.UpdatedInput
			if k.name == NameCodeBuddy {
				out.ModifiedInput = v.UpdatedInput
			}
		}
		return jsonReply(claudeReply{HookSpecificOutput: out})
	}
	if d == call.Deny && v.Defer && k.name == NameClaude {
		// Parks the call: claude -p ends with stop_reason "tool_deferred",
		// and --resume re-runs this hook (docs/agents.md). No continue:false:
		// the process ends by itself.
		return jsonReply(claudeReply{HookSpecificOutput: preToolUse(d, reasonOr(v.Reason, d)).deferred()})
	}
	r := claudeReply{HookSpecificOutput: preToolUse(d, reasonOr(v.Reason, d))}
	if d == call.Deny && v.StopTurn {
		stop := false
		r.Continue, r.StopReason = &stop, stopReason(v)
	}
	return jsonReply(r)
}

// deferred turns a deny's hookSpecificOutput into Claude Code's defer.
func (o claudeOutput) deferred() claudeOutput {
	o.PermissionDecision = "defer"
	return o
}
