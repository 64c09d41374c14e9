package shellparse

import (
	"regexp"
	"strconv"
	"strings"
)

// Programs that run a command given to them as an option, a config value or
// an environment variable. What they run is returned as inners, so it is
// analyzed like any other command: a literal gives its commands, anything
// else is Dynamic.

// sub is a field holding part of f's text: known when f is.
func sub(f field, s string) field {
	g := f
	g.s = s
	g.proc = nil
	g.text = strings.TrimSpace(s) != ""
	return g
}

// opaque is a command known only at run time (the text sed's s///e runs
// is the pattern space): Dynamic, never parsed.
func opaque(f field, text string) field {
	return field{s: text, pos: f.pos, srcs: f.srcs}
}

// falseish reports a git boolean value (for keys that take a boolean or a
// command: core.fsmonitor, pager.<cmd>).
func falseish(v string) bool {
	switch strings.ToLower(v) {
	case "", "true", "false", "yes", "no", "on", "off", "1", "0":
		return true
	}
	return false
}

// gitConfigExec returns what the git configuration key=val runs: a shell
// string for the keys whose value is a command, the alias body of a `!`
// alias, an unknown command for an include (a file of more settings).
// name is the git subcommand of the call (for non-! aliases), rest its
// arguments.
func gitConfigExec(key string, val field, name string, rest []field) []inner {
	sect, vname, _ := strings.Cut(key, ".")
	sect = strings.ToLower(sect)
	if i := strings.LastIndexByte(vname, '.'); i >= 0 {
		vname = vname[:i] + "." + strings.ToLower(vname[i+1:])
	} else {
		vname = strings.ToLower(vname)
	}
	last := vname
	if i := strings.LastIndexByte(vname, '.'); i >= 0 {
		last = vname[i+1:]
	}
	label := "git " + sect + "." + vname
	shell := func(v field) []inner { return []inner{{label: label, script: &v}} }
	switch sect {
	case "alias":
		if strings.HasPrefix(val.s, "!") {
			return shell(sub(val, val.s[1:]))
		}
		if name != "" && strings.EqualFold(vname, name) {
			if !val.lit {
				return shell(val)
			}
			argv := append([]field{litField("git", val.pos)}, litWords(val.s, val.pos)...)
			return []inner{{label: "git alias " + name, argv: append(argv, rest...)}}
		}
	case "core":
		switch vname {
		case "sshcommand", "pager", "editor", "askpass", "gitproxy":
			return shell(val)
		case "fsmonitor":
			if !falseish(val.s) {
				return shell(val)
			}
		}
	case "sequence":
		if vname == "editor" {
			return shell(val)
		}
	case "diff":
		if vname == "external" || last == "textconv" || last == "command" {
			return shell(val)
		}
	case "filter":
		if last == "clean" || last == "smudge" || last == "process" {
			return shell(val)
		}
	case "merge":
		if last == "driver" {
			return shell(val)
		}
	case "credential":
		if last == "helper" {
			switch {
			case strings.HasPrefix(val.s, "!"):
				return shell(sub(val, val.s[1:]))
			case strings.HasPrefix(val.s, "/") || strings.ContainsAny(val.s, " \t") || !val.lit:
				return shell(val)
			}
		}
	case "pager":
		if !falseish(val.s) {
			return shell(val)
		}
	case "gpg":
		if last == "program" {
			return shell(val)
		}
	case "difftool", "mergetool", "browser", "man":
		if last == "cmd" {
			return shell(val)
		}
	case "interactive":
		if vname == "difffilter" {
			return shell(val)
		}
	case "uploadpack":
		if vname == "packobjectshook" {
			return shell(val)
		}
	case "remote":
		if last == "uploadpack" || last == "receivepack" {
			return shell(val)
		}
	case "sendemail":
		if last == "tocmd" || last == "cccmd" || last == "sendmailcmd" {
			return shell(val)
		}
	case "include", "includeif":
		if last == "path" {
			// Settings read from a file: any of the above may be in it.
			return shell(opaque(val, "git config include "+val.s))
		}
	}
	return nil
}

