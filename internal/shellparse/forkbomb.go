package shellparse

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ForkBomb is the Name of the synthetic command reported for a script
// that spawns processes without bound: a function that reaches itself
// through a call that forks (background job, pipeline stage, subshell,
// substitution), or a loop that cannot end and starts background jobs it
// never waits for. Args holds "function NAME" or "loop".
const ForkBomb = ":forkbomb"

// maxForkChecks bounds the call-graph checks made at call sites; past it,
// one check over every function the script defines is made at the end.
const maxForkChecks = 32

type fbEdge struct {
	to    string
	spawn bool
}

type fbFunc struct {
	edges []fbEdge
	pos   syntax.Pos
}

// forkScan finds fork bombs in one parsed script in a single pass: loops
// are judged bottom-up from summaries of their bodies; functions are
// judged at their call sites, over the definitions made before the call.
type forkScan struct {
	defs    map[string]*fbFunc
	cur     *fbFunc // function whose body is being scanned, if any
	dirty   bool    // definitions changed since the last check
	checks  int
	pending bool // a call site was left for the final check
	found   []fbFound
	seen    map[syntax.Pos]bool
}

type fbFound struct {
	pos  syntax.Pos
	what string
}

// fbSum summarizes a statement list for the loop check.
type fbSum struct {
	exit    bool // break, exit or return (not under a constant-false condition)
	spawn   bool // a background job of this shell
	leak    bool // a job no wait of this shell can reach (disowned, or left by a subshell)
	waitTop bool // an unconditional wait in this list itself
}

func (s *fbSum) add(o fbSum) {
	s.exit = s.exit || o.exit
	s.spawn = s.spawn || o.spawn
	s.leak = s.leak || o.leak
}

// forkBombs finds the fork bombs of file. It runs before the analysis of
// the file's statements, which may let go of them as it goes (Analyze);
// emitForkBombs reports them after the file's commands.
func forkBombs(file *syntax.File) []fbFound {
	fs := &forkScan{}
	fs.list(file.Stmts, false)
	if fs.pending {
		fs.checkAll()
	}
	return fs.found
}

// emitForkBombs reports fork bombs as synthetic commands.
func (a *analyzer) emitForkBombs(found []fbFound, fr *frame) {
	for _, f := range found {
		a.emit(Command{Name: ForkBomb, Args: []string{f.what}, Wrappers: fr.wrappers, Pos: a.pos(f.pos, fr)})
	}
}

func (fs *forkScan) report(p syntax.Pos, what string) {
	if fs.seen[p] {
		return
	}
	if fs.seen == nil {
		fs.seen = map[syntax.Pos]bool{}
	}
	fs.seen[p] = true
	fs.found = append(fs.found, fbFound{p, what})
}

func (fs *forkScan) list(sts []*syntax.Stmt, forked bool) fbSum {
	var s fbSum
	for _, st := range sts {
		o := fs.stmt(st, forked)
		s.add(o)
		if isWait(st) {
			s.waitTop = true
		}
	}
	return s
}

func isWait(st *syntax.Stmt) bool {
	if st == nil || st.Background || st.Coprocess || st.Disown || st.Negated {
		return false
	}
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return false
	}
	n, _ := staticWord(c.Args[0])
	return n == "wait"
}

// stmt summarizes one statement; forked says it runs in a process of its
// own (for the call graph).
func (fs *forkScan) stmt(st *syntax.Stmt, forked bool) fbSum {
	if st == nil {
		return fbSum{}
	}
	bg := st.Background || st.Coprocess || st.Disown
	for _, r := range st.Redirs {
		fs.word(r.Word)
		fs.word(r.Hdoc)
	}
	s := fs.cmd(st.Cmd, forked || bg)
	if bg {
		if st.Disown {
			s.leak = true
		}
		s.spawn = true
		s.exit = false // an exit in a background job ends only the job
	}
	return s
}

