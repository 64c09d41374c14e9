package policy

import (
	"regexp"
	"regexp/syntax"
	"slices"
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

// prefilter is a necessary condition for a regex to match a string, in
// conjunctive form: every clause must have one of its literals in the
// string. No clause (nil) lets every string through. It is sound, never
// exact: a string it allows may still not match.
type prefilter [][]string

// allows reports whether s may match.
func (p prefilter) allows(s string) bool {
	for _, clause := range p {
		ok := false
		for _, lit := range clause {
			if strings.Contains(s, lit) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// buildPrefilter derives the prefilter of a parsed regex: the
// case-sensitive literals a match must contain. A concatenation needs
// every part's clauses; an alternation needs one of its branches, so it
// gives one clause with a literal of each branch (none when a branch
// needs nothing); a capture, a + and a repeat of at least once need what
// their operand needs; anything that can match without its operand (*,
// ?, {0,n}), a class, a case-folded literal and the empty match need
// nothing. A literal holding U+FFFD is dropped: the matcher reads an
// invalid byte of the string as that rune, which strings.Contains does
// not.
func buildPrefilter(re *syntax.Regexp) prefilter {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil
		}
		lit := string(re.Rune)
		if lit == "" || strings.ContainsRune(lit, utf8.RuneError) {
			return nil
		}
		return prefilter{{lit}}
	case syntax.OpCapture, syntax.OpPlus:
		return buildPrefilter(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return buildPrefilter(re.Sub[0])
		}
		return nil
	case syntax.OpConcat:
		var out prefilter
		for _, sub := range re.Sub {
			out = append(out, buildPrefilter(sub)...)
		}
		return out
	case syntax.OpAlternate:
		var clause []string
		for _, sub := range re.Sub {
			best := bestClause(buildPrefilter(sub))
			if best == nil {
				return nil // this branch needs nothing
			}
			for _, lit := range best {
				if !slices.Contains(clause, lit) {
					clause = append(clause, lit)
				}
			}
		}
		return prefilter{clause}
	}
	return nil
}

// bestClause is the clause of p with the longest shortest literal (the
// most selective), nil when p has none.
func bestClause(p prefilter) []string {
	var best []string
	bestLen := 0
	for _, clause := range p {
		short := len(clause[0])
		for _, lit := range clause[1:] {
			short = min(short, len(lit))
		}
		if short > bestLen {
			best, bestLen = clause, short
		}
	}
	return best
}