// unwrapGit finds what a git call runs besides git: -c settings that are
// commands, aliases, ext:: transports, rebase --exec, bisect run,
// submodule foreach, difftool --extcmd, filter-branch filters and the
// command-valued settings git config writes (they run later).
func unwrapGit(args []field) []inner {
	var out []inner
	var kvs []field
	i := 0
	for ; i < len(args); i++ {
		f := args[i]
		if !f.lit && !strings.HasPrefix(f.s, "-") {
			break
		}
		s := f.s
		if s == "" || s[0] != '-' {
			break
		}
		name, _, eq := strings.Cut(s, "=")
		switch {
		case s == "-c" && i+1 < len(args):
			i++
			kvs = append(kvs, args[i])
		case strings.HasPrefix(s, "-c") && !strings.HasPrefix(s, "--"):
			kvs = append(kvs, sub(f, s[2:]))
		case (s == "-C" || gitGlobalOpts.takesValue(s)) && !eq:
			i++
		case name == "--exec-path" && eq:
			// git runs its subcommands from that directory.
			o := opaque(f, "git "+s)
			out = append(out, inner{label: "git --exec-path", script: &o})
		}
	}
	if i >= len(args) {
		return nil
	}
	subcmd, rest := "", args[i+1:]
	if args[i].lit {
		subcmd = args[i].s
	}
	for _, kv := range kvs {
		key, val, ok := strings.Cut(kv.s, "=")
		if !ok {
			continue
		}
		out = append(out, gitConfigExec(key, sub(kv, val), subcmd, rest)...)
	}
	for _, f := range rest {
		if f.lit && strings.HasPrefix(f.s, "ext::") {
			if argv := extWords(f); len(argv) > 0 {
				out = append(out, inner{label: "git ext::", argv: argv})
			}
		}
	}
	scripts := func(label string, opts []option, names ...string) {
		for _, v := range values(opts, names...) {
			out = append(out, inner{label: label, script: &v})
		}
	}
	switch subcmd {
	case "rebase":
		opts, _ := optSpec{short: "xsXC", long: []string{"--exec", "--strategy", "--strategy-option", "--onto", "--gpg-sign"}}.parse(rest)
		scripts("git rebase --exec", opts, "-x", "--exec")
	case "bisect":
		if len(rest) > 1 && rest[0].lit && rest[0].s == "run" {
			out = append(out, inner{label: "git bisect run", argv: rest[1:]})
		}
	case "submodule":
		j := 0
		for j < len(rest) && rest[j].lit && strings.HasPrefix(rest[j].s, "-") {
			j++
		}
		if j < len(rest) && rest[j].lit && rest[j].s == "foreach" {
			j++
			for j < len(rest) && rest[j].lit && strings.HasPrefix(rest[j].s, "-") {
				j++
			}
			if j < len(rest) {
				s := joinFields(rest[j:])
				out = append(out, inner{label: "git submodule foreach", script: &s})
			}
		}
	case "difftool":
		opts, _ := optSpec{short: "xtS", long: []string{"--extcmd", "--tool"}}.parse(rest)
		scripts("git difftool --extcmd", opts, "-x", "--extcmd")
	case "filter-branch":
		filters := []string{"--tree-filter", "--index-filter", "--env-filter", "--msg-filter",
			"--commit-filter", "--parent-filter", "--tag-name-filter", "--setup"}
		opts, _ := optSpec{long: append(filters, "--subdirectory-filter", "--prune-empty", "-d", "--original")}.parse(rest)
		scripts("git filter-branch", opts, filters...)
	case "config":
		out = append(out, gitConfigWrite(rest)...)
	}
	return out
}

// gitConfigWrite returns what a setting git config writes would run.
func gitConfigWrite(rest []field) []inner {
	if len(rest) > 0 && rest[0].lit {
		switch rest[0].s {
		case "set":
			rest = rest[1:]
		case "get", "list", "unset", "rename-section", "remove-section", "edit", "get-color", "get-colorbool":
			return nil
		}
	}
	spec := optSpec{short: "f", long: []string{"--file", "--blob", "--type", "--default", "--comment", "--value", "--worktree-file"}}
	opts, operands := spec.parse(rest)
	for _, o := range opts {
		switch o.name {
		case "--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--unset", "--unset-all",
			"--rename-section", "--remove-section", "-e", "--edit", "--get-color", "--get-colorbool", "--show-origin":
			return nil
		}
	}
	if len(operands) < 2 || !operands[0].lit {
		return nil
	}
	ins := gitConfigExec(operands[0].s, operands[1], "", nil)
	for k := range ins {
		ins[k].label = "git config " + operands[0].s
	}
	return ins
}

