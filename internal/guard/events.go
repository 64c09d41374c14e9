package guard

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

// The hook's events that carry no tool call: a prompt or session start
// (TurnContext: what the model is told of its approval requests) and a
// tool's result (RecordResult).

// TurnContext is the text a prompt or session event adds for the model,
// "" for none: each approval request of this session decided since it was
// last told, and those still pending.
func TurnContext(sys System, f *Options, ev protocol.TurnEvent) (string, error) {
	if ev.SessionID == "" {
		return "", nil
	}
	c := call.Call{Cwd: ev.Cwd, SessionID: ev.SessionID}
	ps, err := sys.Load(f.Selection, sys.Project(&c))
	if err != nil {
		return "", fmt.Errorf("the policy does not load: %w", err)
	}
	g, err := sys.openGate(f.StateDir, ps.Pol) // the local store, or the approval server
	if g == nil {
		return "", err
	}
	decided, pending, err := g.Told(context.Background(), ev.SessionID, sys.Now())
	if err != nil {
		return "", err
	}
	return turnText(decided, pending), nil
}

// RecordResult records, after a call an approval allowed has run
// (PostToolUse, PostToolUseFailure, Gemini's AfterTool), its outcome on
// the request and as an approval.result audit event. A call no approval
// allowed records nothing. Errors never change anything the agent does.
func RecordResult(sys System, f *Options, provider string, ev protocol.TurnEvent, payload []byte) error {
	if ev.SessionID == "" && ev.Cwd == "" {
		return nil
	}
	codec := protocol.Codec(nil)
	if provider != "" {
		c, err := protocol.Lookup(provider)
		if err != nil {
			return err
		}
		codec = c
	} else {
		codec = protocol.Detect(payload)
	}
	c, err := protocol.DecodeWith(codec, payload, protocol.DecodeOptions{Home: sys.Home()})
	if err != nil {
		return nil // not a tool call toolguard can key
	}
	ps, err := sys.Load(f.Selection, sys.Project(&c))
	if err != nil {
		return fmt.Errorf("the policy does not load: %w", err)
	}
	out := protocol.DecodeToolOutcome(ev, payload)
	now := sys.Now()
	g, err := sys.openGate(f.StateDir, ps.Pol) // the local store, or the approval server's request
	if g == nil {
		return err
	}
	r, ok, err := g.RecordResult(context.Background(), approval.Key(c), approval.Result{Time: now, Outcome: out.Outcome, ExitCode: out.ExitCode})
	if err != nil || !ok {
		return err
	}
	path := sys.AuditPath(f.AuditLog, f.StateDir, ps.Pol)
	if path == "" {
		return nil
	}
	reason := out.Outcome
	if out.ExitCode != nil {
		reason += fmt.Sprintf(", exit code %d", *out.ExitCode)
	}
	return AppendAudit(context.Background(), sys, ps.Pol, path, audit.Record{
		Time: now, Event: EventApprovalResult, Provider: c.Provider, Session: c.SessionID,
		Tool: c.Tool, Kind: c.Kind.String(), Summary: r.Summary, Cwd: c.Cwd,
		Decision: out.Outcome, Reason: reason, ApprovalID: r.ID,
	})
}

// EventApprovalResult is the audit event of a recorded result.
const EventApprovalResult = "approval.result"

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
			if e := EditOf(r); e != nil { // approve --edit (approval_edit.go)
				if _, text, err := EditField(r.Kind, []byte(e.Input)); err == nil && r.Kind == call.KindShell.String() {
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
