package protocol

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// Reasons used when a verdict that must carry one has none (Codex rejects a
// deny without a reason).
const (
	defaultDenyReason = "toolguard: blocked by policy"
	defaultAskReason  = "toolguard: this call needs the user's approval"
)

// reasonOr returns reason, or the default for d when reason is blank.
func reasonOr(reason string, d call.Decision) string {
	if strings.TrimSpace(reason) != "" {
		return reason
	}
	if d == call.Ask {
		return defaultAskReason
	}
	return defaultDenyReason
}

// decision normalizes d: an out-of-range value is treated as Deny, so that
// a corrupted verdict fails closed.
func decision(d call.Decision) call.Decision {
	switch d {
	case call.Pass, call.Allow, call.Ask, call.Deny:
		return d
	}
	return call.Deny
}

// stopReason is what the user is shown when a verdict stops the turn.
func stopReason(v call.Verdict) string {
	if strings.TrimSpace(v.StopReason) != "" {
		return v.StopReason
	}
	return reasonOr(v.Reason, call.Deny)
}

// jsonReply marshals one reply object: one line, HTML left unescaped so
// reasons stay readable, exit 0.
func jsonReply(v any) Reply {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Unreachable: reply types hold only strings and bools. Should it
		// happen, exit 2 with a message blocks in every agent.
		return Reply{Stderr: []byte("toolguard: encoding reply: " + err.Error() + "\n"), ExitCode: 2}
	}
	return Reply{Stdout: b.Bytes()}
}

// noReply is "no opinion": nothing on stdout, exit 0.
func noReply() Reply { return Reply{} }

// claudeOutput is hookSpecificOutput of Claude Code's PreToolUse reply
// (testdata/payloads/claude-code/*.golden), also used by CodeBuddy, Codex and the universal reply.
type claudeOutput struct {
	HookEventName            string `json:"hookEventName"`
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

func preToolUse(d call.Decision, reason string) claudeOutput {
	return claudeOutput{HookEventName: "PreToolUse", PermissionDecision: d.String(), PermissionDecisionReason: reason}
}
