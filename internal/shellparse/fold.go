package shellparse

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// field is one argument a word expands to, as far as the analysis can tell.
type field struct {
	s       string     // value when lit, else the text with unknown parts kept as source
	lit     bool       // every part is known
	glob    bool       // holds an unquoted glob or unexpanded brace: the real value may differ
	subst   bool       // holds a command or process substitution
	text    bool       // holds known text besides blanks (not only expansions)
	input   bool       // filled in by xargs/parallel from an input the analysis does not know
	pattern bool       // a name pattern below a directory (find's selection), PathRef.Pattern
	proc    *input     // a word that is one <(…): what it prints (procOutput); nil otherwise
	srcs    []Source   // sources carried by variables expanded into it
	pos     syntax.Pos // where the word starts
}

// litField is a known field built by the analysis itself (split strings,
// joined words…).
func litField(s string, pos syntax.Pos) field {
	return field{s: s, lit: true, text: strings.TrimSpace(s) != "", pos: pos}
}

// folder turns the parts of one word into fields: quotes removed, escapes
// resolved, known variables substituted, unquoted expansions of known values
// split on blanks (when split is set).
type folder struct {
	a     *analyzer
	sc    *scope
	src   string
	split bool

	out     []field
	cur     strings.Builder
	f       field // flags of the field being built (s is taken from cur)
	started bool  // the current field exists even if empty ("" or '')
}

// fold expands w into fields appended to dst. Brace expansion is done
// first when braces is set (command arguments, for-loop items).
func (a *analyzer) fold(dst []field, w *syntax.Word, sc *scope, src string, braces bool) []field {
	if w == nil || len(w.Parts) == 0 {
		return dst
	}
	a.count(len(w.Parts))
	if len(w.Parts) == 1 {
		// Fast paths for the common plain words.
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			v := p.Value
			if !strings.ContainsAny(v, "\\{~*?[") {
				return append(dst, field{s: v, lit: true, text: v != "", pos: p.Pos()})
			}
		case *syntax.SglQuoted:
			if !p.Dollar {
				return append(dst, field{s: p.Value, lit: true, text: strings.TrimSpace(p.Value) != "", pos: p.Pos()})
			}
		}
	}
	words := []*syntax.Word{w}
	expanded := true
	if braces {
		pos := w.Pos() // a plain literal still, or filled by an earlier fold
		syntax.SplitBraces(w)
		fillBraces(w, pos, 0)
		if slices.ContainsFunc(w.Parts, isBraceExp) {
			words, expanded = braceWords(w)
			if !expanded {
				words = []*syntax.Word{w}
			}
		}
	}
	fo := folder{a: a, sc: sc, src: src, split: true, out: dst}
	for _, w := range words {
		if len(w.Parts) == 0 {
			continue // an empty alternative ({,}x…): bash drops the empty word
		}
		fo.f = field{lit: true, pos: w.Pos(), glob: !expanded}
		fo.parts(w.Parts, quoteNone, true)
		fo.flush(false)
	}
	if out := a.wordProc(w, sc, src); out != nil && len(fo.out) == len(dst)+1 {
		fo.out[len(dst)].proc = out // bash <(echo …), source <(…)
	}
	return fo.out
}

// foldString expands w as one string without field splitting or brace
// expansion, as in assignments, redirections and here-strings.
func (a *analyzer) foldString(w *syntax.Word, sc *scope, src string) field {
	return a.foldMode(w, sc, src, quoteNone)
}

// foldHeredoc expands an unquoted here-document body.
func (a *analyzer) foldHeredoc(w *syntax.Word, sc *scope, src string) field {
	return a.foldMode(w, sc, src, quoteHeredoc)
}