// extWords splits a git ext:: URL into its command's words: spaces
// separate, "% " is a space inside a word, "%%" a percent sign; %s, %S and
// %G stand for parts git fills in.
func extWords(f field) []field {
	s := strings.TrimPrefix(f.s, "ext::")
	var words []field
	var b strings.Builder
	flush := func() {
		if b.Len() > 0 {
			words = append(words, litField(b.String(), f.pos))
			b.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ':
			flush()
		case c == '%' && i+1 < len(s):
			i++
			switch s[i] {
			case ' ':
				b.WriteByte(' ')
			case '%':
				b.WriteByte('%')
			case 's', 'S':
				b.WriteString("git-upload-pack")
			case 'G':
				b.WriteString("repo")
			default:
				b.WriteByte('%')
				b.WriteByte(s[i])
			}
		default:
			b.WriteByte(c)
		}
	}
	flush()
	return words
}

// gitEnvShell are environment variables git runs as a shell command.
func gitEnvShell(k string) bool {
	switch k {
	case "GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND",
		"GIT_PAGER", "GIT_ASKPASS", "GIT_PROXY_COMMAND", "EDITOR", "VISUAL", "PAGER", "SSH_ASKPASS":
		return true
	}
	return false
}

// envField is the value of a NAME=value environment entry: unknown when it
// holds an expansion the analysis kept as source text.
func envField(val string, f field) field {
	g := field{s: val, lit: !strings.ContainsAny(val, "$`"), text: strings.TrimSpace(val) != "", pos: f.pos}
	return g
}

// envInners returns what the program name runs because of its
// environment: git's editors, pagers and ssh commands (GIT_SSH_COMMAND …),
// GIT_SSH as a program, GIT_CONFIG_COUNT/KEY_n/VALUE_n settings, less's
// LESSOPEN/LESSCLOSE input filters, man's pager.
func envInners(name string, args []field, env []string) []inner {
	if len(env) == 0 {
		return nil
	}
	pos := field{pos: fieldPos(args)}
	lookup := func(n string) (string, bool) {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == n {
				return v, true
			}
		}
		return "", false
	}
	var out []inner
	switch name {
	case "git":
		seen := map[string]bool{}
		for i := len(env) - 1; i >= 0; i-- {
			k, v, ok := strings.Cut(env[i], "=")
			if !ok || seen[k] || v == "" {
				continue
			}
			seen[k] = true
			switch {
			case gitEnvShell(k):
				f := envField(v, pos)
				out = append(out, inner{label: "git " + k, script: &f})
			case k == "GIT_EXEC_PATH" || k == "GIT_TEMPLATE_DIR":
				o := field{s: "git " + k + "=" + v, pos: pos.pos}
				out = append(out, inner{label: "git " + k, script: &o})
			case k == "GIT_SSH":
				f := envField(v, pos)
				out = append(out, inner{label: "git " + k, argv: []field{f}})
			}
		}
		if c, ok := lookup("GIT_CONFIG_COUNT"); ok {
			n, err := strconv.Atoi(c)
			if err != nil {
				break
			}
			for j := 0; j < min(n, 64); j++ {
				key, ok1 := lookup("GIT_CONFIG_KEY_" + strconv.Itoa(j))
				val, ok2 := lookup("GIT_CONFIG_VALUE_" + strconv.Itoa(j))
				if ok1 && ok2 {
					out = append(out, gitConfigExec(key, envField(val, pos), "", nil)...)
				}
			}
		}
	case "less", "more", "most", "man", "pager":
		for _, k := range []string{"LESSOPEN", "LESSCLOSE", "MANPAGER", "PAGER"} {
			v, ok := lookup(k)
			if !ok || v == "" || (name != "man" && (k == "MANPAGER" || k == "PAGER")) {
				continue
			}
			v = strings.TrimLeft(v, "|-")
			f := envField(v, pos)
			out = append(out, inner{label: name + " " + k, script: &f})
		}
	}
	return out
}

// vimShell matches the Ex commands that run a shell command: :!cmd,
// :r !cmd, :w !cmd, :silent !cmd (after an optional range).
var vimShell = lazy[*regexp.Regexp]{build: func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*:*\s*(?:sil(?:ent)?!?\s*)?(?:(?:r(?:ead)?|w(?:rite)?)\s*)?[0-9,.$%'<>]*\s*!(.*)$`)
}}

