package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

// runEvent answers a prompt or session event (UserPromptSubmit,
// SessionStart, Gemini's BeforeAgent): the model is told, once, of each
// approval request of this session decided since it was last told —
// approved (it may now retry exactly that call), rejected (with the
// human's reason), expired — and of the session's requests still pending.
//
// The event carries no tool call, so nothing is allowed or denied here: a
// policy that does not load or a store that cannot be read adds nothing
// to the context (the cause goes to stderr) and the prompt goes on. The
// approve command is never in the text (docs/approvals.md).
func runEvent(sys *system, o *hookOptions, ev protocol.TurnEvent, payload []byte) error {
	if protocol.IsResultEvent(ev.Name) {
		if err := recordResult(sys, o, ev, payload); err != nil {
			fmt.Fprintf(sys.stderr, "toolguard: %s: %v\n", ev.Name, err)
		}
		return nil // no reply: the call ran already
	}
	if ev.Name == protocol.EventSessionStart && sessionStartDropsContext(o.provider, payload) {
		// CodeBuddy 2.117 runs SessionStart hooks but drops their
		// additionalContext (e2e reject-reason): telling it there would mark
		// the decisions told and the model would never hear them. Its
		// UserPromptSubmit carries them.
		return nil
	}
	text, err := turnContext(sys, o, ev)
	if err != nil {
		fmt.Fprintf(sys.stderr, "toolguard: %s: %v\n", ev.Name, err)
	}
	reply := protocol.EncodeTurnContext(ev, text)
	if _, err := sys.stdout.Write(reply.Stdout); err != nil {
		return &exitError{code: 2, msg: fmt.Sprintf("writing the reply: %v", err)}
	}
	return nil
}

// turnContext is the text runEvent adds, "" for none.
func turnContext(sys *system, o *hookOptions, ev protocol.TurnEvent) (string, error) {
	if ev.SessionID == "" {
		return "", nil
	}
	c := call.Call{Cwd: ev.Cwd, SessionID: ev.SessionID}
	ps, err := o.load(sys, callProject(sys, &c))
	if err != nil {
		return "", fmt.Errorf("the policy does not load: %w", err)
	}
	if ps.pol.Settings.ApprovalURL != "" {
		return remoteTold(sys, ps.pol, ev.SessionID) // the approval server holds the decisions (headless_remote.go)
	}
	dir := stateDir(sys, o.stateDir, ps.pol)
	if dir == "" {
		return "", nil
	}
	if _, err := os.Stat(filepath.Join(dir, "requests")); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	st, err := approval.Open(dir)
	if err != nil {
		return "", err
	}
	trusted, _ := trustedKeys(sys, ps.pol)
	st.Trust(trusted)
	st.ExpirePending(ps.pol.Settings.PendingTTL)
	decided, pending, err := st.Told(ev.SessionID, sys.now())
	if err != nil {
		return "", err
	}
	return turnText(decided, pending), nil
}

