package policy

import (
	"slices"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/jsonw"
)

// Rules and settings as JSON without reflection: a decoder for the two
// shapes the lazy loader reads — a rule line (fileRule) and line 1's
// header (lazyHeader) — and, at the end of the file, the encoder of a
// rule and of settings (appendRule, appendSettings).
// encoding/json builds its reflection caches on first use (~0.1 ms) and
// then spends ~10 µs a rule line, a large share of a hook run that
// reaches a few dozen rules.
//
// The contract: when decodeRuleJSON or decodeHeaderJSON returns true, the
// value is what json.Decoder with DisallowUnknownFields gives for the
// same bytes, with the whole input consumed (Decoder.InputOffset equal to
// its length, so nothing may follow the closing brace, not even
// whitespace), down to nil against empty slices and maps. Anything the
// decoder is not sure about returns false and the caller decodes with
// encoding/json, which then reports the error with its position:
//
//   - a key that is not exactly one of the json tags (encoding/json also
//     matches keys case-insensitively), or a key given twice;
//   - null anywhere but inside a test's input;
//   - a value of the wrong type, or a number in an int field that is not
//     a plain integer in int's range;
//   - any syntax error, including anything after the closing brace;
//   - a test input nested deeper than maxAnyDepth.
//
// Strings are unquoted as encoding/json does: every escape, surrogate
// pairs joined, a lone surrogate or a byte that is not UTF-8 replaced with
// U+FFFD. The input is copied into one string once, and strings without
// escapes are slices of it: the result never refers to the input bytes,
// which may be a mapped file.

// maxAnyDepth bounds the nesting of a test's input (encoding/json allows
// 10,000 levels; deeper input here goes to encoding/json).
const maxAnyDepth = 64

// decodeRuleJSON decodes one rule line of a materialized file, or returns
// false when encoding/json must decide.
func decodeRuleJSON(line []byte) (fileRule, bool) {
	d := jsonIn{s: string(line)}
	var r fileRule
	if !d.rule(&r) || d.i != len(d.s) {
		return fileRule{}, false
	}
	return r, true
}

// decodeHeaderJSON decodes the header of a materialized file (line 1
// without its index, closed with '}'), or returns false when
// encoding/json must decide.
func decodeHeaderJSON(b []byte) (lazyHeader, bool) {
	d := jsonIn{s: string(b)}
	var h lazyHeader
	if !d.header(&h) || d.i != len(d.s) {
		return lazyHeader{}, false
	}
	return h, true
}

// jsonIn is the input being decoded and the offset reached.
type jsonIn struct {
	s   string
	i   int
	bad bool       // set by next and nextElem on a syntax error
	tmp [16]string // room for a list of strings before it is copied out
}