// vimOpaque matches Ex commands that run code the analysis does not read:
// system() and jobs, a terminal, :shell, an embedded interpreter, a
// sourced file, :execute of a built string.
var vimOpaque = lazy[*regexp.Regexp]{build: func() *regexp.Regexp {
	return regexp.MustCompile(`^(term(inal)?|sh(ell)?|py(thon)?3?|pyx|pythonx|py3?do|py3?file|pyxfile|lua(do|file)?|perl(do)?|ruby(do|file)?|so(urce)?|ru(ntime)?|exe(cute)?)\b|\b(system(list)?|jobstart|job_start|termopen|libcall\w*)\s*\(`)
}}

// unwrapVim finds the shell commands of vim/ex/nvim -c CMD, +CMD and
// --cmd CMD.
func unwrapVim(name string, args []field) []inner {
	var out []inner
	cmd := func(f field) {
		// Commands separated by | (where a ! command does not take it as
		// its own).
		if m := vimShell.get().FindStringSubmatch(f.s); m != nil {
			s := sub(f, m[1])
			out = append(out, inner{label: name + " !", script: &s})
			return
		}
		for _, part := range strings.Split(f.s, "|") {
			if m := vimShell.get().FindStringSubmatch(part); m != nil {
				s := sub(f, m[1])
				out = append(out, inner{label: name + " !", script: &s})
				return
			}
		}
		for _, part := range strings.Split(f.s, "|") {
			p := strings.TrimLeft(part, " \t:")
			p = strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(p, "silent!"), "silent"), " \t")
			if vimOpaque.get().MatchString(p) || !f.lit {
				o := opaque(f, name+" "+f.s)
				out = append(out, inner{label: name, script: &o})
				return
			}
		}
	}
	for i := 0; i < len(args); i++ {
		f := args[i]
		switch {
		case f.lit && f.s == "--":
			return out
		case f.lit && (f.s == "-c" || f.s == "--cmd") && i+1 < len(args):
			i++
			cmd(args[i])
		case strings.HasPrefix(f.s, "+") && len(f.s) > 1 && f.s[1] != '/' && (f.s[1] < '0' || f.s[1] > '9'):
			cmd(sub(f, f.s[1:]))
		case f.lit && (f.s == "-S" || f.s == "-s") && i+1 < len(args):
			i++ // a script of Ex commands read from a file: like a source file, not followed
		}
	}
	return out
}

// unwrapEmacs finds shell commands in emacs --eval EXPR: the string given
// to shell-command and friends; other process calls are Dynamic.
var emacsShell = lazy[*regexp.Regexp]{build: func() *regexp.Regexp {
	return regexp.MustCompile(`\((?:async-)?shell-command(?:-to-string)?\s+"((?:[^"\\]|\\.)*)"`)
}}
var emacsOpaque = lazy[*regexp.Regexp]{build: func() *regexp.Regexp {
	return regexp.MustCompile(`\((?:async-)?shell-command|\((?:call|start|make)-process|\(process-file|\(call-process-shell-command|\(start-process-shell-command|\(compile\b|\(load\b|\(eval\b`)
}}

