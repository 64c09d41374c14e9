package policy

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// lazyRegexp is a rule's regex: checked when the policy loads, compiled on
// first use, so that a hook run compiles only the regexes of the rules its
// call reaches. Before compiling, its prefilter (the literal text every
// match must contain) is tested: a git command without "-c" or
// "{xargs input}" never compiles the two 80 µs regexes every git command
// used to. Safe for concurrent use.
type lazyRegexp struct {
	src string

	preOnce sync.Once
	pre     prefilter
	preOK   bool           // pre was given at construction
	tree    *syntax.Regexp // the load's parse, until pre is built from it

	once sync.Once
	re   *regexp.Regexp
}

func newLazyRegexp(src string, trusted bool) (*lazyRegexp, error) {
	// The defaults' prefilters are generated with them (builtin_gen.go),
	// and a regex with one compiled when they were generated: the same
	// text in another layer (a materialized copy of a default) is valid
	// without parsing it again.
	l := &lazyRegexp{src: src}
	if l.pre, l.preOK = builtinGenPrefilter(src); l.preOK || trusted {
		return l, nil
	}
	t, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return nil, err
	}
	return &lazyRegexp{src: src, tree: t}, nil
}

// MatchString reports whether s matches. A regex that parsed at load but
// fails to compile (which RE2 syntax does not allow) matches nothing.
func (l *lazyRegexp) MatchString(s string) bool {
	l.preOnce.Do(func() {
		if l.preOK {
			return
		}
		t := l.tree
		if t == nil {
			t, _ = syntax.Parse(l.src, syntax.Perl) // a materialized file's: trusted, not parsed at load
		}
		if t != nil {
			l.pre = buildPrefilter(t)
		}
		l.tree = nil
	})
	if !l.pre.allows(s) {
		return false
	}
	l.once.Do(func() { l.re, _ = regexp.Compile(l.src) })
	return l.re != nil && l.re.MatchString(s)
}

// prefilter is a necessary condition for a regex to match a string: every
// clause of all must have one of its literals in the string, every clause
// of fold one of its literals in any ASCII case, and each group of any one
// of its prefilters allowing the string (an alternation: one of its
// branches). The zero prefilter lets every string through. It is sound,
// never exact: a string it allows may still not match.
type prefilter struct {
	all  [][]string    // literals, case-sensitive
	fold [][]string    // ASCII literals in lower case, matched in any ASCII case
	any  [][]prefilter // alternations: one prefilter of each group allows
}

// allows reports whether s may match. A case-folded literal is tested
// only against an ASCII string: Go's (?i) also folds k to the Kelvin sign
// and s to the long s, which an ASCII string cannot hold.
func (p prefilter) allows(s string) bool {
	for _, clause := range p.all {
		if !slices.ContainsFunc(clause, func(lit string) bool { return strings.Contains(s, lit) }) {
			return false
		}
	}
	if len(p.fold) > 0 && isASCII(s) {
		for _, clause := range p.fold {
			if !slices.ContainsFunc(clause, func(lit string) bool { return containsFoldASCII(s, lit) }) {
				return false
			}
		}
	}
	for _, group := range p.any {
		if !slices.ContainsFunc(group, func(alt prefilter) bool { return alt.allows(s) }) {
			return false
		}
	}
	return true
}

// none reports a prefilter that needs nothing.
func (p prefilter) none() bool { return len(p.all) == 0 && len(p.fold) == 0 && len(p.any) == 0 }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// containsFoldASCII reports whether s holds lower, a lower-case ASCII
// literal, in any ASCII case.
func containsFoldASCII(s, lower string) bool {
	for i := 0; i+len(lower) <= len(s); i++ {
		j := 0
		for ; j < len(lower); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != lower[j] {
				break
			}
		}
		if j == len(lower) {
			return true
		}
	}
	return false
}

// buildPrefilter derives the prefilter of a parsed regex: the literals a
// match must contain. A concatenation needs every part's; an alternation
// needs one of its branches' (a group of them; none when a branch needs
// nothing); a capture, a + and a repeat of at least once need what their
// operand needs; anything that can match without its operand (*, ?,
// {0,n}), a class and the empty match need nothing. A case-folded literal
// is a fold clause when it is ASCII, else nothing. A literal holding
// U+FFFD is dropped: the matcher reads an invalid byte of the string as
// that rune, which strings.Contains does not.
func buildPrefilter(re *syntax.Regexp) prefilter {
	switch re.Op {
	case syntax.OpLiteral:
		lit := string(re.Rune)
		if lit == "" || strings.ContainsRune(lit, utf8.RuneError) {
			return prefilter{}
		}
		if re.Flags&syntax.FoldCase != 0 {
			if !isASCII(lit) {
				return prefilter{}
			}
			return prefilter{fold: [][]string{{strings.ToLower(lit)}}}
		}
		return prefilter{all: [][]string{{lit}}}
	case syntax.OpCapture, syntax.OpPlus:
		return buildPrefilter(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return buildPrefilter(re.Sub[0])
		}
		return prefilter{}
	case syntax.OpConcat:
		var out prefilter
		for _, sub := range re.Sub {
			p := buildPrefilter(sub)
			out.all = append(out.all, p.all...)
			out.fold = append(out.fold, p.fold...)
			out.any = append(out.any, p.any...)
		}
		return out
	case syntax.OpAlternate:
		group := make([]prefilter, 0, len(re.Sub))
		for _, sub := range re.Sub {
			p := buildPrefilter(sub)
			if p.none() {
				return prefilter{} // this branch needs nothing
			}
			group = append(group, p)
		}
		return prefilter{any: [][]prefilter{group}}
	}
	return prefilter{}
}

// goString writes p as a Go expression (the generator's builtinGenPrefilter).
func (p prefilter) goString() string {
	var b strings.Builder
	lists := func(name string, l [][]string) {
		if len(l) > 0 {
			b.WriteString(name + ": [][]string")
			braced(&b, l, func(clause []string) { braced(&b, clause, func(lit string) { b.WriteString(strconv.Quote(lit)) }) })
			b.WriteString(", ")
		}
	}
	b.WriteString("prefilter{")
	lists("all", p.all)
	lists("fold", p.fold)
	if len(p.any) > 0 {
		b.WriteString("any: [][]prefilter")
		braced(&b, p.any, func(group []prefilter) { braced(&b, group, func(alt prefilter) { b.WriteString(alt.goString()) }) })
		b.WriteString(", ")
	}
	return strings.TrimSuffix(b.String(), ", ") + "}"
}

// braced writes items as a Go composite literal's elements: {a, b, …},
// each written by each.
func braced[T any](b *strings.Builder, items []T, each func(T)) {
	b.WriteString("{")
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		each(it)
	}
	b.WriteString("}")
}
