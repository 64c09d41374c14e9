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

// DefaultPendingTTL is settings.pending_ttl when no layer sets it.
const DefaultPendingTTL = 24 * time.Hour

// DefaultSettings are the settings before any layer: fail closed on
// uncertainty that matters (SPEC §3).
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

	spec fileRule // as written, for rules --json and materialize
	m    matcher
	ord  int // position in the effective rule list
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

	rules []*Rule    // effective rules, in order; for a lazy policy see Rules
	lazy  *lazyRules // set when the rules are decoded on demand (lazy.go)
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

// Rules returns the effective rules, in order. A lazily loaded policy
// decodes every rule on the first call; a rule that fails to decode is
// left out and reported by RulesErr.
func (p *Policy) Rules() []*Rule {
	if p.lazy != nil {
		return p.lazy.all()
	}
	return p.rules
}

// RulesErr reports the first rule of a lazily loaded policy that failed to
// decode or compile in Rules; nil for a policy loaded in full.
func (p *Policy) RulesErr() error {
	if p.lazy != nil {
		p.lazy.all()
		return p.lazy.allErr
	}
	return nil
}

// RuleCount is the number of effective rules, without decoding them.
func (p *Policy) RuleCount() int {
	if p.lazy != nil {
		return len(p.lazy.got)
	}
	return len(p.rules)
}

// rule returns the effective rule with ordinal i, decoding it when the
// policy is lazy.
func (p *Policy) rule(i int32) (*Rule, error) {
	if i < 0 {
		return nil, fmt.Errorf("the materialized policy's rule index is corrupt")
	}
	if p.lazy != nil {
		return p.lazy.get(int(i))
	}
	return p.rules[i], nil
}

// Rule returns the effective rule with the given id, or nil.
func (p *Policy) Rule(id string) *Rule {
	for _, r := range p.Rules() {
		if r.ID == id {
			return r
		}
	}
	return nil
}