// recordResult records, after a call an approval allowed has run
// (PostToolUse, PostToolUseFailure, Gemini's AfterTool), its outcome on
// the request and as an approval.result audit event. A call no approval
// allowed records nothing. Errors never change anything the agent does.
func recordResult(sys *system, o *hookOptions, ev protocol.TurnEvent, payload []byte) error {
	if ev.SessionID == "" && ev.Cwd == "" {
		return nil
	}
	codec := protocol.Codec(nil)
	if o.provider != "" {
		c, err := protocol.Lookup(o.provider)
		if err != nil {
			return err
		}
		codec = c
	} else {
		codec = protocol.Detect(payload)
	}
	c, err := protocol.DecodeWith(codec, payload, protocol.DecodeOptions{Home: sys.home()})
	if err != nil {
		return nil // not a tool call toolguard can key
	}
	ps, err := o.load(sys, callProject(sys, &c))
	if err != nil {
		return fmt.Errorf("the policy does not load: %w", err)
	}
	out := protocol.DecodeToolOutcome(ev, payload)
	now := sys.now()
	var r approval.Request
	var ok bool
	if ps.pol.Settings.ApprovalURL != "" {
		r, ok, err = remoteResult(sys, ps.pol, approval.Key(c), out) // the approval server's request (headless_remote.go)
	} else {
		dir := stateDir(sys, o.stateDir, ps.pol)
		if dir == "" {
			return nil
		}
		if _, err := os.Stat(filepath.Join(dir, "requests")); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		var st *approval.Store
		if st, err = approval.Open(dir); err != nil {
			return err
		}
		r, ok, err = st.RecordResult(approval.Key(c), approval.Result{Time: now, Outcome: out.Outcome, ExitCode: out.ExitCode})
	}
	if err != nil || !ok {
		return err
	}
	path := auditPath(sys, &o.decideFlags, ps.pol)
	if path == "" {
		return nil
	}
	reason := out.Outcome
	if out.ExitCode != nil {
		reason += fmt.Sprintf(", exit code %d", *out.ExitCode)
	}
	return appendAudit(context.Background(), sys, ps.pol, path, audit.Record{
		Time: now, Event: eventApprovalResult, Provider: c.Provider, Session: c.SessionID,
		Tool: c.Tool, Kind: c.Kind.String(), Summary: r.Summary, Cwd: c.Cwd,
		Decision: out.Outcome, Reason: reason, ApprovalID: r.ID,
	})
}

// eventApprovalResult is the audit event of a recorded result.
const eventApprovalResult = "approval.result"

// turnText words the decisions for the model.
func turnText(decided, pending []approval.Request) string {
	if len(decided) == 0 && len(pending) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("toolguard: decisions on approval requests of this session:\n")
	for _, r := range decided {
		switch r.Status {
		case approval.StatusApproved:
			scope := "once"
			if g := r.Grant; g != nil {
				switch {
				case g.Uses == approval.SessionUses:
					scope = "as often as needed in this session"
				case g.UsesLeft > 1:
					scope = fmt.Sprintf("%d times", g.UsesLeft)
				}
				scope += ", until " + g.Expires.UTC().Format(time.RFC3339)
			}
			if e := editOf(r); e != nil { // approve --edit (approval_edit.go)
				if _, text, err := editField(r.Kind, []byte(e.Input)); err == nil && r.Kind == call.KindShell.String() {
					fmt.Fprintf(&b, "- %s: a human approved %s with changes: run exactly this command instead, nothing added, removed or changed (%s):\n%s\n",
						r.ID, r.Summary, scope, text)
					break
				}
				fmt.Fprintf(&b, "- %s: a human approved %s with changes to its %s: retry exactly the same call (%s); it runs with the human's edited %s\n",
					r.ID, r.Summary, e.Field, scope, e.Field)
				break
			}
			fmt.Fprintf(&b, "- %s: a human approved this call; you may now retry exactly the same call (same tool, input and working directory) %s: %s\n",
				r.ID, scope, r.Summary)
		case approval.StatusRejected:
			reason := r.RejectReason
			if reason == "" {
				reason = "(no reason given)"
			}
			fmt.Fprintf(&b, "- %s: a human rejected %s because: %s Do not retry it; choose another approach.\n", r.ID, r.Summary, reason)
		case approval.StatusExpired:
			if r.Grant != nil {
				fmt.Fprintf(&b, "- %s: the approval of %s expired before the call was retried; it is not allowed any more.\n", r.ID, r.Summary)
			} else {
				fmt.Fprintf(&b, "- %s: no human decided %s in time; the request expired. If the call is still needed, make it again to record a new request.\n", r.ID, r.Summary)
			}
		}
	}
	for _, r := range pending {
		fmt.Fprintf(&b, "- %s: still waiting for a human: %s. Do not retry it, or work around it, until it is decided.\n", r.ID, r.Summary)
	}
	return b.String()
}

// sessionStartDropsContext reports an agent whose SessionStart answer is
// not shown to the model (measured by the e2e suite: docs/agents.md).
func sessionStartDropsContext(provider string, payload []byte) bool {
	if provider == "" {
		if c := protocol.Detect(payload); c != nil {
			provider = c.Name()
		}
	}
	return !protocol.SessionStartReachesModel(provider)
}
