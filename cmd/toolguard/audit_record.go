package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
)

// summaryMax bounds the command or path summary kept in an audit line.
const summaryMax = 2048

// stateDir is where approvals (and by default the audit log) live: the
// flag, settings.state_dir, $XDG_STATE_HOME/toolguard, else
// ~/.local/state/toolguard.
func stateDir(sys *system, flag string, pol *policy.Policy) string {
	home := sys.home()
	cwd, _ := sys.getwd()
	if flag != "" {
		return argPath(flag, cwd, home)
	}
	if pol != nil && pol.Settings.StateDir != "" {
		return argPath(pol.Settings.StateDir, cwd, home)
	}
	if x := sys.getenv("XDG_STATE_HOME"); x != "" {
		return filepath.Join(x, "toolguard")
	}
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "toolguard")
}

// auditPath is the audit log file, or "" when auditing is off.
func auditPath(sys *system, f *decideFlags, pol *policy.Policy) string {
	home := sys.home()
	cwd, _ := sys.getwd()
	if f.auditLog != "" {
		return argPath(f.auditLog, cwd, home)
	}
	if pol != nil && pol.Settings.Audit == "off" {
		return ""
	}
	if pol != nil && pol.Settings.AuditLog != "" && pol.Settings.AuditLog != auditServer { // audit_server.go
		return argPath(pol.Settings.AuditLog, cwd, home)
	}
	dir := stateDir(sys, f.stateDir, pol)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "audit.jsonl")
}

// recordAudit appends the outcome to the audit log: every decision but
// pass, or every call with audit = "all". The hook calls it after its
// reply is out, with the hook context: the append gives up at the
// deadline, or after audit.LockTimeout without progress. A failing write is reported on
// stderr and never changes the decision.
func recordAudit(ctx context.Context, sys *system, f *decideFlags, o *outcome) {
	var pol *policy.Policy
	if o.ps != nil {
		pol = o.ps.pol
	}
	if o.verdict.Decision == call.Pass && o.err == nil && (pol == nil || pol.Settings.Audit != "all") {
		return
	}
	path := auditPath(sys, f, pol)
	if path == "" {
		return
	}
	rec := audit.Record{
		Time:       o.started,
		Event:      audit.EventDecision,
		Provider:   o.call.Provider,
		Session:    o.call.SessionID,
		Tool:       o.call.Tool,
		Kind:       o.call.Kind.String(),
		Summary:    audit.CallSummary(o.call, summaryMax),
		Cwd:        o.call.Cwd,
		Workspace:  o.workspace,
		Decision:   o.verdict.Decision.String(),
		Reason:     audit.Redact(o.verdict.Reason),
		ApprovalID: o.approval,
		Mode:       o.mode.String(),
		DurationMS: float64(sys.now().Sub(o.started).Microseconds()) / 1000,
	}
	if o.codec != nil && rec.Provider == "" {
		rec.Provider = o.codec.Name()
	}
	if o.res != nil && o.res.Rule != nil {
		rec.Rule, rec.Layer, rec.Source = o.res.Rule.ID, o.res.Rule.Layer, o.res.Rule.Source
	} else if o.res != nil && o.res.Cause != "" {
		rec.Rule = o.res.Cause
	}
	if pol != nil {
		rec.PolicyHash = pol.Hash()
		for _, p := range ignoredParts(sys, pol) {
			rec.Ignored = append(rec.Ignored, p.String())
		}
	}
	if o.err != nil {
		rec.Error = audit.Redact(o.err.Error())
		rec.Rule = "on_error"
	}
	if err := appendAudit(ctx, sys, pol, path, rec); err != nil {
		fmt.Fprintf(sys.stderr, "toolguard: %v; the decision (%s) stands, its audit line is missing\n", err, rec.Decision)
	}
}
