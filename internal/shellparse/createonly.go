package shellparse

import (
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// Writes that cannot change what an existing file holds are reported as
// call.OpCreate rather than call.OpWrite: touch (a new empty file, or new
// times), cp/mv -n (--no-clobber, --update=none), and any write of P by a
// command that runs only when P is absent:
//
//	[ -f P ] || CMD        test -e P || CMD        [ -s P ] || CMD
//	[ ! -f P ] && CMD      ! test -f P && CMD
//	if [ ! -f P ]; then CMD…; fi
//
// Rules about a file's content (the secrets rules: op "modify") leave them
// alone; every rule that lists "write" still matches them.

// noClobber makes a copy's writes creates when it never replaces an
// existing file: cp or mv with -n, --no-clobber or --update=none[-fail],
// and none of the options that undo it.
func noClobber(spec optSpec, rule pathRule, args []field, add pathAdder) {
	opts, _ := spec.parse(args)
	keep := false
	for _, o := range opts {
		switch o.name {
		case "-n", "--no-clobber":
			keep = true
		case "--update":
			if o.val != nil && (o.val.s == "none" || o.val.s == "none-fail") {
				keep = true
			} else {
				rule(args, add)
				return
			}
		case "-f", "--force", "-i", "--interactive", "-u", "--remove-destination", "-b", "--backup":
			rule(args, add)
			return
		}
	}
	if !keep {
		rule(args, add)
		return
	}
	rule(args, func(f field, op call.Op) {
		if op == call.OpWrite {
			op = call.OpCreate
		}
		add(f, op)
	})
}

// absentGuard reports the path P a statement tests for, when what runs
// after it under op runs only if P is absent: [ -e P ] || …, [ ! -e P ]
// && … (op 0 is an if's then branch: the test must be negated). The
// statement must have emitted exactly one command, from index start: a
// plain [ or test of a literal path with -e, -a, -f or -s (a file that is
// there but empty loses nothing).
func (a *analyzer) absentGuard(st *syntax.Stmt, start int, sc *scope, fr *frame, op syntax.BinCmdOperator) (string, bool) {
	if st == nil || st.Background || len(st.Redirs) > 0 || len(a.cmds) != start+1 {
		return "", false
	}
	c := &a.cmds[start]
	if c.Dynamic || len(c.Wrappers) != len(fr.wrappers) {
		return "", false
	}
	args := c.Args
	switch c.Name {
	case "[":
		if len(args) == 0 || args[len(args)-1] != "]" {
			return "", false
		}
		args = args[:len(args)-1]
	case "test":
	default:
		return "", false
	}
	neg := st.Negated
	if len(args) == 3 && args[0] == "!" {
		neg = !neg
		args = args[1:]
	}
	if len(args) != 2 {
		return "", false
	}
	switch args[0] {
	case "-e", "-a", "-f", "-s":
	default:
		return "", false
	}
	p := args[1]
	if p == "" || strings.ContainsAny(p, "$`*?[{") {
		return "", false
	}
	switch {
	case op == syntax.OrStmt && !neg, (op == syntax.AndStmt || op == 0) && neg:
	default:
		return "", false
	}
	ref, ok := resolve(litField(p, st.Pos()), call.OpRead, sc)
	if !ok || ref.Dynamic {
		return "", false
	}
	return ref.Path, true
}

// createOnly makes the writes of p by the commands from index start on
// creates: they run only when p is not there.
func (a *analyzer) createOnly(start int, p string) {
	for i := start; i < len(a.cmds); i++ {
		for j := range a.cmds[i].Paths {
			r := &a.cmds[i].Paths[j]
			if r.Op == call.OpWrite && !r.Dynamic && r.Path == p {
				r.Op = call.OpCreate
			}
		}
	}
}

// countsOnly reports a command that prints only counts of what it reads
// on standard input: wc, unless --files0-from takes file names from it.
func countsOnly(c *Command) bool {
	if c.Dynamic || c.Name != "wc" {
		return false
	}
	for _, a := range c.Args {
		if strings.HasPrefix(a, "--files0") {
			return false
		}
	}
	return true
}