func (d *jsonIn) ws() {
	for d.i < len(d.s) {
		switch d.s[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// open consumes whitespace and then c.
func (d *jsonIn) open(c byte) bool {
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == c {
		d.i++
		return true
	}
	return false
}

// next reads the key of an object's next member and the colon after it;
// at the closing brace (or on a syntax error, which sets bad) it returns
// false. n counts the members read.
func (d *jsonIn) next(n *int) (string, bool) {
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == '}' {
		d.i++
		return "", false
	}
	if *n > 0 {
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			d.bad = true
			return "", false
		}
		d.i++
		d.ws()
	}
	*n++
	key, ok := d.str()
	if !ok || !d.open(':') {
		d.bad = true
		return "", false
	}
	d.ws()
	return key, true
}

// nextElem reports whether an array has another element, consuming the
// comma before it; at the closing bracket (or on a syntax error, which
// sets bad) it returns false.
func (d *jsonIn) nextElem(n *int) bool {
	d.ws()
	if d.i < len(d.s) && d.s[d.i] == ']' {
		d.i++
		return false
	}
	if *n > 0 {
		if d.i >= len(d.s) || d.s[d.i] != ',' {
			d.bad = true
			return false
		}
		d.i++
		d.ws()
	}
	*n++
	return true
}

// object decodes an object, handing each member's key to member, which
// decodes the value and returns false for an unknown key, a key given
// twice (once) or a bad value.
func (d *jsonIn) object(member func(key string) bool) bool {
	if !d.open('{') {
		return false
	}
	for n := 0; ; {
		key, more := d.next(&n)
		if !more {
			return !d.bad
		}
		if !member(key) {
			return false
		}
	}
}

// once marks member bit of an object as seen, and reports whether it was
// not seen before.
func once(seen *uint64, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		return false
	}
	*seen |= 1 << bit
	return true
}

func (d *jsonIn) rule(r *fileRule) bool {
	var seen uint64
	return d.object(func(key string) bool {
		switch key {
		case "id":
			return once(&seen, 0) && d.strTo(&r.ID)
		case "description":
			return once(&seen, 1) && d.strTo(&r.Description)
		case "decision":
			return once(&seen, 2) && d.strTo(&r.Decision)
		case "justification":
			return once(&seen, 3) && d.strTo(&r.Justification)
		case "priority":
			return once(&seen, 4) && d.int(&r.Priority)
		case "locked":
			return once(&seen, 5) && d.bool(&r.Locked)
		case "tool":
			return once(&seen, 6) && strList(d, &r.Tool)
		case "command":
			return once(&seen, 7) && strList(d, &r.Command)
		case "args":
			return once(&seen, 8) && strList(d, &r.Args)
		case "args_all":
			return once(&seen, 9) && strList(d, &r.ArgsAll)
		case "args_none":
			return once(&seen, 10) && strList(d, &r.ArgsNone)
		case "path":
			return once(&seen, 11) && strList(d, &r.Path)
		case "path_none":
			return once(&seen, 12) && strList(d, &r.PathNone)
		case "op":
			return once(&seen, 13) && strList(d, &r.Op)
		case "scope":
			return once(&seen, 14) && d.strTo(&r.Scope)
		case "mcp":
			return once(&seen, 15) && strList(d, &r.MCP)
		case "regex":
			return once(&seen, 16) && d.strTo(&r.Regex)
		case "fed_by":
			return once(&seen, 17) && strList(d, &r.FedBy)
		case "via":
			return once(&seen, 18) && strList(d, &r.Via)
		case "env":
			return once(&seen, 19) && strList(d, &r.Env)
		case "env_none":
			return once(&seen, 20) && strList(d, &r.EnvNone)
		case "code":
			return once(&seen, 21) && d.strTo(&r.Code)
		case "effect":
			return once(&seen, 28) && strList(d, &r.Effect)
		case "domain":
			return once(&seen, 22) && strList(d, &r.Domain)
		case "modes":
			return once(&seen, 23) && strList(d, &r.Modes)
		case "input":
			return once(&seen, 24) && d.inputs(&r.Input)
		case "examples":
			return once(&seen, 25) && d.examples(&r.Examples)
		case "layer":
			return once(&seen, 26) && d.strTo(&r.Layer)
		case "source":
			return once(&seen, 27) && d.strTo(&r.Source)
		}
		return false
	})
}

func (d *jsonIn) inputs(dst *[]fileInput) bool {
	if !d.open('[') {
		return false
	}
	out := []fileInput{} // encoding/json makes [] a non-nil empty slice
	for n := 0; d.nextElem(&n); {
		var in fileInput
		if !d.input(&in) {
			return false
		}
		out = append(out, in)
	}
	*dst = out
	return !d.bad
}

func (d *jsonIn) input(in *fileInput) bool {
	var seen uint64
	return d.object(func(key string) bool {
		switch key {
		case "field":
			return once(&seen, 0) && d.strTo(&in.Field)
		case "exact":
			return once(&seen, 1) && d.strPtr(&in.Exact)
		case "prefix":
			return once(&seen, 2) && d.strPtr(&in.Prefix)
		case "glob":
			return once(&seen, 3) && d.strPtr(&in.Glob)
		case "regex":
			return once(&seen, 4) && d.strPtr(&in.Regex)
		case "not":
			return once(&seen, 5) && d.bool(&in.Not)
		}
		return false
	})
}

func (d *jsonIn) examples(ex *fileExamples) bool {
	var seen uint64
	return d.object(func(key string) bool {
		switch key {
		case "match":
			return once(&seen, 0) && strList(d, &ex.Match)
		case "not_match":
			return once(&seen, 1) && strList(d, &ex.NotMatch)
		}
		return false
	})
}

func (d *jsonIn) header(h *lazyHeader) bool {
	var seen uint64
	return d.object(func(key string) bool {
		switch key {
		case "version":
			return once(&seen, 0) && d.int(&h.Version)
		case "materialized":
			h.Meta = new(materialMeta) // a present key gives a pointer, as in encoding/json
			return once(&seen, 1) && d.meta(h.Meta)
		case "settings":
			return once(&seen, 2) && d.settings(&h.Settings)
		case "tests":
			return once(&seen, 3) && d.tests(&h.Tests)
		}
		return false
	})
}

func (d *jsonIn) meta(m *materialMeta) bool {
	var seen uint64
	return d.object(func(key string) bool {
		switch key {
		case "hash":
			return once(&seen, 0) && d.strTo(&m.Hash)
		case "layers":
			return once(&seen, 1) && strList(d, &m.Layers)
		}
		return false
	})
}

func (d *jsonIn) settings(s *fileSettings) bool {
	var seen uint64
	return d.object(func(key string) bool {
		switch key {
		case "layer":
			return once(&seen, 0) && d.strPtr(&s.Layer)
		case "builtin":
			s.Builtin = new(bool)
			return once(&seen, 1) && d.bool(s.Builtin)
		case "default":
			return once(&seen, 2) && d.strPtr(&s.Default)
		case "default_for":
			return once(&seen, 3) && d.strMap(&s.DefaultFor)
		case "mode":
			return once(&seen, 4) && d.strPtr(&s.Mode)
		case "on_error":
			return once(&seen, 5) && d.strPtr(&s.OnError)
		case "on_unparsable":
			return once(&seen, 6) && d.strPtr(&s.OnUnparsable)
		case "on_dynamic":
			return once(&seen, 7) && d.strPtr(&s.OnDynamic)
		case "disable":
			return once(&seen, 8) && strList(d, &s.Disable)
		case "audit_log":
			return once(&seen, 9) && d.strPtr(&s.AuditLog)
		case "audit":
			return once(&seen, 10) && d.strPtr(&s.Audit)
		case "state_dir":
			return once(&seen, 11) && d.strPtr(&s.StateDir)
		case "workspace":
			return once(&seen, 12) && d.strPtr(&s.Workspace)
		case "safe_prefixes":
			return once(&seen, 13) && strList(d, &s.SafePrefixes)
		case "locked":
			return once(&seen, 14) && strList(d, &s.Locked)
		case "approvers":
			return once(&seen, 15) && strList(d, &s.Approvers)
		case "hold_session_on_pending":
			s.HoldSession = new(bool)
			return once(&seen, 16) && d.bool(s.HoldSession)
		case "pending_ttl":
			return once(&seen, 17) && d.strPtr(&s.PendingTTL)
		case "case_insensitive_paths":
			s.CaseInsensitivePaths = new(bool)
			return once(&seen, 18) && d.bool(s.CaseInsensitivePaths)
		case "require_enforcement":
			s.RequireEnforcement = new(bool)
			return once(&seen, 19) && d.bool(s.RequireEnforcement)
		case "auto_allow":
			return once(&seen, 20) && d.strPtr(&s.AutoAllow)
		case "shell_fields":
			return once(&seen, 21) && d.strListMap(&s.ShellFields)
		case "approval_url":
			return once(&seen, 22) && d.strPtr(&s.ApprovalURL)
		case "approval_token_file":
			return once(&seen, 23) && d.strPtr(&s.ApprovalTokenFile)
		case "notify":
			return once(&seen, 24) && d.notify(&s.Notify)
		case "ask_fallback":
			return once(&seen, 25) && d.strPtr(&s.AskFallback)
		case "ask_fallback_for":
			return once(&seen, 26) && d.strMap(&s.AskFallbackFor)
		}
		return false
	})
}

func (d *jsonIn) notify(dst *[]fileNotify) bool {
	if !d.open('[') {
		return false
	}
	out := []fileNotify{}
	for n := 0; d.nextElem(&n); {
		var w fileNotify
		var seen uint64
		ok := d.object(func(key string) bool {
			switch key {
			case "url":
				return once(&seen, 0) && d.strTo(&w.URL)
			case "events":
				return once(&seen, 1) && strList(d, &w.Events)
			case "format":
				return once(&seen, 2) && d.strTo(&w.Format)
			}
			return false
		})
		if !ok {
			return false
		}
		out = append(out, w)
	}
	*dst = out
	return !d.bad
}

func (d *jsonIn) tests(dst *[]fileTest) bool {
	if !d.open('[') {
		return false
	}
	out := []fileTest{}
	for n := 0; d.nextElem(&n); {
		var t fileTest
		if !d.test(&t) {
			return false
		}
		out = append(out, t)
	}
	*dst = out
	return !d.bad
}

func (d *jsonIn) test(t *fileTest) bool {
	var seen uint64
	return d.object(func(key string) bool {
		switch key {
		case "name":
			return once(&seen, 0) && d.strTo(&t.Name)
		case "command":
			return once(&seen, 1) && d.strTo(&t.Command)
		case "tool":
			return once(&seen, 2) && d.strTo(&t.Tool)
		case "path":
			return once(&seen, 3) && d.strTo(&t.Path)
		case "mcp":
			return once(&seen, 4) && d.strTo(&t.MCP)
		case "url":
			return once(&seen, 5) && d.strTo(&t.URL)
		case "mode":
			return once(&seen, 6) && d.strTo(&t.Mode)
		case "input":
			if !once(&seen, 7) || !d.peek('{') {
				return false
			}
			v, ok := d.value(0)
			t.Input, _ = v.(map[string]any)
			return ok
		case "cwd":
			return once(&seen, 8) && d.strTo(&t.Cwd)
		case "expect":
			return once(&seen, 9) && d.strTo(&t.Expect)
		}
		return false
	})
}

func (d *jsonIn) peek(c byte) bool {
	return d.i < len(d.s) && d.s[d.i] == c
}

func (d *jsonIn) strTo(dst *string) bool {
	s, ok := d.str()
	*dst = s
	return ok
}

func (d *jsonIn) strPtr(dst **string) bool {
	s, ok := d.str()
	*dst = &s
	return ok
}

// strList decodes an array of strings. (stringList has no UnmarshalJSON:
// in JSON it is an array, never a lone string.)
func strList[L ~[]string](d *jsonIn, dst *L) bool {
	if !d.open('[') {
		return false
	}
	buf := d.tmp[:0]
	for n := 0; d.nextElem(&n); {
		s, ok := d.str()
		if !ok {
			return false
		}
		buf = append(buf, s)
	}
	if d.bad {
		return false
	}
	out := make(L, len(buf))
	copy(out, buf)
	*dst = out
	return true
}

func (d *jsonIn) strMap(dst *map[string]string) bool {
	if !d.open('{') {
		return false
	}
	m := map[string]string{}
	for n := 0; ; {
		key, more := d.next(&n)
		if !more {
			*dst = m
			return !d.bad
		}
		v, ok := d.str()
		if !ok {
			return false
		}
		m[key] = v // a repeated key: the last wins, as in encoding/json
	}
}

// strListMap decodes an object of string lists (settings.shell_fields).
func (d *jsonIn) strListMap(dst *map[string][]string) bool {
	if !d.open('{') {
		return false
	}
	m := map[string][]string{}
	for n := 0; ; {
		key, more := d.next(&n)
		if !more {
			*dst = m
			return !d.bad
		}
		var l []string
		if !strList(d, &l) {
			return false
		}
		m[key] = slices.Clone(l) // strList may reuse d.tmp
	}
}

func (d *jsonIn) bool(dst *bool) bool {
	switch {
	case hasWord(d.s[d.i:], "true"):
		*dst, d.i = true, d.i+4
	case hasWord(d.s[d.i:], "false"):
		*dst, d.i = false, d.i+5
	default:
		return false
	}
	return true
}

func hasWord(s, w string) bool {
	return len(s) >= len(w) && s[:len(w)] == w
}

// int decodes an integer: encoding/json refuses a fraction or an exponent
// for an int field, and a value out of its range.
func (d *jsonIn) int(dst *int) bool {
	start := d.i
	if d.number() != 0 {
		return false
	}
	n, err := strconv.ParseInt(d.s[start:d.i], 10, 64)
	if err != nil || int64(int(n)) != n {
		return false
	}
	*dst = int(n)
	return true
}

// number consumes a JSON number,
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and returns 0 for an
// integer, 1 for a number with a fraction or an exponent, and -1 (having
// consumed nothing) when there is no number.
func (d *jsonIn) number() int {
	s, i := d.s, d.i
	digits := func() {
		for i < len(s) && '0' <= s[i] && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		digits()
	default:
		return -1
	}
	kind := 0
	if i < len(s) && s[i] == '.' {
		if i++; i >= len(s) || s[i] < '0' || s[i] > '9' {
			return -1
		}
		digits()
		kind = 1
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		if i++; i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			return -1
		}
		digits()
		kind = 1
	}
	d.i = i
	return kind
}

