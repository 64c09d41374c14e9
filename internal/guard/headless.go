package guard

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
)

// deferPermissionModes are the permission modes in which Claude Code's
// defer is used when ask_fallback asks for it. Claude ignores defer with
// more than one tool call in the batch, and in an interactive session,
// and then runs its normal permission flow: in these modes that flow does
// not run the tool unasked (in -p it is refused), so an ignored defer
// does not become a run. Under bypassPermissions, acceptEdits, auto or
// dontAsk it might, so toolguard holds the call as it would without the
// setting (deny + request). docs/agents.md.
var deferPermissionModes = []string{"default", "plan"}

// AskRoute says what an ask of o's call becomes: the per-agent table's
// route for the agent and mode (protocol.DefaultAskRoute), unless
// settings.ask_fallback / ask_fallback_for pick another one the table
// offers for this agent and mode:
//
//   - "deny": the call is held (deny + approval request) even where a
//     native ask would reach a human;
//   - "native": a native ask where it reaches a human (interactive mode,
//     an agent with ask, its prompts on); elsewhere the default;
//   - "defer": Claude Code in headless mode, in a permission mode where
//     an ignored defer does not run the tool; elsewhere the default.
func AskRoute(o *Outcome) protocol.AskRoute {
	headless := o.Mode == policy.Headless
	def := protocol.DefaultAskRoute(o.Codec, o.Call, headless)
	if o.Set == nil || o.Set.Pol == nil || o.Codec == nil {
		return def
	}
	row, ok := protocol.ConformanceFor(o.Codec.Name())
	if !ok {
		return def // the universal reply: no choice
	}
	mode := row.ModeOf(headless)
	switch o.Set.Pol.Settings.AskFallbackFor(o.Codec.Name()) {
	case policy.AskFallbackDeny:
		if def == protocol.AskNative {
			return protocol.AskDenyRequest
		}
	case policy.AskFallbackNative:
		if mode.Offers(protocol.AskNative) && protocol.DefaultAskRoute(o.Codec, o.Call, false) == protocol.AskNative {
			return protocol.AskNative
		}
	case policy.AskFallbackDefer:
		if mode.Offers(protocol.AskDefer) && contains(deferPermissionModes, o.Call.PermissionMode) {
			return protocol.AskDefer
		}
	}
	return def
}

