// The compile stage: a decoded layer's rules and tests checked, and each
// rule's matchers compiled (compileMatcher, match.go) into a *Rule.

package policy

import (
	"fmt"

	"github.com/toolguard/toolguard/internal/call"
)

// compileRules validates and compiles a layer's rules into ld.rules.
func compileRules(ld *layerDoc, opts LoadOptions) []Problem {
	var probs []Problem
	seen := map[string]int{}
	for i, fr := range ld.doc.Rules {
		key := fmt.Sprintf("rule.%d", i)
		if fr.ID == "" {
			probs = append(probs, ld.problem(key, "", "rule without an id"))
			continue
		}
		if !validID(fr.ID) {
			probs = append(probs, ld.problem(key+".id", fr.ID,
				"id must be lowercase kebab-case (letters, digits, '-', '_', '.')"))
		}
		if j, dup := seen[fr.ID]; dup {
			pos := srcPos{}
			if ld.ix != nil {
				pos = ld.ix.lookup(fmt.Sprintf("rule.%d", j))
			}
			probs = append(probs, ld.problem(key+".id", fr.ID,
				fmt.Sprintf("duplicate id (first defined at line %d)", pos.Line)))
			continue
		}
		seen[fr.ID] = i
		r, rp := compileRule(ld, i, fr, opts)
		probs = append(probs, rp...)
		if r != nil {
			ld.rules = append(ld.rules, r)
		}
	}
	return probs
}

// checkTests validates a layer's [[test]]s.
func checkTests(ld *layerDoc) []Problem {
	var probs []Problem
	for i, t := range ld.doc.Tests {
		if _, ok := call.ParseDecision(t.Expect); !ok {
			probs = append(probs, ld.problem(fmt.Sprintf("test.%d.expect", i), "",
				fmt.Sprintf("test %d: unknown expected decision %q (want pass, allow, ask or deny)", i+1, t.Expect)))
		}
		if t.Command == "" && t.Path == "" && t.MCP == "" && t.Tool == "" && t.URL == "" {
			probs = append(probs, ld.problem(fmt.Sprintf("test.%d", i), "",
				fmt.Sprintf("test %d: needs a command, a tool and path, an mcp call or a url", i+1)))
		}
	}
	return probs
}

func compileRule(ld *layerDoc, i int, fr fileRule, opts LoadOptions) (*Rule, []Problem) {
	key := fmt.Sprintf("rule.%d", i)
	var probs []Problem
	bad := func(field, msg string) {
		probs = append(probs, ld.problem(key+"."+field, fr.ID, msg))
	}
	d, ok := call.ParseDecision(fr.Decision)
	switch {
	case fr.Decision == "":
		bad("decision", "missing decision (want allow, ask or deny)")
	case !ok || d == call.Pass:
		bad("decision", fmt.Sprintf("unknown decision %q (want allow, ask or deny)", fr.Decision))
	}
	m, mp := compileMatcher(fr, ld.trusted)
	m.stdinToo = d == call.Ask || d == call.Deny
	for _, e := range mp {
		bad(e.field, e.msg)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	layer, src := provenance(ld, i, &fr)
	c := &compiledRule{body: ruleBody{spec: fr, m: m}} // one allocation
	r := &c.Rule
	*r = Rule{
		ID:            fr.ID,
		Description:   fr.Description,
		Decision:      d,
		Justification: fr.Justification,
		Priority:      fr.Priority,
		Locked:        fr.Locked,
		Layer:         layer,
		Source:        src,
		ruleBody:      &c.body,
	}
	r.spec.Layer, r.spec.Source = layer, src
	return r, nil
}

// provenance is the layer name and file:line rule i of a layer reports.
func provenance(ld *layerDoc, i int, fr *fileRule) (layer, src string) {
	src = ld.src.Path
	if ld.ix != nil {
		src = fmt.Sprintf("%s:%d", ld.src.Path, ld.ix.lookup(fmt.Sprintf("rule.%d", i)).Line)
	} else if fr.Source != "" {
		src = fr.Source // materialized JSON carries the original provenance
	}
	layer = ld.name
	if ld.ix == nil && fr.Layer != "" {
		layer = fr.Layer
	}
	return layer, src
}