func (fs *forkScan) cmd(c syntax.Command, forked bool) fbSum {
	switch c := c.(type) {
	case *syntax.CallExpr:
		return fs.call(c, forked)
	case *syntax.Block:
		return fs.list(c.Stmts, forked)
	case *syntax.Subshell:
		in := fs.list(c.Stmts, true)
		// A subshell's jobs are beyond the parent's wait; its own wait
		// settles them; its exit ends only itself.
		out := fbSum{leak: in.leak || (in.spawn && !in.waitTop)}
		return out
	case *syntax.BinaryCmd:
		// Long chains nest on the left: walk them without recursion.
		pipe := c.Op == syntax.Pipe || c.Op == syntax.PipeAll
		n := 1
		for x := c.X; ; n++ {
			b, ok := x.Cmd.(*syntax.BinaryCmd)
			if !ok || (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) != pipe ||
				len(x.Redirs) > 0 || x.Negated || x.Background || x.Coprocess || x.Disown {
				break
			}
			x = b.X
		}
		rights := make([]*syntax.Stmt, 0, n)
		left := c
		for {
			rights = append(rights, left.Y)
			b, ok := left.X.Cmd.(*syntax.BinaryCmd)
			if !ok || (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) != pipe ||
				len(left.X.Redirs) > 0 || left.X.Negated || left.X.Background || left.X.Coprocess || left.X.Disown {
				break
			}
			left = b
		}
		var s fbSum
		for i := len(rights); i >= 0; i-- {
			st := left.X // the stages in source order: left.X, then rights from the last
			if i < len(rights) {
				st = rights[i]
			}
			o := fs.stmt(st, forked || pipe)
			if pipe {
				// Each stage is a subshell of its own.
				o = fbSum{leak: o.leak || o.spawn}
			}
			s.add(o)
		}
		return s
	case *syntax.IfClause:
		var s fbSum
		for e := c; e != nil; e = e.Else {
			s.add(fs.list(e.Cond, forked))
			t := fs.list(e.Then, forked)
			if len(e.Cond) > 0 && constCond(e.Cond) == condFalse {
				t.exit = false // never taken
			}
			s.add(t)
		}
		return s
	case *syntax.WhileClause:
		s := fs.list(c.Cond, forked)
		body := fs.list(c.Do, forked)
		cc := constCond(c.Cond)
		if (!c.Until && cc == condTrue) || (c.Until && cc == condFalse) {
			fs.loop(c.Pos(), body)
		}
		body.exit = false // break ends this loop only (exit/return too: approximate)
		s.add(body)
		return s
	case *syntax.ForClause:
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			for _, w := range l.Items {
				fs.word(w)
			}
		case *syntax.CStyleLoop:
			fs.arith(l.Init)
			fs.arith(l.Cond)
			fs.arith(l.Post)
		}
		body := fs.list(c.Do, forked)
		if l, ok := c.Loop.(*syntax.CStyleLoop); ok && (l.Cond == nil || constArith(l.Cond) == condTrue) {
			fs.loop(c.Pos(), body)
		}
		body.exit = false
		return body
	case *syntax.CaseClause:
		fs.word(c.Word)
		var s fbSum
		for _, it := range c.Items {
			s.add(fs.list(it.Stmts, forked))
		}
		return s
	case *syntax.FuncDecl:
		name := ""
		if c.Name != nil {
			name = c.Name.Value
		}
		f := &fbFunc{pos: c.Pos()}
		prev := fs.cur
		fs.cur = f
		fs.stmt(c.Body, false)
		fs.cur = prev
		if fs.defs == nil {
			fs.defs = map[string]*fbFunc{}
		}
		fs.defs[name] = f
		fs.dirty = true
		return fbSum{}
	case *syntax.TimeClause:
		return fs.stmt(c.Stmt, forked)
	case *syntax.CoprocClause:
		s := fs.stmt(c.Stmt, true)
		return fbSum{spawn: true, leak: s.leak}
	case *syntax.DeclClause:
		for _, as := range c.Args {
			fs.assign(as)
		}
	case *syntax.TestClause:
		fs.test(c.X)
	case *syntax.ArithmCmd:
		fs.arith(c.X)
	case *syntax.LetClause:
		for _, x := range c.Exprs {
			fs.arith(x)
		}
	}
	return fbSum{}
}

