package shellparse

import (
	"errors"
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

const (
	// maxNesting bounds brackets, compound commands and prefix keywords
	// nested in one string; the parser's time grows faster than linearly
	// with nesting, so deeper input is rejected before it is parsed.
	maxNesting = 1000
	// maxRecursion bounds the analysis' own recursion (long chains of
	// operators inside [[ ]] and (( )) nest without brackets).
	maxRecursion = 10000
	// maxSources bounds the sources kept per command.
	maxSources = 32
	// maxScripts is, with eight times the input's size, how many bytes
	// of nested shell scripts (bash -c, eval, … | sh) one analysis
	// parses: each byte costs the parser and the analysis some hundred
	// bytes, and a value of maxValue bytes can be run many times (eval
	// "$X" in a loop). Past it a script is Dynamic.
	maxScripts = 128 << 10
	// scriptCost is what each nested script costs besides its bytes (a
	// parse of a few words still allocates kilobytes): a chain of tiny
	// aliases or evals cannot run it a million times.
	scriptCost = 512
)

// Analyze returns every command the shell string src would run (bash
// dialect). Errors are *ParseError (with position) or *LimitError; a bug in
// the analysis is recovered and returned as *InternalError instead of a
// panic. It never executes anything.
func Analyze(src string, opts Options) (res *Result, err error) {
	defer func() {
		// A bug must not take the hook down: report it as an error, which
		// callers treat like any other failure to analyze.
		if p := recover(); p != nil {
			res, err = nil, &InternalError{Msg: fmt.Sprint(p)}
		}
	}()
	opts = opts.withDefaults()
	if len(src) > opts.MaxBytes {
		return nil, &LimitError{Limit: "size", Max: opts.MaxBytes}
	}
	a := &analyzer{opts: opts, budget: 4 * opts.MaxBytes, srcLen: len(src), unrolls: maxUnrolls, substValues: maxSubstValues, altReadings: maxAltReadings,
		valueLeft: maxValueTotal, scriptLeft: min(4*opts.MaxBytes, 8*len(src)+maxScripts)}
	f, err := a.parse(src)
	if err != nil {
		return nil, err
	}
	fr := &frame{src: src}
	bombs := forkBombs(f)
	sc := newScope(opts, &a.valueLeft)
	for i, st := range f.Stmts {
		if a.err != nil {
			break
		}
		// Each top-level statement is let go of once analyzed (and the
		// statements of a long && / || chain one by one, andOr): the
		// commands hold no syntax nodes, so a long script's syntax tree
		// need not stay whole while its commands are built.
		a.top = st
		a.stmt(st, sc, fr, nil)
		f.Stmts[i] = nil
	}
	a.top = nil
	a.emitForkBombs(bombs, fr)
	a.downloads()
	if a.err != nil {
		return nil, a.err
	}
	return &Result{Commands: a.cmds}, nil
}

func (o Options) withDefaults() Options {
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultMaxBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = DefaultMaxNodes
	}
	return o
}

// analyzer holds the state of one Analyze call.
type analyzer struct {
	opts   Options
	parser *syntax.Parser
	cmds   []Command
	nodes  int
	rec    int // current recursion depth
	budget int // bytes of nested scripts still allowed
	err    error
	top    *syntax.Stmt // the outermost script's statement being analyzed
	srcLen int          // the size of the outermost script

	dataStdin   map[int]bool      // commands (shells running -c) that read standard input as data only
	unrolls     int               // loop bodies still allowed to be analyzed once per word (walk.go)
	namerefs    map[string]string // declare -n NAME=TARGET
	substValues int               // $(…) outputs still allowed to be worked out (output.go)
	altReadings int               // second readings of a wrapper still allowed (nested.go)
	valueLeft   int               // bytes of expanded values still allowed (maxValueTotal)
	scriptLeft  int               // bytes of nested shell scripts still allowed to be parsed (script)
	links       map[string]string // links the string creates: link → target (links.go)
	files       map[string]string // scripts the string writes: path → text (links.go)
	aliases     map[string]string // aliases the string defines: name → body (alias.go)
	inScript    []string          // texts of the nested scripts being analyzed, outermost first (script)
	scriptBuf   [8]string         // inScript's first room
	oldpwd      bool              // a script read so far names ~-, $OLDPWD or cd -: cd records OLDPWD
	expanding   map[string]bool   // aliases ("NAME") and written scripts ("file:PATH") being run: not again inside themselves
	scriptsRead map[string]bool   // script files asked of Options.ReadScript (links.go)
	readScripts int               // how many

	// A >(…) reads what its statement writes, so it is analyzed after the
	// statement: outs collects them, a stack of the statements being
	// read, while collectOuts. (What a <(…) prints travels with its
	// word: field.proc.)
	outs        []outSubst
	collectOuts bool
}

