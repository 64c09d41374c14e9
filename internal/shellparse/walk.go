package shellparse

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/toolguard/toolguard/internal/call"
)

func (a *analyzer) stmts(list []*syntax.Stmt, sc *scope, fr *frame, in *input) {
	for _, st := range list {
		if a.err != nil {
			return
		}
		a.stmt(st, sc, fr, in)
	}
}

// stmt analyzes one statement; in is its standard input when known.
func (a *analyzer) stmt(st *syntax.Stmt, sc *scope, fr *frame, in *input) {
	if st == nil {
		return
	}
	defer a.leave()
	if !a.enter() || !a.count(1) {
		return
	}
	if st.Background || st.Coprocess || st.Disown {
		sc = sc.child() // runs in a subshell
	}
	// The >(…) found while the statement is read go on a.outs above mark;
	// readers analyzes them once it has run.
	mark := len(a.outs)
	defer a.popOuts(mark, a.collectOuts)
	a.collectOuts = true
	stdin := in
	r := a.redirects(st.Redirs, sc, fr)
	if r.in != nil {
		in = r.in
	}
	first := len(a.cmds)
	main := -1
	switch c := st.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		main = a.call(c, sc, fr, in)
	default:
		a.compound(c, sc, fr, in)
	}
	a.collectOuts = false
	if a.err != nil {
		return
	}
	a.readers(st, a.outs[mark:], first, stdin, in)
	if a.err != nil {
		return
	}
	if len(r.paths) > 0 {
		a.recordWrite(st, sc, fr, stdin)
		r.paths = a.followLinks(r.paths)
		if main >= 0 && countsOnly(&a.cmds[main]) {
			// wc -l < .env: counted, not printed (wcPaths).
			r.paths = slices.DeleteFunc(r.paths, func(p PathRef) bool { return p.Op == call.OpRead })
		}
	}
	a.addStdinSources(first, r.srcs)
	if len(r.paths) > 0 {
		idx := main
		if idx < 0 && len(a.cmds) > first {
			idx = first
		}
		if idx < 0 {
			// A redirection alone (`> f`) still opens its file: report it
			// on ":" (what bash does is the same as `: > f`).
			idx = a.emit(Command{Name: ":", Wrappers: fr.wrappers, Pos: a.pos(st.Pos(), fr)})
		}
		if len(a.cmds[idx].Paths) == 0 {
			a.cmds[idx].Paths = r.paths // r.paths is not used again
		} else {
			a.cmds[idx].Paths = append(a.cmds[idx].Paths, r.paths...)
		}
	}
}

type redirs struct {
	paths []PathRef
	in    *input
	srcs  []Source // sources feeding stdin through substitutions
}

func (a *analyzer) redirects(rs []*syntax.Redirect, sc *scope, fr *frame) redirs {
	var r redirs
	for _, rd := range rs {
		if a.err != nil {
			return r
		}
		switch rd.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			srcs := a.substs(rd.Hdoc, sc, fr, "heredoc")
			r.in = a.heredocInput(rd, sc, fr)
			r.in.f.srcs = appendSources(r.in.f.srcs, srcs...)
			r.srcs = appendSources(r.srcs, srcs...)
		case syntax.WordHdoc:
			srcs := a.substs(rd.Word, sc, fr, "herestring")
			f := a.foldString(rd.Word, sc, fr.src)
			f.s += "\n"
			f.srcs = appendSources(f.srcs, srcs...)
			r.in = &input{f: f, via: "herestring"}
			r.srcs = appendSources(r.srcs, srcs...)
		default:
			srcs := a.substs(rd.Word, sc, fr, "")
			f := a.foldString(rd.Word, sc, fr.src)
			if rd.Op == syntax.RdrIn && (rd.N == nil || rd.N.Value == "0") {
				r.in = opaqueInput
				if out := a.wordProc(rd.Word, sc, fr.src); out != nil {
					r.in = out // < <(echo …): what the substitution prints, like a pipe
				}
				r.srcs = appendSources(r.srcs, srcs...)
			}
			if p, ok := redirPath(rd, f, sc); ok {
				r.paths = append(r.paths, p)
				if alt, ok := defaultAlt(f, sc); ok {
					if p, ok := redirPath(rd, alt, sc); ok {
						r.paths = append(r.paths, p)
					}
				}
			}
		}
	}
	return r
}

// heredocInput is the content of a here-document: literal when its
// delimiter is quoted, expanded otherwise.
func (a *analyzer) heredocInput(rd *syntax.Redirect, sc *scope, fr *frame) *input {
	if rd.Hdoc == nil || len(rd.Hdoc.Parts) == 0 {
		return &input{f: field{lit: true}, via: "heredoc"}
	}
	if quotedDelim(rd.Word) {
		var b strings.Builder
		for _, p := range rd.Hdoc.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			} else {
				b.WriteString(nodeText(fr.src, p))
			}
		}
		return &input{f: litField(b.String(), rd.Hdoc.Pos()), via: "heredoc"}
	}
	return &input{f: a.foldHeredoc(rd.Hdoc, sc, fr.src), via: "heredoc"}
}

// braceInWord reports an unquoted brace, which declare's arguments (unlike
// plain assignments) expand: declare X={a,b}.
func braceInWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

