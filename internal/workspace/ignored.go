package workspace

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// IgnoredPart is one part of an untrusted project policy that was not
// applied, as check, doctor and the audit log report it.
type IgnoredPart struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Rule string `json:"rule,omitempty"`
	What string `json:"what"`
	Fix  string `json:"fix"`
}

// IgnoredParts lists what the untrusted layers of pol asked for and did
// not get, each with the command that would trust its file.
func (e Env) IgnoredParts(pol *policy.Policy) []IgnoredPart {
	if pol == nil || len(pol.Ignored) == 0 {
		return nil
	}
	cwd := e.Cwd()
	out := make([]IgnoredPart, 0, len(pol.Ignored))
	for _, p := range pol.Ignored {
		name := p.File
		if rel, err := filepath.Rel(cwd, p.File); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		fix := fmt.Sprintf("run `toolguard trust %s` to apply it", shellparse.Quote(name))
		if strings.HasPrefix(p.File, "bundle:") {
			// A layer of the managed policy bundle (internal/guard's
			// LoadPolicy): tighten-only by design, never trusted here.
			fix = "a managed policy bundle only tightens the node's policy (docs/bundles.md)"
		}
		out = append(out, IgnoredPart{File: p.File, Line: p.Line, Rule: p.Rule, What: p.Msg, Fix: fix})
	}
	return out
}

func (p IgnoredPart) String() string {
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	rule := ""
	if p.Rule != "" {
		rule = fmt.Sprintf("rule %q: ", p.Rule)
	}
	return fmt.Sprintf("%s: %s%s — %s", where, rule, p.What, p.Fix)
}
