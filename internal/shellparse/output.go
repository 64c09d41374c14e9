package shellparse

import (
	"encoding/base64"
	"encoding/hex"
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// input is what a command reads on standard input when the analysis knows
// something about it.
type input struct {
	f      field  // the content; f.lit when it is fully known
	via    string // "heredoc", "herestring", "pipe"
	opaque bool   // stdin is a file or a program's output: content unknown
}

var opaqueInput = &input{opaque: true}

// output is what the pipeline stage st writes to the next one, when the
// analysis can tell: the text of echo and printf, here-documents passed
// through cat, base64 -d of a known text.
func (a *analyzer) output(st *syntax.Stmt, sc *scope, fr *frame, in *input) *input {
	var body []*syntax.Stmt
	switch c := st.Cmd.(type) {
	case *syntax.Block: // { echo a; echo b; } | sh
		body = c.Stmts
	case *syntax.Subshell:
		body = c.Stmts
	}
	if body != nil {
		return a.outputs(st, body, sc, fr, in)
	}
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return opaqueInput
	}
	for _, rd := range st.Redirs {
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			if rd.N == nil || rd.N.Value == "1" {
				return opaqueInput
			}
		case syntax.Hdoc, syntax.DashHdoc:
			in = a.heredocInput(rd, sc, fr)
		case syntax.WordHdoc:
			f := a.foldString(rd.Word, sc, fr.src)
			f.s += "\n"
			in = &input{f: f, via: "herestring"}
		case syntax.RdrIn:
			in = opaqueInput
		}
	}
	argv := make([]field, 0, len(c.Args))
	for _, w := range c.Args {
		argv = a.fold(argv, w, sc, fr.src, true)
	}
	if len(argv) == 0 || !argv[0].lit {
		return opaqueInput
	}
	name, args := progName(argv[0].s), argv[1:]
	switch name {
	case "echo":
		return echoOutput(args)
	case "printf":
		return printfOutput(args)
	case "cat", "tee":
		_, ops := optSpec{}.parse(args)
		if (len(ops) == 0 || (len(ops) == 1 && ops[0].lit && ops[0].s == "-") || name == "tee") && in != nil {
			return in
		}
	case "base64":
		if in != nil && !in.opaque && in.f.lit && hasFlag(texts(args), "d", "--decode") {
			b, err := base64.StdEncoding.DecodeString(stripSpace(in.f.s))
			if err != nil {
				b, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(stripSpace(in.f.s), "="))
			}
			if err == nil {
				return &input{f: litField(string(b), in.f.pos), via: "pipe"}
			}
		}
	case "xxd":
		if in != nil && !in.opaque && in.f.lit && hasFlag(texts(args), "r", "--revert") && hasFlag(texts(args), "p", "--plain") {
			if b, err := hex.DecodeString(stripSpace(in.f.s)); err == nil {
				return &input{f: litField(string(b), in.f.pos), via: "pipe"}
			}
		}
	case "rev":
		if in != nil && !in.opaque && in.f.lit && len(args) == 0 {
			lines := strings.Split(in.f.s, "\n")
			for i, l := range lines {
				r := []rune(l)
				slices.Reverse(r)
				lines[i] = string(r)
			}
			return &input{f: litField(strings.Join(lines, "\n"), in.f.pos), via: "pipe"}
		}
	}
	return opaqueInput
}

func stripSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			return -1
		}
		return r
	}, s)
}

// echoOutput is what echo [-neE] ARGS writes.
// outputs is what a group of statements writes: their outputs one after
// the other. When only some are known ({ echo 'rm -rf /'; cat x; } | sh)
// the result is partly known: a shell reading it is Dynamic and the known
// text is still analyzed.
func (a *analyzer) outputs(st *syntax.Stmt, body []*syntax.Stmt, sc *scope, fr *frame, in *input) *input {
	if len(st.Redirs) > 0 || len(body) == 0 || len(body) > 64 {
		return opaqueInput
	}
	var b strings.Builder
	f := field{lit: true, pos: body[0].Pos()}
	known := 0
	for _, s := range body {
		out := opaqueInput
		if !s.Coprocess {
			out = a.output(s, sc, fr, in)
		}
		if out.opaque || !out.f.lit {
			f.lit = false
			b.WriteString("\n")
			continue
		}
		if b.Len()+len(out.f.s) > maxValue {
			return opaqueInput // a group printing more than a value may hold: unknown (maxValue)
		}
		known++
		b.WriteString(out.f.s)
		f.srcs = appendSources(f.srcs, out.f.srcs...)
	}
	if known == 0 {
		return opaqueInput
	}
	f.s = b.String()
	f.text = strings.TrimSpace(f.s) != ""
	return &input{f: f, via: "pipe"}
}

