package otelexport

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/log"

	"github.com/toolguard/toolguard/internal/audit"
)

// Attribute keys of an exported record (docs/otel.md). Every field of the
// audit line is one, under the same name prefixed toolguard.; empty
// fields are left out.
const (
	AttrEvent    = "toolguard.event"
	AttrDecision = "toolguard.decision"
	AttrAgent    = "toolguard.agent" // the line's provider
	AttrSession  = "toolguard.session"
	AttrTool     = "toolguard.tool"
	AttrKind     = "toolguard.kind"
	AttrSummary  = "toolguard.summary"
	AttrReason   = "toolguard.reason"
	AttrRule     = "toolguard.rule"
	AttrApproval = "toolguard.approval_id"
	AttrPolicy   = "toolguard.policy_hash"
	AttrBundle   = "toolguard.bundle"
	AttrError    = "toolguard.error"
	AttrNode     = "toolguard.node"       // the node token of a POST /v1/hooks call (not in the line)
	AttrPrev     = "toolguard.audit.prev" // the line's prev: the hash of the line before it
	AttrHash     = "toolguard.audit.hash" // the line's own hash: SHA-256 of its bytes, the next line's prev
)

// Severity is the record's severity for a line: ERROR when the guard
// failed (the line has an error, or a managed bundle was refused), WARN
// for a deny (a rejection included), INFO4 for an ask, INFO otherwise
// (allow, pass, a result).
func Severity(rec audit.Record) (log.Severity, string) {
	switch {
	case rec.Error != "" || rec.Event == audit.EventBundle:
		return log.SeverityError1, "ERROR"
	case rec.Decision == "deny":
		return log.SeverityWarn1, "WARN"
	case rec.Decision == "ask":
		return log.SeverityInfo4, "INFO4"
	}
	return log.SeverityInfo1, "INFO"
}

// Record is the log record of one audit line: its time, the event as the
// event name, the severity by decision, the reason (else the call's
// summary, else the error) as the body, and the line's fields, its chain
// hashes and the node as attributes.
func Record(rec audit.Record, hash, node string) log.Record {
	var r log.Record
	event := rec.Event
	if event == "" {
		event = audit.EventDecision
	}
	r.SetTimestamp(rec.Time)
	r.SetEventName(event)
	sev, text := Severity(rec)
	r.SetSeverity(sev)
	r.SetSeverityText(text)
	body := rec.Reason
	if body == "" {
		body = rec.Summary
	}
	if body == "" {
		body = rec.Error
	}
	if body == "" {
		body = event
	}
	r.SetBody(attribute.StringValue(body))
	attrs := []attribute.KeyValue{attribute.String(AttrEvent, event)}
	for _, f := range []struct{ k, v string }{
		{AttrDecision, rec.Decision},
		{AttrAgent, rec.Provider},
		{AttrSession, rec.Session},
		{AttrTool, rec.Tool},
		{AttrKind, rec.Kind},
		{AttrSummary, rec.Summary},
		{AttrReason, rec.Reason},
		{AttrRule, rec.Rule},
		{"toolguard.rule.layer", rec.Layer},
		{"toolguard.rule.source", rec.Source},
		{AttrApproval, rec.ApprovalID},
		{AttrPolicy, rec.PolicyHash},
		{AttrBundle, rec.Bundle},
		{"toolguard.mode", rec.Mode},
		{"toolguard.cwd", rec.Cwd},
		{"toolguard.workspace", rec.Workspace},
		{AttrError, rec.Error},
		{"toolguard.approver", rec.Approver},
		{"toolguard.approver_key", rec.ApproverKey},
		{"toolguard.call_key", rec.CallKey},
		{AttrNode, node},
		{AttrPrev, rec.Prev},
		{AttrHash, hash},
	} {
		if f.v != "" {
			attrs = append(attrs, attribute.String(f.k, f.v))
		}
	}
	if rec.DurationMS != 0 {
		attrs = append(attrs, attribute.Float64("toolguard.duration_ms", rec.DurationMS))
	}
	if rec.Uses != 0 {
		attrs = append(attrs, attribute.Int("toolguard.uses", rec.Uses))
	}
	if !rec.Expires.IsZero() {
		attrs = append(attrs, attribute.String("toolguard.expires", rec.Expires.UTC().Format(time.RFC3339)))
	}
	if len(rec.Ignored) > 0 {
		attrs = append(attrs, attribute.StringSlice("toolguard.ignored", rec.Ignored))
	}
	r.AddAttributes(attrs...)
	return r
}