// deferIfChosen marks a held call's deny to be sent as a defer when that
// is its route: only a call waiting on its own pending request (not a
// rejection, a stop, another request's hold or a store error).
func deferIfChosen(o *Outcome) {
	if o.Held && o.Verdict.Decision == call.Deny && o.route() == protocol.AskDefer {
		o.Verdict.Defer = true
		o.Verdict.StopTurn = false
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// headlessAskWithin turns an ask into what an unattended agent needs: the
// identical call already approved — by a grant whose signature verifies
// against a trusted approver key — is allowed (the grant consumed once),
// one rejected is denied with the human's reason, and anything else is
// denied with the id of a pending request a human can resolve.
//
// ctx is the hook's decision deadline: once it is done no use is
// consumed (approval.Store.Check) and nothing is written to stderr. The
// hook must pass the context that its deadline cancels, and must not
// reply allow from an outcome that arrives after it.
//
// The reason the model reads names the request and says a human must
// approve it; the approve command goes only to the request file and to
// stderr, and to stderr only when the reply is the exit-0 JSON every
// dialect uses for a deny — on a non-zero exit Claude Code, CodeBuddy,
// Codex and Gemini (empty stdout) hand stderr to the model.
func headlessAskWithin(ctx context.Context, sys System, f *Options, o *Outcome) {
	ask := o.Verdict.Reason
	deny := func(reason string) { stopForApproval(o, reason) }
	st, problems, err := sys.openStore(f.StateDir, o.Set.Pol, false)
	if errors.Is(err, ErrNoStateDir) {
		deny(ask + " No human can answer here and no state directory is set, so the call was stopped.")
		return
	}
	if err != nil {
		deny(fmt.Sprintf("%s No human can answer here, and the approval store is unavailable (%v), so the call was stopped.", ask, err))
		return
	}
	if f.GrantsDir != "" {
		st.UseGrants(sys.Path(f.GrantsDir))
	}
	now := sys.Now()
	key := approval.Key(o.Call)
	res, err := st.CheckCall(ctx, key, now, protocol.Rewrites(o.Codec, o.Call))
	if err != nil {
		deny(fmt.Sprintf("%s The approval store could not be read (%v), so the call was stopped.", ask, err))
		return
	}
	switch res.Kind {
	case approval.Granted, approval.Redirect:
		if res.Edit != nil { // approve --edit (approval_edit.go)
			applyEditedGrant(sys.Home(), o, res)
			return
		}
		if res.Kind == approval.Redirect {
			deny(ask + " The approval store gave an edit without its edited input, so the call was stopped.")
			return
		}
		o.Approval = res.ID
		o.Verdict = call.Verdict{Decision: call.Allow, Reason: fmt.Sprintf("toolguard: allowed once by approval %s", res.ID)}
		if res.UsesLeft >= approval.SessionUses/2 {
			o.Verdict.Reason = fmt.Sprintf("toolguard: allowed by approval %s (every identical call of this session until it expires)", res.ID)
		}
		return
	case approval.Rejected:
		o.Approval = res.ID
		o.Verdict = call.Verdict{Decision: call.Deny,
			Reason: fmt.Sprintf("toolguard: a human rejected this call (request %s): %s Do not retry it; choose another approach.", res.ID, res.Reason)}
		// rejected with --stop, and the stop not given yet: end the turn
		if h, err := st.SessionHold(o.Call.SessionID, now); err == nil && h.Kind == approval.HoldStop {
			applyHold(o, h, false)
		}
		return
	case approval.Pending:
		o.Approval = res.ID
	default:
		// Not this call's own request: what holds the session (a stop, or
		// another pending request) comes before a new request.
		if o.Call.SessionID != "" {
			h, err := st.SessionHold(o.Call.SessionID, now)
			if err != nil {
				deny(fmt.Sprintf("%s The approval store could not be read (%v), so the call was stopped.", ask, err))
				return
			}
			if applyHold(o, h, false) {
				return
			}
		}
		// An edit that cannot apply is not put to a human (prevalidate.go).
		if p := editProblem(o.Call, readableBy(o)); p != "" {
			o.Verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("%s This call would need a human's approval, "+
				"but it cannot apply as written: %s Fix the call and retry it; no approval request was recorded.", ask, p)}
			return
		}
		rules := []string{}
		if o.Res != nil && o.Res.Rule != nil {
			rules = append(rules, o.Res.Rule.ID)
		}
		preview := approvalPreview(o)
		preview.Diff = requestDiff(o.Call, readableBy(o)) // only from a file the agent may read
		req, err := st.Create(approval.Request{
			Key:       key,
			Summary:   audit.CallSummary(o.Call, SummaryMax),
			Tool:      o.Call.Tool,
			Kind:      o.Call.Kind.String(),
			Cwd:       o.Call.Cwd,
			Session:   o.Call.SessionID,
			Provider:  o.Call.Provider,
			Rules:     rules,
			Reason:    ask,
			Preview:   preview,
			ToolInput: editableInput(o.Call),  // for approve --edit
			Approve:   ApproveCommand("{id}"), // Create puts the new id in
		}, now)
		if err != nil {
			deny(fmt.Sprintf("%s The approval request could not be recorded (%v), so the call was stopped.", ask, err))
			return
		}
		o.Approval = req.ID
	}
	holdPending(o, ask)
	if ctx.Err() != nil || o.Codec == nil { // no agent reply (a library caller): no stderr note
		return
	}
	if r := protocol.EncodeFor(o.Codec, o.Call, o.Verdict); r.ExitCode == 0 && len(r.Stdout) > 0 {
		fmt.Fprintf(sys.Stderr, "toolguard: approval request %s recorded; a human allows the call once with: %s\n",
			o.Approval, ApproveCommand(o.Approval))
		for _, p := range problems {
			fmt.Fprintf(sys.Stderr, "toolguard: %s\n", p)
		}
	}
}

// ApproveCommand is what a human runs, at a terminal, to approve id.
func ApproveCommand(id string) string { return "toolguard approvals approve " + id }

// stopForApproval denies o and ends the agent's turn: a call that needs
// a human's approval where none can answer (headless.go, and the approval
// server's headless_remote.go).
func stopForApproval(o *Outcome, reason string) {
	o.Verdict = call.Verdict{Decision: call.Deny, Reason: reason, StopTurn: true,
		StopReason: "toolguard: a tool call is waiting for human approval"}
}

// holdPending denies o while its approval request o.Approval waits for a
// human, and tells the agent what to do meanwhile.
func holdPending(o *Outcome, ask string) {
	then := "Do not retry it until then; wait, or go on with other work."
	if o.Call.SessionID != "" && o.Set.Pol.Settings.HoldSessionOnPending {
		// the pending-decision guard holds the session's other calls (headless_hold.go)
		then = "Do not retry it or work around it until then: this session's other calls are held until it is decided. End your turn and wait."
	}
	o.Held = true
	stopForApproval(o, fmt.Sprintf("%s No human can answer here, so the call was stopped and approval request %s was recorded. "+
		"A human must approve request %s before this call can run. %s",
		ask, o.Approval, o.Approval, then))
	o.Verdict.StopReason = fmt.Sprintf("toolguard: a tool call is waiting for human approval (request %s)", o.Approval)
}
