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
	s     string     // value when lit, else the text with unknown parts kept as source
	lit   bool       // every part is known
	glob  bool       // holds an unquoted glob or unexpanded brace: the real value may differ
	subst bool       // holds a command or process substitution
	text  bool       // holds known text besides blanks (not only expansions)
	input bool       // filled in by xargs/parallel from an input the analysis does not know
	proc  *input     // a word that is one <(…): what it prints (procOutput); nil otherwise
	srcs  []Source   // sources carried by variables expanded into it
	pos   syntax.Pos // where the word starts
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

// fillBraces gives every empty alternative of the brace expressions in w
// (SplitBraces makes {,} two words without parts) an empty literal at
// the expression's place: syntax.Word.Pos and End index a word's first
// and last parts, and every word the analysis keeps must have them.
func fillBraces(w *syntax.Word, pos syntax.Pos, depth int) {
	if depth > 64 {
		return
	}
	for _, p := range w.Parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		for _, e := range be.Elems {
			if len(e.Parts) == 0 {
				e.Parts = []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos}}
				continue
			}
			fillBraces(e, pos, depth+1)
		}
	}
}

func isBraceExp(p syntax.WordPart) bool {
	_, ok := p.(*syntax.BraceExp)
	return ok
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

func isIFS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

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

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// isGlob reports whether an unquoted literal holds a pattern character: *,
// ? or a [ closed later.
func isGlob(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	i := strings.IndexByte(s, '[')
	return i >= 0 && strings.IndexByte(s[i:], ']') > 0
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

// nodeText is the source text of n, or its printed form when the positions
// do not index src.
func nodeText(src string, n syntax.Node) string {
	s, e := n.Pos().Offset(), n.End().Offset()
	if n.Pos().IsValid() && n.End().IsValid() && s <= e && e <= uint(len(src)) {
		return src[s:e]
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return ""
	}
	return b.String()
}

const maxBraceWords = 256

// braceWords applies brace expansion to a word that went through
// syntax.SplitBraces. It reports false when the expansion would exceed
// maxBraceWords words, or the word holds too many brace expressions.
func braceWords(w *syntax.Word) ([]*syntax.Word, bool) {
	n := 0
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			n++
		}
	}
	if n > 16 {
		return nil, false
	}
	out := make([]*syntax.Word, 0, 4)
	return expandBraces(w, out, 0)
}

func expandBraces(w *syntax.Word, out []*syntax.Word, depth int) ([]*syntax.Word, bool) {
	if depth > 32 {
		return nil, false
	}
	for i, p := range w.Parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		alts := be.Elems
		if be.Sequence {
			alts, ok = braceSequence(be)
			if !ok {
				return nil, false
			}
		}
		for _, alt := range alts {
			parts := make([]syntax.WordPart, 0, len(w.Parts)+len(alt.Parts))
			parts = append(parts, w.Parts[:i]...)
			parts = append(parts, alt.Parts...)
			parts = append(parts, w.Parts[i+1:]...)
			out, ok = expandBraces(&syntax.Word{Parts: parts}, out, depth+1)
			if !ok || len(out) > maxBraceWords {
				return nil, false
			}
		}
		return out, true
	}
	return append(out, w), true
}

// braceSequence expands {x..y[..incr]} over integers or single letters.
func braceSequence(be *syntax.BraceExp) ([]*syntax.Word, bool) {
	if len(be.Elems) < 2 {
		return nil, false
	}
	lo, hi := be.Elems[0].Lit(), be.Elems[1].Lit()
	step := 1
	if len(be.Elems) > 2 {
		s, err := strconv.Atoi(be.Elems[2].Lit())
		if err != nil {
			return nil, false
		}
		step = max(s, -s)
	}
	if step == 0 {
		step = 1
	}
	var vals []string
	x, err1 := strconv.Atoi(lo)
	y, err2 := strconv.Atoi(hi)
	switch {
	case err1 == nil && err2 == nil:
		if (y-x)/step > maxBraceWords || (x-y)/step > maxBraceWords {
			return nil, false
		}
		for i := x; (x <= y && i <= y) || (x > y && i >= y); {
			vals = append(vals, strconv.Itoa(i))
			if x <= y {
				i += step
			} else {
				i -= step
			}
		}
	case len(lo) == 1 && len(hi) == 1:
		for c := int(lo[0]); (lo[0] <= hi[0] && c <= int(hi[0])) || (lo[0] > hi[0] && c >= int(hi[0])); {
			vals = append(vals, string(rune(c)))
			if lo[0] <= hi[0] {
				c += step
			} else {
				c -= step
			}
		}
	default:
		return nil, false
	}
	words := make([]*syntax.Word, len(vals))
	for i, v := range vals {
		words[i] = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v}}}
	}
	return words, true
}

// braceText prints a brace expression that is not expanded.
func braceText(be *syntax.BraceExp, src string) string {
	sep := ","
	if be.Sequence {
		sep = ".."
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range be.Elems {
		if i > 0 {
			b.WriteString(sep)
		}
		for _, p := range e.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			} else {
				b.WriteString(nodeText(src, p))
			}
		}
	}
	b.WriteByte('}')
	return b.String()
}

