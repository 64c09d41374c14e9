package policy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// inputCond is one condition on a field of the tool's JSON input.
type inputCond struct {
	field []string // dotted path, "input." prefix removed
	exact *string
	pre   *string
	glob  *string
	re    *regexp.Regexp
	not   bool
}

func compileInput(in fileInput) (inputCond, error) {
	c := inputCond{not: in.Not}
	f := strings.TrimPrefix(in.Field, "input.")
	if f == "" {
		return c, fmt.Errorf("input condition without a field")
	}
	c.field = strings.Split(f, ".")
	n := 0
	if in.Exact != nil {
		c.exact, n = in.Exact, n+1
	}
	if in.Prefix != nil {
		c.pre, n = in.Prefix, n+1
	}
	if in.Glob != nil {
		if _, err := globMatch(*in.Glob, ""); err != nil {
			return c, fmt.Errorf("input %q: bad glob %q", in.Field, *in.Glob)
		}
		c.glob, n = in.Glob, n+1
	}
	if in.Regex != nil {
		re, err := regexp.Compile(*in.Regex)
		if err != nil {
			return c, fmt.Errorf("input %q: bad regex: %v", in.Field, err)
		}
		c.re, n = re, n+1
	}
	if n != 1 {
		return c, fmt.Errorf("input %q: want exactly one of exact, prefix, glob or regex", in.Field)
	}
	return c, nil
}

// match reports whether the condition holds for the raw tool input. A
// field that is missing never matches, so a `not` condition holds for it:
// "repo not under sandbox/" is true when no repo is named.
func (c *inputCond) match(raw json.RawMessage) bool {
	var v any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &v); err != nil {
			v = nil
		}
	}
	vals := collect(v, c.field, nil)
	hit := false
	for _, s := range vals {
		if c.test(s) {
			hit = true
			break
		}
	}
	return hit != c.not
}

func (c *inputCond) test(s string) bool {
	switch {
	case c.exact != nil:
		return s == *c.exact
	case c.pre != nil:
		return strings.HasPrefix(s, *c.pre)
	case c.glob != nil:
		ok, _ := globMatch(*c.glob, s)
		return ok
	case c.re != nil:
		return c.re.MatchString(s)
	}
	return false
}

// collect walks a dotted path; arrays on the way fan out, so
// "items.newPath" reaches every element's newPath. Leaves that are not
// strings are compared by their JSON text (42, true, null).
func collect(v any, field []string, out []string) []string {
	if arr, ok := v.([]any); ok {
		for _, e := range arr {
			out = collect(e, field, out)
		}
		return out
	}
	if len(field) == 0 {
		switch x := v.(type) {
		case nil:
			return out
		case string:
			return append(out, x)
		case float64:
			return append(out, strconv.FormatFloat(x, 'f', -1, 64))
		default:
			b, _ := json.Marshal(x)
			return append(out, string(b))
		}
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return out
	}
	child, ok := obj[field[0]]
	if !ok {
		return out
	}
	return collect(child, field[1:], out)
}

// matchDomain tests the host of a web call's URL. A pattern matches the
// host itself and every subdomain of it ("example.com" matches
// "docs.example.com"); globs are allowed ("*.example.com" matches
// subdomains only). Hosts compare case-insensitively, without port.
func matchDomain(patterns []string, c *call.Call) bool {
	if c.URL == "" {
		return false
	}
	u, err := url.Parse(c.URL)
	if err != nil || u.Host == "" {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, p := range patterns {
		if ok, _ := globMatch(p, host); ok {
			return true
		}
		if !strings.ContainsAny(p, "*?[") && strings.HasSuffix(host, "."+p) {
			return true
		}
	}
	return false
}