func (fs *forkScan) call(c *syntax.CallExpr, forked bool) fbSum {
	for _, as := range c.Assigns {
		fs.assign(as)
	}
	for _, w := range c.Args {
		fs.word(w)
	}
	if len(c.Args) == 0 {
		return fbSum{}
	}
	name, ok := staticWord(c.Args[0])
	if !ok {
		return fbSum{}
	}
	switch name {
	case "break", "exit", "return":
		return fbSum{exit: true}
	case "disown":
		return fbSum{leak: true}
	}
	if fs.cur != nil {
		fs.cur.edges = append(fs.cur.edges, fbEdge{to: name, spawn: forked})
		return fbSum{}
	}
	if _, ok := fs.defs[name]; ok {
		fs.callSite(name)
	}
	return fbSum{}
}

func (fs *forkScan) assign(as *syntax.Assign) {
	if as == nil {
		return
	}
	fs.word(as.Value)
	if as.Array != nil {
		for _, e := range as.Array.Elems {
			fs.word(e.Value)
			fs.arith(e.Index)
		}
	}
	fs.arith(as.Index)
}

func (fs *forkScan) word(w *syntax.Word) {
	if w != nil {
		fs.parts(w.Parts)
	}
}

// parts scans the scripts of substitutions inside words; they run in a
// process of their own. (syntax.Walk does not know the brace expansions
// the parser's words may hold.)
func (fs *forkScan) parts(ps []syntax.WordPart) {
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.DblQuoted:
			fs.parts(p.Parts)
		case *syntax.CmdSubst:
			fs.list(p.Stmts, true)
		case *syntax.ProcSubst:
			fs.list(p.Stmts, true)
		case *syntax.ParamExp:
			if p.Exp != nil {
				fs.word(p.Exp.Word)
			}
			if p.Repl != nil {
				fs.word(p.Repl.Orig)
				fs.word(p.Repl.With)
			}
			fs.arith(p.Index)
			if p.Slice != nil {
				fs.arith(p.Slice.Offset)
				fs.arith(p.Slice.Length)
			}
			if p.NestedParam != nil {
				fs.parts([]syntax.WordPart{p.NestedParam})
			}
		case *syntax.ArithmExp:
			fs.arith(p.X)
		case *syntax.BraceExp:
			for _, e := range p.Elems {
				fs.word(e)
			}
		}
	}
}

func (fs *forkScan) arith(x syntax.ArithmExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		fs.word(x)
	case *syntax.BinaryArithm:
		fs.arith(x.X)
		fs.arith(x.Y)
	case *syntax.UnaryArithm:
		fs.arith(x.X)
	case *syntax.ParenArithm:
		fs.arith(x.X)
	case *syntax.FlagsArithm:
		fs.arith(x.X)
	}
}

func (fs *forkScan) test(x syntax.TestExpr) {
	switch x := x.(type) {
	case *syntax.Word:
		fs.word(x)
	case *syntax.BinaryTest:
		fs.test(x.X)
		fs.test(x.Y)
	case *syntax.UnaryTest:
		fs.test(x.X)
	case *syntax.ParenTest:
		fs.test(x.X)
	}
}

// loop judges a loop that cannot end by its condition.
func (fs *forkScan) loop(p syntax.Pos, body fbSum) {
	if body.exit {
		return
	}
	if body.leak || (body.spawn && !body.waitTop) {
		fs.report(p, "loop")
	}
}

func (fs *forkScan) callSite(name string) {
	if !fs.dirty {
		return
	}
	if fs.checks >= maxForkChecks {
		fs.pending = true
		return
	}
	fs.checks++
	fs.dirty = false
	fs.check([]string{name})
}

func (fs *forkScan) checkAll() {
	roots := make([]string, 0, len(fs.defs))
	for n := range fs.defs {
		roots = append(roots, n)
	}
	fs.check(roots)
}

