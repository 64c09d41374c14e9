// The merge stage: the compiled layers applied in order into one rule
// list and one Settings (mergeSettings, load.go, merges the settings).

package policy

import (
	"fmt"
	"sort"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// merge applies the layers in order: later rules replace earlier ones by
// id, disable removes them, locked rules and settings resist both. A lock
// binds by position: what a layer locks binds every later layer, whatever
// it is called. An untrusted layer (Source.Untrusted) only tightens: what
// it would loosen is left out and listed in Policy.Ignored.
func merge(layers []*layerDoc) (*Policy, []*Rule, []Problem) {
	p := &Policy{Settings: DefaultSettings()}
	var builtinRules []*Rule
	n := 0
	for _, ld := range layers {
		n += len(ld.rules)
	}
	rules := make([]*Rule, 0, n)
	byID := make(map[string]int, n)       // index into rules
	lockedSettings := map[string]string{} // setting -> name of the layer that locked it
	var tests []test
	var untrustedAsk []*Rule

	for _, ld := range layers {
		untrusted := ld.src.Untrusted
		p.Layers = append(p.Layers, Layer{Name: ld.name, File: ld.src.Path, Hash: ld.hash, Untrusted: untrusted})
		p.Warnings = append(p.Warnings, mergeSettings(&p.Settings, ld, lockedSettings, &p.Ignored)...)

		for _, id := range ld.doc.Settings.Disable {
			if untrusted {
				p.Ignored = append(p.Ignored, ld.problem("settings.disable", id, "disable ignored: "+untrustedWhy))
				continue
			}
			if owner, locked := lockedSettings["disable"]; locked && owner != ld.name {
				break // locked by an earlier layer (names are unique: uniqueNames)
			}
			j, ok := byID[id]
			switch {
			case !ok:
				p.Warnings = append(p.Warnings, ld.problem("settings.disable", id,
					"disable names no rule of an earlier layer"))
			case rules[j].Locked:
				p.Warnings = append(p.Warnings, ld.problem("settings.disable", id,
					fmt.Sprintf("cannot disable: locked by layer %s (%s)", rules[j].Layer, rules[j].Source)))
			default:
				rules[j] = nil
				delete(byID, id)
			}
		}
		for _, r := range ld.rules {
			j, ok := byID[r.ID]
			if untrusted {
				why := ""
				switch {
				case r.Decision < call.Ask:
					why = fmt.Sprintf("%s rule ignored: %s", r.Decision, untrustedWhy)
				case ok:
					why = fmt.Sprintf("rule ignored: it replaces rule %q of layer %s (%s), which could weaken it; %s",
						r.ID, rules[j].Layer, rules[j].Source, untrustedWhy)
				}
				if why != "" {
					p.Ignored = append(p.Ignored, Problem{File: ld.src.Path, Rule: r.ID, Line: posLine(r.Source), Col: 1, Msg: why})
					continue
				}
				if r.Decision == call.Ask {
					// An ask must never out-rank a deny: not locked, and
					// no higher priority than the lowest deny (below).
					if r.Locked {
						p.Ignored = append(p.Ignored, Problem{File: ld.src.Path, Rule: r.ID, Line: posLine(r.Source), Col: 1,
							Msg: "locked ignored on an ask rule (a locked ask would out-rank unlocked denies): " + untrustedWhy})
						r.Locked, r.spec.Locked = false, false
					}
					untrustedAsk = append(untrustedAsk, r)
				}
			}
			switch {
			case !ok:
				byID[r.ID] = len(rules)
				rules = append(rules, r)
			case rules[j].Locked:
				p.Warnings = append(p.Warnings, Problem{File: ld.src.Path, Rule: r.ID,
					Line: posLine(r.Source), Col: 1,
					Msg: fmt.Sprintf("cannot replace: locked by layer %s (%s); this definition is ignored", rules[j].Layer, rules[j].Source)})
			default:
				rules[j] = r
			}
		}
		if ld.src.Path == BuiltinFile {
			builtinRules = ld.rules
		}
		for i, t := range ld.doc.Tests {
			tests = append(tests, test{spec: t, file: ld.src.Path, pos: ld.testPos(i)})
		}
	}
	var isBuiltin map[*Rule]bool
	if !p.Settings.Builtin {
		isBuiltin = make(map[*Rule]bool, len(builtinRules))
		for _, r := range builtinRules {
			isBuiltin[r] = true
		}
	}
	eff := make([]*Rule, 0, len(rules))
	for _, r := range rules {
		if r == nil || (!p.Settings.Builtin && isBuiltin[r]) {
			continue
		}
		r.ord = len(eff)
		eff = append(eff, r)
	}
	capAskPriority(eff, untrustedAsk, &p.Ignored)
	for name := range lockedSettings {
		p.Settings.Locked = append(p.Settings.Locked, name)
	}
	sort.Strings(p.Settings.Locked)
	p.tests = tests
	if len(layers) == 1 && layers[0].doc.Meta != nil {
		p.materialHash = layers[0].doc.Meta.Hash // computed by materialize over these rules
	}
	p.rules = compiledRules(eff)
	return p, eff, nil
}

// untrustedWhy ends every message about what an untrusted layer may not do.
const untrustedWhy = "untrusted project policy (it can only tighten)"

// capAskPriority lowers the priority of an untrusted layer's ask rules to
// that of the lowest-priority deny rule, so that such an ask never beats a
// deny (equal priorities go to the stricter decision).
func capAskPriority(rules, asks []*Rule, ignored *[]Problem) {
	if len(asks) == 0 {
		return
	}
	lowest, any := 0, false
	for _, r := range rules {
		if r.Decision == call.Deny && (!any || r.Priority < lowest) {
			lowest, any = r.Priority, true
		}
	}
	if !any {
		return
	}
	for _, r := range asks {
		if r.Priority > lowest {
			*ignored = append(*ignored, Problem{File: r.Source[:max(0, strings.LastIndexByte(r.Source, ':'))], Rule: r.ID,
				Line: posLine(r.Source), Col: 1,
				Msg: fmt.Sprintf("priority %d lowered to %d (an ask may not out-rank a deny): %s", r.Priority, lowest, untrustedWhy)})
			r.Priority, r.spec.Priority = lowest, lowest
		}
	}
}
