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
	// UpdatedInput replaces the whole tool input (an allow only); CodeBuddy
	// also gets it as ModifiedInput (its docs name that key, its code reads
	// updatedInput on the PreToolUse path).
	UpdatedInput  json.RawMessage `json:"updatedInput,omitempty"`
	ModifiedInput json.RawMessage `json:"modifiedInput,omitempty"`
}

func preToolUse(d call.Decision, reason string) claudeOutput {
	return claudeOutput{HookEventName: "PreToolUse", PermissionDecision: d.String(), PermissionDecisionReason: reason}
}

// Rewrites reports whether toolguard may answer this call with an allow
// that replaces its input (call.Verdict.UpdatedInput) and count on the
// agent to run the replacement: the agents and tools whose rewrite the
// end-to-end suite has shown to hold (docs/approvals.md, "Edit before
// run"). For every other one the caller denies and tells the model what
// to run instead.
func Rewrites(c Codec, cl call.Call) bool {
	if c == nil {
		return false
	}
	switch c.Name() {
	case NameClaude, NameCodeBuddy:
		// Write: updatedInput honoured (e2e edit-approve). Bash: reported
		// ignored by some Claude Code versions (an ignored rewrite runs the
		// unedited command), so a shell call gets the deny with the edited
		// command. Edit: not exercised by the suite (its fake model makes
		// no Edit calls), so not relied on.
		return cl.Kind == call.KindWrite
	case NameGemini:
		// hookSpecificOutput.tool_input, passed whole to the tool (e2e
		// edit-approve: write_file; edit-shell: run_shell_command).
		return cl.Kind == call.KindWrite || cl.Kind == call.KindShell
	}
	return false
}

// rewriteRefused is the deny an allow with an UpdatedInput becomes in a
// codec that cannot carry it: the unedited call must not run.
func rewriteRefused(v call.Verdict) call.Verdict {
	return call.Verdict{Decision: call.Deny, Reason: "toolguard: a human approved an edited version of this call, " +
		"but this agent cannot be handed the edited input, so the call was stopped."}
}
