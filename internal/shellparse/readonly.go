package shellparse

import (
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ReadOnly is the outcome of ProveReadOnly.
type ReadOnly struct {
	// OK: every command the string runs is in the read-only table
	// (readonly_table.go) with options it lists, and nothing else in the
	// string can write, run a program or change what runs.
	OK bool
	// Why names the first thing that is not proven ("sed -i writes",
	// "unknown option ls --unknown-opt"); empty when OK.
	Why string
	// Reads are the paths the commands may read (operands, option values
	// naming files, sed r files, cd directories), resolved against every
	// directory the string may be in (Options.Cwd and each literal cd
	// before); "~" expanded. Unexpanded globs are kept as written. The
	// caller checks each against its rules and the workspace.
	Reads []string
}

// ProveReadOnly reports whether a shell string only reads (see the
// "Read-only proof" section of the package documentation). It parses the
// string itself and judges its syntax tree conservatively: any construct
// it does not know is "not proven". It does no I/O.
func ProveReadOnly(src string, opts Options) ReadOnly {
	opts = opts.withDefaults()
	if len(src) > opts.MaxBytes {
		return ReadOnly{Why: "the command is too large to prove"}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)).Parse(strings.NewReader(src), "")
	if err != nil {
		return ReadOnly{Why: "the command does not parse"}
	}
	p := &roProver{home: opts.Home, cwds: []string{opts.Cwd}}
	p.stmts(f.Stmts)
	if p.why != "" {
		return ReadOnly{Why: p.why}
	}
	if len(f.Stmts) == 0 {
		return ReadOnly{Why: "no command"}
	}
	return ReadOnly{OK: true, Reads: p.reads}
}

type roProver struct {
	why   string
	home  string
	cwds  []string // every directory a later relative path may be relative to
	reads []string
	depth int
}

func (p *roProver) fail(why string) {
	if p.why == "" {
		p.why = why
	}
}

func (p *roProver) stmts(ss []*syntax.Stmt) {
	for _, s := range ss {
		if p.why != "" {
			return
		}
		p.stmt(s)
	}
}

func (p *roProver) stmt(s *syntax.Stmt) {
	if p.depth++; p.depth > 64 {
		p.fail("the command is nested too deeply to prove")
		return
	}
	defer func() { p.depth-- }()
	if s.Background || s.Coprocess {
		p.fail("a background job")
		return
	}
	for _, r := range s.Redirs {
		p.redir(r)
	}
	switch c := s.Cmd.(type) {
	case nil:
		if len(s.Redirs) > 0 {
			p.fail("a redirection with no command")
		}
	case *syntax.CallExpr:
		p.call(c)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			// Each stage of a pipeline is a subshell: a cd in it stays there.
			saved := p.cwds
			p.stmt(c.X)
			p.cwds = saved
			p.stmt(c.Y)
			p.cwds = saved
			return
		}
		p.stmt(c.X)
		p.stmt(c.Y) // after a || or && either directory may be current: cwds only grows
	case *syntax.Subshell:
		saved := p.cwds
		p.stmts(c.Stmts)
		p.cwds = saved
	case *syntax.Block:
		p.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil && p.why == ""; ic = ic.Else {
			p.stmts(ic.Cond)
			p.stmts(ic.Then)
		}
	default:
		p.fail("a shell construct the proof does not follow (" + nodeName(c) + ")")
	}
}

func nodeName(n syntax.Node) string {
	switch n.(type) {
	case *syntax.FuncDecl:
		return "function definition"
	case *syntax.DeclClause:
		return "declaration"
	case *syntax.ForClause, *syntax.WhileClause:
		return "loop"
	case *syntax.CaseClause:
		return "case"
	case *syntax.ArithmCmd, *syntax.LetClause:
		return "arithmetic"
	case *syntax.TestClause:
		return "[[ ]]"
	case *syntax.TimeClause:
		return "time"
	}
	return "other"
}

func (p *roProver) redir(r *syntax.Redirect) {
	target, lit := p.literal(r.Word)
	switch r.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.ClbOut:
		if !lit || target != "/dev/null" {
			p.fail("a redirection writes " + wordText(r.Word, target, lit))
		}
	case syntax.DplOut, syntax.DplIn:
		if !lit || !(target == "-" || isDigits(target) || target == "/dev/null") {
			p.fail("a redirection writes " + wordText(r.Word, target, lit))
		}
	case syntax.RdrIn:
		if !lit {
			p.fail("a redirection reads a path only known at run time")
			return
		}
		p.read(target)
	case syntax.WordHdoc:
		if _, ok := p.literal(r.Word); !ok {
			p.fail("a here-string the proof cannot follow")
		}
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			if _, ok := p.literal(r.Hdoc); !ok {
				p.fail("a here-document with expansions")
			}
		}
	default:
		p.fail("a redirection the proof does not follow")
	}
}

