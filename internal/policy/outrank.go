package policy

import (
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// outranked warns about each allow rule of the policy's own layers that
// wins over an unlocked built-in ask or deny: it is tried on the built-in
// rule's own match examples through the whole policy, and when one of
// them is then decided by the allow (the built-in rule matched, and lost
// on priority), the author learns that `git push --force` is now allowed
// (a built-in deny is only a default: a layer may override it on purpose,
// so this is a warning, not an error; settings.disable says it plainly).
func (p *Policy) outranked(rules []*Rule) []Problem {
	var allows, defaults []*Rule
	for _, r := range rules {
		switch {
		case r.Decision == call.Allow && r.Layer != "builtin":
			allows = append(allows, r)
		case r.Layer == "builtin" && !r.Locked && r.Decision >= call.Ask:
			defaults = append(defaults, r)
		}
	}
	if len(allows) == 0 {
		return nil
	}
	var probs []Problem
	warned := map[[2]string]bool{}
	for _, d := range defaults {
		for _, ex := range d.spec.Examples.Match {
			c, err := exampleCall(d, ex)
			if err != nil {
				continue
			}
			res := p.Evaluate(c, CheckEnv())
			if res.Decision != call.Allow || res.Rule == nil || !matchedRule(res, d.ID) {
				continue
			}
			for _, a := range allows {
				if res.Rule.ID != a.ID || warned[[2]string{a.ID, d.ID}] {
					continue
				}
				warned[[2]string{a.ID, d.ID}] = true
				file, line := a.Source, 0
				if i := strings.LastIndexByte(a.Source, ':'); i > 0 {
					file, line = a.Source[:i], posLine(a.Source)
				}
				probs = append(probs, Problem{File: file, Line: line, Col: 1, Rule: a.ID, Warning: true,
					Msg: fmt.Sprintf("this allow (priority %d) outranks the built-in %s rule %q (priority %d): %q is allowed; if that is meant, add %q to settings.disable to say so, else narrow this rule or lower its priority",
						a.Priority, d.Decision, d.ID, d.Priority, ex, d.ID)})
			}
		}
	}
	return probs
}

func matchedRule(res *Result, id string) bool {
	for _, m := range res.Matches {
		if m.Rule == id {
			return true
		}
	}
	return false
}
