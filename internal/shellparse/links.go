package shellparse

import (
	"errors"
	"path"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// What the string does to the filesystem that later commands in it see:
// links it creates (ln -s ~ h && rm -rf h/) and scripts it writes with a
// known text (echo 'rm -rf ~' > c.sh && bash c.sh). The filesystem is not
// scoped like variables: a link made in a subshell or a branch is there
// afterwards (or may be), so these maps belong to the whole analysis.

const (
	maxLinks = 64 // links followed per analysis
	maxFiles = 64 // written scripts remembered per analysis
)

// recordLinks notes the links ln creates: LINK → TARGET, both absolute.
// A symbolic link's relative target is relative to the link's directory,
// a hard link's to the working directory. When the destination may be a
// directory, the link inside it is recorded too.
func (a *analyzer) recordLinks(args []field, sc *scope) {
	if sc.remote {
		return
	}
	opts, ops := optSpec{short: "St", long: []string{"--target-directory", "--suffix"}}.parse(args)
	symbolic := has(opts, "-s", "--symbolic")
	type pair struct{ link, target field }
	var pairs []pair
	switch t := values(opts, "-t", "--target-directory"); {
	case len(t) > 0:
		for _, op := range ops {
			pairs = append(pairs, pair{into(t[len(t)-1], op), op})
		}
	case len(ops) >= 2:
		dest := ops[len(ops)-1]
		for _, op := range ops[:len(ops)-1] {
			if len(ops) == 2 && !strings.HasSuffix(dest.s, "/") {
				pairs = append(pairs, pair{dest, op})
			}
			if !has(opts, "-T", "--no-target-directory") {
				pairs = append(pairs, pair{into(dest, op), op})
			}
		}
	case len(ops) == 1:
		pairs = append(pairs, pair{into(litField(".", ops[0].pos), ops[0]), ops[0]})
	}
	for _, p := range pairs {
		link, ok := resolve(p.link, call.OpWrite, sc)
		if !ok || link.Dynamic || !path.IsAbs(link.Path) || !p.target.lit || p.target.s == "" || strings.HasPrefix(p.target.s, "~") {
			continue
		}
		target := p.target.s
		switch {
		case path.IsAbs(target):
			target = path.Clean(target)
		case symbolic:
			target = path.Join(path.Dir(link.Path), target)
		default:
			t, ok := resolve(p.target, call.OpRead, sc)
			if !ok || t.Dynamic || !path.IsAbs(t.Path) {
				continue
			}
			target = t.Path
		}
		if a.links == nil {
			a.links = map[string]string{}
		}
		if _, ok := a.links[link.Path]; ok || len(a.links) < maxLinks {
			a.links[link.Path] = target
		}
	}
}

// followLinks adds, for each path under a link the string created, the
// same path under the link's target (a chain of links up to 8 deep). The
// link's own path stays: rm h removes the link, rm -rf h/ what it points
// to.
func (a *analyzer) followLinks(ps []PathRef) []PathRef {
	if len(a.links) == 0 {
		return ps
	}
	n := len(ps)
	for i := 0; i < n; i++ {
		p := ps[i]
		for hop := 0; hop < 8 && !p.Dynamic && path.IsAbs(p.Path); hop++ {
			next, ok := a.throughLink(p.Path)
			if !ok {
				break
			}
			p.Path = next
			ps = append(ps, p)
		}
	}
	return ps
}

// throughLink rewrites p when it is a link the string created or lies
// under one.
func (a *analyzer) throughLink(p string) (string, bool) {
	best := ""
	for l := range a.links {
		if (p == l || strings.HasPrefix(p, l+"/") || l == "/") && len(l) > len(best) {
			best = l
		}
	}
	if best == "" {
		return "", false
	}
	t := a.links[best]
	if t == p {
		return "", false
	}
	return path.Join(t, strings.TrimPrefix(p, best)), true
}

// recordWrite notes what a statement writes to a file through its standard
// output (> F, >> F, &> F, >| F): the text when the analysis knows the
// statement's output, so that running F later in the string (bash F,
// source F, ./F) analyzes that text. An unknown text forgets the file.
func (a *analyzer) recordWrite(st *syntax.Stmt, sc *scope, fr *frame, in *input) {
	var target *syntax.Redirect
	for _, rd := range st.Redirs {
		if stdoutRedirect(rd) {
			target = rd
		}
	}
	if target == nil || sc.remote {
		return
	}
	appendTo := target.Op == syntax.AppOut || target.Op == syntax.AppAll || target.Op == syntax.AppAllClob
	if appendTo && len(a.files) == 0 {
		return // appended to a file whose text is not known: still unknown
	}
	// Only a statement whose output the analysis can follow gives a text;
	// any other overwrites the file with one it does not know.
	follow := false
	switch c := st.Cmd.(type) {
	case *syntax.Block, *syntax.Subshell:
		follow = true
	case *syntax.CallExpr:
		if len(c.Args) > 0 {
			switch c.Args[0].Lit() {
			case "echo", "printf", "cat", "base64", "xxd", "rev", "tee", "":
				follow = true
			}
		}
	}
	if !follow && len(a.files) == 0 {
		return
	}
	f := a.foldString(target.Word, sc, fr.src)
	p, ok := resolve(f, call.OpWrite, sc)
	if !ok || p.Dynamic || !path.IsAbs(p.Path) {
		return
	}
	if !follow {
		delete(a.files, p.Path)
		return
	}
	bare := *st
	bare.Redirs = nil
	for _, rd := range st.Redirs {
		if !stdoutRedirect(rd) {
			bare.Redirs = append(bare.Redirs, rd)
		}
	}
	out := a.output(&bare, sc.child(), fr, in)
	if out == nil || out.opaque || !out.f.lit {
		delete(a.files, p.Path)
		return
	}
	text := out.f.s
	if appendTo {
		old, ok := a.files[p.Path]
		if !ok {
			return // appended to a file the analysis does not know
		}
		text = old + text
	}
	if len(text) > maxValue || !sc.charge(len(text)) {
		delete(a.files, p.Path)
		return
	}
	if a.files == nil {
		a.files = map[string]string{}
	}
	if _, ok := a.files[p.Path]; ok || len(a.files) < maxFiles {
		a.files[p.Path] = text
	}
}

// recordTee notes the files tee writes when its standard input is known
// (echo 'rm -rf ~' | tee c.sh; bash c.sh).
func (a *analyzer) recordTee(args []field, x runCtx) {
	if x.sc.remote || x.in == nil || x.in.opaque || !x.in.f.lit {
		return
	}
	opts, ops := optSpec{long: []string{"--output-error"}}.parse(args)
	appendTo := has(opts, "-a", "--append")
	for _, f := range ops {
		p, ok := resolve(f, call.OpWrite, x.sc)
		if !ok || p.Dynamic || !path.IsAbs(p.Path) {
			continue
		}
		text := x.in.f.s
		if appendTo {
			old, ok := a.files[p.Path]
			if !ok {
				continue
			}
			text = old + text
		}
		if len(text) > maxValue || !x.sc.charge(len(text)) {
			delete(a.files, p.Path)
			continue
		}
		if a.files == nil {
			a.files = map[string]string{}
		}
		if _, ok := a.files[p.Path]; ok || len(a.files) < maxFiles {
			a.files[p.Path] = text
		}
	}
}

// stdoutRedirect reports a redirection of standard output to a file.
func stdoutRedirect(rd *syntax.Redirect) bool {
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
		return rd.N == nil || rd.N.Value == "1"
	}
	return false
}