func unwrapEmacs(name string, args []field) []inner {
	var out []inner
	for i := 0; i < len(args); i++ {
		f := args[i]
		var expr field
		switch {
		case (f.s == "--eval" || f.s == "-eval" || f.s == "--execute" || f.s == "-execute") && i+1 < len(args):
			i++
			expr = args[i]
		case strings.HasPrefix(f.s, "--eval=") || strings.HasPrefix(f.s, "--execute="):
			_, v, _ := strings.Cut(f.s, "=")
			expr = sub(f, v)
		default:
			continue
		}
		found := false
		for _, m := range emacsShell.get().FindAllStringSubmatch(expr.s, 8) {
			s := sub(expr, strings.ReplaceAll(strings.ReplaceAll(m[1], `\"`, `"`), `\\`, `\`))
			out = append(out, inner{label: name + " --eval", script: &s})
			found = true
		}
		if !found && (emacsOpaque.get().MatchString(expr.s) || !expr.lit) {
			o := opaque(expr, name+" --eval "+expr.s)
			out = append(out, inner{label: name + " --eval", script: &o})
		}
	}
	return out
}

// unwrapGdb finds the shell commands of gdb -ex / -iex / --eval-command
// CMD (shell CMD, !CMD, pipe) and lldb -o / -O / --one-line CMD
// (platform shell CMD, script …): python and script code is opaque.
func unwrapGdb(name string, args []field) []inner {
	var out []inner
	cmd := func(f field) {
		s := strings.TrimSpace(f.s)
		switch {
		case strings.HasPrefix(s, "!"):
			v := sub(f, s[1:])
			out = append(out, inner{label: name + " shell", script: &v})
		case strings.HasPrefix(s, "shell ") || strings.HasPrefix(s, "platform shell "):
			v := sub(f, s[strings.Index(s, "shell ")+6:])
			out = append(out, inner{label: name + " shell", script: &v})
		case strings.HasPrefix(s, "python") || strings.HasPrefix(s, "pi ") || strings.HasPrefix(s, "py ") ||
			strings.HasPrefix(s, "script") || strings.HasPrefix(s, "guile") || strings.HasPrefix(s, "pipe") ||
			strings.HasPrefix(s, "|") || strings.HasPrefix(s, "source") || !f.lit:
			o := opaque(f, name+" "+s)
			out = append(out, inner{label: name, script: &o})
		}
	}
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit {
			continue
		}
		if f.s == "--args" && (name == "gdb" || name == "gdb-multiarch" || name == "cgdb") {
			if i+1 < len(args) {
				out = append(out, inner{label: name + " --args", argv: args[i+1:]})
			}
			return out
		}
		if f.s == "--" && name == "lldb" {
			if i+1 < len(args) {
				out = append(out, inner{label: name + " --", argv: args[i+1:]})
			}
			return out
		}
		opt, val, eq := strings.Cut(f.s, "=")
		isOpt := false
		switch name {
		case "gdb", "gdb-multiarch", "cgdb":
			isOpt = opt == "-ex" || opt == "--ex" || opt == "-iex" || opt == "--iex" || opt == "-eval-command" || opt == "--eval-command" || opt == "-init-eval-command" || opt == "--init-eval-command"
		case "lldb":
			isOpt = opt == "-o" || opt == "-O" || opt == "--one-line" || opt == "--one-line-before-file" || opt == "-k" || opt == "--one-line-on-crash"
		}
		if !isOpt {
			continue
		}
		if eq {
			cmd(sub(f, val))
		} else if i+1 < len(args) {
			i++
			cmd(args[i])
		}
	}
	return out
}

var psqlPipe = lazy[*regexp.Regexp]{build: func() *regexp.Regexp { return regexp.MustCompile(`\\(o|g|gx|w|out)\s*\|(.*)$`) }}

// dbShell finds the shell escapes in the statements a database client
// runs from its command line: psql's \! and \o|/\g|/\w| pipes, mysql's
// system and \!, sqlite3's .shell/.system and .output|/.once| pipes.
func dbShell(name string, text field) []inner {
	var out []inner
	lines := strings.FieldsFunc(text.s, func(r rune) bool { return r == '\n' || r == ';' })
	if name == "psql" {
		// psql meta-commands end at the line, not at ;.
		lines = strings.Split(text.s, "\n")
	}
	for _, line := range lines {
		l := strings.TrimSpace(line)
		var cmd string
		found := false
		switch name {
		case "psql":
			if i := strings.Index(l, `\!`); i >= 0 {
				cmd, found = l[i+2:], true
			} else if m := psqlPipe.get().FindStringSubmatch(l); m != nil {
				cmd, found = m[2], true
			}
		case "mysql", "mariadb":
			low := strings.ToLower(l)
			switch {
			case strings.HasPrefix(low, "system "):
				cmd, found = l[7:], true
			case strings.HasPrefix(l, `\!`):
				cmd, found = l[2:], true
			}
		case "sqlite3", "sqlite":
			for _, p := range []string{".shell ", ".system "} {
				if strings.HasPrefix(l, p) {
					cmd, found = l[len(p):], true
				}
			}
			for _, p := range []string{".output ", ".once ", ".import "} {
				if strings.HasPrefix(l, p) {
					if rest := strings.TrimSpace(l[len(p):]); strings.HasPrefix(rest, "|") || strings.HasPrefix(rest, "'|") || strings.HasPrefix(rest, `"|`) {
						cmd, found = strings.Trim(strings.TrimLeft(rest, `'"|`), `'"`), true
					}
				}
			}
		}
		if found {
			v := sub(text, strings.TrimSpace(cmd))
			out = append(out, inner{label: name + " shell", script: &v})
		}
	}
	return out
}

