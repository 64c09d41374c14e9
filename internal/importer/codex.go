package importer

import (
	"fmt"
	"strings"
)

// Codex .rules files are Starlark. Rules files use a small subset: calls
// of prefix_rule (and host_executable, network_rule) with keyword
// arguments whose values are string and list literals, and top-level
// names bound to such values (SHELLS = ["bash", "zsh"]). That subset is
// parsed here by hand; nothing is executed, and anything outside it is an
// error at its line rather than a rule skipped in silence (it might have
// been a forbidden one).

var codexDecision = map[string]string{"allow": "allow", "prompt": "ask", "forbidden": "deny"}

func importCodex(res *Result, s Source) error {
	calls, err := parseStarlark(s.Data)
	if err != nil {
		return fmt.Errorf("%s:%v", s.Path, err)
	}
	for _, c := range calls {
		switch c.name {
		case "prefix_rule":
			if err := mapPrefixRule(res, s, c); err != nil {
				return fmt.Errorf("%s:%d: prefix_rule: %v", s.Path, c.line, err)
			}
		case "host_executable":
			res.skip(origin(s, c.line), "host_executable(…)", "toolguard matches a program by its base name wherever it lives; the paths listed here are not needed and not imported")
		case "network_rule":
			res.skip(origin(s, c.line), "network_rule(…)", "a network rule of Codex's sandbox, not a command rule: not imported")
		default:
			return fmt.Errorf("%s:%d: unknown function %s (want prefix_rule, host_executable or network_rule)", s.Path, c.line, c.name)
		}
	}
	return nil
}

func mapPrefixRule(res *Result, s Source, c starCall) error {
	for k := range c.kwargs {
		switch k {
		case "pattern", "decision", "justification", "match", "not_match":
		default:
			return fmt.Errorf("unknown argument %s", k)
		}
	}
	pat, ok := c.kwargs["pattern"]
	if !ok {
		return fmt.Errorf("no pattern")
	}
	pl, ok := pat.([]any)
	if !ok || len(pl) == 0 {
		return fmt.Errorf("pattern: want a non-empty list")
	}
	toks := make([][]string, len(pl))
	for i, e := range pl {
		switch v := e.(type) {
		case string:
			if v == "" {
				return fmt.Errorf("pattern[%d]: an empty token", i)
			}
			toks[i] = []string{v}
		case []any:
			for _, a := range v {
				as, ok := a.(string)
				if !ok || as == "" {
					return fmt.Errorf("pattern[%d]: want strings in a list of alternatives", i)
				}
				toks[i] = append(toks[i], as)
			}
			if len(toks[i]) == 0 {
				return fmt.Errorf("pattern[%d]: an empty list of alternatives", i)
			}
		default:
			return fmt.Errorf("pattern[%d]: want a string or a list of strings", i)
		}
	}
	dec := "allow"
	if d, ok := c.kwargs["decision"]; ok {
		ds, ok := d.(string)
		if !ok || codexDecision[ds] == "" {
			return fmt.Errorf("decision %v (want allow, prompt or forbidden)", d)
		}
		dec = ds
	}
	r := &Rule{Agent: Codex, Origin: origin(s, c.line), Text: patternText(toks), List: dec, Decision: codexDecision[dec]}
	if j, ok := c.kwargs["justification"].(string); ok {
		r.Justification = j
	}
	if r.Justification == "" && r.Decision != "allow" {
		r.Justification = fmt.Sprintf("Your Codex rules (%s) mark %s as %s.", r.Origin, r.Text, dec)
	}
	match, err := examples(c.kwargs["match"])
	if err != nil {
		return fmt.Errorf("match: %v", err)
	}
	notMatch, err := examples(c.kwargs["not_match"])
	if err != nil {
		return fmt.Errorf("not_match: %v", err)
	}
	// The program: toolguard matches its base name.
	for i, p := range toks[0] {
		if !strings.Contains(p, "/") {
			continue
		}
		if r.Decision == "allow" {
			res.skip(r.Origin, r.Text, "toolguard matches a program by its base name (%s), so the allow would cover any %s; it is left to Codex", baseName(p), baseName(p))
			return nil
		}
		res.inexact(r, KindBroadened, "toolguard matches a program by its base name: carried for any %s", baseName(p))
		toks[0][i] = baseName(p)
	}
	commandRule(r, toks, false)
	r.prefix = true
	r.Match, r.NotMatch = match, notMatch
	ex := match
	if len(ex) == 0 {
		var w []string
		for _, alts := range toks {
			w = append(w, alts[0])
		}
		ex = []string{strings.Join(quoteWords(w), " ")}
	}
	r.example = ex[0]
	for _, m := range ex {
		r.Tests = append(r.Tests, &Test{Command: m, want: r.Decision})
	}
	res.Rules = append(res.Rules, r)
	return nil
}

