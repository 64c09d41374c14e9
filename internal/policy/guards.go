package policy

import (
	"fmt"
	"reflect"
)

// GuardGap is a locked default rule that the policy does not enforce as
// shipped.
type GuardGap struct {
	Rule string `json:"rule"`
	Why  string `json:"why"`
}

// GuardGaps lists the locked default rules — the guard's self-protection
// (docs/surfaces.md): its surfaces, toolguard's own mutating subcommands,
// agents started with their guards off, the shell start-up files — that
// this policy does not enforce as shipped: left out (builtin = false,
// --no-builtin, a materialized policy without them) or defined otherwise.
// No later layer can replace or disable a locked rule, so a gap comes from
// how the policy was put together (a user or system choice); doctor names
// each one so that the user knows.
func (p *Policy) GuardGaps() []GuardGap {
	have := map[string]*Rule{}
	rules, _ := p.Rules() // a rule that does not decode is missing: a gap
	for _, r := range rules {
		have[r.ID] = r
	}
	var gaps []GuardGap
	for _, want := range builtinGen.Rules {
		if !want.Locked {
			continue
		}
		r := have[want.ID]
		switch {
		case r == nil:
			gaps = append(gaps, GuardGap{want.ID, "not in effect: the builtin rules are left out (builtin = false, --no-builtin) or the policy does not hold it"})
		case !sameRule(r.spec, want):
			gaps = append(gaps, GuardGap{want.ID, fmt.Sprintf("defined differently by layer %s (%s)", r.Layer, r.Source)})
		}
	}
	return gaps
}

// sameRule compares two rules as written, wherever they came from.
func sameRule(a, b fileRule) bool {
	a.Source, a.Layer, b.Source, b.Layer = "", "", "", ""
	return reflect.DeepEqual(a, b)
}