func quotedDelim(w *syntax.Word) bool {
	if w == nil {
		return false
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if strings.Contains(p.Value, `\`) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// call analyzes a simple command and returns the index of the command it
// emits, or -1.
func (a *analyzer) call(c *syntax.CallExpr, sc *scope, fr *frame, in *input) int {
	for _, as := range c.Assigns {
		a.assign(as, sc, fr, len(c.Args) == 0)
	}
	if len(c.Args) == 0 || a.err != nil {
		return -1
	}
	argv := make([]field, 0, len(c.Args))
	var srcs []Source
	for _, w := range c.Args {
		srcs = appendSources(srcs, a.substs(w, sc, fr, "")...)
		argv = a.fold(argv, w, sc, fr.src, true)
	}
	if a.err != nil {
		return -1
	}
	if len(argv) == 0 {
		// Every word expanded to nothing: `$EMPTY`.
		return -1
	}
	env := fr.env
	if len(c.Assigns) > 0 {
		env = slices.Clone(env)
		for _, as := range c.Assigns {
			if as.Name == nil || as.Naked {
				continue
			}
			env = append(env, a.assignText(as, sc, fr))
		}
	}
	idx := a.run(argv, runCtx{sc: sc, fr: fr, in: in, wrappers: fr.wrappers, env: env, srcs: srcs, depth: fr.depth, direct: true})
	a.expandAlias(c, sc, fr)
	return idx
}

// assignText is NAME=VALUE as the command sees it: the value folded as
// far as literals allow, an array kept as its source text.
func (a *analyzer) assignText(as *syntax.Assign, sc *scope, fr *frame) string {
	v := ""
	if as.Value != nil {
		v = a.foldString(as.Value, sc, fr.src).s
	} else if as.Array != nil {
		v = nodeText(fr.src, as.Array)
	}
	return as.Name.Value + "=" + v
}

// assign analyzes NAME=VALUE; persist is false for the assignments that
// prefix a command and only reach its environment.
func (a *analyzer) assign(as *syntax.Assign, sc *scope, fr *frame, persist bool) {
	var srcs []Source
	if as.Value != nil {
		srcs = a.substs(as.Value, sc, fr, "")
	}
	if as.Index != nil {
		a.arith(as.Index, sc, fr, &srcs)
	}
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			if e.Index != nil {
				a.arith(e.Index, sc, fr, &srcs)
			}
			if e.Value != nil {
				srcs = appendSources(srcs, a.substs(e.Value, sc, fr, "")...)
			}
		}
	}
	if !persist || as.Name == nil {
		return
	}
	name := as.Name.Value
	if t, ok := a.namerefs[name]; ok {
		// An assignment to a nameref assigns its target: which one is
		// not tracked, so the target is unknown from here on.
		sc.setUnknown(t, srcs)
	}
	if as.Array != nil || as.Index != nil {
		a.assignArray(as, sc, fr, srcs)
		return
	}
	if as.Naked {
		return
	}
	f := a.foldString(as.Value, sc, fr.src)
	f.srcs = appendSources(f.srcs, srcs...)
	val := f.s
	if as.Append {
		old, ok := sc.lookup(name)
		if !ok || !old.known {
			sc.setUnknown(name, appendSources(old.srcs, f.srcs...))
			return
		}
		if len(old.val)+len(val) > maxValue {
			sc.setUnknown(name, appendSources(old.srcs, f.srcs...))
			return
		}
		val = old.val + val
	}
	if f.lit {
		sc.set(name, varState{known: true, val: val, srcs: f.srcs})
	} else {
		sc.setUnknown(name, f.srcs)
	}
}

// decl analyzes declare, local, export, readonly, typeset and nameref, and
// emits them as a command.
func (a *analyzer) decl(d *syntax.DeclClause, sc *scope, fr *frame) {
	variant := d.Variant.Value
	start := len(a.cmds)
	transform := false // -l, -u, -i, -n, -a, -A change what is stored
	export := variant == "export"
	nameref := variant == "nameref"
	var args []string
	type declared struct {
		name string
		v    varState
	}
	var assigned []declared
	for _, as := range d.Args {
		if as.Naked && as.Name == nil && as.Value != nil {
			a.substs(as.Value, sc, fr, "")
			f := a.foldString(as.Value, sc, fr.src)
			if f.lit && strings.HasPrefix(f.s, "-") && strings.ContainsAny(f.s, "luinaA") {
				transform = true
			}
			if f.lit && strings.HasPrefix(f.s, "-") && strings.Contains(f.s, "x") {
				export = true
			}
			if f.lit && strings.HasPrefix(f.s, "-") && strings.Contains(f.s, "n") {
				nameref = true
			}
			args = append(args, f.s)
			continue
		}
		if as.Name == nil {
			continue
		}
		// The words are expanded before declare runs: declare A=x B=$A
		// sees the old A.
		pre := sc.child()
		a.assign(as, pre, fr, true)
		if v, ok := pre.vars[as.Name.Value]; ok {
			if transform || (as.Value != nil && braceInWord(as.Value)) {
				v = varState{} // -l/-u/-i/-a/-A or a brace: the value is not the literal
			}
			assigned = append(assigned, declared{as.Name.Value, v})
		}
		if as.Naked {
			args = append(args, as.Name.Value)
			continue
		}
		args = append(args, a.assignText(as, sc, fr))
	}
	for _, d := range assigned {
		sc.set(d.name, d.v)
	}
	if nameref {
		// declare -n REF=TARGET: REF=v later assigns TARGET (assign).
		for _, as := range d.Args {
			if as.Name == nil || as.Value == nil || as.Naked {
				continue
			}
			if t := a.foldString(as.Value, sc, fr.src); t.lit && isName(t.s) {
				if a.namerefs == nil {
					a.namerefs = map[string]string{}
				}
				a.namerefs[as.Name.Value] = t.s
				sc.setUnknown(t.s, nil)
			}
		}
	}
	if export {
		for _, as := range d.Args {
			if as.Name != nil {
				sc.export(as.Name.Value)
			}
		}
	}
	srcs := a.sourcesFrom(start, "cmdsubst")
	a.emit(Command{Name: variant, Args: args, Wrappers: fr.wrappers, Sources: srcs, Pos: a.pos(d.Pos(), fr)})
}

func (a *analyzer) compound(c syntax.Command, sc *scope, fr *frame, in *input) {
	switch c := c.(type) {
	case *syntax.Block:
		a.stmts(c.Stmts, sc, fr, in)
	case *syntax.Subshell:
		a.stmts(c.Stmts, sc.child(), fr, in)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			a.pipeline(c, sc, fr, in)
		} else {
			a.andOr(c, sc, fr, in)
		}
	case *syntax.IfClause:
		start := len(a.cmds)
		a.stmts(c.Cond, sc, fr, nil)
		guard, guarded := "", false
		if len(c.Cond) == 1 {
			guard, guarded = a.absentGuard(c.Cond[0], start, sc, fr, 0)
		}
		b := sc.child()
		start = len(a.cmds)
		a.stmts(c.Then, b, fr, nil)
		if guarded {
			// if [ ! -f P ]; then …: the branch runs only when P is absent.
			a.createOnly(start, guard)
		}
		sc.mergeCond(b)
		for e := c.Else; e != nil && a.err == nil; e = e.Else {
			b := sc.child()
			a.stmts(e.Cond, b, fr, nil)
			a.stmts(e.Then, b, fr, nil)
			sc.mergeCond(b)
		}
	case *syntax.WhileClause:
		a.stmts(c.Cond, sc, fr, nil)
		b := sc.child()
		a.stmts(c.Do, b, fr, nil)
		sc.mergeCond(b)
	case *syntax.ForClause:
		b := sc.child()
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			var items []field
			var srcs []Source
			for _, w := range l.Items {
				srcs = appendSources(srcs, a.substs(w, sc, fr, "")...)
				items = a.fold(items, w, sc, fr.src, true)
			}
			if len(items) == 1 && items[0].lit && l.InPos.IsValid() {
				b.set(l.Name.Value, varState{known: true, val: items[0].s})
			} else if a.unrollable(items, l, c.Do) {
				// for f in a .env; do cat "$f"; done: the body once per
				// word, in order, as the loop runs it.
				a.unrolls -= len(items)
				for _, it := range items {
					b.set(l.Name.Value, varState{known: true, val: it.s})
					a.stmts(c.Do, b, fr, nil)
				}
				sc.mergeCond(b)
				return
			} else {
				b.setUnknown(l.Name.Value, srcs)
			}
		case *syntax.CStyleLoop:
			var srcs []Source
			a.arith(l.Init, sc, fr, &srcs)
			a.arith(l.Cond, b, fr, &srcs)
			a.arith(l.Post, b, fr, &srcs)
		}
		a.stmts(c.Do, b, fr, nil)
		sc.mergeCond(b)
	case *syntax.CaseClause:
		a.substs(c.Word, sc, fr, "")
		for _, it := range c.Items {
			for _, p := range it.Patterns {
				a.substs(p, sc, fr, "")
			}
			b := sc.child()
			a.stmts(it.Stmts, b, fr, nil)
			sc.mergeCond(b)
		}
	case *syntax.FuncDecl:
		// The body runs whenever the function is called, if ever, with
		// arguments of its own.
		b := sc.child()
		for _, n := range positional {
			b.setUnknown(n, nil)
		}
		a.stmt(c.Body, b, fr, nil)
		sc.mergeCond(b)
	case *syntax.ArithmCmd:
		var srcs []Source
		a.arith(c.X, sc, fr, &srcs)
	case *syntax.TestClause:
		a.test(c.X, sc, fr)
	case *syntax.DeclClause:
		a.decl(c, sc, fr)
	case *syntax.LetClause:
		var srcs []Source
		for _, x := range c.Exprs {
			a.arith(x, sc, fr, &srcs)
		}
	case *syntax.TimeClause:
		a.stmt(c.Stmt, sc, fr, in)
	case *syntax.CoprocClause:
		if c.Name != nil {
			a.substs(c.Name, sc, fr, "")
		}
		a.stmt(c.Stmt, sc.child(), fr, nil)
	case *syntax.TestDecl:
		a.substs(c.Description, sc, fr, "")
		a.stmt(c.Body, sc.child(), fr, nil)
	}
}

// maxUnrolls bounds the loop bodies a whole analysis may go through once
// per word (for f in a b c), nested loops included.
const maxUnrolls = 64

// unrollable reports a for loop over 2–16 known words (no globs), with no
// break or continue, whose body the remaining budget can analyze once per
// word.
func (a *analyzer) unrollable(items []field, l *syntax.WordIter, body []*syntax.Stmt) bool {
	if !l.InPos.IsValid() || len(items) < 2 || len(items) > 16 || len(items) > a.unrolls {
		return false
	}
	for _, it := range items {
		if !it.lit || it.glob {
			return false
		}
	}
	// break and continue (in the body or a nested loop) make which
	// iterations run, and the values they leave, depend on run time.
	jumps := false
	for _, st := range body {
		syntax.Walk(st, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				if w := c.Args[0].Lit(); w == "break" || w == "continue" {
					jumps = true
				}
			}
			return !jumps
		})
	}
	return !jumps
}

// popOuts ends a statement's collection of >(…) (stmt): its entries
// leave the stack and the enclosing statement's collection resumes.
func (a *analyzer) popOuts(mark int, collect bool) {
	clear(a.outs[mark:])
	a.outs = a.outs[:mark]
	a.collectOuts = collect
}

// pipeStages lists the stages of the pipeline c, the last first.
func pipeStages(c *syntax.BinaryCmd) []*syntax.Stmt {
	var stages []*syntax.Stmt
	for {
		stages = append(stages, c.Y)
		b, ok := c.X.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.Pipe && b.Op != syntax.PipeAll) || len(c.X.Redirs) > 0 || c.X.Negated {
			return append(stages, c.X)
		}
		c = b
	}
}

// pipeline analyzes a | b | c: each stage runs in a subshell, reads the
// output of the one before, and has every earlier stage as a source.
func (a *analyzer) pipeline(c *syntax.BinaryCmd, sc *scope, fr *frame, in *input) {
	stages := pipeStages(c)
	var srcs []Source
	for i := len(stages) - 1; i >= 0 && a.err == nil; i-- {
		st := stages[i]
		start := len(a.cmds)
		child := sc.child()
		a.stmt(st, child, fr, in)
		a.addStdinSources(start, srcs)
		srcs = appendSources(srcs, a.sourcesFrom(start, "pipe")...)
		if i > 0 {
			in = a.output(st, child, fr, in)
		}
	}
}

// andOr analyzes a && b || c: the first command always runs, the others
// only depending on it. A run of && shares one conditional scope (cd / &&
// rm -rf etc sees /); after || the changes so far are merged as
// conditional and a new branch starts.
func (a *analyzer) andOr(c *syntax.BinaryCmd, sc *scope, fr *frame, in *input) {
	type elem struct {
		st *syntax.Stmt
		op syntax.BinCmdOperator
	}
	// The chain of an outermost statement is taken apart as it is read,
	// and each statement let go of once analyzed (see Analyze); nothing
	// reads these nodes again.
	release := a.top != nil && a.top.Cmd == syntax.Command(c)
	n := 1
	for x := c.X; ; n++ {
		b, ok := x.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.AndStmt && b.Op != syntax.OrStmt) || len(x.Redirs) > 0 || x.Negated || x.Background {
			break
		}
		x = b.X
	}
	rest := make([]elem, 0, n)
	first := c.X
	for {
		rest = append(rest, elem{c.Y, c.Op})
		if release {
			c.X, c.Y = nil, nil
		}
		b, ok := first.Cmd.(*syntax.BinaryCmd)
		if !ok || (b.Op != syntax.AndStmt && b.Op != syntax.OrStmt) || len(first.Redirs) > 0 || first.Negated || first.Background {
			break
		}
		first = b.X
		c = b
	}
	start := len(a.cmds)
	a.stmt(first, sc, fr, in)
	guard, guarded := a.absentGuard(first, start, sc, fr, rest[len(rest)-1].op)
	b := sc.stepChild()
	for i := len(rest) - 1; i >= 0 && a.err == nil; i-- {
		if rest[i].op == syntax.OrStmt {
			sc.mergeSteps(b)
			b = sc.stepChild()
		}
		start := len(a.cmds)
		a.stmt(rest[i].st, b, fr, in)
		if guarded && i == len(rest)-1 {
			// [ -f P ] || CMD: CMD runs only when P is absent.
			a.createOnly(start, guard)
		}
		if release {
			rest[i].st = nil
		}
	}
	sc.mergeSteps(b)
}

// substs analyzes the command and process substitutions inside w and
// returns their commands as sources. via overrides "cmdsubst"/"procsubst"
// (here-strings and here-documents).
func (a *analyzer) substs(w *syntax.Word, sc *scope, fr *frame, via string) []Source {
	if w == nil {
		return nil
	}
	var out []Source
	a.partSubsts(w.Parts, sc, fr, via, &out)
	return out
}

func (a *analyzer) partSubsts(parts []syntax.WordPart, sc *scope, fr *frame, via string, out *[]Source) {
	defer a.leave()
	if !a.enter() {
		return
	}
	for _, p := range parts {
		if a.err != nil {
			return
		}
		switch p := p.(type) {
		case *syntax.DblQuoted:
			a.partSubsts(p.Parts, sc, fr, via, out)
		case *syntax.CmdSubst:
			start := len(a.cmds)
			a.stmts(p.Stmts, sc.child(), fr, nil)
			*out = appendSources(*out, a.sourcesFrom(start, or(via, "cmdsubst"))...)
		case *syntax.ProcSubst:
			if p.Op == syntax.CmdOut && a.collectOuts {
				// >(…) reads what the statement writes into it: analyzed
				// once the statement is (readers).
				a.outs = append(a.outs, outSubst{p: p, sc: sc, fr: fr})
				continue
			}
			start := len(a.cmds)
			a.stmts(p.Stmts, sc.child(), fr, nil)
			*out = appendSources(*out, a.sourcesFrom(start, "procsubst")...)
		case *syntax.ParamExp:
			if p.Exp != nil && p.Exp.Word != nil {
				a.partSubsts(p.Exp.Word.Parts, sc, fr, via, out)
			}
			if p.Repl != nil {
				if p.Repl.Orig != nil {
					a.partSubsts(p.Repl.Orig.Parts, sc, fr, via, out)
				}
				if p.Repl.With != nil {
					a.partSubsts(p.Repl.With.Parts, sc, fr, via, out)
				}
			}
			if p.Index != nil {
				a.arith(p.Index, sc, fr, out)
			}
			if p.Slice != nil {
				a.arith(p.Slice.Offset, sc, fr, out)
				a.arith(p.Slice.Length, sc, fr, out)
			}
			if p.NestedParam != nil {
				a.partSubsts([]syntax.WordPart{p.NestedParam}, sc, fr, via, out)
			}
		case *syntax.ArithmExp:
			a.arith(p.X, sc, fr, out)
		case *syntax.BraceExp:
			for _, e := range p.Elems {
				a.partSubsts(e.Parts, sc, fr, via, out)
			}
		}
	}
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// arith walks an arithmetic expression for substitutions; variables it
// assigns become unknown.
func (a *analyzer) arith(x syntax.ArithmExpr, sc *scope, fr *frame, out *[]Source) {
	if x == nil {
		return
	}
	defer a.leave()
	if !a.enter() || !a.count(1) {
		return
	}
	switch x := x.(type) {
	case *syntax.Word:
		a.partSubsts(x.Parts, sc, fr, "", out)
	case *syntax.BinaryArithm:
		if op := x.Op.String(); strings.HasSuffix(op, "=") && op != "==" && op != "!=" && op != "<=" && op != ">=" {
			if w, ok := x.X.(*syntax.Word); ok && w.Lit() != "" {
				sc.setUnknown(w.Lit(), nil)
			}
		}
		a.arith(x.X, sc, fr, out)
		a.arith(x.Y, sc, fr, out)
	case *syntax.UnaryArithm:
		if w, ok := x.X.(*syntax.Word); ok && (x.Op == syntax.Inc || x.Op == syntax.Dec) && w.Lit() != "" {
			sc.setUnknown(w.Lit(), nil)
		}
		a.arith(x.X, sc, fr, out)
	case *syntax.ParenArithm:
		a.arith(x.X, sc, fr, out)
	case *syntax.FlagsArithm:
		a.arith(x.X, sc, fr, out)
	}
}

// test walks a [[ ]] expression for substitutions.
func (a *analyzer) test(x syntax.TestExpr, sc *scope, fr *frame) {
	if x == nil {
		return
	}
	defer a.leave()
	if !a.enter() || !a.count(1) {
		return
	}
	switch x := x.(type) {
	case *syntax.Word:
		a.substs(x, sc, fr, "")
	case *syntax.BinaryTest:
		a.test(x.X, sc, fr)
		a.test(x.Y, sc, fr)
	case *syntax.UnaryTest:
		a.test(x.X, sc, fr)
	case *syntax.ParenTest:
		a.test(x.X, sc, fr)
	}
}

// runCtx is the context a command runs in.
type runCtx struct {
	sc       *scope
	fr       *frame
	in       *input
	wrappers []string
	env      []string // NAME=value assignments made for this command and its wrappers
	srcs     []Source // sources inherited from wrappers
	depth    int      // wrappers and scripts around this command
	direct   bool     // run by the shell itself (or via command/builtin)
	pos      Pos      // position of the command running this one
	params   []field  // $0, $1… of the script a shell -c runs; nil: unknown
}

// run emits the command argv and whatever it runs in turn. It returns the
// index of the command emitted.
func (a *analyzer) run(argv []field, x runCtx) int {
	if len(argv) == 0 || a.err != nil {
		return -1
	}
	head := argv[0]
	cmd := Command{Wrappers: x.wrappers, Pos: a.pos(head.pos, x.fr), Args: texts(argv[1:]), Env: x.sc.environ(x.env)}
	cmd.Sources = append([]Source(nil), x.srcs...)
	for _, f := range argv {
		cmd.Sources = appendSources(cmd.Sources, f.srcs...)
	}
	x.pos = cmd.Pos
	if !head.lit || head.glob || head.s == "" {
		cmd.Dynamic = true
		cmd.DynamicText = head.s
		if head.s == "" {
			cmd.DynamicText = `""`
		}
		return a.emit(cmd)
	}
	cmd.Name = progName(head.s)
	cmd.Paths = a.followLinks(pathsFor(cmd.Name, argv[1:], x.sc))
	idx := a.emit(cmd)
	x.srcs = cmd.Sources
	if x.direct {
		a.builtin(cmd.Name, argv[1:], x.sc)
	}
	switch cmd.Name {
	case "ln":
		a.recordLinks(argv[1:], x.sc)
	case "tee":
		a.recordTee(argv[1:], x)
	}
	a.nested(idx, cmd.Name, argv[1:], x)
	if a.cmds[idx].Inline == "" && (len(a.files) > 0 || a.opts.ReadScript != nil) {
		a.writtenProgram(idx, cmd.Name, x)
	}
	if code := a.cmds[idx].Inline; code != "" && a.err == nil {
		a.cmds[idx].Paths = append(a.cmds[idx].Paths, a.followLinks(a.inlinePaths(cmd.Name, code, x.sc))...)
	}
	if strings.Contains(head.s, "/") && !isShell(cmd.Name) {
		// ./c.sh, written earlier in the string: its text runs.
		a.runWritten(head, x.sc, func(text field) {
			if shebangShell(text.s) {
				wx := x.with(head.s)
				wx.params = argv
				a.script(text, wx, false)
			}
		}, func() { a.unreadScript(head, x.with(head.s)) })
	}
	return idx
}

// progName is the base name of a program: /usr/bin/git and \git are git.
// Names that only a case-insensitive filesystem (macOS, Windows) or
// Windows itself would find are folded too: GIT, git.exe, GIT.EXE and
// C:\Program Files\Git\bin\git.exe are git.
func progName(s string) string {
	if len(s) > 1 && s[0] == '\\' {
		s = s[1:]
	}
	if strings.Contains(s, "/") && !strings.HasSuffix(s, "/") && !strings.ContainsAny(s, " \t\n") {
		if b := path.Base(s); b != "/" && b != "." {
			s = b
		}
	}
	if len(s) > 3 && s[1] == ':' && s[2] == '\\' && !strings.HasSuffix(s, "\\") {
		s = s[strings.LastIndexByte(s, '\\')+1:] // C:\…\git.exe
	}
	if len(s) > 4 && strings.EqualFold(s[len(s)-4:], ".exe") {
		s = s[:len(s)-4]
	}
	return foldUpper(s)
}

// caseSensitiveNames are upper-case program names that exist as such
// (lwp-request's GET, POST, HEAD aliases; R).
func caseSensitiveName(s string) bool {
	switch s {
	case "GET", "POST", "HEAD", "PUT", "R":
		return true
	}
	return false
}

// foldUpper lower-cases a name written in capitals only (RM, GIT.EXE):
// on a case-insensitive filesystem it runs the same program. Mixed-case
// names (Rscript, MyTool) are kept.
func foldUpper(s string) string {
	upper := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' {
			return s
		}
		upper = upper || (c >= 'A' && c <= 'Z')
	}
	if !upper || caseSensitiveName(s) {
		return s
	}
	return strings.ToLower(s)
}

// builtin applies what a shell builtin does to the tracked state.
func (a *analyzer) builtin(name string, args []field, sc *scope) {
	switch name {
	case "cd", "pushd":
		i := 0
		for i < len(args) && args[i].lit && len(args[i].s) > 1 && args[i].s[0] == '-' {
			if args[i].s == "--" {
				i++
				break
			}
			i++
		}
		if i >= len(args) {
			if name == "pushd" {
				sc.cwdUnknown = true
				return
			}
			home, ok := sc.lookup("HOME")
			if !ok || !home.known || home.val == "" {
				sc.cwdUnknown = true
				return
			}
			args = []field{litField(home.val, syntax.Pos{})}
			i = 0
		}
		t := args[i]
		if t.lit && t.s == "-" && name == "cd" {
			// cd - goes back to $OLDPWD.
			if old, ok := sc.lookup("OLDPWD"); ok && old.known && path.IsAbs(old.val) {
				t = litField(old.val, t.pos)
			}
		}
		prev, prevKnown := sc.cwd, !sc.cwdUnknown && path.IsAbs(sc.cwd)
		switch {
		case !t.lit || t.s == "-" || t.s == "" || (strings.HasPrefix(t.s, "~") && !sc.remote) || strings.HasPrefix(t.s, "+") || strings.HasPrefix(t.s, "-"):
			sc.cwdUnknown = true
		case path.IsAbs(t.s):
			sc.cwd = path.Clean(t.s)
			sc.cwdUnknown = false
		case !sc.cwdUnknown:
			sc.cwd = path.Join(sc.cwd, t.s)
		}
		if len(sc.cwd) > maxValue {
			sc.cwdUnknown = true // every later relative path would carry it
		}
		// cd sets PWD (cd / && chmod -R 000 "$PWD") and OLDPWD, which ~-
		// and cd - name.
		switch {
		case !a.oldpwd:
		case prevKnown:
			sc.set("OLDPWD", varState{known: true, val: prev})
		default:
			sc.setUnknown("OLDPWD", nil)
		}
		if sc.cwdUnknown {
			sc.setUnknown("PWD", nil)
		} else {
			sc.set("PWD", varState{known: true, val: sc.cwd})
		}
	case "popd":
		sc.cwdUnknown = true
	case "unset":
		for _, f := range args {
			if f.lit && strings.HasPrefix(f.s, "-") {
				if strings.ContainsAny(f.s, "fn") {
					return // unset -f removes functions; -n a nameref itself
				}
				continue
			}
			if f.lit {
				sc.set(f.s, varState{unset: true})
			}
		}
	case "read", "mapfile", "readarray", "getopts", "printf", "wait":
		for _, f := range args {
			if f.lit && isName(f.s) {
				sc.setUnknown(f.s, nil)
			}
		}
	case "export", "declare", "typeset", "local", "readonly":
		// Reached only through command/builtin: the words are plain
		// arguments here.
		for _, f := range args {
			if name, _, ok := strings.Cut(f.s, "="); ok && isName(name) {
				sc.setUnknown(name, f.srcs)
			}
		}
	}
}

// nested emits what a command runs in turn: the command of a wrapper, the
// script of a shell or eval, shell strings in interpreter one-liners.
func (a *analyzer) nested(idx int, name string, args []field, x runCtx) {
	switch {
	case isShell(name):
		a.shell(idx, name, args, x)
		return
	case name == "eval":
		if len(args) > 0 && args[0].lit && args[0].s == "--" {
			args = args[1:]
		}
		if len(args) > 0 {
			a.script(joinFields(args), x.with("eval"), true)
		}
		return
	case name == "unalias":
		a.defineAliases(name, args)
		return
	case name == "alias":
		// An alias body is a script that runs wherever the alias is used
		// (there it is expanded too: expandAlias).
		for _, f := range args {
			if _, body, ok := strings.Cut(f.s, "="); ok && f.lit {
				a.script(litField(body, f.pos), x.with("alias"), false)
			}
		}
		a.defineAliases(name, args)
		return
	case name == "source" || name == ".":
		args = sourceOperands(args)
		if len(args) > 0 {
			if out := args[0].proc; out != nil {
				// source <(…) is eval "$(…)": the printed text runs here.
				if out.opaque {
					a.unknownScript(args[0], x.with(name))
				} else {
					a.script(out.f, x.with(name), true)
				}
			} else if !args[0].lit && !args[0].subst {
				a.unknownScript(args[0], x.with(name))
			} else {
				a.runWritten(args[0], x.sc, func(text field) {
					a.script(text, x.with(name), true) // written earlier in the string, or read
				}, func() { a.unreadScript(args[0], x.with(name)) })
			}
		}
		if len(args) > 0 && x.sc != nil {
			x.sc.forget() // the script may set any variable
		}
		return
	case name == "trap":
		if len(args) >= 2 && !(args[0].lit && strings.HasPrefix(args[0].s, "-")) {
			a.script(args[0], x.with("trap"), false)
		}
		return
	}
	if lang := interpreter(name); lang != "" && (name != "deno" || denoPackage(args) == nil) {
		a.interp(idx, lang, name, args, x)
		return
	}
	inners := append(unwrap(name, args), envInners(name, args, a.cmds[idx].Env)...)
	if name == "xargs" && len(inners) == 1 {
		known := x.in != nil && !x.in.opaque && x.in.f.lit
		if known && !(xargsRepl(args) == "" && isShell(progName(inners[0].argv[0].s))) {
			inners = xargsInput(args, inners[0], x.in.f)
		} else {
			inners[0] = xargsUnknown(args, inners[0])
		}
		if harmlessXargs(inners) { // deferred.go
			a.dataInput(idx)
		}
	}
	for _, in := range inners {
		if a.err != nil {
			return
		}
		wx := x.with(in.label)
		wx.direct = x.direct && in.direct
		if len(in.env) > 0 {
			wx.env = append(slices.Clone(x.env), in.env...)
		}
		if in.remote {
			wx.env = nil
			wx.sc = x.sc.child()
			wx.sc.remote = true
			wx.sc.cwd = ""
			wx.sc.cwdUnknown = false
			wx.sc.setUnknown("HOME", nil)
		}
		if in.cwd != nil {
			wx.sc = wx.sc.child()
			a.builtin("cd", []field{*in.cwd}, wx.sc)
		}
		if in.script != nil {
			a.script(*in.script, wx, false)
			continue
		}
		if in.stdin {
			a.stdinScript(in, wx, x.in) // deferred.go
			continue
		}
		if wx.depth > a.opts.MaxDepth {
			a.fail(&LimitError{Limit: "depth", Max: a.opts.MaxDepth})
			return
		}
		a.run(in.argv, wx)
	}
}

// with returns the context of a command run under one more wrapper.
func (x runCtx) with(label string) runCtx {
	w := make([]string, len(x.wrappers), len(x.wrappers)+1)
	copy(w, x.wrappers)
	x.wrappers = append(w, label)
	x.depth++
	return x
}

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash",
		"yash", "posh", "rbash", "fish", "ksh93", "pdksh", "oksh",
		"loksh", "hush", "tcsh", "csh":
		return true
	}
	return false
}

// shell analyzes a shell invocation: the -c script, the script fed on
// standard input, or the script file it runs (which stays unseen).
func (a *analyzer) shell(idx int, name string, args []field, x runCtx) {
	cflag, sflag := false, false
	noexec, interactive := false, false // -n reads commands without running them (not when interactive)
	i := 0
opts:
	for ; i < len(args); i++ {
		f := args[i]
		s := f.s
		switch {
		case !f.lit:
			break opts
		case s == "--" || s == "-":
			i++
			break opts
		case strings.HasPrefix(s, "--"):
			if s == "--rcfile" || s == "--init-file" {
				i++
			}
		case len(s) > 1 && (s[0] == '-' || s[0] == '+'):
			n := 0
		cluster:
			for j := 1; j < len(s); j++ {
				switch s[j] {
				case 'c':
					cflag = cflag || s[0] == '-'
				case 's':
					sflag = true
				case 'n':
					noexec = s[0] == '-'
				case 'i':
					interactive = interactive || s[0] == '-'
				case 'o', 'O':
					if j+1 < len(s) {
						break cluster // -oOPTION
					}
					n++
				}
			}
			i += n
		default:
			break opts
		}
	}
	rest := args[min(i, len(args)):]
	switch {
	case noexec && !interactive:
		a.dataInput(idx) // read, checked, not run
		if len(rest) > 0 && !cflag && !sflag {
			if p, ok := resolve(rest[0], call.OpRead, x.sc); ok {
				a.cmds[idx].Paths = append(a.cmds[idx].Paths, p)
			}
		}
	case !cflag && len(rest) > 0 && rest[0].input:
		// xargs puts its unknown input where the shell takes an option or
		// its script: `xargs bash`, `xargs -I{} sh -{} …`.
		a.script(rest[0], x.with(name), false)
	case cflag:
		if !sflag {
			// The script comes from -c: standard input is data, not code
			// (commands inside the script that read it still have it).
			a.dataInput(idx)
		}
		if len(rest) > 0 {
			wx := x.with(name + " -c")
			wx.params = rest[1:]
			if wx.params == nil {
				wx.params = []field{}
			}
			a.script(rest[0], wx, false)
		}
	case len(rest) > 0 && !sflag:
		if f := rest[0]; !f.lit && !f.subst {
			a.unknownScript(f, x.with(name)) // bash "$FILE"
		}
		a.runWritten(rest[0], x.sc, func(text field) {
			// echo 'rm -rf ~' > c.sh && bash c.sh: the text written runs.
			wx := x.with(name)
			wx.params = rest
			a.script(text, wx, false)
		}, func() { a.unreadScript(rest[0], x.with(name)) })
		if out := rest[0].proc; out != nil && !out.opaque {
			a.script(out.f, x.with(name), false) // bash <(echo …), like echo … | bash
		}
		if p, ok := resolve(rest[0], call.OpRead, x.sc); ok { // the script file is read
			a.cmds[idx].Paths = append(a.cmds[idx].Paths, p)
		}
	case x.in != nil && !x.in.opaque:
		a.script(x.in.f, x.with(name), false)
	}
}

// dataInput records that the command idx reads its standard input as
// data, not as code: the sources feeding it are not attached to it.
func (a *analyzer) dataInput(idx int) {
	a.cmds[idx].Sources = slices.DeleteFunc(slices.Clone(a.cmds[idx].Sources), func(s Source) bool {
		return s.Via == "pipe" || s.Via == "herestring" || s.Via == "heredoc"
	})
	if a.dataStdin == nil {
		a.dataStdin = make(map[int]bool)
	}
	a.dataStdin[idx] = true
}

// unknownScript reports a script file whose name is known only at run
// time (bash "$FILE", source "$FILE") as a Dynamic command.
func (a *analyzer) unknownScript(f field, x runCtx) {
	srcs := appendSources(append([]Source(nil), x.srcs...), f.srcs...)
	a.emit(Command{Dynamic: true, DynamicText: f.s, Wrappers: x.wrappers, Env: x.sc.environ(x.env), Sources: srcs, Pos: x.pos})
}

// setParams sets the positional parameters of a script: params[0] is $0.
// A parameter that is not literal leaves $@ and $* unknown.
func setParams(sc *scope, params []field) {
	all := varState{known: true}
	for i, p := range params {
		v := varState{known: p.lit, val: p.s, srcs: p.srcs}
		if !p.lit {
			v.val = ""
		}
		sc.set(strconv.Itoa(i), v)
		if i == 0 {
			continue
		}
		all.known = all.known && p.lit
		all.list = append(all.list, p.s)
		all.srcs = appendSources(all.srcs, p.srcs...)
	}
	for i := len(params); i < 10; i++ {
		sc.set(strconv.Itoa(i), varState{known: true})
	}
	if len(params) == 0 {
		sc.setUnknown("0", nil)
	}
	if n := len(all.list); n > 0 {
		for _, el := range all.list {
			n += len(el)
		}
		if n > maxValue {
			all = varState{srcs: all.srcs} // "$@" too large: unknown (maxValue)
		}
	}
	all.val = strings.Join(all.list, " ")
	sc.set("@", all)
	sc.set("*", all)
	sc.set("#", varState{known: true, val: strconv.Itoa(max(len(params)-1, 0))})
}

// positional are the parameters a function call replaces.
var positional = []string{"@", "*", "#", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// script analyzes f as a shell program run under x (whose wrappers already
// name what runs it). same is set for eval, whose effects stay in the
// calling shell. A script that is not fully known is reported as a Dynamic
// command; when its unknown parts are only variables, the text is also
// analyzed as far as it goes.
func (a *analyzer) script(f field, x runCtx, same bool) {
	if a.err != nil {
		return
	}
	dynamic := func() {
		srcs := appendSources(append([]Source(nil), x.srcs...), f.srcs...)
		a.emit(Command{Dynamic: true, DynamicText: f.s, Wrappers: x.wrappers, Env: x.sc.environ(x.env), Sources: srcs, Pos: x.pos})
	}
	if f.lit && slices.Contains(a.inScript, f.s) {
		// The script runs itself (X='eval "$X"'; eval "$X"), as bash
		// would until it fails: past the first round it is unknown,
		// rather than the depth limit failing the whole analysis.
		dynamic()
		return
	}
	if x.depth > a.opts.MaxDepth {
		a.fail(&LimitError{Limit: "depth", Max: a.opts.MaxDepth})
		return
	}
	if !f.lit {
		dynamic()
		// Analyze the text too when its unknown parts are variables in
		// a script that has more than a single expansion.
		if f.subst || !f.text {
			return
		}
	}
	if a.scriptLeft -= len(f.s) + scriptCost; a.scriptLeft < 0 {
		// Past the budget of nested scripts: unknown, like a script
		// the analysis cannot read (maxScripts).
		a.scriptLeft = 0
		if f.lit {
			dynamic()
		}
		return
	}
	file, err := a.parse(f.s)
	if err != nil {
		if _, ok := err.(*LimitError); ok {
			a.fail(err)
			return
		}
		if f.lit {
			dynamic() // a script the parser cannot read: unknown
		}
		return
	}
	sc := x.sc
	if !same {
		sc = sc.child()
		if x.params != nil {
			setParams(sc, x.params)
		}
	}
	pos := x.pos
	fr := &frame{src: f.s, depth: x.depth, wrappers: x.wrappers, env: x.env, pos: &pos}
	start := len(a.cmds)
	bombs := forkBombs(file)
	if a.inScript == nil {
		a.inScript = a.scriptBuf[:0]
	}
	a.inScript = append(a.inScript, f.s)
	a.stmts(file.Stmts, sc, fr, nil)
	a.inScript = a.inScript[:len(a.inScript)-1]
	a.emitForkBombs(bombs, fr)
	if !f.lit {
		a.addSources(start, f.srcs)
	}
}