// runWritten runs the script the string wrote to the file f names, when
// it knows the text, with run (which analyzes it). A script is not run
// again inside itself (echo 'bash c.sh' > c.sh; bash c.sh, which bash
// would repeat until it runs out of processes): the inner run is only the
// command.
//
// With Options.ReadScript, a file the string did not write is read
// (readScript); one that is there but cannot be judged calls hidden
// (nil: nothing).
func (a *analyzer) runWritten(f field, sc *scope, run func(text field), hidden func()) {
	if (len(a.files) == 0 && a.opts.ReadScript == nil) || !f.lit {
		return
	}
	p, ok := resolve(f, call.OpRead, sc)
	if !ok || p.Dynamic {
		return
	}
	key := p.Path
	text, ok := a.files[key]
	if !ok {
		if t, ok2 := a.throughLink(p.Path); ok2 {
			key = t
			text, ok = a.files[t]
		}
	}
	if !ok && !sc.remote {
		var unknown bool
		text, ok, unknown = a.readScript(key)
		if unknown && hidden != nil {
			hidden()
		}
	}
	if !ok || a.expanding["file:"+key] {
		return
	}
	if a.expanding == nil {
		a.expanding = map[string]bool{}
	}
	a.expanding["file:"+key] = true
	defer delete(a.expanding, "file:"+key)
	run(litField(text, f.pos))
}

