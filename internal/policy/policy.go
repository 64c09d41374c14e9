package policy

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/toolguard/toolguard/internal/call"
)

// Mode says whether a human can answer an ask.
type Mode int

const (
	Interactive Mode = iota
	Headless         // no human present: ask becomes a deny and a pending approval
)

func (m Mode) String() string {
	if m == Headless {
		return "headless"
	}
	return "interactive"
}

// ParseMode returns the Mode named s.
func ParseMode(s string) (Mode, bool) {
	switch s {
	case "interactive":
		return Interactive, true
	case "headless":
		return Headless, true
	}
	return Interactive, false
}

// Settings are the merged [settings] of every layer.
type Settings struct {
	Builtin      bool
	Default      call.Decision
	DefaultFor   map[call.Kind]call.Decision
	Mode         Mode
	OnError      call.Decision
	OnUnparsable call.Decision
	OnDynamic    call.Decision
	AuditLog     string // "" means the default location chosen by the caller
	Audit        string // "decisions" (every decision but pass), "all", or "off"
	StateDir     string
	Workspace    string
	SafePrefixes []string
	Approvers    []string // public keys whose grants verify ("ed25519:…")
	// Locked lists the settings some layer locked (sorted): a materialized
	// policy carries it, so that its locks bind the layers loaded after it.
	Locked []string
	// HoldSessionOnPending: in headless mode, while a session has a pending
	// approval request, its other calls are denied naming that request.
	HoldSessionOnPending bool
	// PendingTTL is how long a pending request waits for a human before it
	// expires (no longer holds the session; prune removes it).
	PendingTTL time.Duration
	// CaseInsensitivePaths matches the guard's surfaces case-insensitively
	// (docs/surfaces.md), as on macOS and Windows by default.
	CaseInsensitivePaths bool
	// RequireEnforcement makes `doctor --require-enforcement` the default
	// (docs/install.md).
	RequireEnforcement bool
	// AutoAllow is "off" or "read-only": a call proven read-only
	// (docs/auto-allow.md) that no rule decided is allowed.
	AutoAllow string
	// ShellFields: per tool-name glob, input fields that hold a shell
	// command an MCP or unknown tool runs (shellfields.go).
	ShellFields map[string][]string
	// ApprovalURL is where headless asks are recorded and grants asked
	// for instead of the local state directory (unix:///path or
	// http://host:port); "" for the local store. ApprovalTokenFile holds
	// the hook token ("" : $TOOLGUARD_APPROVAL_TOKEN).
	ApprovalURL       string
	ApprovalTokenFile string
	// PolicyPubkey pins the key of the managed policy bundle
	// (docs/bundles.md); "" for none.
	PolicyPubkey string
	// Notify are the webhooks toolguard serve posts events to.
	Notify []Notify
	// AskFallback is settings.ask_fallback ("*") and ask_fallback_for (by
	// provider name): "native", "defer" or "deny". Empty: the per-agent
	// table decides (internal/protocol/conformance.go).
	AskFallback map[string]string
}

// settings.ask_fallback values.
const (
	AskFallbackNative = "native"
	AskFallbackDefer  = "defer"
	AskFallbackDeny   = "deny"
	// AskFallbackAll is the AskFallback key of settings.ask_fallback.
	AskFallbackAll = "*"
)

// AskFallbackFor returns the ask_fallback that applies to provider: its
// own ask_fallback_for entry, else ask_fallback, else "".
func (s *Settings) AskFallbackFor(provider string) string {
	if provider == "claude" {
		provider = "claude-code"
	}
	if v, ok := s.AskFallback[provider]; ok {
		return v
	}
	return s.AskFallback[AskFallbackAll]
}

// Notify is one webhook of settings.notify.
type Notify struct {
	URL    string   // http:// or https://
	Events []string // approval.request, approval.decision, approval.result; empty: approval.request
	Format string   // "json" or "slack"
}

// NotifyEvents are the events a webhook may ask for.
var NotifyEvents = []string{"approval.request", "approval.decision", "approval.result"}

// DefaultPendingTTL is settings.pending_ttl when no layer sets it.
const DefaultPendingTTL = 24 * time.Hour

// DefaultSettings are the settings before any layer: fail closed on
// uncertainty that matters (README, "Decisions").
func DefaultSettings() Settings {
	return Settings{
		Builtin:      true,
		Default:      call.Pass,
		Mode:         Interactive,
		OnError:      call.Deny,
		OnUnparsable: call.Ask,
		OnDynamic:    call.Ask,
		Audit:        "decisions",
		SafePrefixes: []string{"/tmp", "/var/tmp", "$TMPDIR"},
		AutoAllow:    AutoAllowOff,

		HoldSessionOnPending: true,
		PendingTTL:           DefaultPendingTTL,
	}
}