func (a *analyzer) foldMode(w *syntax.Word, sc *scope, src string, q quoting) field {
	if w == nil || len(w.Parts) == 0 {
		return field{lit: true}
	}
	a.count(len(w.Parts))
	if q == quoteNone && len(w.Parts) == 1 {
		// Fast path for a plain word (a redirection's file, most
		// assignments): what the folder would give, without copying it.
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "\\~*?[") {
			return field{s: l.Value, lit: true, text: strings.TrimSpace(l.Value) != "", pos: w.Pos()}
		}
	}
	fo := folder{a: a, sc: sc, src: src}
	fo.f = field{lit: true, pos: w.Pos()}
	fo.parts(w.Parts, q, true)
	fo.flush(true)
	if len(fo.out) == 0 {
		return field{lit: true, pos: w.Pos()}
	}
	return fo.out[0]
}

type quoting int

const (
	quoteNone    quoting = iota // unquoted
	quoteDouble                 // inside "…"
	quoteHeredoc                // unquoted here-document body
)

func (fo *folder) add(s string) {
	fo.cur.WriteString(s)
	fo.started = true
	if !fo.f.text && strings.TrimSpace(s) != "" {
		fo.f.text = true
	}
}

// addText adds the source text of a part whose value is not known.
func (fo *folder) addText(n syntax.Node) {
	fo.cur.WriteString(nodeText(fo.src, n))
	fo.f.lit = false
	fo.started = true
}

func (fo *folder) flush(force bool) {
	if !fo.started && !force {
		fo.cur.Reset()
		fo.f.srcs = nil
		return
	}
	f := fo.f
	f.s = fo.cur.String()
	fo.out = append(fo.out, f)
	fo.cur.Reset()
	fo.started = false
	fo.f = field{lit: true, pos: f.pos}
}

func (fo *folder) parts(parts []syntax.WordPart, q quoting, first bool) {
	for i, p := range parts {
		switch p := p.(type) {
		case *syntax.Lit:
			v := p.Value
			if v == "" {
				continue // an empty brace alternative (fillBraces): nothing, not even an empty word
			}
			if q == quoteNone && i == 0 && first && strings.HasPrefix(v, "~") {
				v = fo.tilde(v)
			}
			fo.add(unescape(v, q, &fo.f.glob))
		case *syntax.SglQuoted:
			if p.Dollar {
				s, _ := decodeEscapes(p.Value, escANSIC)
				fo.add(s)
			} else {
				fo.add(p.Value)
			}
		case *syntax.DblQuoted:
			fo.started = true
			fo.parts(p.Parts, quoteDouble, false)
		case *syntax.ParamExp:
			fo.param(p, q)
		case *syntax.CmdSubst:
			// $(echo …), $(printf … | base64 -d): the output the analysis
			// knows, trailing newlines removed, stands in for the word.
			if out, ok := fo.a.substValue(p, fo.sc, fo.src); ok {
				fo.expansion(out, q, p)
				continue
			}
			fo.addText(p)
			fo.f.subst = true
		case *syntax.ProcSubst:
			fo.addText(p)
			fo.f.subst = true
		case *syntax.ArithmExp:
			fo.addText(p)
		case *syntax.ExtGlob:
			fo.add(nodeText(fo.src, p))
			fo.f.glob = true
		case *syntax.BraceExp:
			fo.add(braceText(p, fo.src))
			fo.f.glob = true
		default:
			fo.addText(p)
		}
	}
}

// Values the analysis works out are bounded, so that a few bytes of input
// cannot make it build gigabytes (X=$X$X forty times is 2^40 bytes): a
// value that would grow past maxValue bytes, or past maxValueTotal bytes
// of expanded values over the whole analysis (a value of maxValue copied
// into a thousand words), is unknown instead. The word holding it is then
// not literal: a command named by it is Dynamic (on_dynamic), a path is a
// Dynamic path, a variable assigned it is unknown; the literal commands
// before and after are analyzed as usual.
const (
	maxValue      = 64 << 10
	maxValueTotal = 4 << 20

	// An unquoted expansion split on $IFS: at most maxSplitFields
	// separators, each charged splitFieldCost bytes (about what a field
	// of the analysis costs) to maxValueTotal.
	maxSplitFields = 4096
	splitFieldCost = 128
)