// shebangShell reports whether a script's text runs under a shell when
// executed as ./FILE: no #! line (the shell runs it itself), or one naming
// a shell (#!/bin/sh, #!/usr/bin/env bash).
func shebangShell(text string) bool {
	if !strings.HasPrefix(text, "#!") {
		return true
	}
	line, _, _ := strings.Cut(text[2:], "\n")
	words := strings.Fields(line)
	if len(words) == 0 {
		return true
	}
	prog := progName(words[0])
	if prog == "env" {
		for _, w := range words[1:] {
			if !strings.HasPrefix(w, "-") && !strings.Contains(w, "=") {
				prog = progName(w)
				break
			}
		}
	}
	return isShell(prog)
}

// programFlags is the option that gives an interpreter its code inline.
func programFlag(lang string) (string, bool) {
	switch lang {
	case "python":
		return "-c", true
	case "node", "ruby", "perl":
		return "-e", true
	}
	return "", false
}

// writtenProgram analyzes the script file an interpreter runs (python3
// x.py, node x.js, ruby x.rb, perl x.pl: the file its path rule reads)
// when the string wrote its text: as the same interpreter's one-liner.
func (a *analyzer) writtenProgram(idx int, name string, x runCtx) {
	lang := interpreter(name)
	flag, ok := programFlag(lang)
	if !ok {
		return
	}
	for _, p := range a.cmds[idx].Paths {
		if p.Op != call.OpRead || p.Dynamic {
			continue
		}
		if _, ok := a.files[p.Path]; !ok && a.opts.ReadScript == nil {
			continue
		}
		pf := litField(p.Path, syntax.Pos{})
		a.runWritten(pf, x.sc, func(text field) {
			a.interp(idx, lang, name, []field{litField(flag, text.pos), text}, x)
		}, func() { a.unreadScript(pf, x.with(name)) })
		return
	}
}

// maxReadScripts bounds the script files one analysis asks
// Options.ReadScript for.
const maxReadScripts = 16

// readScript asks Options.ReadScript for the text of a local script file
// the string did not write (an earlier tool call may have): absolute
// paths only, each file once, at most maxReadScripts, the text charged to
// the value budget like any other. What it reads is kept in a.files, so a
// later run of the same file in the string sees the same text. unknown
// reports a file that is there but cannot be judged (Options.ReadScript).
func (a *analyzer) readScript(p string) (text string, ok, unknown bool) {
	if a.opts.ReadScript == nil || !path.IsAbs(p) {
		return "", false, false
	}
	if a.scriptsRead[p] || a.readScripts >= maxReadScripts {
		return "", false, a.readScripts >= maxReadScripts
	}
	if a.scriptsRead == nil {
		a.scriptsRead = map[string]bool{}
	}
	a.scriptsRead[p] = true
	a.readScripts++
	text, err := a.opts.ReadScript(p)
	switch {
	case errors.Is(err, ErrNoScript):
		return "", false, false
	case err != nil || len(text) > maxValue || len(text) > a.valueLeft:
		return "", false, true
	}
	a.valueLeft -= len(text)
	if a.files == nil {
		a.files = map[string]string{}
	}
	if len(a.files) < maxFiles {
		a.files[p] = text
	}
	return text, true, false
}

// unreadScript reports a script file that is there but could not be read
// for judging (too large, not a regular file): the command is Dynamic.
func (a *analyzer) unreadScript(f field, x runCtx) {
	g := f
	g.s = f.s + " (a script file toolguard did not read: too large, not a regular file, or past 16 script files in one call)"
	a.unknownScript(g, x)
}
