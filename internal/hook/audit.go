package hook

import (
	"context"
	"fmt"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
)

// RecordAudit appends the outcome to the audit log: every decision but
// pass, or every call with audit = "all". The hook calls it after its
// reply is out, with the hook context: the append gives up at the
// deadline, or after audit.LockTimeout without progress. A failing write is reported on
// stderr and never changes the decision.
func RecordAudit(ctx context.Context, sys guard.System, f *guard.Options, o *guard.Outcome) {
	var pol *policy.Policy
	if o.Set != nil {
		pol = o.Set.Pol
	}
	if o.Verdict.Decision == call.Pass && o.Err == nil && (pol == nil || pol.Settings.Audit != "all") {
		return
	}
	path := sys.AuditPath(f.AuditLog, f.StateDir, pol)
	if path == "" {
		return
	}
	rec := audit.Record{
		Time:       o.Started,
		Event:      audit.EventDecision,
		Provider:   o.Call.Provider,
		Session:    o.Call.SessionID,
		Tool:       o.Call.Tool,
		Kind:       o.Call.Kind.String(),
		Summary:    audit.CallSummary(o.Call, guard.SummaryMax),
		Cwd:        o.Call.Cwd,
		Workspace:  o.Workspace,
		Decision:   o.Verdict.Decision.String(),
		Reason:     audit.Redact(o.Verdict.Reason),
		ApprovalID: o.Approval,
		Node:       o.Node,
		Mode:       o.Mode.String(),
		DurationMS: float64(sys.Now().Sub(o.Started).Microseconds()) / 1000,
	}
	if o.Codec != nil && rec.Provider == "" {
		rec.Provider = o.Codec.Name()
	}
	if o.Res != nil && o.Res.Rule != nil {
		rec.Rule, rec.Layer, rec.Source = o.Res.Rule.ID, o.Res.Rule.Layer, o.Res.Rule.Source
	} else if o.Res != nil && o.Res.Cause != "" {
		rec.Rule = o.Res.Cause
	}
	if pol != nil {
		rec.PolicyHash = pol.Hash()
		rec.Bundle = o.Set.Bundle
		for _, p := range sys.IgnoredParts(pol) {
			rec.Ignored = append(rec.Ignored, p.String())
		}
	}
	if o.Err != nil {
		rec.Error = audit.Redact(o.Err.Error())
		rec.Rule = "on_error"
	}
	if err := guard.AppendAudit(ctx, sys, pol, path, rec); err != nil { // audit_log = "server": system mode
		fmt.Fprintf(sys.Stderr, "toolguard: %v; the decision (%s) stands, its audit line is missing\n", err, rec.Decision)
	}
}