func echoOutput(args []field) *input {
	newline, escapes := true, false
	i := 0
	for ; i < len(args) && args[i].lit && len(args[i].s) > 1 && args[i].s[0] == '-' && strings.Trim(args[i].s[1:], "neE") == ""; i++ {
		for _, c := range args[i].s[1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
	}
	f := joinFields(args[i:])
	if len(args[i:]) > 0 {
		f.pos = args[i].pos
	}
	if escapes && f.lit {
		s, stop := decodeEscapes(f.s, escEcho)
		f.s = s
		newline = newline && !stop
	}
	if newline {
		f.s += "\n"
	}
	return &input{f: f, via: "pipe"}
}

// printfOutput is what printf FORMAT ARGS writes, for the common
// directives (%s %b %d %c %q %%); anything else leaves the output unknown
// (its text is kept).
func printfOutput(args []field) *input {
	if len(args) > 0 && args[0].lit && args[0].s == "--" {
		args = args[1:]
	} else if len(args) > 0 && args[0].lit && len(args[0].s) > 1 && args[0].s[0] == '-' && !strings.HasPrefix(args[0].s, "-v") {
		// printf -delete, printf --hard: an invalid option, so bash's
		// printf prints nothing but its complaint on stderr.
		return &input{f: field{lit: true, pos: args[0].pos}, via: "pipe"}
	}
	if len(args) == 0 || (args[0].lit && strings.HasPrefix(args[0].s, "-v")) {
		return opaqueInput
	}
	all := joinFields(args)
	if !all.lit {
		all.s = strings.Join(texts(args[1:]), " ")
		return &input{f: all, via: "pipe"}
	}
	s, ok := printfFormat(args[0].s, texts(args[1:]))
	if !ok {
		all.lit = false
		return &input{f: all, via: "pipe"}
	}
	return &input{f: field{s: s, lit: true, pos: args[0].pos, srcs: all.srcs}, via: "pipe"}
}

// printfFormat expands a printf format with its arguments, reusing the
// format while arguments remain.
func printfFormat(format string, args []string) (string, bool) {
	var b strings.Builder
	for pass := 0; pass < 1024; pass++ {
		used := 0
		for i := 0; i < len(format); i++ {
			c := format[i]
			if c == '\\' {
				j := i + 1
				for j < len(format) && j-i < 4 && format[j] >= '0' && format[j] <= '7' {
					j++
				}
				if j == i+1 && j < len(format) {
					j++
					if format[i+1] == 'x' || format[i+1] == 'u' || format[i+1] == 'U' {
						for j < len(format) && j-i < 10 && isHex(format[j]) {
							j++
						}
					}
				}
				s, _ := decodeEscapes(format[i:j], escPrintf)
				b.WriteString(s)
				i = j - 1
				continue
			}
			if c != '%' {
				b.WriteByte(c)
				continue
			}
			i++
			for i < len(format) && strings.IndexByte("-+ #0", format[i]) >= 0 {
				i++
			}
			for i < len(format) && (format[i] >= '0' && format[i] <= '9' || format[i] == '.') {
				i++
			}
			if i >= len(format) {
				return "", false
			}
			arg := ""
			if format[i] != '%' && used < len(args) {
				arg = args[used]
			}
			if format[i] != '%' {
				used++
			}
			switch format[i] {
			case '%':
				b.WriteByte('%')
			case 's', 'q':
				b.WriteString(arg)
			case 'b':
				s, stop := decodeEscapes(arg, escEcho)
				b.WriteString(s)
				if stop {
					return b.String(), true
				}
			case 'c':
				if arg != "" {
					b.WriteByte(arg[0])
				}
			case 'd', 'i', 'u':
				if arg == "" {
					arg = "0"
				}
				if _, err := strconv.ParseInt(arg, 10, 64); err != nil {
					return "", false
				}
				b.WriteString(arg)
			default:
				return "", false
			}
			if b.Len() > 1<<20 {
				return "", false
			}
		}
		args = args[min(used, len(args)):]
		if used == 0 || len(args) == 0 {
			break
		}
	}
	return b.String(), true
}

// outSubst is a >(…) waiting for the statement that writes into it.
type outSubst struct {
	p  *syntax.ProcSubst
	sc *scope
	fr *frame
}

// procOutput is what the <(…) p prints, for a shell given it as its
// script or its standard input: the output of its one command when the
// analysis follows it, opaque otherwise (several commands, or past the
// budget shared with $(…), maxSubstValues); nil for a >(…).
func (a *analyzer) procOutput(p *syntax.ProcSubst, sc *scope, src string) *input {
	if p.Op != syntax.CmdIn {
		return nil
	}
	if len(p.Stmts) != 1 || a.substValues <= 0 {
		return opaqueInput
	}
	a.substValues--
	defer a.leave()
	if !a.enter() {
		return opaqueInput
	}
	return a.output(p.Stmts[0], sc.child(), &frame{src: src}, nil)
}

// wordProc is procOutput for a word that is one <(…), nil for any other.
func (a *analyzer) wordProc(w *syntax.Word, sc *scope, src string) *input {
	if w == nil || len(w.Parts) != 1 {
		return nil
	}
	if p, ok := w.Parts[0].(*syntax.ProcSubst); ok {
		return a.procOutput(p, sc, src)
	}
	return nil
}

// readers analyzes the >(…) of statement st, each reading what flows into
// it: st's standard output when the substitution is where it goes (echo …
// > >(bash)), tee's input when it is a file tee writes (… | tee >(bash));
// anything else (another descriptor, a file named to an option) is data
// the analysis cannot see, and a shell reading it is Dynamic. Each reader
// has the sources of the commands st ran.
func (a *analyzer) readers(st *syntax.Stmt, outs []outSubst, first int, stdin, in *input) {
	if len(outs) == 0 {
		return
	}
	srcs := a.sourcesFrom(first, "pipe")
	for _, o := range outs {
		if a.err != nil {
			return
		}
		feed := a.procFeed(st, o, stdin, in)
		start := len(a.cmds)
		a.stmts(o.p.Stmts, o.sc.child(), o.fr, feed)
		a.addStdinSources(start, srcs)
	}
}

// procFeed is what the statement st writes into its >(…) o.
func (a *analyzer) procFeed(st *syntax.Stmt, o outSubst, stdin, in *input) *input {
	for _, rd := range st.Redirs {
		if rd.Word == nil || len(rd.Word.Parts) != 1 || rd.Word.Parts[0] != syntax.WordPart(o.p) {
			continue
		}
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
			if rd.N == nil || rd.N.Value == "1" {
				cp := *st
				cp.Redirs = slices.DeleteFunc(slices.Clone(st.Redirs), func(r *syntax.Redirect) bool { return r == rd })
				return a.output(&cp, o.sc, o.fr, stdin)
			}
		}
		return unknownFeed(o)
	}
	if c, ok := st.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 1 {
		if name := a.foldString(c.Args[0], o.sc, o.fr.src); name.lit && progName(name.s) == "tee" {
			for _, w := range c.Args[1:] {
				if len(w.Parts) == 1 && w.Parts[0] == syntax.WordPart(o.p) {
					if in == nil {
						return opaqueInput
					}
					return in
				}
			}
		}
	}
	return unknownFeed(o)
}