// unwrapDB finds the statements a database client runs from its command
// line: psql -c/--command, mysql -e/--execute, sqlite3 DB SQL… and -cmd.
func unwrapDB(name string, args []field) []inner {
	var out []inner
	switch name {
	case "psql":
		opts, _ := optSpec{short: "cdfhpUvLoTFPR", long: []string{"--command", "--dbname", "--file", "--host",
			"--port", "--username", "--set", "--variable", "--log-file", "--output", "--table-attr",
			"--field-separator", "--pset", "--record-separator"}}.parse(args)
		for _, c := range values(opts, "-c", "--command") {
			out = append(out, dbShell(name, c)...)
		}
	case "mysql", "mariadb":
		opts, _ := optSpec{short: "euPSDh", optional: "p", long: []string{"--execute", "--user", "--password", "--host",
			"--port", "--socket", "--database", "--defaults-file", "--init-command"}}.parse(args)
		for _, c := range values(opts, "-e", "--execute", "--init-command") {
			out = append(out, dbShell(name, c)...)
		}
	case "sqlite3", "sqlite":
		// sqlite3 [OPTIONS] DB [SQL…]; options are single-dash words.
		var operands []field
		for i := 0; i < len(args); i++ {
			f := args[i]
			o := strings.TrimPrefix(f.s, "-")
			switch {
			case !f.lit || !strings.HasPrefix(f.s, "-") || f.s == "-":
				operands = append(operands, f)
			case (o == "cmd" || o == "-cmd") && i+1 < len(args):
				i++
				out = append(out, dbShell(name, args[i])...)
			case sqliteValue(strings.TrimPrefix(o, "-")) && i+1 < len(args):
				i++
			}
		}
		for _, o := range operands[min(1, len(operands)):] {
			out = append(out, dbShell(name, o)...)
		}
	}
	return out
}

// sqliteValue reports sqlite3's options that take a value.
func sqliteValue(o string) bool {
	switch o {
	case "separator", "newline", "nullvalue", "init", "vfs", "maxsize", "mmap", "pagecache", "lookaside", "heap", "escape":
		return true
	}
	return false
}

// unwrapSed finds what GNU sed runs: the e COMMAND command (a shell
// string) and e without a command or the s///e flag (the pattern space,
// known only at run time).
func unwrapSed(args []field) []inner {
	opts, operands := optSpec{short: "eflS", long: []string{"--expression", "--file", "--line-length", "--separate"}}.parse(args)
	if has(opts, "--sandbox") {
		return nil
	}
	scripts := values(opts, "-e", "--expression")
	if len(scripts) == 0 && !has(opts, "-f", "--file") && len(operands) > 0 {
		scripts = operands[:1]
	}
	var out []inner
	for _, sc := range scripts {
		for _, c := range sedExec(sc.s) {
			if c.write {
				continue
			}
			if c.pattern {
				o := opaque(sc, "sed "+c.text)
				out = append(out, inner{label: "sed e", script: &o})
				continue
			}
			v := sub(sc, c.text)
			out = append(out, inner{label: "sed e", script: &v})
		}
	}
	return out
}

type sedCmd struct {
	text    string
	pattern bool // runs the pattern space
	write   bool // text is the file of a w/W command or an s///w flag
}