func patternText(toks [][]string) string {
	parts := make([]string, len(toks))
	for i, alts := range toks {
		q := make([]string, len(alts))
		for j, a := range alts {
			q[j] = fmt.Sprintf("%q", a)
		}
		parts[i] = q[0]
		if len(q) > 1 {
			parts[i] = "[" + strings.Join(q, ", ") + "]"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// examples reads match/not_match: strings (shell words) or lists of words.
func examples(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list")
	}
	var out []string
	for i, e := range l {
		switch x := e.(type) {
		case string:
			out = append(out, x)
		case []any:
			var w []string
			for _, a := range x {
				s, ok := a.(string)
				if !ok {
					return nil, fmt.Errorf("[%d]: want strings", i)
				}
				w = append(w, s)
			}
			out = append(out, strings.Join(quoteWords(w), " "))
		default:
			return nil, fmt.Errorf("[%d]: want a string or a list of strings", i)
		}
	}
	return out, nil
}

// starCall is one top-level call.
type starCall struct {
	name   string
	line   int
	kwargs map[string]any // string, []any
}

type starLexer struct {
	src  []byte
	pos  int
	line int
}

type starTok struct {
	kind string // "name", "str", "punct", "eof"
	text string
	line int
}

func (l *starLexer) next() (starTok, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case c == '\n':
			l.line++
			l.pos++
		case c == ' ' || c == '\t' || c == '\r':
			l.pos++
		case c == '\\' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '\n':
			l.pos += 2
			l.line++
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		default:
			return l.token()
		}
	}
	return starTok{kind: "eof", line: l.line}, nil
}

func (l *starLexer) token() (starTok, error) {
	c := l.src[l.pos]
	line := l.line
	switch {
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		st := l.pos
		for l.pos < len(l.src) && (l.src[l.pos] == '_' || l.src[l.pos] >= 'a' && l.src[l.pos] <= 'z' || l.src[l.pos] >= 'A' && l.src[l.pos] <= 'Z' || l.src[l.pos] >= '0' && l.src[l.pos] <= '9') {
			l.pos++
		}
		return starTok{kind: "name", text: string(l.src[st:l.pos]), line: line}, nil
	case c == '"' || c == '\'':
		s, err := l.str()
		return starTok{kind: "str", text: s, line: line}, err
	case strings.IndexByte("()[],=+", c) >= 0:
		l.pos++
		return starTok{kind: "punct", text: string(c), line: line}, nil
	}
	return starTok{}, fmt.Errorf("%d: unexpected %q (only calls, names, strings and lists are read)", line, c)
}

// str reads a string literal, single- or triple-quoted with ' or ", with the
// common escapes. Raw and byte strings are refused.
func (l *starLexer) str() (string, error) {
	q := l.src[l.pos]
	line := l.line
	triple := l.pos+2 < len(l.src) && l.src[l.pos+1] == q && l.src[l.pos+2] == q
	if triple {
		l.pos += 3
	} else {
		l.pos++
	}
	var b strings.Builder
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case triple && c == q && l.pos+2 < len(l.src) && l.src[l.pos+1] == q && l.src[l.pos+2] == q:
			l.pos += 3
			return b.String(), nil
		case !triple && c == q:
			l.pos++
			return b.String(), nil
		case !triple && c == '\n':
			return "", fmt.Errorf("%d: unterminated string", line)
		case c == '\\':
			if l.pos+1 >= len(l.src) {
				return "", fmt.Errorf("%d: unterminated string", line)
			}
			e := l.src[l.pos+1]
			l.pos += 2
			switch e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case '\\', '\'', '"':
				b.WriteByte(e)
			case '\n':
				l.line++
			default:
				return "", fmt.Errorf("%d: unsupported escape \\%c", l.line, e)
			}
			continue
		case c == '\n':
			l.line++
		}
		b.WriteByte(c)
		l.pos++
	}
	return "", fmt.Errorf("%d: unterminated string", line)
}

type starParser struct {
	lx   starLexer
	tok  starTok
	vars map[string]any
}

func (p *starParser) advance() error {
	t, err := p.lx.next()
	p.tok = t
	return err
}

func (p *starParser) expect(punct string) error {
	if p.tok.kind != "punct" || p.tok.text != punct {
		return fmt.Errorf("%d: want %q, got %s", p.tok.line, punct, p.describe())
	}
	return p.advance()
}