// value decodes any JSON value as encoding/json decodes it into an any:
// string, float64, bool, nil, []any, map[string]any.
func (d *jsonIn) value(depth int) (any, bool) {
	if depth > maxAnyDepth || d.i >= len(d.s) {
		return nil, false
	}
	switch c := d.s[d.i]; c {
	case '"':
		return d.str()
	case '{':
		d.i++
		m := map[string]any{}
		for n := 0; ; {
			key, more := d.next(&n)
			if !more {
				return m, !d.bad
			}
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[key] = v // a repeated key: the last wins, as in encoding/json
		}
	case '[':
		d.i++
		a := []any{}
		for n := 0; d.nextElem(&n); {
			v, ok := d.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
		}
		return a, !d.bad
	case 't', 'f':
		var b bool
		ok := d.bool(&b)
		return b, ok
	case 'n':
		if hasWord(d.s[d.i:], "null") {
			d.i += 4
			return nil, true
		}
		return nil, false
	}
	start := d.i
	if d.number() < 0 {
		return nil, false
	}
	f, err := strconv.ParseFloat(d.s[start:d.i], 64)
	if err != nil {
		return nil, false // out of range: an error in encoding/json too
	}
	return f, true
}

// str decodes a JSON string at the offset. A string without escapes or
// bytes to replace is a slice of the input.
func (d *jsonIn) str() (string, bool) {
	s := d.s
	if d.i >= len(s) || s[d.i] != '"' {
		return "", false
	}
	start := d.i + 1
	for j := start; j < len(s); {
		switch c := s[j]; {
		case c == '"':
			d.i = j + 1
			return s[start:j], true
		case c == '\\':
			return d.unquote(start, j)
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			j++
		default:
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && size == 1 {
				return d.unquote(start, j)
			}
			j += size
		}
	}
	return "", false
}