type escMode int

const (
	escANSIC  escMode = iota // $'…'
	escEcho                  // echo -e, printf %b: \0NNN octal, \c stops
	escPrintf                // printf format: \NNN octal
)

// decodeEscapes resolves backslash escapes. stop reports a \c that ends the
// output (echo -e, %b).
func decodeEscapes(s string, mode escMode) (out string, stop bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			if mode != escANSIC && (e == '\'' || e == '?') {
				b.WriteByte('\\')
			}
			b.WriteByte(e)
		case 'c':
			if mode == escEcho {
				return b.String(), true
			}
			if mode == escANSIC && i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
				continue
			}
			b.WriteString(`\c`)
		case 'x', 'u', 'U':
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < maxDigits && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		default:
			if e < '0' || e > '7' {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			j := i
			if mode == escEcho {
				if e != '0' {
					b.WriteByte('\\')
					b.WriteByte(e)
					continue
				}
				j++ // \0NNN
			}
			k := j
			for k < len(s) && k-j < 3 && s[k] >= '0' && s[k] <= '7' {
				k++
			}
			n, _ := strconv.ParseUint(s[j:k], 8, 16)
			if k == j {
				n = 0
			}
			b.WriteByte(byte(n))
			i = k - 1
		}
	}
	return b.String(), false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// litWords splits s like splitWords into known fields at pos.
func litWords(s string, pos syntax.Pos) []field {
	var out []field
	for _, w := range splitWords(s) {
		out = append(out, litField(w, pos))
	}
	return out
}

// splitWords splits s into words the way env -S and a simple shell-like
// splitter do: blanks separate, single and double quotes group, backslash
// escapes.
func splitWords(s string) []string {
	var words []string
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isIFS(c):
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				break
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			in = true
			i++
			b.WriteByte(s[i])
		default:
			in = true
			b.WriteByte(c)
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}

// Quote quotes s so that a shell reads it back as one word: unchanged when
// it holds nothing a shell would interpret, else in single quotes.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`|&;<>()*?[]{}~#!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// maxSubstValue bounds the output of a $(…) the analysis substitutes, and
// maxSubstValues how many times one analysis works one out (a word is
// folded more than once, and a nested $(…) with each of its ancestors).
const (
	maxSubstValue  = 64 << 10
	maxSubstValues = 256
)

// substValue is the output of the command substitution p when the
// analysis knows it: one statement, a command or a pipeline whose stages'
// outputs it can follow (echo, printf, cat of a here-document, base64 -d
// of a known text…), trailing newlines removed as the shell does.
func (a *analyzer) substValue(p *syntax.CmdSubst, sc *scope, src string) (string, bool) {
	if len(p.Stmts) != 1 || p.Stmts[0].Background || p.Stmts[0].Coprocess || a.substValues <= 0 {
		return "", false
	}
	if d, ok := pwdValue(p.Stmts[0], sc); ok {
		return d, true // $(pwd), `pwd`: the directory the analysis tracks
	}
	if b, ok := p.Stmts[0].Cmd.(*syntax.BinaryCmd); ok && b.Op == syntax.AndStmt && len(p.Stmts[0].Redirs) == 0 {
		// $(cd DIR && pwd): DIR as the analysis resolves it.
		if c, ok := b.X.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == "cd" && len(b.X.Redirs) == 0 && len(c.Assigns) == 0 {
			var args []field
			for _, w := range c.Args[1:] {
				args = a.fold(args, w, sc, src, true)
			}
			child := sc.child()
			a.builtin("cd", args, child)
			if d, ok := pwdValue(b.Y, child); ok {
				return d, true
			}
		}
	}
	a.substValues--
	defer a.leave()
	if !a.enter() {
		return "", false
	}
	fr := &frame{src: src}
	st := p.Stmts[0]
	stages := []*syntax.Stmt{st}
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(st.Redirs) == 0 && !st.Negated {
		stages = pipeStages(b)
	}
	var in *input
	for i := len(stages) - 1; i >= 0; i-- {
		in = a.output(stages[i], sc.child(), fr, in)
		if in.opaque || !in.f.lit {
			return "", false
		}
	}
	if in == nil || len(in.f.s) > maxSubstValue {
		return "", false
	}
	return strings.TrimRight(in.f.s, "\n"), true
}

// pwdValue is the output of a statement that is only pwd (pwd -L, pwd -P,
// builtin pwd): the working directory, when the analysis knows it.
func pwdValue(st *syntax.Stmt, sc *scope) (string, bool) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(st.Redirs) > 0 || st.Negated || len(c.Args) == 0 {
		return "", false
	}
	args := c.Args
	if args[0].Lit() == "builtin" || args[0].Lit() == "command" {
		args = args[1:]
	}
	if len(args) == 0 || args[0].Lit() != "pwd" {
		return "", false
	}
	for _, w := range args[1:] {
		if l := w.Lit(); l != "-L" && l != "-P" {
			return "", false
		}
	}
	if sc.cwdUnknown || !path.IsAbs(sc.cwd) {
		return "", false
	}
	return sc.cwd, true
}
