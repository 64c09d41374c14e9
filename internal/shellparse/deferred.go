package shellparse

import (
	"strings"
)

// Deferred and detached execution: at, batch and crontab run commands
// later, read from standard input (stdin inners); screen, tmux and expect
// start them in a session of their own. And the delete programs of package
// runners (rimraf, del-cli, trash), which are rm -rf.

// unwrapDeferred returns what at, batch, crontab, screen, tmux, expect,
// daemonize and start-stop-daemon run, and the rm -rf a delete program is.
func unwrapDeferred(name string, args []field) []inner {
	switch name {
	case "at", "batch":
		spec := optSpec{short: "qft"}
		opts, _ := spec.parse(args[:spec.first(args)])
		if has(opts, "-l", "-d", "-r", "-c", "-V", "--help") {
			return nil
		}
		if f := values(opts, "-f"); len(f) > 0 {
			return nil // a file of commands: not read (the policy asks)
		}
		return []inner{{label: name, stdin: true}}
	case "crontab":
		opts, operands := optSpec{short: "uUs"}.parse(args)
		if has(opts, "-l", "-r", "-e", "-V", "-T") {
			return nil
		}
		if len(operands) == 0 || (operands[0].lit && operands[0].s == "-") {
			return []inner{{label: name, stdin: true, cron: true}}
		}
	case "screen":
		spec := optSpec{short: "SceEhpTXtk"}
		first := spec.first(args)
		opts, _ := spec.parse(args[:first])
		if has(opts, "-X") {
			for _, v := range values(opts, "-X") {
				if v.s == "stuff" || !v.lit {
					// Keys typed into a session: unknown.
					o := opaque(v, "screen -X stuff")
					return []inner{{label: name + " -X", script: &o}}
				}
			}
			return nil
		}
		if has(opts, "-ls", "-list", "-r", "-R", "-x", "-wipe", "-v", "-Q") {
			return nil
		}
		if first < len(args) {
			return []inner{{label: name, argv: args[first:]}}
		}
	case "tmux":
		return unwrapTmux(args)
	case "expect":
		return unwrapExpect(args)
	case "daemonize":
		spec := optSpec{short: "acepoluEP"}
		if i := spec.first(args); i < len(args) {
			return []inner{{label: name, argv: args[i:]}}
		}
	case "start-stop-daemon":
		opts, rest := optSpec{short: "xapnusgrcdNPkKRtT", long: []string{"--exec", "--startas", "--pidfile", "--name",
			"--user", "--group", "--chuid", "--chroot", "--chdir", "--nicelevel", "--procsched", "--iosched",
			"--umask", "--signal", "--retry", "--output", "--remove-pidfile", "--make-pidfile"}}.parse(args)
		if !has(opts, "-S", "--start") {
			return nil
		}
		prog := values(opts, "-a", "--startas")
		if len(prog) == 0 {
			prog = values(opts, "-x", "--exec")
		}
		if len(prog) > 0 {
			return []inner{{label: name, argv: append([]field{prog[len(prog)-1]}, rest...)}}
		}
	case "rimraf", "del", "del-cli", "trash", "trash-put", "trash-cli":
		// Recursive deletes: rm -rf of the same operands.
		var ops []field
		dry := false
		for i, f := range args {
			if f.lit && f.s == "--" {
				ops = append(ops, args[i+1:]...)
				break
			}
			if f.lit && strings.HasPrefix(f.s, "-") && len(f.s) > 1 {
				dry = dry || f.s == "--dry-run" || f.s == "-d" && name != "trash"
				continue
			}
			if name == "del" && f.lit && len(f.s) == 2 && f.s[0] == '/' {
				continue // cmd.exe's del /s /q switches
			}
			ops = append(ops, f)
		}
		if dry || len(ops) == 0 {
			return nil
		}
		pos := fieldPos(args)
		argv := []field{litField("rm", pos), litField("-rf", pos), litField("--", pos)}
		return []inner{{label: name, argv: append(argv, ops...)}}
	}
	return nil
}