func (p *starParser) describe() string {
	if p.tok.kind == "eof" {
		return "end of file"
	}
	return fmt.Sprintf("%q", p.tok.text)
}

// parseStarlark reads the top-level statements: NAME = value, and
// NAME(key = value, …).
func parseStarlark(src []byte) ([]starCall, error) {
	p := &starParser{lx: starLexer{src: src, line: 1}, vars: map[string]any{}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	var calls []starCall
	for p.tok.kind != "eof" {
		if p.tok.kind != "name" {
			return nil, fmt.Errorf("%d: want a call or an assignment, got %s", p.tok.line, p.describe())
		}
		name, line := p.tok.text, p.tok.line
		if err := p.advance(); err != nil {
			return nil, err
		}
		switch {
		case p.tok.kind == "punct" && p.tok.text == "=":
			if err := p.advance(); err != nil {
				return nil, err
			}
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			p.vars[name] = v
		case p.tok.kind == "punct" && p.tok.text == "(":
			c := starCall{name: name, line: line, kwargs: map[string]any{}}
			if err := p.advance(); err != nil {
				return nil, err
			}
			for !(p.tok.kind == "punct" && p.tok.text == ")") {
				if p.tok.kind != "name" {
					return nil, fmt.Errorf("%d: %s: want key = value, got %s (positional arguments are not read)", p.tok.line, name, p.describe())
				}
				key := p.tok.text
				if err := p.advance(); err != nil {
					return nil, err
				}
				if err := p.expect("="); err != nil {
					return nil, err
				}
				v, err := p.value()
				if err != nil {
					return nil, err
				}
				if _, dup := c.kwargs[key]; dup {
					return nil, fmt.Errorf("%d: %s: %s given twice", line, name, key)
				}
				c.kwargs[key] = v
				if p.tok.kind == "punct" && p.tok.text == "," {
					if err := p.advance(); err != nil {
						return nil, err
					}
					continue
				}
				if !(p.tok.kind == "punct" && p.tok.text == ")") {
					return nil, fmt.Errorf("%d: %s: want , or ), got %s", p.tok.line, name, p.describe())
				}
			}
			if err := p.advance(); err != nil {
				return nil, err
			}
			calls = append(calls, c)
		default:
			return nil, fmt.Errorf("%d: after %s want = or (, got %s", p.tok.line, name, p.describe())
		}
	}
	return calls, nil
}

// value reads a string, a list, a name bound earlier, or a + b of them.
func (p *starParser) value() (any, error) {
	v, err := p.operand()
	if err != nil {
		return nil, err
	}
	for p.tok.kind == "punct" && p.tok.text == "+" {
		line := p.tok.line
		if err := p.advance(); err != nil {
			return nil, err
		}
		w, err := p.operand()
		if err != nil {
			return nil, err
		}
		switch a := v.(type) {
		case string:
			b, ok := w.(string)
			if !ok {
				return nil, fmt.Errorf("%d: string + non-string", line)
			}
			v = a + b
		case []any:
			b, ok := w.([]any)
			if !ok {
				return nil, fmt.Errorf("%d: list + non-list", line)
			}
			v = append(append([]any(nil), a...), b...)
		}
	}
	return v, nil
}

func (p *starParser) operand() (any, error) {
	t := p.tok
	switch {
	case t.kind == "str":
		s := t.text
		if err := p.advance(); err != nil {
			return nil, err
		}
		// Adjacent literals concatenate.
		for p.tok.kind == "str" {
			s += p.tok.text
			if err := p.advance(); err != nil {
				return nil, err
			}
		}
		return s, nil
	case t.kind == "name":
		v, ok := p.vars[t.text]
		if !ok {
			return nil, fmt.Errorf("%d: %s is not a name bound earlier in this file", t.line, t.text)
		}
		return v, p.advance()
	case t.kind == "punct" && t.text == "[":
		if err := p.advance(); err != nil {
			return nil, err
		}
		var l []any
		for !(p.tok.kind == "punct" && p.tok.text == "]") {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			l = append(l, v)
			if p.tok.kind == "punct" && p.tok.text == "," {
				if err := p.advance(); err != nil {
					return nil, err
				}
				continue
			}
			if !(p.tok.kind == "punct" && p.tok.text == "]") {
				return nil, fmt.Errorf("%d: in a list want , or ], got %s", p.tok.line, p.describe())
			}
		}
		if l == nil {
			l = []any{}
		}
		return l, p.advance()
	}
	return nil, fmt.Errorf("%d: want a string, a list or a name, got %s", t.line, p.describe())
}
