package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

// unattended reports whether an ask of o's call becomes an approval
// request rather than a question to a human: headless mode, or an agent
// whose ask reaches no one (Codex; CodeBuddy with its prompts off).
func unattended(o *outcome) bool {
	return askRoute(o) != protocol.AskNative // headless.go
}

// holdSession applies what holds a session to a call headlessAskWithin did not
// handle (a pass, allow, or an ask a human answers): a stop a human asked
// for with `approvals reject --stop`, and the pending-decision guard —
// while the session has a pending request, its other calls are denied
// naming it (settings.hold_session_on_pending, default true), so an agent
// whose turn cannot be ended does not work around the human.
//
// Only unattended calls (above) with a session id are held. A deny keeps
// its own reason. Reads and searches by the agent's file tools (kinds read
// and search) are not held by a pending request: they change nothing, and
// the policy has decided them already (a secret read is denied as ever).
// Shell commands are held whatever they do.
//
// No state directory, or none made yet, holds nothing; a store that
// exists but cannot be read denies (fail closed).
//
// With settings.approval_url the approval server says what holds the
// session (remoteHold); ctx is the hook's deadline.
func holdSession(ctx context.Context, sys *system, f *decideFlags, o *outcome) {
	if o.approval != "" || o.verdict.Decision == call.Deny || o.call.SessionID == "" {
		return
	}
	remote := o.ps.pol.Settings.ApprovalURL != ""
	var dir string
	if !remote {
		// A store never made holds nothing: looked at before the agent's
		// conformance row (unattended), which costs a call more.
		if dir = stateDir(sys, f.stateDir, o.ps.pol); dir == "" {
			return
		}
		if _, err := os.Stat(filepath.Join(dir, "requests")); errors.Is(err, fs.ErrNotExist) && sys.openApprovals == nil {
			return // no request was ever recorded here; do not create the directory
		}
	}
	if !unattended(o) {
		return
	}
	if remote {
		remoteHold(ctx, sys, o)
		return
	}
	st, err := sys.approvalStore(dir)
	if err == nil {
		st.ExpirePending(o.ps.pol.Settings.PendingTTL)
		var h approval.Hold
		if h, err = st.SessionHold(o.call.SessionID, sys.now()); err == nil {
			applyHold(o, h, o.call.Kind == call.KindRead || o.call.Kind == call.KindSearch)
			return
		}
	}
	o.verdict = call.Verdict{Decision: call.Deny,
		Reason: fmt.Sprintf("toolguard: the approval store could not be read (%v), so whether this session waits for a human is unknown and the call was stopped.", err)}
}

// applyHold turns h into o's verdict. readOnly calls are not held by a
// pending request (see holdSession); a stop applies to every call.
func applyHold(o *outcome, h approval.Hold, readOnly bool) bool {
	switch {
	case h.Kind == approval.HoldStop:
		o.approval = h.Request.ID
		reason := h.Request.RejectReason
		if reason == "" {
			reason = "(no reason given)"
		}
		o.verdict = call.Verdict{Decision: call.Deny, StopTurn: true,
			Reason: fmt.Sprintf("toolguard: a human rejected request %s (%s) and stopped this turn: %s "+
				"End your turn now; do not try another way to do it.", h.Request.ID, h.Request.Summary, reason),
			StopReason: fmt.Sprintf("toolguard: a human stopped the turn (request %s)", h.Request.ID)}
		return true
	case h.Kind == approval.HoldPending && o.ps.pol.Settings.HoldSessionOnPending && !readOnly:
		o.approval = h.Request.ID
		o.verdict = call.Verdict{Decision: call.Deny, StopTurn: true,
			Reason: fmt.Sprintf("toolguard: this session is waiting for a human to decide approval request %s (%s). "+
				"Until then the session's other calls are held: do not try another way to do the same thing; "+
				"end your turn, or wait and retry the call later.", h.Request.ID, h.Request.Summary),
			StopReason: fmt.Sprintf("toolguard: a tool call is waiting for human approval (request %s)", h.Request.ID)}
		return true
	}
	return false
}
