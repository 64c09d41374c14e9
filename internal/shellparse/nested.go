package shellparse

import (
	"slices"
	"strconv"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// maxAltReadings bounds the second readings of wrapper options one
// analysis works out (firstAlt); past it they are Dynamic.
const maxAltReadings = 32

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
		if in.alt {
			if a.altReadings <= 0 {
				// Past the bound, the second reading is not worked out:
				// what it runs is unknown (nested doubts multiply).
				text := joinFields(in.argv)
				if in.script != nil {
					text = *in.script
				}
				a.unknownScript(text, x.with(in.label))
				continue
			}
			a.altReadings--
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
			if in.mounts != nil {
				wx.sc.container = newContainerFS(*in.mounts, in.workdir, x.sc)
			}
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

// sourceOperands drops the options of source / . : "--", and bash 5.3's
// -p PATH (the path to search the file in).
func sourceOperands(args []field) []field {
	for len(args) > 0 && args[0].lit {
		switch s := args[0].s; {
		case s == "--":
			return args[1:]
		case s == "-p" && len(args) > 1:
			args = args[2:]
		case strings.HasPrefix(s, "-p") && len(s) > 2:
			args = args[1:]
		default:
			return args
		}
	}
	return args
}
