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
			if len(r.m.commands) == 0 && r.m.regex != nil {
				names, literal = regexPrograms(r.m.regex.src)
			}
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

// regexPrograms returns the program names a regex rule can match when
// every top-level alternative of it is anchored to a literal program name
// followed by a blank (`^git .*push`, `^rm (...)|^find ...`), and false
// otherwise. Such a rule cannot match any other command (nor a dynamic
// one, whose text starts with its unknown part), so it is indexed by name.
func regexPrograms(src string) ([]string, bool) {
	var names []string
	for _, alt := range topLevelAlternatives(src) {
		name, ok := anchoredName(alt)
		if !ok {
			return nil, false
		}
		names = append(names, name)
	}
	return names, len(names) > 0
}

// topLevelAlternatives splits a regex at the | that are outside groups
// and classes.
func topLevelAlternatives(src string) []string {
	var out []string
	depth, start := 0, 0
	inClass := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, src[start:i])
			start = i + 1
		}
	}
	return append(out, src[start:])
}

// anchoredName reads `^name ` or `^name\s` at the start of an
// alternative; the name must be a plain word.
func anchoredName(alt string) (string, bool) {
	if !strings.HasPrefix(alt, "^") {
		return "", false
	}
	rest := alt[1:]
	i := 0
	for i < len(rest) && isNameByte(rest[i]) {
		i++
	}
	if i == 0 {
		return "", false
	}
	switch tail := rest[i:]; {
	case strings.HasPrefix(tail, " "), strings.HasPrefix(tail, `\s`):
		return rest[:i], true
	}
	return "", false
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