// sedExec scans a sed script for e commands and s///e: addresses,
// regular expressions and replacement texts are skipped. a, i, c, r, w
// and friends take the rest of the line.
func sedExec(s string) []sedCmd {
	var out []sedCmd
	i := 0
	skipRe := func(delim byte) {
		for i < len(s) && s[i] != delim {
			if s[i] == '\\' {
				i++
			}
			i++
		}
		i = min(i+1, len(s))
	}
	for i < len(s) && len(out) < 16 {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';' || s[i] == '{' || s[i] == '}') {
			i++
		}
		// Address: numbers, $, /re/, \cREc, first~step, ranges, !.
		for i < len(s) {
			c := s[i]
			switch {
			case c >= '0' && c <= '9', c == '$', c == ',', c == '~', c == '+', c == '!', c == ' ':
				i++
				continue
			case c == '/':
				i++
				skipRe('/')
				for i < len(s) && (s[i] == 'I' || s[i] == 'M') {
					i++
				}
				continue
			case c == '\\' && i+1 < len(s):
				d := s[i+1]
				i += 2
				skipRe(d)
				continue
			}
			break
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		i++
		switch c {
		case 'e':
			j := strings.IndexAny(s[i:], "\n")
			if j < 0 {
				j = len(s) - i
			}
			text := strings.TrimSpace(s[i : i+j])
			i += j
			if text == "" {
				out = append(out, sedCmd{text: "e", pattern: true})
			} else {
				out = append(out, sedCmd{text: text})
			}
		case 's', 'y':
			if i >= len(s) {
				return out
			}
			d := s[i]
			i++
			skipRe(d)
			skipRe(d)
			if c == 's' {
				start := i
				for i < len(s) && strings.IndexByte("gpiIeEmM0123456789w", s[i]) >= 0 {
					if s[i] == 'w' {
						break
					}
					i++
				}
				if strings.IndexByte(s[start:i], 'e') >= 0 {
					out = append(out, sedCmd{text: "s" + string(d) + "…" + string(d) + "e", pattern: true})
				}
				if i < len(s) && s[i] == 'w' {
					// s///w FILE: the file is the rest of the line.
					i++
					j := strings.IndexByte(s[i:], '\n')
					if j < 0 {
						j = len(s) - i
					}
					if f := strings.TrimSpace(s[i : i+j]); f != "" {
						out = append(out, sedCmd{text: f, write: true})
					}
					i += j
				}
			}
		case 'a', 'i', 'c', 'r', 'R', 'w', 'W', ':', 'b', 't', 'T', 'q', 'Q', 'l', 'L', 'v', '#':
			j := strings.IndexByte(s[i:], '\n')
			if c == 'w' || c == 'W' {
				// w FILE, W FILE: the file is the rest of the line.
				end := j
				if end < 0 {
					end = len(s) - i
				}
				if f := strings.TrimSpace(s[i : i+end]); f != "" {
					out = append(out, sedCmd{text: f, write: true})
				}
			}
			if c == 'b' || c == 't' || c == 'T' || c == 'q' || c == 'Q' || c == 'l' || c == 'L' || c == 'v' {
				if k := strings.IndexByte(s[i:], ';'); k >= 0 && (j < 0 || k < j) {
					j = k
				}
			}
			if j < 0 {
				return out
			}
			i += j
		}
	}
	return out
}

// hiddenOptions are options of other programs whose value is a command
// they run: shell strings, or (argv) words the program splits itself.
type hiddenOpt struct {
	names  []string // option names: "-TT", "--unzip-command"; "=" forms are read too
	argv   bool     // the value is split into words, not run by a shell
	remote bool     // runs on the other host
}

// hiddenOpts is sorted by name (TestTablesSorted).
var hiddenOpts = []named[[]hiddenOpt]{
	{"man", []hiddenOpt{{names: []string{"-P", "--pager"}}}},
	{"rsync", []hiddenOpt{{names: []string{"--rsync-path"}, remote: true}, {names: []string{"-e", "--rsh"}, argv: true}}},
	{"scp", []hiddenOpt{{names: []string{"-o"}}, {names: []string{"-S"}, argv: true}}},
	{"sftp", []hiddenOpt{{names: []string{"-o"}}, {names: []string{"-S"}, argv: true}}},
	{"split", []hiddenOpt{{names: []string{"--filter"}}}}, // split --filter=COMMAND: $SHELL -c COMMAND per piece
	{"ssh", []hiddenOpt{{names: []string{"-o"}}}},
	{"tar", []hiddenOpt{{names: []string{"--to-command", "--use-compress-program", "--info-script", "--new-volume-script", "-I", "-F"}},
		{names: []string{"--checkpoint-action"}}}},
	{"zip", []hiddenOpt{{names: []string{"-TT", "--unzip-command"}}}},
}

