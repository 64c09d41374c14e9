package policy

import (
	"path"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// index sorts rules by what they can match, so that evaluating a call
// looks only at the rules it can reach, not at every rule of a large
// policy. Entries are rule ordinals (positions in the effective rule
// list), ascending, so that a lazily loaded policy decodes only the rules
// a call reaches (lazy.go) and candidates are tried in rule order.
type index struct {
	byName  map[string][]int32 // command rules whose every alternative names a literal program
	anyName []int32            // command rules with a glob program name, or none
	// paths holds the path rules whose every path pattern starts with a
	// literal segment, under each pattern's key (pathKey); pathAll the
	// others (glob first segment, **/, @protected, path_none/op/scope only).
	paths   map[string][]int32
	pathAll []int32
	calls   callIndex
}

// callIndex sorts call rules by the calls they can match.
type callIndex struct {
	mcp    []int32               // rules with an mcp field: MCP calls only
	url    []int32               // rules with a domain field: calls with a URL only
	byKind map[call.Kind][]int32 // rules whose tool field names only kinds
	any    []int32               // the rest
}

func buildIndex(rules []*Rule) index {
	ix := index{byName: map[string][]int32{}, paths: map[string][]int32{}, calls: callIndex{byKind: map[call.Kind][]int32{}}}
	for i, r := range rules {
		o := int32(i)
		switch r.m.class {
		case classCall:
			ix.calls.add(o, &r.m)
		case classPath:
			keys, ok := pathKeys(r.m.paths)
			if !ok {
				ix.pathAll = append(ix.pathAll, o)
				continue
			}
			for _, k := range keys {
				ix.paths[k] = append(ix.paths[k], o)
			}
		case classCommand:
			names, literal := programNames(r.m.commands)
			if len(r.m.commands) == 0 && r.m.regex != nil {
				names, literal = regexPrograms(r.m.regex.src)
			}
			if !literal {
				ix.anyName = append(ix.anyName, o)
				continue
			}
			for _, n := range names {
				ix.byName[n] = append(ix.byName[n], o)
			}
		}
	}
	return ix
}

func (ci *callIndex) add(o int32, m *matcher) {
	switch {
	case len(m.mcp) > 0:
		ci.mcp = append(ci.mcp, o)
	case len(m.domains) > 0:
		ci.url = append(ci.url, o)
	case len(m.tools) > 0 && onlyKinds(m.tools):
		seen := map[call.Kind]bool{}
		for _, t := range m.tools {
			if !seen[t.kind] {
				seen[t.kind] = true
				ci.byKind[t.kind] = append(ci.byKind[t.kind], o)
			}
		}
	default:
		ci.any = append(ci.any, o)
	}
}

func onlyKinds(ts []toolPattern) bool {
	for _, t := range ts {
		if !t.isKnd {
			return false
		}
	}
	return true
}

// forCall returns the call rules a call can match, in rule order.
func (ci *callIndex) forCall(c *call.Call) []int32 {
	lists := [][]int32{ci.any, ci.byKind[c.Kind]}
	if c.Kind == call.KindMCP {
		lists = append(lists, ci.mcp)
	}
	if c.URL != "" {
		lists = append(lists, ci.url)
	}
	return mergeOrds(lists...)
}

// mergeOrds merges ascending ordinal lists into one, without duplicates.
func mergeOrds(lists ...[]int32) []int32 {
	var nonEmpty [][]int32
	n := 0
	for _, l := range lists {
		if len(l) > 0 {
			nonEmpty = append(nonEmpty, l)
			n += len(l)
		}
	}
	switch len(nonEmpty) {
	case 0:
		return nil
	case 1:
		return nonEmpty[0]
	}
	out := make([]int32, 0, n)
	for _, l := range nonEmpty {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Path keys: a pattern whose first segments are literal can only match a
// target that starts with those segments, so a path rule is filed under
// its patterns' literal prefixes, tagged by what the pattern is matched
// against (pathPattern.match): "a:" the absolute path, "r:" the path
// relative to the workspace, "h:" relative to the home directory, "b:"
// the base name.

// pathKeys returns the keys of a path rule, and false when some pattern
// (or the absence of any) leaves it unkeyed.
func pathKeys(ps []pathPattern) ([]string, bool) {
	if len(ps) == 0 {
		return nil, false
	}
	var keys []string
	for _, pp := range ps {
		var tag string
		switch pp.kind {
		case patAbs:
			tag = "a:"
		case patRel:
			tag = "r:"
		case patHome:
			tag = "h:"
		case patBase:
			if hasMeta(pp.glob) {
				return nil, false
			}
			keys = append(keys, "b:"+pp.glob)
			continue
		default:
			return nil, false
		}
		lit := literalPrefix(pp.glob)
		if lit == "" {
			return nil, false
		}
		keys = append(keys, tag+lit)
	}
	slices.Sort(keys)
	return slices.Compact(keys), true
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[]{}\\") }

// literalPrefix returns the leading segments of a glob that hold no
// pattern syntax, joined by '/' ("" when the first one does).
func literalPrefix(glob string) string {
	end := 0
	for end <= len(glob) {
		i := strings.IndexByte(glob[end:], '/')
		seg := glob[end:]
		if i >= 0 {
			seg = glob[end : end+i]
		}
		if hasMeta(seg) {
			if end == 0 {
				return ""
			}
			return glob[:end-1]
		}
		if i < 0 {
			return glob
		}
		end += i + 1
	}
	return glob
}

// pathCandidates returns the path rules that can match a path target, in
// rule order: those filed under a key of one of its forms, and pathAll.
func (ix *index) pathCandidates(forms []string, ev *evalEnv) []int32 {
	if len(ix.paths) == 0 {
		return ix.pathAll
	}
	lists := [][]int32{ix.pathAll}
	look := func(tag, target string) {
		for i := 1; i < len(target); i++ {
			if target[i] == '/' {
				if l := ix.paths[tag+target[:i]]; l != nil {
					lists = append(lists, l)
				}
			}
		}
		if l := ix.paths[tag+target]; l != nil {
			lists = append(lists, l)
		}
	}
	for _, f := range forms {
		look("a:", f)
		if l := ix.paths["b:"+path.Base(f)]; l != nil {
			lists = append(lists, l)
		}
		if ev.home != "" {
			if r, ok := relInside(ev.home, f); ok {
				look("h:", r)
			}
		}
		if ev.workspace != "" && strings.HasPrefix(f, "/") {
			if r, ok := relInside(ev.workspace, f); ok {
				look("r:", r)
			}
		} else {
			look("r:", f)
		}
	}
	return mergeOrds(lists...)
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
