package policy

import "strings"

// index sorts rules by what they can match, so that evaluating a command
// looks only at the rules for its program name (and the few that match
// any name), not at every rule of a large policy.
type index struct {
	byName  map[string][]*Rule // command rules whose every alternative names a literal program
	anyName []*Rule            // command rules with a glob program name, or none
	paths   []*Rule
	calls   []*Rule
}

func buildIndex(rules []*Rule) index {
	ix := index{byName: map[string][]*Rule{}}
	for _, r := range rules {
		switch r.m.class {
		case classCall:
			ix.calls = append(ix.calls, r)
		case classPath:
			ix.paths = append(ix.paths, r)
		case classCommand:
			names, literal := programNames(r.m.commands)
			if !literal {
				ix.anyName = append(ix.anyName, r)
				continue
			}
			for _, n := range names {
				ix.byName[n] = append(ix.byName[n], r)
			}
		}
	}
	return ix
}

// programNames returns the distinct program names of a rule's command
// alternatives, and false when any of them is a glob or there are none.
func programNames(cmds [][]string) ([]string, bool) {
	if len(cmds) == 0 {
		return nil, false
	}
	var names []string
	seen := map[string]bool{}
	for _, c := range cmds {
		if strings.ContainsAny(c[0], `*?[\`) {
			return nil, false
		}
		if !seen[c[0]] {
			seen[c[0]] = true
			names = append(names, c[0])
		}
	}
	return names, true
}