// unwrapHidden returns the commands hidden in name's options (hiddenOpts),
// apt's -o …::Pre-Invoke/Post-Invoke hooks and ssh's -o ProxyCommand-style
// settings.
func unwrapHidden(name string, args []field) []inner {
	var out []inner
	add := func(h hiddenOpt, n string, v field) {
		switch {
		case n == "--checkpoint-action":
			if !strings.HasPrefix(v.s, "exec=") {
				return
			}
			v = sub(v, v.s[5:])
		case n == "-o":
			k, val, ok := strings.Cut(v.s, "=")
			if !ok {
				k, val, ok = strings.Cut(strings.TrimSpace(v.s), " ")
			}
			if !ok {
				return
			}
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "proxycommand", "localcommand", "knownhostscommand":
				v = sub(v, strings.TrimSpace(val))
			default:
				return
			}
		}
		if h.argv && v.lit {
			if argv := litWords(v.s, v.pos); len(argv) > 0 {
				out = append(out, inner{label: name + " " + n, argv: argv})
			}
			return
		}
		out = append(out, inner{label: name + " " + n, script: &v, remote: h.remote})
	}
	if name == "apt-get" || name == "apt" || name == "aptitude" {
		for i := 0; i < len(args); i++ {
			f := args[i]
			var v field
			switch {
			case (f.s == "-o" || f.s == "--option") && i+1 < len(args):
				i++
				v = args[i]
			case strings.HasPrefix(f.s, "-o") && len(f.s) > 2:
				v = sub(f, f.s[2:])
			case strings.HasPrefix(f.s, "--option="):
				v = sub(f, f.s[9:])
			default:
				continue
			}
			k, val, ok := strings.Cut(v.s, "=")
			lk := strings.ToLower(strings.TrimRight(k, ":"))
			if ok && (strings.HasSuffix(lk, "invoke") || strings.HasSuffix(lk, "invoke-success") || strings.HasSuffix(lk, "pre-install-pkgs")) {
				s := sub(v, val)
				out = append(out, inner{label: name + " -o " + k, script: &s})
			}
		}
		return out
	}
	specs, _ := lookup(hiddenOpts, name)
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit && !strings.HasPrefix(f.s, "-") {
			continue
		}
		if f.s == "--" {
			break
		}
		for _, h := range specs {
			for _, n := range h.names {
				switch {
				case f.s == n && i+1 < len(args):
					add(h, n, args[i+1])
				case strings.HasPrefix(f.s, n+"=") && strings.HasPrefix(n, "--"):
					add(h, n, sub(f, f.s[len(n)+1:]))
				case len(n) == 2 && len(f.s) > 2 && f.s[0] == '-' && f.s[1] != '-':
					// A cluster: -IVALUE, -cIzstd, -cI VALUE, -ae CMD.
					if v, ok := clusterValue(f, args[i+1:], n[1], clusterValued(name)); ok {
						add(h, n, v)
					}
				}
			}
		}
	}
	return out
}

// clusterValued are the short options that take a value, per program, so
// that a cluster is read up to the option wanted: in tar -cfI the I is
// -f's value.
func clusterValued(name string) string {
	switch name {
	case "tar":
		return tarOpts.short
	case "rsync":
		return rsyncOpts.short
	case "ssh":
		return sshOpts.short
	case "scp":
		return scpOpts.short
	case "sftp":
		return sftpOpts.short
	case "man":
		return manShort
	}
	return ""
}

// clusterValue returns the value of the short option c in the cluster f
// (the rest of the word, or the next word), unless an earlier option of
// the cluster takes the rest as its own value.
func clusterValue(f field, next []field, c byte, valued string) (field, bool) {
	for j := 1; j < len(f.s); j++ {
		switch {
		case f.s[j] == c && j+1 < len(f.s):
			return sub(f, f.s[j+1:]), true
		case f.s[j] == c && len(next) > 0:
			return next[0], true
		case f.s[j] == c:
			return field{}, false
		case strings.IndexByte(valued, f.s[j]) >= 0:
			return field{}, false
		}
	}
	return field{}, false
}

// makeStdin reports make -f - / -f /dev/stdin (the makefile, whose recipes
// are shell commands, is read from standard input): an unknown program
// unless it is known.
func makeStdin(args []field) bool {
	opts, _ := optSpec{short: "fCIjlEoOW", long: []string{"--file", "--makefile", "--directory", "--include-dir", "--jobs", "--load-average", "--eval", "--old-file", "--what-if", "--assume-old", "--assume-new", "--new-file"}}.parse(args)
	for _, f := range values(opts, "-f", "--file", "--makefile") {
		if f.s == "-" || f.s == "/dev/stdin" || f.s == "/dev/fd/0" || f.s == "/proc/self/fd/0" || f.proc != nil || !f.lit {
			return true
		}
	}
	return false
}