// unquote finishes a string from j, the first byte that needs work, the
// way encoding/json's unquoteBytes does.
func (d *jsonIn) unquote(start, j int) (string, bool) {
	s := d.s
	b := make([]byte, 0, j-start+64)
	b = append(b, s[start:j]...)
	for j < len(s) {
		switch c := s[j]; {
		case c == '"':
			d.i = j + 1
			return string(b), true
		case c == '\\':
			if j+1 >= len(s) {
				return "", false
			}
			switch e := s[j+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
			case 'b':
				b = append(b, '\b')
			case 'f':
				b = append(b, '\f')
			case 'n':
				b = append(b, '\n')
			case 'r':
				b = append(b, '\r')
			case 't':
				b = append(b, '\t')
			case 'u':
				r := hex4(s, j)
				if r < 0 {
					return "", false
				}
				j += 6
				if utf16.IsSurrogate(r) {
					if r2 := utf16.DecodeRune(r, hex4(s, j)); r2 != unicode.ReplacementChar {
						b = utf8.AppendRune(b, r2)
						j += 6
						continue
					}
					r = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, r)
				continue
			default:
				return "", false
			}
			j += 2
		case c < ' ':
			return "", false
		case c < utf8.RuneSelf:
			b = append(b, c)
			j++
		default:
			r, size := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && size == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, s[j:j+size]...)
			}
			j += size
		}
	}
	return "", false
}