// check finds a cycle through a forking call among the functions
// reachable from roots (Tarjan's strongly connected components).
func (fs *forkScan) check(roots []string) {
	index := map[string]int{}
	low := map[string]int{}
	comp := map[string]int{}
	onStack := map[string]bool{}
	var stack []string
	next, ncomp := 0, 0
	type frameT struct {
		name string
		i    int
	}
	for _, root := range roots {
		if _, ok := index[root]; ok {
			continue
		}
		if fs.defs[root] == nil {
			continue
		}
		work := []frameT{{root, 0}}
		index[root], low[root] = next, next
		next++
		stack = append(stack, root)
		onStack[root] = true
		for len(work) > 0 {
			top := &work[len(work)-1]
			f := fs.defs[top.name]
			if top.i < len(f.edges) {
				e := f.edges[top.i]
				top.i++
				if fs.defs[e.to] == nil {
					continue
				}
				if _, ok := index[e.to]; !ok {
					index[e.to], low[e.to] = next, next
					next++
					stack = append(stack, e.to)
					onStack[e.to] = true
					work = append(work, frameT{e.to, 0})
				} else if onStack[e.to] && index[e.to] < low[top.name] {
					low[top.name] = index[e.to]
				}
				continue
			}
			n := top.name
			work = work[:len(work)-1]
			if len(work) > 0 {
				p := work[len(work)-1].name
				if low[n] < low[p] {
					low[p] = low[n]
				}
			}
			if low[n] == index[n] {
				for {
					m := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					onStack[m] = false
					comp[m] = ncomp
					if m == n {
						break
					}
				}
				ncomp++
			}
		}
	}
	for n, c := range comp {
		for _, e := range fs.defs[n].edges {
			if !e.spawn {
				continue
			}
			if c2, ok := comp[e.to]; ok && c2 == c {
				fs.report(fs.defs[n].pos, "function "+n)
				break
			}
		}
	}
}

type condValue int

const (
	condUnknown condValue = iota
	condTrue
	condFalse
)

// constCond evaluates a loop or if condition that is a constant: true,
// :, false (by any path), [ word ], [[ word ]], test word, ((n)), and
// their negations.
func constCond(sts []*syntax.Stmt) condValue {
	if len(sts) != 1 {
		return condUnknown
	}
	st := sts[0]
	if st.Background || st.Coprocess || len(st.Redirs) > 0 {
		return condUnknown
	}
	v := condUnknown
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return condUnknown
		}
		var words []string
		for _, w := range c.Args {
			s, ok := staticWord(w)
			if !ok {
				return condUnknown
			}
			words = append(words, s)
		}
		name := words[0]
		if strings.Contains(name, "/") {
			name = name[strings.LastIndexByte(name, '/')+1:]
		}
		switch {
		case name == "true" || name == ":":
			v = condTrue
		case name == "false":
			v = condFalse
		case name == "[" && len(words) == 3 && words[2] == "]":
			v = strCond(words[1])
		case name == "test" && len(words) == 2:
			v = strCond(words[1])
		}
	case *syntax.TestClause:
		if w, ok := c.X.(*syntax.Word); ok {
			if s, ok := staticWord(w); ok {
				v = strCond(s)
			}
		}
	case *syntax.ArithmCmd:
		v = constArith(c.X)
	case *syntax.Block:
		v = constCond(c.Stmts)
	case *syntax.Subshell:
		v = constCond(c.Stmts)
	}
	if st.Negated {
		switch v {
		case condTrue:
			v = condFalse
		case condFalse:
			v = condTrue
		}
	}
	return v
}

func strCond(s string) condValue {
	if s == "" {
		return condFalse
	}
	return condTrue
}

func constArith(x syntax.ArithmExpr) condValue {
	w, ok := x.(*syntax.Word)
	if !ok {
		if p, ok := x.(*syntax.ParenArithm); ok {
			return constArith(p.X)
		}
		return condUnknown
	}
	s := w.Lit()
	if s == "" {
		return condUnknown
	}
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		return condUnknown
	}
	if n != 0 {
		return condTrue
	}
	return condFalse
}

// staticWord is the value of a word made only of literal text and quotes.
func staticWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	if len(w.Parts) == 1 {
		if l, ok := w.Parts[0].(*syntax.Lit); ok && !strings.ContainsAny(l.Value, "*?[\\") {
			return l.Value, true
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			s := p.Value
			if strings.ContainsAny(s, "*?[") && s != "[" {
				return "", false
			}
			b.WriteString(strings.ReplaceAll(s, "\\", ""))
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
