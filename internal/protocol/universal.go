package protocol

import (
	"github.com/toolguard/toolguard/internal/call"
)

// universalCodec is used when the agent is unknown. Its deny is the one
// reply observed to block in every agent tested (e2e-reference
// universal-deny.json): Claude's hookSpecificOutput deny and the legacy
// {"decision":"block","reason"} in one object.
type universalCodec struct{}

func (universalCodec) Name() string { return NameUniversal }

// SupportsAsk is false: there is no ask every agent understands.
func (universalCodec) SupportsAsk() bool { return false }

func (k universalCodec) Decode(payload []byte) (call.Call, error) {
	return DecodeWith(k, payload, DecodeOptions{})
}

// decode reads the snake_case shape (tool_name, tool_input) or the
// camelCase one (toolName, toolArgs), tool input as an object or a
// JSON-encoded string, and classifies tool names of every dialect.
func (universalCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	obj, err := parseObject(payload)
	if err != nil {
		return call.Call{}, err
	}
	toolKey, inputKey := "tool_name", "tool_input"
	if !obj.has("tool_name") && obj.has("toolName") {
		toolKey, inputKey = "toolName", "toolArgs"
	}
	tool, err := obj.requireString(toolKey)
	if err != nil {
		return call.Call{}, err
	}
	in, err := obj.input(inputKey, inputObjectOrJSONString)
	if err != nil {
		return call.Call{}, err
	}
	var root string
	if roots := obj.strings("workspace_roots"); len(roots) > 0 {
		root = cleanCwd(roots[0])
	}
	c := call.Call{
		Provider:       NameUniversal,
		Event:          obj.str("hook_event_name"),
		SessionID:      firstNonEmpty(obj.str("session_id"), obj.str("sessionId"), obj.str("conversation_id")),
		Cwd:            cleanCwd(firstNonEmpty(obj.str("cwd"), root)),
		Tool:           tool,
		PermissionMode: obj.str("permission_mode"),
		Input:          in.raw,
	}
	classify(&c, in, pather{cwd: c.Cwd, home: o.Home})
	return c, nil
}

// universalReply is the legacy block plus Claude's deny, in this order
// (matching e2e-reference/hooks/universal-deny.json byte for byte).
type universalReply struct {
	Decision           string       `json:"decision"`
	Reason             string       `json:"reason"`
	HookSpecificOutput claudeOutput `json:"hookSpecificOutput"`
}

// Encode: deny and ask → the combined block (no ask is universal); pass
// and allow → nothing, since no allow form is safe to send blind. Never
// continue/stopReason: Codex fails open on them.
func (universalCodec) Encode(v call.Verdict) Reply {
	if v.Decision == call.Allow && len(v.UpdatedInput) > 0 {
		v = rewriteRefused(v) // no rewrite field here: never run the unedited call
	}
	d := decision(v.Decision)
	if d == call.Pass || d == call.Allow {
		return noReply()
	}
	r := reasonOr(v.Reason, d)
	return jsonReply(universalReply{Decision: "block", Reason: r, HookSpecificOutput: preToolUse(call.Deny, r)})
}
