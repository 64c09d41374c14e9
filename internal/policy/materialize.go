package policy

import (
	"github.com/toolguard/toolguard/internal/call"
)

// settingsDoc turns merged settings back into the file form.
func settingsDoc(s Settings) fileSettings {
	str := func(v string) *string { return &v }
	dec := func(d call.Decision) *string { return str(d.String()) }
	fs := fileSettings{
		Builtin:      &s.Builtin,
		Default:      dec(s.Default),
		Mode:         str(s.Mode.String()),
		OnError:      dec(s.OnError),
		OnUnparsable: dec(s.OnUnparsable),
		OnDynamic:    dec(s.OnDynamic),
		Audit:        str(s.Audit),
		SafePrefixes: s.SafePrefixes,
		Approvers:    s.Approvers,
		Locked:       s.Locked,
	}
	if !s.HoldSessionOnPending {
		fs.HoldSession = &s.HoldSessionOnPending
	}
	if s.PendingTTL != 0 && s.PendingTTL != DefaultPendingTTL {
		fs.PendingTTL = str(s.PendingTTL.String())
	}
	if s.AuditLog != "" {
		fs.AuditLog = str(s.AuditLog)
	}
	if s.StateDir != "" {
		fs.StateDir = str(s.StateDir)
	}
	if s.Workspace != "" {
		fs.Workspace = str(s.Workspace)
	}
	if s.AutoAllow != "" && s.AutoAllow != AutoAllowOff {
		fs.AutoAllow = str(s.AutoAllow)
	}
	if s.CaseInsensitivePaths {
		fs.CaseInsensitivePaths = &s.CaseInsensitivePaths
	}
	if len(s.ShellFields) > 0 {
		fs.ShellFields = s.ShellFields
	}
	if s.RequireEnforcement {
		fs.RequireEnforcement = &s.RequireEnforcement
	}
	if s.ApprovalURL != "" {
		fs.ApprovalURL = str(s.ApprovalURL)
	}
	if s.ApprovalTokenFile != "" {
		fs.ApprovalTokenFile = str(s.ApprovalTokenFile)
	}
	if s.PolicyPubkey != "" {
		fs.PolicyPubkey = str(s.PolicyPubkey)
	}
	for _, n := range s.Notify {
		fs.Notify = append(fs.Notify, fileNotify{URL: n.URL, Events: n.Events, Format: n.Format})
	}
	for k, v := range s.AskFallback {
		if k == AskFallbackAll {
			fs.AskFallback = str(v)
			continue
		}
		if fs.AskFallbackFor == nil {
			fs.AskFallbackFor = map[string]string{}
		}
		fs.AskFallbackFor[k] = v
	}
	if len(s.DefaultFor) > 0 {
		fs.DefaultFor = map[string]string{}
		for k, v := range s.DefaultFor {
			fs.DefaultFor[k.String()] = v.String()
		}
	}
	return fs
}

// RuleInfo is the public description of an effective rule.
type RuleInfo struct {
	ID            string   `json:"id"`
	Description   string   `json:"description,omitempty"`
	Decision      string   `json:"decision"`
	Justification string   `json:"justification,omitempty"`
	Priority      int      `json:"priority"`
	Locked        bool     `json:"locked"`
	Layer         string   `json:"layer"`
	Source        string   `json:"source"`
	Matches       fileRule `json:"match"`
}

// Info describes the effective rules, in order.
func (p *Policy) Info() []RuleInfo {
	rules, _ := p.Rules() // the rules that decode (rules --json loads in full)
	out := make([]RuleInfo, 0, len(rules))
	for _, r := range rules {
		spec := r.spec
		spec.ID, spec.Description, spec.Decision, spec.Justification = "", "", "", ""
		spec.Priority, spec.Locked, spec.Layer, spec.Source = 0, false, "", ""
		spec.Examples = fileExamples{}
		out = append(out, RuleInfo{
			ID: r.ID, Description: r.Description, Decision: r.Decision.String(),
			Justification: r.Justification, Priority: r.Priority, Locked: r.Locked,
			Layer: r.Layer, Source: r.Source, Matches: spec,
		})
	}
	return out
}

// TestCount reports how many [[test]]s the merged policy carries.
func (p *Policy) TestCount() int { return len(p.tests) }

// Examples returns the number of examples over all rules.
func (p *Policy) Examples() int {
	n := 0
	rules, _ := p.Rules()
	for _, r := range rules {
		n += len(r.spec.Examples.Match) + len(r.spec.Examples.NotMatch)
	}
	return n
}