// hex4 reads the escape \uXXXX at s[j:], or returns -1.
func hex4(s string, j int) rune {
	if j+6 > len(s) || s[j] != '\\' || s[j+1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range []byte(s[j+2 : j+6]) {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// The encoder of the same shapes, for a rule's line (ruleLine) and the
// policy hash (ruleDigest, hashPolicy): the bytes json.Marshal writes
// (HTML escaped, map keys sorted, omitempty as tagged — a struct such as
// examples is never omitted), without reflection. A hook that denies
// under a project layer hashes the policy, and encoding/json's first
// encode of fileSettings and fileRule cost it ~0.2 ms.
// TestRuleJSONAsMarshal and FuzzRuleJSON compare the two on values that
// fill every field.

// appendRule appends r as json.Marshal writes a fileRule.
func appendRule(b []byte, r *fileRule) []byte {
	w := jsonw.Object{B: b, HTML: true}
	w.Open()
	w.Str("id", r.ID)
	w.StrOmit("description", r.Description)
	w.Str("decision", r.Decision)
	w.StrOmit("justification", r.Justification)
	w.IntOmit("priority", r.Priority)
	w.BoolOmit("locked", r.Locked)
	w.ListOmit("tool", r.Tool)
	w.ListOmit("command", r.Command)
	w.ListOmit("args", r.Args)
	w.ListOmit("args_all", r.ArgsAll)
	w.ListOmit("args_none", r.ArgsNone)
	w.ListOmit("path", r.Path)
	w.ListOmit("path_none", r.PathNone)
	w.ListOmit("op", r.Op)
	w.StrOmit("scope", r.Scope)
	w.ListOmit("mcp", r.MCP)
	w.StrOmit("regex", r.Regex)
	w.ListOmit("fed_by", r.FedBy)
	w.ListOmit("via", r.Via)
	w.ListOmit("env", r.Env)
	w.ListOmit("env_none", r.EnvNone)
	w.StrOmit("code", r.Code)
	w.ListOmit("effect", r.Effect)
	w.ListOmit("domain", r.Domain)
	w.ListOmit("modes", r.Modes)
	objects(&w, "input", r.Input, func(o *jsonw.Object, in *fileInput) {
		o.Str("field", in.Field)
		o.StrPtr("exact", in.Exact)
		o.StrPtr("prefix", in.Prefix)
		o.StrPtr("glob", in.Glob)
		o.StrPtr("regex", in.Regex)
		o.BoolOmit("not", in.Not)
	})
	w.Nested("examples", func(ex *jsonw.Object) { // a struct: never omitted
		ex.ListOmit("match", r.Examples.Match)
		ex.ListOmit("not_match", r.Examples.NotMatch)
	})
	w.StrOmit("layer", r.Layer)
	w.StrOmit("source", r.Source)
	w.Close()
	return w.B
}

// appendSettings appends s as json.Marshal writes a fileSettings.
func appendSettings(b []byte, s *fileSettings) []byte {
	w := jsonw.Object{B: b, HTML: true}
	w.Open()
	w.StrPtr("layer", s.Layer)
	w.BoolPtr("builtin", s.Builtin)
	w.StrPtr("default", s.Default)
	members(&w, "default_for", s.DefaultFor, (*jsonw.Object).Value)
	w.StrPtr("mode", s.Mode)
	w.StrPtr("on_error", s.OnError)
	w.StrPtr("on_unparsable", s.OnUnparsable)
	w.StrPtr("on_dynamic", s.OnDynamic)
	w.ListOmit("disable", s.Disable)
	w.StrPtr("audit_log", s.AuditLog)
	w.StrPtr("audit", s.Audit)
	w.StrPtr("state_dir", s.StateDir)
	w.StrPtr("workspace", s.Workspace)
	w.ListOmit("safe_prefixes", s.SafePrefixes)
	w.ListOmit("approvers", s.Approvers)
	w.BoolPtr("hold_session_on_pending", s.HoldSession)
	w.StrPtr("pending_ttl", s.PendingTTL)
	w.ListOmit("locked", s.Locked)
	w.BoolPtr("case_insensitive_paths", s.CaseInsensitivePaths)
	w.BoolPtr("require_enforcement", s.RequireEnforcement)
	w.StrPtr("auto_allow", s.AutoAllow)
	members(&w, "shell_fields", s.ShellFields, (*jsonw.Object).List)
	w.StrPtr("ask_fallback", s.AskFallback)
	members(&w, "ask_fallback_for", s.AskFallbackFor, (*jsonw.Object).Value)
	w.StrPtr("approval_url", s.ApprovalURL)
	w.StrPtr("approval_token_file", s.ApprovalTokenFile)
	objects(&w, "notify", s.Notify, func(o *jsonw.Object, n *fileNotify) {
		o.Str("url", n.URL)
		o.ListOmit("events", n.Events)
		o.StrOmit("format", n.Format)
	})
	w.Close()
	return w.B
}

// objects writes a member that is an array of objects, each written by
// member, unless it is empty (omitempty).
func objects[T any](w *jsonw.Object, key string, items []T, member func(*jsonw.Object, *T)) {
	if len(items) == 0 {
		return
	}
	w.Key(key)
	w.B = append(w.B, '[')
	for i := range items {
		if i > 0 {
			w.B = append(w.B, ',')
		}
		w.ObjectValue(func(o *jsonw.Object) { member(o, &items[i]) })
	}
	w.B = append(w.B, ']')
}

// members writes a member that is a map, keys sorted as encoding/json
// sorts them, each value written by value, unless it is empty
// (omitempty).
func members[V any](w *jsonw.Object, key string, m map[string]V, value func(*jsonw.Object, V)) {
	if len(m) == 0 {
		return
	}
	w.Nested(key, func(o *jsonw.Object) {
		for _, k := range sortedKeys(m) {
			o.MapKey(k)
			value(o, m[k])
		}
	})
}