func wordText(w *syntax.Word, s string, lit bool) string {
	if lit {
		return s
	}
	if w == nil {
		return "?"
	}
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// literal folds a word that is literal text: unquoted literals (no
// parameter, arithmetic or brace expansion, no ~user), single and double
// quotes of literals.
func (p *roProver) literal(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for i, part := range w.Parts {
		switch x := part.(type) {
		case *syntax.Lit:
			v := x.Value
			v = Unbackslash(v)
			if i == 0 && strings.HasPrefix(v, "~") && v != "~" && !strings.HasPrefix(v, "~/") {
				return "", false // ~user, ~+, ~-
			}
			if braceLike(x.Value) {
				return "", false
			}
			if i == 0 && p.home != "" && (v == "~" || strings.HasPrefix(v, "~/")) {
				v = p.home + v[1:]
			}
			b.WriteString(v)
		case *syntax.SglQuoted:
			if x.Dollar {
				return "", false
			}
			b.WriteString(x.Value)
		case *syntax.DblQuoted:
			for _, q := range x.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(unescapeDq(l.Value))
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}

// braceLike reports text bash may brace-expand ({a,b}, {1..3}).
func braceLike(s string) bool {
	i := strings.IndexByte(s, '{')
	return i >= 0 && (strings.Contains(s[i:], ",") || strings.Contains(s[i:], ".."))
}

func unescapeDq(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// globLead reports an unquoted glob character at the start of a word:
// its expansion may be a file named like an option (-delete, -o.go).
func globLead(w *syntax.Word) bool {
	if len(w.Parts) == 0 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && l.Value != "" && strings.IndexByte("*?[", l.Value[0]) >= 0
}

// roArg is one argument: its folded value, or not literal.
type roArg struct {
	v   string
	lit bool
	src string // the source text, for messages
}

func (p *roProver) call(c *syntax.CallExpr) {
	if len(c.Assigns) > 0 {
		p.fail("an environment assignment (" + c.Assigns[0].Name.Value + "=) may change what runs")
		return
	}
	if len(c.Args) == 0 {
		p.fail("no command")
		return
	}
	name, ok := p.literal(c.Args[0])
	if !ok || name == "" {
		p.fail("the program is only known at run time")
		return
	}
	if strings.Contains(name, "/") {
		p.fail(name + " is not a program from the read-only table (a path runs that file)")
		return
	}
	spec, ok := readOnlyTable.get()[name]
	if !ok {
		p.fail(name + " is not in the read-only table")
		return
	}
	args := make([]roArg, 0, len(c.Args)-1)
	for _, w := range c.Args[1:] {
		v, lit := p.literal(w)
		a := roArg{v: v, lit: lit}
		if !lit {
			a.src = wordText(w, "", false)
			if !p.dynamicWord(w, spec.echo) {
				return
			}
			if len(w.Parts) == 1 {
				if _, ok := w.Parts[0].(*syntax.ProcSubst); ok {
					// <(…) is a /dev/fd path its proven commands write to.
					a.v, a.lit = "/dev/null", true
				}
			}
		} else {
			a.src = v
		}
		if lit && globLead(w) && !spec.echo {
			p.fail(name + " " + a.src + ": a glob at the start of a word may expand to an option")
			return
		}
		args = append(args, a)
	}
	if spec.echo {
		return // prints its words, reads nothing
	}
	for _, a := range args {
		if !a.lit {
			p.fail(name + " " + a.src + ": an argument only known at run time")
			return
		}
	}
	vals := make([]string, len(args))
	for i, a := range args {
		vals[i] = a.v
	}
	p.checkSpec(name, spec, vals)
}

// dynamicWord accepts a non-literal word only as far as its parts are
// proven: command substitutions whose commands are read-only, and, for
// echo, plain parameter expansions ($HOME, ${X}: no operators, which may
// assign or substitute). Arithmetic expansion is not followed.
func (p *roProver) dynamicWord(w *syntax.Word, echo bool) bool {
	var parts func([]syntax.WordPart) bool
	parts = func(ps []syntax.WordPart) bool {
		for _, part := range ps {
			switch x := part.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
			case *syntax.DblQuoted:
				if !parts(x.Parts) {
					return false
				}
			case *syntax.ParamExp:
				if !echo || x.Excl || x.Length || x.Width || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Exp != nil || x.Names != 0 {
					p.fail("an argument only known at run time (" + wordText(w, "", false) + ")")
					return false
				}
			case *syntax.CmdSubst:
				saved := p.cwds
				p.stmts(x.Stmts)
				p.cwds = saved
				if p.why != "" {
					return false
				}
			case *syntax.ProcSubst:
				if x.Op != syntax.CmdIn {
					p.fail("an output process substitution >(…)")
					return false
				}
				saved := p.cwds
				p.stmts(x.Stmts)
				p.cwds = saved
				if p.why != "" {
					return false
				}
			default:
				p.fail("an expansion the proof cannot follow (" + wordText(w, "", false) + ")")
				return false
			}
		}
		return true
	}
	return parts(w.Parts)
}

// read records a path the command may read, relative to every directory
// it may be in.
func (p *roProver) read(s string) {
	if s == "" || s == "-" {
		return
	}
	if len(p.reads) > roMaxReads {
		p.fail("too many paths to check")
		return
	}
	if path.IsAbs(s) {
		p.reads = append(p.reads, path.Clean(s))
		return
	}
	for _, d := range p.cwds {
		if d == "" {
			p.reads = append(p.reads, path.Clean(s))
		} else {
			p.reads = append(p.reads, path.Join(d, s))
		}
	}
}

// cd adds the directory a literal cd enters to the directories later
// relative paths may be relative to.
func (p *roProver) cd(dir string) {
	p.read(dir)
	var next []string
	for _, d := range p.cwds {
		switch {
		case path.IsAbs(dir):
			next = append(next, path.Clean(dir))
		case d == "":
			next = append(next, path.Clean(dir))
		default:
			next = append(next, path.Join(d, dir))
		}
	}
	seen := map[string]bool{}
	out := p.cwds[:len(p.cwds):len(p.cwds)]
	for _, d := range out {
		seen[d] = true
	}
	for _, d := range next {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	if len(out) > roMaxCwds {
		p.fail("too many cd to follow")
		out = out[:1]
	}
	p.cwds = out
}

// Bounds of the proof: directories a relative path may be relative to,
// and reads in all. Past them the string is not proven.
const (
	roMaxCwds  = 16
	roMaxReads = 4096
)
