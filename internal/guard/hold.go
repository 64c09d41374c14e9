package guard

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
func unattended(o *Outcome) bool {
	return o.route() != protocol.AskNative // headless.go
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
// session (OpenGate); ctx is the hook's deadline.
func holdSession(ctx context.Context, sys System, f *Options, o *Outcome) {
	if o.Approval != "" || o.Verdict.Decision == call.Deny || o.Call.SessionID == "" {
		return
	}
	remote := o.Set.Pol.Settings.ApprovalURL != ""
	var dir string
	if !remote {
		// A store never made holds nothing: looked at before the agent's
		// conformance row (unattended), which costs a call more.
		if dir = sys.StateDir(f.StateDir, o.Set.Pol); dir == "" {
			return
		}
		if _, err := os.Stat(filepath.Join(dir, "requests")); errors.Is(err, fs.ErrNotExist) && sys.Approvals == nil {
			return // no request was ever recorded here; do not create the directory
		}
	}
	if !unattended(o) {
		return
	}
	g, err := sys.openGate(f.StateDir, o.Set.Pol) // the local store, or the approval server
	if g == nil && err == nil {
		return
	}
	var h approval.Hold
	if err == nil {
		if h, err = g.SessionHold(ctx, o.Call.SessionID, sys.Now()); err == nil {
			applyHold(o, h, o.Call.Kind == call.KindRead || o.Call.Kind == call.KindSearch)
			return
		}
	}
	if remote { // no answer from the approval server is the on_error decision
		own := o.Verdict.Reason
		if own == "" {
			own = "toolguard: whether this session waits for a human is unknown."
		}
		remoteFailed(o, own, "asking whether the session is held", err)
		return
	}
	o.Verdict = call.Verdict{Decision: call.Deny,
		Reason: fmt.Sprintf("toolguard: the approval store could not be read (%v), so whether this session waits for a human is unknown and the call was stopped.", err)}
}

// applyHold turns h into o's verdict. readOnly calls are not held by a
// pending request (see holdSession); a stop applies to every call.
func applyHold(o *Outcome, h approval.Hold, readOnly bool) bool {
	switch {
	case h.Kind == approval.HoldStop:
		o.Approval = h.Request.ID
		reason := h.Request.RejectReason
		if reason == "" {
			reason = "(no reason given)"
		}
		o.Verdict = call.Verdict{Decision: call.Deny, StopTurn: true,
			Reason: fmt.Sprintf("toolguard: a human rejected request %s (%s) and stopped this turn: %s "+
				"End your turn now; do not try another way to do it.", h.Request.ID, h.Request.Summary, reason),
			StopReason: fmt.Sprintf("toolguard: a human stopped the turn (request %s)", h.Request.ID)}
		return true
	case h.Kind == approval.HoldPending && o.Set.Pol.Settings.HoldSessionOnPending && !readOnly:
		o.Approval = h.Request.ID
		o.Verdict = call.Verdict{Decision: call.Deny, StopTurn: true,
			Reason: fmt.Sprintf("toolguard: this session is waiting for a human to decide approval request %s (%s). "+
				"Until then the session's other calls are held: do not try another way to do the same thing; "+
				"end your turn, or wait and retry the call later.", h.Request.ID, h.Request.Summary),
			StopReason: fmt.Sprintf("toolguard: a tool call is waiting for human approval (request %s)", h.Request.ID)}
		return true
	}
	return false
}
