package policy

import (
	"regexp"
	"regexp/syntax"
	"sync"
)

// lazyRegexp is a rule's regex: checked when the policy loads, compiled on
// first use, so that a hook run compiles only the regexes of the rules its
// call reaches. Safe for concurrent use.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func newLazyRegexp(src string, trusted bool) (*lazyRegexp, error) {
	if trusted {
		return &lazyRegexp{src: src}, nil
	}
	if _, err := syntax.Parse(src, syntax.Perl); err != nil {
		return nil, err
	}
	return &lazyRegexp{src: src}, nil
}

// MatchString reports whether s matches. A regex that parsed at load but
// fails to compile (which RE2 syntax does not allow) matches nothing.
func (l *lazyRegexp) MatchString(s string) bool {
	l.once.Do(func() { l.re, _ = regexp.Compile(l.src) })
	return l.re != nil && l.re.MatchString(s)
}