// fits reports whether n more bytes of an expanded value may join the
// field being built, and charges them to the analysis.
func (fo *folder) fits(n int) bool {
	return fo.cur.Len()+n <= maxValue && fo.sc.charge(n)
}

// tilde expands a leading ~ or ~/ to $HOME when it is known.
func (fo *folder) tilde(v string) string {
	if len(v) >= 2 && (v[1] == '+' || v[1] == '-') && (len(v) == 2 || v[2] == '/') {
		// ~+ is $PWD, ~- is $OLDPWD.
		name := "PWD"
		if v[1] == '-' {
			name = "OLDPWD"
		}
		d, ok := fo.sc.lookup(name)
		if !ok || !d.known || !path.IsAbs(d.val) || !fo.fits(len(d.val)) {
			fo.f.lit = false
			return v
		}
		return strings.ReplaceAll(d.val, `\`, `\\`) + v[2:]
	}
	home, ok := fo.sc.lookup("HOME")
	if !ok || !home.known || home.val == "" {
		return v
	}
	if !fo.fits(len(home.val)) {
		fo.f.lit = false
		return v
	}
	if v != "~" && !strings.HasPrefix(v, "~/") {
		// ~user is that user's home: guessed as a sibling of $HOME
		// (/root for root), so that it is at least not a relative path.
		user, rest, _ := strings.Cut(v[1:], "/")
		if !isUserName(user) || !path.IsAbs(home.val) {
			return v
		}
		dir := path.Join(path.Dir(path.Clean(home.val)), user)
		if user == "root" {
			dir = "/root"
		}
		if rest != "" || strings.HasSuffix(v, "/") {
			dir += "/" + rest
		}
		return strings.ReplaceAll(dir, `\`, `\\`)
	}
	// The rest goes through unescape; the home directory itself must not.
	return strings.ReplaceAll(home.val, `\`, `\\`) + v[1:]
}

// isUserName reports a login name as ~user takes it.
func isUserName(s string) bool {
	if s == "" || s[0] == '-' || s[0] == '+' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func (fo *folder) param(p *syntax.ParamExp, q quoting) {
	if p.Param != nil && p.Param.Value == "@" && q == quoteDouble && p.Exp == nil && p.Repl == nil &&
		p.Slice == nil && !p.Length && !p.Excl && p.Index == nil {
		if v, set := fo.sc.lookup("@"); set && v.known && fo.fits(len(v.val)) {
			fo.f.srcs = appendSources(fo.f.srcs, v.srcs...)
			for i, el := range v.list {
				if i > 0 && fo.split {
					fo.flush(true)
				} else if i > 0 {
					fo.add(" ")
				}
				fo.add(el)
			}
			return
		}
	}
	if fo.arrayParam(p, q) {
		return
	}
	val, ok, srcs := fo.paramValue(p)
	if ok && p.Param != nil && p.Param.Value == "*" && q == quoteDouble && p.Exp == nil {
		// "$*" joins with the first character of IFS.
		if v, set := fo.sc.lookup("*"); set && v.known {
			sep := " "
			if ifs, set := fo.sc.lookup("IFS"); set {
				if !ifs.known {
					ok = false
				}
				sep = ifs.val[:min(1, len(ifs.val))]
			}
			val = strings.Join(v.list, sep)
		}
	}
	fo.f.srcs = appendSources(fo.f.srcs, srcs...)
	if !ok {
		fo.addText(p)
		return
	}
	fo.expansion(val, q, p)
}

// expansion adds the known value of an expansion p: as it is when quoted,
// split on $IFS when not (an unknown IFS leaves p's text, unknown).
func (fo *folder) expansion(val string, q quoting, p syntax.Node) {
	if !fo.fits(len(val)) {
		fo.addText(p) // too large: unknown (maxValue)
		return
	}
	if q != quoteNone || !fo.split {
		fo.add(val)
		return
	}
	// Unquoted: split on $IFS.
	ifs := " \t\n"
	if v, set := fo.sc.lookup("IFS"); set {
		if !v.known {
			fo.addText(p)
			return
		}
		ifs = v.val
	} else if fo.sc.unset("IFS") {
		ifs = " \t\n"
	}
	// Each field split off costs a field, many times its bytes: a value of
	// maxValue split into words ("echo a;" doubled) is thousands of
	// fields, and a few hundred such expansions were hundreds of MB
	// (FuzzAnalyze 44bbfcc2). The fields are charged to the value budget,
	// and past maxSplitFields in one expansion the word is unknown.
	seps := 0
	for i := 0; i < len(val); i++ {
		if strings.IndexByte(ifs, val[i]) >= 0 {
			seps++
		}
	}
	if seps > maxSplitFields || !fo.sc.charge(seps*splitFieldCost) {
		fo.addText(p)
		return
	}
	fieldsStart := 0
	for i := 0; i <= len(val); i++ {
		if i < len(val) && strings.IndexByte(ifs, val[i]) < 0 {
			continue
		}
		if i > fieldsStart {
			fo.add(val[fieldsStart:i])
		}
		if i < len(val) {
			fo.flush(false)
		}
		fieldsStart = i + 1
	}
	if isGlob(val) {
		fo.f.glob = true
	}
}

// paramValue resolves the parameter expansions whose value the analysis
// knows: $X, ${X}, ${#X}, ${X:-w}, ${X/a/b}, ${X#p}, ${X%s}, ${X:o:l}.
func (fo *folder) paramValue(p *syntax.ParamExp) (string, bool, []Source) {
	if p.Param == nil || p.Excl || p.Width || p.IsSet || p.NestedParam != nil ||
		p.Index != nil || p.Names != 0 || len(p.Modifiers) > 0 || p.Flags != nil {
		return "", false, nil
	}
	name := p.Param.Value
	v, set := fo.sc.lookup(name)
	if !set && fo.sc.unset(name) {
		// Unset by the script: empty, and the operators apply.
		v, set = varState{known: true}, true
		if p.Exp != nil && p.Exp.Op != syntax.DefaultUnset && p.Exp.Op != syntax.DefaultUnsetOrNull &&
			p.Exp.Op != syntax.AssignUnset && p.Exp.Op != syntax.AssignUnsetOrNull &&
			p.Exp.Op != syntax.AlternateUnset && p.Exp.Op != syntax.AlternateUnsetOrNull {
			return "", false, nil
		}
		if p.Exp != nil {
			switch p.Exp.Op {
			case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
				return "", true, nil
			default:
				w := fo.a.foldString(p.Exp.Word, fo.sc, fo.src)
				if p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull {
					fo.assignDefault(name, w)
				}
				return w.s, w.lit, w.srcs
			}
		}
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
			if !set || !v.known {
				return "", false, v.srcs
			}
			if v.val != "" || p.Exp.Op == syntax.DefaultUnset {
				return v.val, true, v.srcs
			}
			w := fo.a.foldString(p.Exp.Word, fo.sc, fo.src)
			return w.s, w.lit, appendSources(v.srcs, w.srcs...)
		}
	}
	if !set || !v.known {
		return "", false, v.srcs
	}
	val := v.val
	switch {
	case p.Length:
		if p.Exp != nil || p.Repl != nil || p.Slice != nil {
			return "", false, v.srcs
		}
		return strconv.Itoa(utf8.RuneCountInString(val)), true, v.srcs
	case p.Repl != nil:
		orig := fo.a.foldString(p.Repl.Orig, fo.sc, fo.src)
		with := fo.a.foldString(p.Repl.With, fo.sc, fo.src)
		if !orig.lit || !with.lit || orig.glob || hasGlob(orig.s) || orig.s == "" ||
			strings.HasPrefix(orig.s, "#") || strings.HasPrefix(orig.s, "%") {
			return "", false, v.srcs
		}
		if p.Repl.All {
			// The result's size is known before it is built: past
			// maxValue it is not built at all.
			if n := strings.Count(val, orig.s); len(val)+n*(len(with.s)-len(orig.s)) > maxValue {
				return "", false, v.srcs
			}
			return strings.ReplaceAll(val, orig.s, with.s), true, v.srcs
		}
		if len(val)+len(with.s) > maxValue {
			return "", false, v.srcs
		}
		return strings.Replace(val, orig.s, with.s, 1), true, v.srcs
	case p.Slice != nil:
		off, ok1 := arithLit(p.Slice.Offset)
		n, ok2 := len(val), true
		if p.Slice.Length != nil {
			n, ok2 = arithLit(p.Slice.Length)
		}
		if !ok1 || !ok2 || off < 0 || n < 0 {
			return "", false, v.srcs
		}
		off = min(off, len(val))
		return val[off:min(len(val), off+n)], true, v.srcs
	case p.Exp != nil:
		pat := fo.a.foldString(p.Exp.Word, fo.sc, fo.src)
		if !pat.lit || pat.glob || hasGlob(pat.s) {
			return "", false, v.srcs
		}
		switch p.Exp.Op {
		case syntax.RemSmallPrefix, syntax.RemLargePrefix:
			return strings.TrimPrefix(val, pat.s), true, v.srcs
		case syntax.RemSmallSuffix, syntax.RemLargeSuffix:
			return strings.TrimSuffix(val, pat.s), true, v.srcs
		case syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
			if val == "" && p.Exp.Op == syntax.AlternateUnsetOrNull {
				return "", true, v.srcs
			}
			return pat.s, true, v.srcs
		case syntax.ErrorUnset, syntax.ErrorUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull:
			if val != "" || p.Exp.Op == syntax.ErrorUnset || p.Exp.Op == syntax.AssignUnset {
				return val, true, v.srcs
			}
			if p.Exp.Op == syntax.AssignUnsetOrNull {
				// Empty: ${X:=w} assigns w and expands to it.
				fo.assignDefault(name, pat)
				return pat.s, true, v.srcs
			}
		}
		return "", false, v.srcs
	}
	return val, true, v.srcs
}

// assignDefault records the assignment ${X:=w} makes when it applies.
func (fo *folder) assignDefault(name string, w field) {
	if w.lit {
		fo.sc.set(name, varState{known: true, val: w.s})
	} else {
		fo.sc.setUnknown(name, w.srcs)
	}
}

// arithLit returns the value of an arithmetic expression that is a plain
// decimal literal.
func arithLit(x syntax.ArithmExpr) (int, bool) {
	w, ok := x.(*syntax.Word)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(w.Lit())
	return n, err == nil
}

// unescape resolves backslashes in a literal part: unquoted, every escaped
// character stands for itself; inside double quotes only $ ` " \ and newline
// are escapable; in a here-document, " is not. Unquoted glob characters set
// *glob.
func unescape(v string, q quoting, glob *bool) string {
	if strings.IndexByte(v, '\\') < 0 {
		if q == quoteNone && isGlob(v) {
			*glob = true
		}
		return v
	}
	var b strings.Builder
	b.Grow(len(v))
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c != '\\' || i+1 == len(v) {
			if q == quoteNone && (c == '*' || c == '?' || (c == '[' && strings.IndexByte(v[i:], ']') > 0)) {
				*glob = true
			}
			b.WriteByte(c)
			continue
		}
		n := v[i+1]
		switch {
		case q == quoteNone:
		case n == '$' || n == '`' || n == '\\' || n == '\n':
		case n == '"' && q == quoteDouble:
		default:
			b.WriteByte('\\')
			continue
		}
		i++
		if n != '\n' {
			b.WriteByte(n)
		}
	}
	return b.String()
}