// frame is one shell program being analyzed: the outermost string or a
// script found inside it (bash -c '…', eval, ssh host '…').
type frame struct {
	src      string
	depth    int      // nesting depth of this script
	wrappers []string // wrappers and shells this script runs under
	env      []string // environment assignments its commands inherit
	pos      *Pos     // position reported for its commands; nil: their own
}

func (a *analyzer) fail(err error) {
	if a.err == nil {
		a.err = err
	}
}

// count charges n nodes to the analysis and reports whether it may go on.
func (a *analyzer) count(n int) bool {
	a.nodes += n
	if a.nodes > a.opts.MaxNodes {
		a.fail(&LimitError{Limit: "nodes", Max: a.opts.MaxNodes})
	}
	return a.err == nil
}

// enter guards one level of recursion; every successful enter needs a
// leave.
func (a *analyzer) enter() bool {
	a.rec++
	if a.rec > maxRecursion {
		a.fail(&LimitError{Limit: "nesting", Max: maxRecursion})
	}
	return a.err == nil
}

func (a *analyzer) leave() { a.rec-- }

// parse checks and parses one shell program.
func (a *analyzer) parse(src string) (*syntax.File, error) {
	if err := prescan(src, max(a.opts.MaxNodes/2, 1<<16)); err != nil {
		return nil, err
	}
	// cd keeps OLDPWD only for a string that can read it: most never do,
	// and a variable more per cd costs a map slot in every && run.
	a.oldpwd = a.oldpwd || strings.Contains(src, "~-") || strings.Contains(src, "OLDPWD") || strings.Contains(src, "cd -")
	if a.parser == nil {
		a.parser = syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
	}
	f, err := a.parser.Parse(strings.NewReader(src), "")
	if err != nil {
		return nil, parseError(err)
	}
	return f, nil
}

func parseError(err error) *ParseError {
	var pe syntax.ParseError
	if errors.As(err, &pe) {
		return &ParseError{Pos: toPos(pe.Pos), Msg: pe.Text}
	}
	var le syntax.LangError
	if errors.As(err, &le) {
		msg := strings.TrimPrefix(le.Error(), le.Pos.String()+": ")
		return &ParseError{Pos: toPos(le.Pos), Msg: msg}
	}
	return &ParseError{Pos: Pos{1, 1}, Msg: err.Error()}
}

func toPos(p syntax.Pos) Pos { return Pos{Line: int(p.Line()), Col: int(p.Col())} }

// pos is the position reported for a command starting at p in fr.
func (a *analyzer) pos(p syntax.Pos, fr *frame) Pos {
	if fr.pos != nil {
		return *fr.pos
	}
	return toPos(p)
}

// emit appends c and returns its index.
func (a *analyzer) emit(c Command) int {
	a.count(1)
	if len(a.cmds) == cap(a.cmds) {
		// Room for the commands a short script usually holds (at most
		// 4,096), then doubled: not all of a long script's ahead, as its
		// syntax tree is let go of while the commands are emitted, and
		// not grown by append's quarter either (dozens of copies).
		cmds := make([]Command, len(a.cmds), max(2*len(a.cmds), min(a.srcLen/32+2, 1<<12)))
		copy(cmds, a.cmds)
		a.cmds = cmds
	}
	a.cmds = append(a.cmds, c)
	return len(a.cmds) - 1
}

// sourcesFrom lists the commands emitted since start as sources reaching
// another command via via.
func (a *analyzer) sourcesFrom(start int, via string) []Source {
	var out []Source
	for i := start; i < len(a.cmds); i++ {
		c := &a.cmds[i]
		if c.Name == "" || c.Name == ":" {
			continue
		}
		out = appendSources(out, Source{Name: c.Name, Class: classify(c), Via: via})
	}
	return out
}

// addSources adds srcs to every command emitted since start.
func (a *analyzer) addSources(start int, srcs []Source) {
	if len(srcs) == 0 {
		return
	}
	for i := start; i < len(a.cmds); i++ {
		a.cmds[i].Sources = appendSources(a.cmds[i].Sources, srcs...)
	}
}

