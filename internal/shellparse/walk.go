package shellparse

import (
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"mvdan.cc/sh/v3/syntax"
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