// Rule is one compiled rule.
type Rule struct {
	ID            string
	Description   string
	Decision      call.Decision
	Justification string
	Priority      int
	Locked        bool
	Layer         string // name of the layer that defined it
	Source        string // file:line where it is defined

	*ruleBody     // nil while a head (below)
	ord       int // position in the effective rule list
	// head, while a rule of a pending layer (pendingLayer) is not yet
	// compiled, is 1 + its position in that layer: merge sees only its
	// id, decision, priority, lock and provenance (ruleHeads).
	head int32
}

// ruleBody is what a compiled rule holds beyond its head: apart, so that
// the heads of the defaults' rules (ruleHeads) stay small.
type ruleBody struct {
	spec fileRule // as written, for rules --json and materialize
	m    matcher
}

// compiledRule holds a compiled rule and its body in one allocation.
type compiledRule struct {
	Rule
	body ruleBody
}

// Layer describes one loaded policy layer.
type Layer struct {
	Name string `json:"name"`
	File string `json:"file"`
	Hash string `json:"hash"`
	// Untrusted: a project policy the user has not trusted; it only
	// tightened (Policy.Ignored lists what it could not do).
	Untrusted bool `json:"untrusted,omitempty"`
}

// Policy is a loaded, merged and compiled policy. Evaluate is safe for
// concurrent use.
type Policy struct {
	Settings Settings
	Layers   []Layer // on the lazy path (LoadOptions.Lazy) Hash is left empty

	// Warnings are layer conflicts that do not stop the policy from
	// loading (a later layer trying to replace or disable a locked rule,
	// disabling an unknown id, changing a locked setting). validate
	// reports them as errors; the hook ignores the offending part.
	Warnings []Problem
	// Ignored lists what untrusted layers (Source.Untrusted) asked for
	// and did not get because it would have loosened the policy.
	Ignored []Problem

	rules ruleSource // the effective rules, in order: compiled, or on demand (lazyRules)
	tests []test
	idx   index

	hashOnce     sync.Once
	hash         string
	materialHash string // the hash a materialized file carries
}

// Hash is a content hash over the effective settings and rules, computed
// on first use (a pass decision never needs it).
func (p *Policy) Hash() string {
	p.hashOnce.Do(func() {
		switch {
		case p.materialHash != "":
			p.hash = p.materialHash
		case len(p.Layers) == 1 && p.Layers[0].Hash == builtinGenHash:
			// The default policy: its Hash is generated with the defaults
			// (builtin_gen.go), as hashing every rule costs a fresh hook
			// process 0.3–0.5 ms (encoding/json's first use), which a deny
			// paid to write its audit line.
			p.hash = builtinGenPolicyHash
		default:
			p.hash = hashPolicy(p)
		}
	})
	return p.hash
}

// Problem is one positioned complaint about a policy file.
type Problem struct {
	File string
	Line int
	Col  int
	Rule string // rule id, when the problem is about a rule
	Msg  string
	// Warning marks a problem that does not fail validation: the policy
	// means something the author may not have meant (an allow that
	// outranks a built-in deny), and says so.
	Warning bool
}

func (p Problem) String() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			fmt.Fprintf(&b, ":%d:%d", p.Line, p.Col)
		}
		b.WriteString(": ")
	}
	if p.Warning {
		b.WriteString("warning: ")
	}
	if p.Rule != "" {
		fmt.Fprintf(&b, "rule %q: ", p.Rule)
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Error reports every problem found while loading policy files.
type Error struct {
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// ruleSource is where a policy's effective rules come from: compiledRules
// (compiled at load), or lazyRules (decoded and compiled when a call first
// reaches one). Load chooses it (compileAndMerge, loadLazy).
type ruleSource interface {
	rule(i int) (*Rule, error) // rule with ordinal i, 0 <= i < len()
	len() int
	// all is every rule, in order; one that fails to decode or compile
	// is left out, and the first such failure returned.
	all() ([]*Rule, error)
}

// compiledRules are rules compiled at load.
type compiledRules []*Rule

func (c compiledRules) rule(i int) (*Rule, error) { return c[i], nil }
func (c compiledRules) len() int                  { return len(c) }
func (c compiledRules) all() ([]*Rule, error)     { return c, nil }

// Rules returns the effective rules, in order. A policy whose rules are
// decoded on demand (LoadOptions.Lazy) decodes every one; a rule that
// fails to is left out and the first failure returned.
func (p *Policy) Rules() ([]*Rule, error) {
	return p.rules.all()
}

// RuleCount is the number of effective rules, without decoding them.
func (p *Policy) RuleCount() int {
	return p.rules.len()
}

// rule returns the effective rule with ordinal i, decoding it when the
// policy's rules are decoded on demand.
func (p *Policy) rule(i int32) (*Rule, error) {
	if i < 0 || int(i) >= p.rules.len() {
		return nil, fmt.Errorf("the materialized policy's rule index is corrupt")
	}
	return p.rules.rule(int(i))
}

// Rule returns the effective rule with the given id, or nil.
func (p *Policy) Rule(id string) *Rule {
	rules, _ := p.Rules() // the rules that decode
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}
