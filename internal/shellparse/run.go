package shellparse

import (
	"path"
	"regexp"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

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
	if n, ok := lookedUpProgram(head); ok {
		// $(which toolguard) uninstall runs toolguard: the program is the
		// one the lookup names, whatever PATH finds.
		head = litField(n, head.pos)
		argv = append([]field{head}, argv[1:]...)
	}
	if !head.lit || head.glob || head.s == "" {
		cmd.Dynamic = true
		cmd.DynamicText = head.s
		if head.s == "" {
			cmd.DynamicText = `""`
		}
		return a.emit(cmd)
	}
	cmd.Name = progName(head.s)
	if x.in != nil && !x.in.opaque && x.in.f.lit {
		cmd.Stdin = x.in.f.s
	}
	if !x.sc.cwdUnknown && path.IsAbs(x.sc.cwd) {
		cmd.Dir = x.sc.cwd
	}
	if strings.Contains(head.s, "/") {
		switch {
		case path.IsAbs(head.s):
			cmd.Prog = path.Clean(head.s)
		case cmd.Dir != "" && !strings.HasPrefix(head.s, "~"):
			cmd.Prog = path.Join(cmd.Dir, head.s)
		}
	}
	cmd.Paths = a.followLinks(pathsFor(cmd.Name, argv[1:], x.sc))
	if cmd.Name == "go" {
		// go install writes into $GOBIN, which the environment names.
		for _, f := range goInstallPaths(argv[1:], cmd.Env) {
			if home, ok := x.sc.lookup("HOME"); ok && home.known && home.val != "" && (f.s == "~" || strings.HasPrefix(f.s, "~/")) {
				f.s = home.val + f.s[1:]
			}
			if p, ok := resolve(f, call.OpWrite, x.sc); ok {
				cmd.Paths = append(cmd.Paths, a.followLinks([]PathRef{p})...)
			}
		}
	}
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
		a.codeEffects(idx, cmd.Name, code, x) // codeeffects.go
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

// with returns the context of a command run under one more wrapper.
func (x runCtx) with(label string) runCtx {
	w := make([]string, len(x.wrappers), len(x.wrappers)+1)
	copy(w, x.wrappers)
	x.wrappers = append(w, label)
	x.depth++
	return x
}

// lookedUpProgram is the program a command word finds on PATH by name:
// $(which NAME), $(command -v NAME), $(type -p NAME), $(type -P NAME),
// $(hash -t NAME), $(readlink -f
// $(which NAME)), $(realpath $(which NAME)) and the backquoted forms.
func lookedUpProgram(f field) (string, bool) {
	if f.lit || !f.subst {
		return "", false
	}
	m := lookupWord.get().FindStringSubmatch(f.s)
	if m == nil {
		return "", false
	}
	return m[1], true
}

var lookupWord = lazy[*regexp.Regexp]{build: func() *regexp.Regexp {
	return regexp.MustCompile("^(?:\\$\\(|`)\\s*(?:(?:readlink -f|realpath)\\s+(?:\\$\\(|`)\\s*)?(?:which|command -v|command -V|type -p|type -P|type -fp|hash -t)\\s+([A-Za-z0-9._+-]+)\\s*(?:\\)|`)(?:\\s*(?:\\)|`))?$")
}}