// unknownFeed is data written into a >(…) by a descriptor or a program
// the analysis does not follow: a shell that reads it runs what it cannot
// see (Dynamic).
func unknownFeed(o outSubst) *input {
	return &input{f: field{s: nodeText(o.fr.src, o.p), pos: o.p.Pos()}, via: "procsubst"}
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
	if d, ok := mktempValue(p.Stmts[0], sc); ok {
		return d, true // $(mktemp -d): a new temporary path
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

// mktempValue is the path $(mktemp …) prints: a new file or directory
// named after its template (tmp.XXXXXXXXXX by default; the X's stay, as
// the random part is not known) in -p/--tmpdir DIR, else $TMPDIR when the
// string set it, else /tmp — with -t, or with no template; a template
// with a directory or without -t is taken as it is, relative to the
// working directory. What it names did not exist before the call: rm -rf
// "$d" of it removes only what the string made (trap 'rm -rf "$d"' EXIT).
// -u (make nothing) and a template or directory that is not literal give
// no value.
func mktempValue(st *syntax.Stmt, sc *scope) (string, bool) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Assigns) > 0 || len(st.Redirs) > 0 || st.Negated || len(c.Args) == 0 || c.Args[0].Lit() != "mktemp" {
		return "", false
	}
	dir, tmpl, t := "", "", false
	words := c.Args[1:]
	for i := 0; i < len(words); i++ {
		w := words[i].Lit()
		switch {
		case w == "":
			return "", false // not literal
		case w == "-d" || w == "--directory" || w == "-q" || w == "--quiet":
		case w == "-t":
			t = true
		case w == "-p" || w == "--tmpdir":
			if i+1 >= len(words) || words[i+1].Lit() == "" {
				return "", false
			}
			i++
			dir = words[i].Lit()
		case strings.HasPrefix(w, "--tmpdir="):
			dir = strings.TrimPrefix(w, "--tmpdir=")
		case strings.HasPrefix(w, "-p") && len(w) > 2:
			dir = w[2:]
		case w == "--tmpdir":
		case strings.HasPrefix(w, "--suffix="):
			tmpl += strings.TrimPrefix(w, "--suffix=")
		case strings.HasPrefix(w, "-"):
			if strings.Trim(w[1:], "dqt") != "" {
				return "", false // -u, or an option not known here
			}
			t = t || strings.Contains(w, "t")
		default:
			tmpl = w + tmpl
		}
	}
	if tmpl != "" && !t && dir == "" || strings.Contains(tmpl, "/") {
		if path.IsAbs(tmpl) {
			return path.Clean(tmpl), true
		}
		if sc.cwdUnknown || !path.IsAbs(sc.cwd) {
			return "", false
		}
		return path.Join(sc.cwd, tmpl), true
	}
	if tmpl == "" || strings.HasPrefix(tmpl, ".") && !strings.Contains(tmpl, "X") {
		tmpl = "tmp.XXXXXXXXXX" + tmpl
	}
	if dir == "" {
		dir = "/tmp"
		if v, ok := sc.lookup("TMPDIR"); ok && v.known && path.IsAbs(v.val) {
			dir = v.val
		}
	}
	if !path.IsAbs(dir) {
		if sc.cwdUnknown || !path.IsAbs(sc.cwd) {
			return "", false
		}
		dir = path.Join(sc.cwd, dir)
	}
	return path.Join(dir, tmpl), true
}
