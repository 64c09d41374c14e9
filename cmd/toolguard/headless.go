package main

import (
	"context"
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

// askRoute says what an ask of o's call becomes: the per-agent table's
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
func askRoute(o *outcome) protocol.AskRoute {
	headless := o.mode == policy.Headless
	def := protocol.DefaultAskRoute(o.codec, o.call, headless)
	if o.ps == nil || o.ps.pol == nil || o.codec == nil {
		return def
	}
	row, ok := protocol.ConformanceFor(o.codec.Name())
	if !ok {
		return def // the universal reply: no choice
	}
	mode := row.ModeOf(headless)
	switch o.ps.pol.Settings.AskFallbackFor(o.codec.Name()) {
	case policy.AskFallbackDeny:
		if def == protocol.AskNative {
			return protocol.AskDenyRequest
		}
	case policy.AskFallbackNative:
		if mode.Offers(protocol.AskNative) && protocol.DefaultAskRoute(o.codec, o.call, false) == protocol.AskNative {
			return protocol.AskNative
		}
	case policy.AskFallbackDefer:
		if mode.Offers(protocol.AskDefer) && contains(deferPermissionModes, o.call.PermissionMode) {
			return protocol.AskDefer
		}
	}
	return def
}

// deferIfChosen marks a held call's deny to be sent as a defer when that
// is its route: only a call waiting on its own pending request (not a
// rejection, a stop, another request's hold or a store error).
func deferIfChosen(o *outcome) {
	if o.held && o.verdict.Decision == call.Deny && askRoute(o) == protocol.AskDefer {
		o.verdict.Defer = true
		o.verdict.StopTurn = false
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
func headlessAskWithin(ctx context.Context, sys *system, f *decideFlags, o *outcome) {
	ask := o.verdict.Reason
	dir := stateDir(sys, f.stateDir, o.ps.pol)
	deny := func(reason string) { stopForApproval(o, reason) }
	if dir == "" {
		deny(ask + " No human can answer here and no state directory is set, so the call was stopped.")
		return
	}
	st, err := sys.approvalStore(dir)
	if err != nil {
		deny(fmt.Sprintf("%s No human can answer here, and the approval store is unavailable (%v), so the call was stopped.", ask, err))
		return
	}
	trusted, problems := trustedKeys(sys, o.ps.pol)
	st.Trust(trusted)
	if f.grantsDir != "" {
		cwd, _ := sys.getwd()
		st.UseGrants(argPath(f.grantsDir, cwd, sys.home()))
	}
	st.ExpirePending(o.ps.pol.Settings.PendingTTL)
	now := sys.now()
	key := approval.Key(o.call)
	res, err := st.CheckCall(ctx, key, now, protocol.Rewrites(o.codec, o.call))
	if err != nil {
		deny(fmt.Sprintf("%s The approval store could not be read (%v), so the call was stopped.", ask, err))
		return
	}
	switch res.Kind {
	case approval.Granted, approval.Redirect:
		if res.Edit != nil { // approve --edit (approval_edit.go)
			applyEditedGrant(sys, o, res)
			return
		}
		if res.Kind == approval.Redirect {
			deny(ask + " The approval store gave an edit without its edited input, so the call was stopped.")
			return
		}
		o.approval = res.ID
		o.verdict = call.Verdict{Decision: call.Allow, Reason: fmt.Sprintf("toolguard: allowed once by approval %s", res.ID)}
		if res.UsesLeft >= approval.SessionUses/2 {
			o.verdict.Reason = fmt.Sprintf("toolguard: allowed by approval %s (every identical call of this session until it expires)", res.ID)
		}
		return
	case approval.Rejected:
		o.approval = res.ID
		o.verdict = call.Verdict{Decision: call.Deny,
			Reason: fmt.Sprintf("toolguard: a human rejected this call (request %s): %s Do not retry it; choose another approach.", res.ID, res.Reason)}
		// rejected with --stop, and the stop not given yet: end the turn
		if h, err := st.SessionHold(o.call.SessionID, now); err == nil && h.Kind == approval.HoldStop {
			applyHold(o, h, false)
		}
		return
	case approval.Pending:
		o.approval = res.ID
	default:
		// Not this call's own request: what holds the session (a stop, or
		// another pending request) comes before a new request.
		if o.call.SessionID != "" {
			h, err := st.SessionHold(o.call.SessionID, now)
			if err != nil {
				deny(fmt.Sprintf("%s The approval store could not be read (%v), so the call was stopped.", ask, err))
				return
			}
			if applyHold(o, h, false) {
				return
			}
		}
		// An edit that cannot apply is not put to a human (prevalidate.go).
		if p := editProblem(o.call, readableBy(sys, o)); p != "" {
			o.verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("%s This call would need a human's approval, "+
				"but it cannot apply as written: %s Fix the call and retry it; no approval request was recorded.", ask, p)}
			return
		}
		rules := []string{}
		if o.res != nil && o.res.Rule != nil {
			rules = append(rules, o.res.Rule.ID)
		}
		preview := approvalPreview(o)
		preview.Diff = editDiff(o.call, readableBy(sys, o)) // only from a file the agent may read
		req, err := st.Create(approval.Request{
			Key:       key,
			Summary:   audit.CallSummary(o.call, summaryMax),
			Tool:      o.call.Tool,
			Kind:      o.call.Kind.String(),
			Cwd:       o.call.Cwd,
			Session:   o.call.SessionID,
			Provider:  o.call.Provider,
			Rules:     rules,
			Reason:    ask,
			Preview:   preview,
			ToolInput: editableInput(o.call),  // for approve --edit
			Approve:   approveCommand("{id}"), // Create puts the new id in
		}, now)
		if err != nil {
			deny(fmt.Sprintf("%s The approval request could not be recorded (%v), so the call was stopped.", ask, err))
			return
		}
		o.approval = req.ID
	}
	holdPending(o, ask)
	if ctx.Err() != nil {
		return
	}
	if r := protocol.EncodeFor(o.codec, o.call, o.verdict); r.ExitCode == 0 && len(r.Stdout) > 0 {
		fmt.Fprintf(sys.stderr, "toolguard: approval request %s recorded; a human allows the call once with: %s\n",
			o.approval, approveCommand(o.approval))
		for _, p := range problems {
			fmt.Fprintf(sys.stderr, "toolguard: %s\n", p)
		}
	}
}

// approveCommand is what a human runs, at a terminal, to approve id.
func approveCommand(id string) string { return "toolguard approvals approve " + id }

// stopForApproval denies o and ends the agent's turn: a call that needs
// a human's approval where none can answer (headless.go, and the approval
// server's headless_remote.go).
func stopForApproval(o *outcome, reason string) {
	o.verdict = call.Verdict{Decision: call.Deny, Reason: reason, StopTurn: true,
		StopReason: "toolguard: a tool call is waiting for human approval"}
}

// holdPending denies o while its approval request o.approval waits for a
// human, and tells the agent what to do meanwhile.
func holdPending(o *outcome, ask string) {
	then := "Do not retry it until then; wait, or go on with other work."
	if o.call.SessionID != "" && o.ps.pol.Settings.HoldSessionOnPending {
		// the pending-decision guard holds the session's other calls (headless_hold.go)
		then = "Do not retry it or work around it until then: this session's other calls are held until it is decided. End your turn and wait."
	}
	o.held = true
	stopForApproval(o, fmt.Sprintf("%s No human can answer here, so the call was stopped and approval request %s was recorded. "+
		"A human must approve request %s before this call can run. %s",
		ask, o.approval, o.approval, then))
	o.verdict.StopReason = fmt.Sprintf("toolguard: a tool call is waiting for human approval (request %s)", o.approval)
}