// unwrapTmux finds the shell commands of tmux new-session, new-window,
// split-window, respawn-*, run-shell and display-popup (the words after
// the options, joined); send-keys types unknown keys.
func unwrapTmux(args []field) []inner {
	i := optSpec{short: "LSfcT"}.first(args)
	if i >= len(args) || !args[i].lit {
		return nil
	}
	sub, rest := args[i].s, args[i+1:]
	var spec optSpec
	switch sub {
	case "new-session", "new":
		spec = optSpec{short: "cefnstxyFX"}
	case "new-window", "neww", "split-window", "splitw", "respawn-pane", "respawnp", "respawn-window", "respawnw":
		spec = optSpec{short: "cefFlnstp"}
	case "run-shell", "run":
		spec = optSpec{short: "dt"}
	case "display-popup", "popup":
		spec = optSpec{short: "bcdehsStTwxy"}
	case "send-keys", "send":
		o := opaque(args[i], "tmux send-keys")
		return []inner{{label: "tmux " + sub, script: &o}}
	default:
		return nil
	}
	j := spec.first(rest)
	if j >= len(rest) {
		return nil
	}
	s := joinFields(rest[j:])
	return []inner{{label: "tmux " + sub, script: &s}}
}

// unwrapExpect finds the commands of an expect -c script: spawn PROG
// ARGS, exec PROG ARGS and system STRING.
func unwrapExpect(args []field) []inner {
	var out []inner
	for i := 0; i+1 < len(args); i++ {
		if !args[i].lit || args[i].s != "-c" {
			continue
		}
		code := args[i+1]
		for _, stmt := range strings.FieldsFunc(code.s, func(r rune) bool { return r == ';' || r == '\n' || r == '[' || r == ']' || r == '{' || r == '}' }) {
			words := splitWords(stmt)
			if len(words) < 2 {
				continue
			}
			switch words[0] {
			case "spawn", "exec":
				w := words[1:]
				for len(w) > 0 && strings.HasPrefix(w[0], "-") {
					w = w[1:]
				}
				if len(w) == 0 {
					continue
				}
				if strings.ContainsAny(strings.Join(w, " "), "$") || !code.lit {
					o := opaque(code, "expect "+stmt)
					out = append(out, inner{label: "expect " + words[0], script: &o})
					continue
				}
				// Read as a shell would (~ expanded): a superset of Tcl's words.
				s := sub(code, strings.Join(w, " "))
				out = append(out, inner{label: "expect " + words[0], script: &s})
			case "system":
				s := sub(code, strings.Join(words[1:], " "))
				out = append(out, inner{label: "expect system", script: &s})
			}
		}
	}
	return out
}

// cronCommands returns the commands of a crontab: each line's command
// after the five time fields (or an @reboot-style nickname); comments and
// NAME=value lines are skipped.
func cronCommands(tab string) []string {
	var out []string
	for _, line := range strings.Split(tab, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || l[0] == '#' || isAssignment(strings.Fields(l)[0]) && !strings.HasPrefix(l, "@") {
			continue
		}
		n := 5
		if l[0] == '@' {
			n = 1
		}
		rest := l
		for k := 0; k < n; k++ {
			rest = strings.TrimLeft(rest, " \t")
			j := strings.IndexAny(rest, " \t")
			if j < 0 {
				rest = ""
				break
			}
			rest = rest[j:]
		}
		if rest = strings.TrimSpace(rest); rest != "" {
			out = append(out, rest)
		}
	}
	return out
}

// stdinScript analyzes the script a wrapper reads on standard input (at,
// batch, crontab -): the known input's commands (a crontab's command
// column), or a Dynamic command when the input is not known.
func (a *analyzer) stdinScript(in inner, x runCtx, stdin *input) {
	if stdin == nil || stdin.opaque {
		f := field{s: in.label + " (commands read from standard input)"}
		a.script(f, x, false)
		return
	}
	if !in.cron {
		a.script(stdin.f, x, false)
		return
	}
	if !stdin.f.lit {
		a.script(stdin.f, x, false)
		return
	}
	for _, c := range cronCommands(stdin.f.s) {
		a.script(litField(c, stdin.f.pos), x, false)
	}
}

// harmlessXargs reports xargs running only a printing command (xargs
// echo, xargs printf): its input, even a download, is data.
func harmlessXargs(inners []inner) bool {
	for _, in := range inners {
		if len(in.argv) == 0 || !in.argv[0].lit {
			return false
		}
		switch progName(in.argv[0].s) {
		case "echo", "printf", "basename", "dirname", "wc", "ls", "stat", "file", "true":
		default:
			return false
		}
	}
	return len(inners) > 0
}