// addStdinSources adds the sources feeding standard input to the
// commands emitted since start, except to a shell whose script is -c (the
// commands of the script still get them).
func (a *analyzer) addStdinSources(start int, srcs []Source) {
	if len(srcs) == 0 {
		return
	}
	for i := start; i < len(a.cmds); i++ {
		if !a.dataStdin[i] {
			a.cmds[i].Sources = appendSources(a.cmds[i].Sources, srcs...)
		}
	}
}

// appendSources appends the sources not yet in list. Past maxSources only
// network and decoder sources are kept.
func appendSources(list []Source, srcs ...Source) []Source {
next:
	for _, s := range srcs {
		for _, o := range list {
			if o == s {
				continue next
			}
		}
		if len(list) >= maxSources && (s.Class == SourceOther || len(list) >= 2*maxSources) {
			continue
		}
		list = append(list, s)
	}
	return list
}

// prescan rejects input nested deeper than maxNesting, or holding more
// than maxWords words, before the parser sees it: the syntax tree of a
// few megabytes of one-letter words takes hundreds of megabytes, and a
// hook killed for its memory is an allow to some agents. It is an
// approximation of the shell grammar that errs towards counting more
// nesting, never less: quotes are followed so that brackets in strings do
// not count. The parser gets at most MaxNodes/2 (at least 65,536) words
// and operators: a script that size would come near the analysis's node
// limit anyway.
func prescan(src string, maxWords int) error {
	var stack []byte // 'n': bracket or compound in code, 'd': double quotes
	prefixRun := 0
	fail := func() error { return &LimitError{Limit: "nesting", Max: maxNesting} }
	wordStart := true
	words := 0
	// A substitution, subshell or group costs the parser more than a
	// word: it counts as substWeight words.
	const substWeight = 4
	heavy := func() error {
		if words += substWeight; maxWords > 0 && words > maxWords {
			return &LimitError{Limit: "words", Max: maxWords}
		}
		return nil
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		inDouble := len(stack) > 0 && stack[len(stack)-1] == 'd'
		if inDouble {
			switch c {
			case '\\':
				i++
			case '"':
				stack = stack[:len(stack)-1]
			case '$':
				if i+1 < len(src) && (src[i+1] == '(' || src[i+1] == '{') {
					stack = append(stack, 'n')
					i++
					if err := heavy(); err != nil {
						return err
					}
				}
			}
			if len(stack) > maxNesting {
				return fail()
			}
			continue
		}
		atStart := wordStart
		wordStart = false
		if atStart && !isIFS(c) {
			if words++; maxWords > 0 && words > maxWords {
				return &LimitError{Limit: "words", Max: maxWords}
			}
		}
		if atStart && c != '!' && (c < 'a' || c > 'z') && !isIFS(c) {
			prefixRun = 0
		}
		switch c {
		case '\\':
			i++
		case '\'':
			if i > 0 && src[i-1] == '$' {
				for i++; i < len(src) && src[i] != '\''; i++ {
					if src[i] == '\\' {
						i++
					}
				}
			} else if j := strings.IndexByte(src[i+1:], '\''); j >= 0 {
				i += j + 1
			} else {
				i = len(src)
			}
		case '"':
			stack = append(stack, 'd')
		case '(', '{', '[':
			stack = append(stack, 'n')
			wordStart = true
			if err := heavy(); err != nil {
				return err
			}
		case ')', '}', ']':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case ' ', '\t', '\n', ';', '&', '|':
			wordStart = true
		case '#':
			if atStart {
				if j := strings.IndexByte(src[i:], '\n'); j >= 0 {
					i += j - 1
				} else {
					i = len(src)
				}
				wordStart = true
			}
		case '!':
			if atStart {
				prefixRun++
				if prefixRun > maxNesting {
					return fail()
				}
			}
		default:
			if !atStart || c < 'a' || c > 'z' {
				break
			}
			j := i
			for j < len(src) && src[j] >= 'a' && src[j] <= 'z' {
				j++
			}
			if j < len(src) && !strings.ContainsRune(" \t\n;&|()<>", rune(src[j])) {
				i = j - 1
				prefixRun = 0
				break
			}
			switch src[i:j] {
			case "if", "while", "until", "for", "case", "select":
				stack = append(stack, 'n')
				prefixRun = 0
			case "fi", "done", "esac":
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
				prefixRun = 0
			case "time", "coproc":
				prefixRun++
				if prefixRun > maxNesting {
					return fail()
				}
			default:
				prefixRun = 0
			}
			i = j - 1
		}
		if len(stack) > maxNesting {
			return fail()
		}
	}
	return nil
}
