package protocol

import (
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// codexCodec speaks Codex CLI's PreToolUse dialect (testdata/payloads/codex/). The
// payload is Claude's plus turn_id and model; apply_patch carries a patch.
type codexCodec struct{}

func (codexCodec) Name() string { return NameCodex }

// SupportsAsk is false: Codex rejects permissionDecision "ask" as
// unsupported and fails open.
func (codexCodec) SupportsAsk() bool { return false }

func (k codexCodec) Decode(payload []byte) (call.Call, error) {
	return DecodeWith(k, payload, DecodeOptions{})
}

// decode accepts a bare string tool_input (the raw patch of apply_patch)
// besides the documented {"command": patch}.
func (codexCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	return decodeHook(NameCodex, payload, o, inputObjectOrText)
}

// Encode: pass and allow → nothing (a bare allow is "unsupported" and only
// logged as a failed hook); deny and ask → the documented deny with a
// non-empty reason (Codex ignores a deny without one). Codex has no ask, so
// an ask that reaches Encode is a deny. continue/stopReason are never
// written: Codex treats them as unsupported for PreToolUse and fails open.
func (codexCodec) Encode(v call.Verdict) Reply {
	if v.Decision == call.Allow && len(v.UpdatedInput) > 0 {
		v = rewriteRefused(v) // no rewrite field here: never run the unedited call
	}
	d := decision(v.Decision)
	if d == call.Pass || d == call.Allow {
		return noReply()
	}
	// Codex appends ". Command: …" to the reason; a final period of ours
	// would double it.
	reason := strings.TrimRight(reasonOr(v.Reason, d), ". ")
	if reason == "" {
		reason = reasonOr("", d)
	}
	return jsonReply(claudeReply{HookSpecificOutput: preToolUse(call.Deny, reason)})
}
