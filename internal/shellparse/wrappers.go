package shellparse

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// inner is a command a wrapper runs: an argument vector or a shell string.
type inner struct {
	label  string // the wrapper as recorded in Command.Wrappers
	argv   []field
	script *field   // a shell string to parse instead of argv
	remote bool     // runs on another host or in a container
	cwd    *field   // working directory of the inner command (env -C)
	direct bool     // the inner command is a shell builtin call (command, builtin)
	env    []string // NAME=value assignments the wrapper adds (env X=1, sudo X=1)
	stdin  bool     // the script is what the wrapper reads on standard input (at, crontab -)
	cron   bool     // … and that script is a crontab
	alt    bool     // the second reading of an option the table cannot place (firstAlt)
	// mounts: the inner command runs in a new container (docker run)
	// whose file system is its own but for these host directories; nil
	// when the analysis cannot tell (the paths are then taken as the
	// host's, as for ssh).
	mounts  *[]mount
	workdir *field // docker run -w DIR
}

// wrapSpec describes a wrapper of the form: options, a fixed number of
// operands, then the command and its arguments.
type wrapSpec struct {
	opts     optSpec
	skip     int      // operands before the command (timeout DURATION, chrt PRIO…)
	stop     string   // short flags meaning there is no command (ionice -p)
	stopLong []string // long flags meaning the same
	assigns  bool     // NAME=value words may come before the command
	remote   bool
}

// wrappers is sorted by name (TestTablesSorted).
var wrappers = []named[wrapSpec]{
	{"caffeinate", wrapSpec{opts: optSpec{short: "tw"}}},
	{"catchsegv", wrapSpec{}},
	{"cgexec", wrapSpec{opts: optSpec{short: "g"}}},
	{"chroot", wrapSpec{opts: optSpec{abbrev: true,
		long:  []string{"--groups", "--userspec"},
		flags: []string{"--help", "--skip-chdir", "--version"}}, skip: 1}},
	{"chrt", wrapSpec{opts: optSpec{short: "TPD", abbrev: true,
		long:  []string{"--sched-deadline", "--sched-period", "--sched-runtime"},
		flags: []string{"--all-tasks", "--batch", "--deadline", "--fifo", "--help", "--idle", "--max", "--other", "--pid", "--reset-on-fork", "--rr", "--verbose", "--version"}},
		skip: 1, stop: "pm", stopLong: []string{"--pid", "--max"}}},
	{"dbus-run-session", wrapSpec{}},
	{"doas", wrapSpec{opts: optSpec{short: "uC"}}},
	{"dotenv", wrapSpec{opts: optSpec{short: "ecv"}}},
	{"dumb-init", wrapSpec{}},
	{"entr", wrapSpec{}},
	{"exec", wrapSpec{opts: optSpec{short: "a"}}},
	{"fakeroot", wrapSpec{opts: optSpec{short: "lsi", long: []string{"--lib", "--faked"}}}},
	{"faketime", wrapSpec{skip: 1}},
	{"firejail", wrapSpec{}},
	{"gosu", wrapSpec{skip: 1}},
	{"ionice", wrapSpec{opts: optSpec{short: "cnpPu", abbrev: true,
		long:  []string{"--class", "--classdata", "--pgid", "--pid", "--uid"},
		flags: []string{"--help", "--ignore", "--version"}},
		stop: "pPu", stopLong: []string{"--pid", "--pgid", "--uid"}}},
	{"ltrace", wrapSpec{opts: optSpec{short: "oepsnulxaADw"}}},
	{"nice", wrapSpec{opts: optSpec{short: "n", abbrev: true,
		long:  []string{"--adjustment"},
		flags: []string{"--help", "--version"}}}},
	{"nohup", wrapSpec{}},
	{"nsenter", wrapSpec{opts: optSpec{short: "tSG", optional: "muinpUCTrw", abbrev: true,
		long:  []string{"--setgid", "--setuid", "--target"},
		flags: []string{"--all", "--cgroup", "--follow-context", "--help", "--ipc", "--mount", "--net", "--no-fork", "--pid", "--preserve-credentials", "--root", "--time", "--user", "--uts", "--version", "--wd"}}}},
	{"numactl", wrapSpec{opts: optSpec{short: "CNmpiP", long: []string{"--interleave", "--membind", "--cpunodebind", "--physcpubind", "--preferred"}}}},
	{"pkexec", wrapSpec{opts: optSpec{long: []string{"--user"}}}},
	{"prlimit", wrapSpec{opts: optSpec{short: "op", abbrev: true,
		long:  []string{"--output", "--pid"},
		flags: []string{"--as", "--core", "--cpu", "--data", "--fsize", "--help", "--locks", "--memlock", "--msgqueue", "--nice", "--nofile", "--noheadings", "--nproc", "--raw", "--rss", "--rtprio", "--rttime", "--sigpending", "--stack", "--verbose", "--version"}}, stop: "p", stopLong: []string{"--pid"}}},
	{"proxychains", wrapSpec{opts: optSpec{short: "f"}}},
	{"proxychains4", wrapSpec{opts: optSpec{short: "f"}}},
	{"run0", wrapSpec{opts: optSpec{short: "ugD", long: []string{"--user", "--group", "--chdir", "--setenv", "--unit",
		"--property", "--description", "--slice", "--nice", "--background", "--machine"}}}},
	{"setpriv", wrapSpec{opts: optSpec{abbrev: true, long: []string{"--ambient-caps", "--apparmor-profile", "--bounding-set", "--egid", "--euid", "--groups", "--inh-caps", "--pdeathsig", "--regid", "--reuid", "--rgid", "--ruid", "--securebits", "--selinux-label"},
		flags: []string{"--clear-groups", "--dump", "--help", "--init-groups", "--keep-groups", "--nnp", "--reset-env", "--version"}}}},
	{"setsid", wrapSpec{opts: optSpec{abbrev: true,
		flags: []string{"--ctty", "--fork", "--help", "--version", "--wait"}}}},
	{"shx", wrapSpec{}},
	{"ssh-agent", wrapSpec{opts: optSpec{short: "aEPt"}}},
	{"sshpass", wrapSpec{opts: optSpec{short: "pfdP"}}},
	{"stdbuf", wrapSpec{opts: optSpec{short: "ioe", abbrev: true,
		long:  []string{"--error", "--input", "--output"},
		flags: []string{"--help", "--version"}}}},
	{"strace", wrapSpec{opts: optSpec{short: "oepsIbaEuXPS"}}},
	{"su-exec", wrapSpec{skip: 1}},
	{"sudo", wrapSpec{opts: optSpec{short: "ugpUCDhrtTR", abbrev: true,
		long:  []string{"--chdir", "--chroot", "--close-from", "--command-timeout", "--group", "--host", "--other-user", "--prompt", "--role", "--type", "--user"},
		flags: []string{"--askpass", "--background", "--bell", "--edit", "--help", "--list", "--login", "--non-interactive", "--preserve-env", "--preserve-groups", "--remove-timestamp", "--reset-timestamp", "--set-home", "--shell", "--stdin", "--validate", "--version"}},
		stop: "eKlvV", stopLong: []string{"--edit", "--remove-timestamp", "--list", "--validate", "--version", "--help"},
		assigns: true}},
	{"systemd-run", wrapSpec{opts: optSpec{short: "pEMHu", abbrev: true,
		long:  []string{"--capsule", "--description", "--gid", "--host", "--machine", "--nice", "--on-active", "--on-boot", "--on-calendar", "--on-startup", "--on-unit-active", "--on-unit-inactive", "--path-property", "--property", "--service-type", "--setenv", "--slice", "--socket-property", "--timer-property", "--uid", "--unit", "--working-directory"},
		flags: []string{"--collect", "--help", "--no-ask-password", "--no-block", "--on-clock-change", "--on-timezone-change", "--pipe", "--pty", "--quiet", "--remain-after-exit", "--same-dir", "--scope", "--send-sighup", "--shell", "--slice-inherit", "--user", "--version", "--wait"}}}},
	{"taskset", wrapSpec{opts: optSpec{abbrev: true,
		flags: []string{"--all-tasks", "--cpu-list", "--help", "--pid", "--version"}}, skip: 1, stop: "p", stopLong: []string{"--pid"}}},
	{"time", wrapSpec{opts: optSpec{short: "fo", abbrev: true,
		long:  []string{"--format", "--output"},
		flags: []string{"--append", "--help", "--portability", "--quiet", "--verbose", "--version"}}}},
	{"timeout", wrapSpec{opts: optSpec{short: "ks", abbrev: true,
		long:  []string{"--kill-after", "--signal"},
		flags: []string{"--foreground", "--help", "--preserve-status", "--verbose", "--version"}}, skip: 1}},
	{"tini", wrapSpec{opts: optSpec{short: "spe"}}},
	{"torsocks", wrapSpec{opts: optSpec{short: "udpaP", long: []string{"--user", "--pass", "--address", "--port"}}}},
	{"tsocks", wrapSpec{}},
	{"unbuffer", wrapSpec{}},
	{"unshare", wrapSpec{opts: optSpec{short: "SGwR", abbrev: true,
		long:  []string{"--boottime", "--map-group", "--map-groups", "--map-user", "--map-users", "--monotonic", "--propagation", "--root", "--setgid", "--setgroups", "--setuid", "--wd"},
		flags: []string{"--cgroup", "--fork", "--help", "--ipc", "--keep-caps", "--kill-child", "--map-auto", "--map-current-user", "--map-root-user", "--mount", "--mount-proc", "--net", "--pid", "--time", "--user", "--uts", "--version"}}}},
	{"uvx", wrapSpec{opts: optSpec{short: "pw", long: []string{"--from", "--with", "--python", "--index", "--index-url",
		"--extra-index-url", "--with-requirements", "--with-editable", "--directory", "--project"}}}},
	{"valgrind", wrapSpec{}},
	{"xvfb-run", wrapSpec{opts: optSpec{short: "nsfepw", long: []string{"--server-num", "--server-args",
		"--auth-file", "--error-file", "--xauth-protocol", "--wait"}}}},
}

// subWrappers are wrappers that take a subcommand first: `uv run cmd`,
// sorted by name and subcommand (TestTablesSorted).
var subWrappers = []named[[]named[wrapSpec]]{
	{"aws-vault", []named[wrapSpec]{{"exec", wrapSpec{skip: 1}}}},
	{"bundle", []named[wrapSpec]{{"exec", wrapSpec{}}}},
	{"direnv", []named[wrapSpec]{{"exec", wrapSpec{skip: 1}}}},
	{"hatch", []named[wrapSpec]{{"run", wrapSpec{}}}},
	{"mise", []named[wrapSpec]{{"exec", wrapSpec{}}, {"x", wrapSpec{}}}},
	{"nix", []named[wrapSpec]{}},
	{"op", []named[wrapSpec]{{"run", wrapSpec{}}}},
	{"pdm", []named[wrapSpec]{{"run", wrapSpec{}}}},
	{"pipenv", []named[wrapSpec]{{"run", wrapSpec{}}}},
	{"pipx", []named[wrapSpec]{{"run", wrapSpec{opts: optSpec{long: []string{"--spec", "--python", "--index-url", "--pip-args"}}}}}},
	{"pixi", []named[wrapSpec]{{"run", wrapSpec{}}}},
	{"pnpm", []named[wrapSpec]{{"dlx", wrapSpec{}}, {"exec", wrapSpec{}}}},
	{"poetry", []named[wrapSpec]{{"run", wrapSpec{}}}},
	{"rye", []named[wrapSpec]{{"run", wrapSpec{}}}},
	{"uv", []named[wrapSpec]{{"run", wrapSpec{opts: optSpec{short: "pw", long: []string{"--with", "--python", "--project",
		"--directory", "--extra", "--group", "--env-file", "--package", "--index", "--index-url",
		"--extra-index-url", "--with-requirements", "--with-editable"}}}}}},
	{"yarn", []named[wrapSpec]{{"dlx", wrapSpec{}}, {"exec", wrapSpec{}}}},
}

// unwrap returns the commands run by the wrapper name with arguments args,
// and the commands hidden in its options (execopts.go).
func unwrap(name string, args []field) []inner {
	out := unwrapCommandOf(name, args)
	out = append(out, unwrapDeferred(name, args)...)
	out = append(out, readerInners(name, args)...)
	if len(out) > 0 && (name == "npx" || name == "bunx" || name == "pnpx" || name == "pnpm" || name == "yarn" || name == "npm") {
		for k := range out {
			out[k].argv = pkgBin(out[k].argv)
		}
	}
	switch name {
	case "git":
		out = append(out, unwrapGit(args)...)
	case "vim", "vi", "nvim", "ex", "view", "vimdiff", "gvim", "rvim", "nvi", "evim":
		out = append(out, unwrapVim(name, args)...)
	case "emacs", "emacsclient":
		out = append(out, unwrapEmacs(name, args)...)
	case "gdb", "gdb-multiarch", "cgdb", "lldb":
		out = append(out, unwrapGdb(name, args)...)
	case "psql", "mysql", "mariadb", "sqlite3", "sqlite":
		out = append(out, unwrapDB(name, args)...)
	case "sed", "gsed":
		out = append(out, unwrapSed(args)...)
	case "make", "gmake":
		if makeStdin(args) {
			o := field{s: name + " -f - (a makefile read from standard input)", pos: fieldPos(args)}
			out = append(out, inner{label: name + " -f -", script: &o})
		}
	case "zip", "rsync", "tar", "gtar", "bsdtar", "ssh", "scp", "sftp", "man", "apt-get", "apt", "aptitude", "split":
		if name == "gtar" || name == "bsdtar" {
			name = "tar"
		}
		out = append(out, unwrapHidden(name, args)...)
	}
	return out
}

// unwrapCommandOf returns the command a wrapper runs.
func unwrapCommandOf(name string, args []field) []inner {
	if spec, ok := lookup(wrappers, name); ok {
		var out []inner
		add := func(argv []field, alt bool) {
			if len(argv) == 0 {
				return
			}
			var env []string
			if spec.assigns {
				for i := len(args) - len(argv) - 1; i >= 0 && args[i].lit && isAssignment(args[i].s); i-- {
					env = append([]string{args[i].s}, env...)
				}
			}
			out = append(out, inner{label: name, argv: argv, remote: spec.remote, env: env, alt: alt})
		}
		add(spec.command(args), false)
		if j, ok := spec.opts.firstAlt(args); ok {
			// An option the table cannot place: both readings run.
			add(spec.commandAt(args, j), true)
		}
		return out
	}
	if subs, ok := lookup(subWrappers, name); ok && len(args) > 0 && args[0].lit {
		if spec, ok := lookup(subs, args[0].s); ok {
			rest := args[1:]
			if name == "mise" || name == "op" {
				rest = afterDashDash(rest)
			}
			if argv := spec.command(rest); len(argv) > 0 {
				return []inner{{label: name + " " + args[0].s, argv: argv}}
			}
		}
	}
	switch name {
	case "deno":
		return denoPackage(args)
	case "env":
		return unwrapEnv(args)
	case "command":
		return unwrapCommand(args)
	case "builtin":
		if len(args) > 0 {
			return []inner{{label: name, argv: args, direct: true}}
		}
	case "xargs":
		return unwrapXargs(args)
	case "parallel":
		return unwrapParallel(args)
	case "find":
		return unwrapFind(args)
	case "fd", "fdfind":
		return unwrapFd(name, args)
	case "flock":
		return unwrapFlock(args)
	case "watch":
		return unwrapWatch(args)
	case "su", "runuser":
		return unwrapSu(name, args)
	case "sg":
		return unwrapSg(args)
	case "script":
		return unwrapScript(args)
	case "busybox", "toybox":
		if len(args) > 0 && args[0].lit && !strings.HasPrefix(args[0].s, "-") {
			return []inner{{label: name, argv: args}}
		}
	case "ssh":
		return unwrapSSH(args)
	case "socat":
		return unwrapSocat(args)
	case "ncat", "nc", "netcat":
		return unwrapNcat(name, args)
	case "docker", "podman", "nerdctl":
		return unwrapDocker(name, args)
	case "kubectl", "oc":
		return unwrapKubectl(name, args)
	case "nix-shell":
		opts, _ := optSpec{short: "pIA", long: []string{"--run", "--command", "--packages", "--attr", "--arg", "--argstr"}}.parse(args)
		if s := values(opts, "--run", "--command"); len(s) > 0 {
			return []inner{{label: name, script: &s[len(s)-1]}}
		}
	case "npx", "bunx", "pnpx":
		spec := optSpec{short: "pc", long: []string{"--package", "--call"}}
		opts, _ := spec.parse(args)
		if s := values(opts, "-c", "--call"); len(s) > 0 {
			return []inner{{label: name, script: &s[len(s)-1]}}
		}
		if argv := args[spec.first(args):]; len(argv) > 0 {
			return []inner{{label: name, argv: argv}}
		}
	case "npm":
		if len(args) > 0 && args[0].lit && (args[0].s == "exec" || args[0].s == "x") {
			return unwrapCommandOf("npx", args[1:])
		}
	}
	if name == "nix" && len(args) > 0 && args[0].lit && (args[0].s == "develop" || args[0].s == "shell") {
		for i, f := range args {
			if f.lit && (f.s == "-c" || f.s == "--command") && i+1 < len(args) {
				return []inner{{label: "nix " + args[0].s, argv: args[i+1:]}}
			}
		}
	}
	return nil
}

// command returns the command after the wrapper's options and operands.
func (w wrapSpec) command(args []field) []field {
	return w.commandAt(args, w.opts.first(args))
}

// commandAt is command with the options ending at i.
func (w wrapSpec) commandAt(args []field, i int) []field {
	opts, _ := w.opts.parse(args[:i])
	for _, o := range opts {
		if (len(o.name) == 2 && w.stop != "" && strings.IndexByte(w.stop, o.name[1]) >= 0) ||
			slices.Contains(w.stopLong, o.name) {
			return nil
		}
	}
	for n := 0; n < w.skip && i < len(args); n++ {
		i++
	}
	if w.skip > 0 && i < len(args) && args[i].lit && args[i].s == "--" {
		i++
	}
	for w.assigns && i < len(args) && args[i].lit && isAssignment(args[i].s) {
		i++
	}
	return args[i:]
}

func afterDashDash(args []field) []field {
	for i, f := range args {
		if f.lit && f.s == "--" {
			return args[i+1:]
		}
	}
	return args
}

// unwrapEnv handles env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… CMD.
func unwrapEnv(args []field) []inner {
	args = slices.Clone(args)
	var cwd *field
	var env []string
	for guard := 0; guard < 64; guard++ {
		split := -1 // index of the -S value
		i := 0
	scan:
		for ; i < len(args); i++ {
			f := args[i]
			s := f.s
			switch {
			case !f.lit && isAssignment(s):
				env = append(env, s) // NAME=$value: still an assignment
			case !f.lit || s == "":
				break scan
			case s == "--":
				i++
				break scan
			case s == "-":
			case strings.HasPrefix(s, "--"):
				name, val, ok := strings.Cut(s, "=")
				name = envOpts.longName(name) // --ch DIR is --chdir DIR
				switch name {
				case "--split-string":
					if ok {
						args[i] = litField(val, f.pos)
						split = i
						i++
						break scan
					}
					split = i + 1
					i += 2
					break scan
				case "--unset", "--chdir":
					if !ok {
						i++
						if name == "--chdir" && i < len(args) {
							cwd = &args[i]
						}
					} else if name == "--chdir" {
						v := litField(val, f.pos)
						cwd = &v
					}
				}
			case s[0] == '-':
				for j := 1; j < len(s); j++ {
					c := s[j]
					if c != 'u' && c != 'C' && c != 'S' && c != 'P' {
						continue
					}
					var val *field
					if j+1 < len(s) {
						v := litField(s[j+1:], f.pos)
						args[i] = v
						val = &args[i]
					} else if i+1 < len(args) {
						i++
						val = &args[i]
					}
					if c == 'C' {
						cwd = val
					}
					if c == 'S' && val != nil {
						split = i
						i++
						break scan
					}
					break
				}
			case isAssignment(s):
				env = append(env, s)
			default:
				break scan
			}
		}
		if split < 0 || split >= len(args) {
			if i >= len(args) {
				return nil
			}
			return []inner{{label: "env", argv: args[i:], cwd: cwd, env: env}}
		}
		// env -S: the string is split into words that env reads again.
		v := args[split]
		if !v.lit {
			return []inner{{label: "env", argv: append([]field{v}, args[min(i, len(args)):]...), cwd: cwd, env: env}}
		}
		args = append(litWords(v.s, v.pos), args[min(i, len(args)):]...)
	}
	return nil
}

// unwrapCommand handles command [-p] CMD; command -v/-V runs nothing.
func unwrapCommand(args []field) []inner {
	i := 0
	for ; i < len(args) && args[i].lit && strings.HasPrefix(args[i].s, "-") && len(args[i].s) > 1; i++ {
		if args[i].s == "--" {
			i++
			break
		}
		if strings.ContainsAny(args[i].s, "vV") {
			return nil
		}
	}
	if i >= len(args) {
		return nil
	}
	return []inner{{label: "command", argv: args[i:], direct: true}}
}

// findNamed is what find's {} stands for when the search has one literal
// starting point and one test -name (or -iname) with a literal basename and
// no -o: START/NAME (the file may sit deeper, but the start and the name
// are what path rules judge).
func findNamed(args []field) (string, bool) {
	var start, name string
	starts, names := 0, 0
	i := 0
	for i < len(args) && args[i].lit && len(args[i].s) == 2 && strings.ContainsAny(args[i].s[1:], "HLP") && args[i].s[0] == '-' {
		i++
	}
	for ; i < len(args); i++ {
		a := args[i]
		if a.lit && (strings.HasPrefix(a.s, "-") || a.s == "(" || a.s == "!") {
			break
		}
		if !a.lit {
			return "", false
		}
		start = a.s
		starts++
	}
	for ; i < len(args); i++ {
		a := args[i]
		if !a.lit {
			continue
		}
		switch a.s {
		case "-o", "-or", "-not", "!", ",":
			return "", false
		case "-exec", "-execdir", "-ok", "-okdir":
			// The words up to the terminator are the command's.
			for i++; i < len(args) && !(args[i].lit && (args[i].s == ";" || args[i].s == "+")); i++ {
			}
		case "-name", "-iname":
			if i+1 >= len(args) || !args[i+1].lit {
				return "", false
			}
			name = args[i+1].s
			names++
			i++
		}
	}
	if starts > 1 || names != 1 || name == "" || strings.ContainsAny(name, "*?[\\/") {
		return "", false
	}
	if starts == 0 {
		start = "."
	}
	return strings.TrimSuffix(start, "/") + "/" + name, true
}

// unwrapFind returns the commands of every -exec, -execdir, -ok and -okdir.
func unwrapFind(args []field) []inner {
	var out []inner
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit || (f.s != "-exec" && f.s != "-execdir" && f.s != "-ok" && f.s != "-okdir") {
			continue
		}
		j := i + 1
		for j < len(args) && !(args[j].lit && (args[j].s == ";" || (args[j].s == "+" && j > i+1 && args[j-1].s == "{}"))) {
			j++
		}
		if j > i+1 {
			argv := args[i+1 : j]
			if name, ok := findNamed(args); ok {
				argv = slices.Clone(argv)
				for k := range argv {
					if argv[k].lit && argv[k].s == "{}" {
						argv[k].s = name
					}
				}
			}
			out = append(out, inner{label: "find " + f.s, argv: argv})
		}
		i = j
	}
	return out
}

// unwrapFd handles fd … -x/--exec CMD and -X/--exec-batch CMD.
func unwrapFd(name string, args []field) []inner {
	for i, f := range args {
		if f.lit && (f.s == "-x" || f.s == "--exec" || f.s == "-X" || f.s == "--exec-batch") && i+1 < len(args) {
			j := i + 1
			for j < len(args) && !(args[j].lit && args[j].s == ";") {
				j++
			}
			return []inner{{label: name + " " + f.s, argv: args[i+1 : j]}}
		}
	}
	return nil
}

// unwrapFlock handles flock [options] FILE CMD… and flock [options] FILE -c CMD.
func unwrapFlock(args []field) []inner {
	spec := flockOpts
	i := spec.first(args)
	opts, _ := spec.parse(args[:i])
	if s := values(opts, "-c", "--command"); len(s) > 0 {
		return []inner{{label: "flock", script: &s[0]}}
	}
	i++ // the lock file or descriptor
	if i >= len(args) {
		return nil
	}
	if args[i].lit && (args[i].s == "-c" || (strings.HasPrefix(args[i].s, "--") && spec.longName(args[i].s) == "--command")) {
		if i+1 < len(args) {
			return []inner{{label: "flock", script: &args[i+1]}}
		}
		return nil
	}
	if args[i].lit && args[i].s == "--" {
		i++
	}
	if i >= len(args) {
		return nil
	}
	return []inner{{label: "flock", argv: args[i:]}}
}

// unwrapWatch handles watch [options] CMD…: the words are joined and run by
// sh -c, unless -x/--exec.
func unwrapWatch(args []field) []inner {
	spec := watchOpts
	i := spec.first(args)
	opts, _ := spec.parse(args[:i])
	if i >= len(args) {
		return nil
	}
	if has(opts, "-x", "--exec") {
		return []inner{{label: "watch", argv: args[i:]}}
	}
	s := joinFields(args[i:])
	return []inner{{label: "watch", script: &s}}
}

// unwrapSu handles su/runuser [options] [-] [USER] [-c CMD]; runuser -u USER
// CMD… runs the command directly.
func unwrapSu(name string, args []field) []inner {
	if name == "runuser" {
		spec := runuserOpts
		i := spec.first(args)
		opts, _ := spec.parse(args[:i])
		if has(opts, "-u", "--user") && !has(opts, "-c", "--command") {
			if i < len(args) {
				return []inner{{label: name, argv: args[i:]}}
			}
			return nil
		}
	}
	opts, _ := suOpts.parse(args)
	if s := values(opts, "-c", "--command", "--session-command"); len(s) > 0 {
		return []inner{{label: name, script: &s[len(s)-1]}}
	}
	return nil
}

// unwrapSg handles sg [-] GROUP [-c] CMD: the command is a shell string.
func unwrapSg(args []field) []inner {
	i := 0
	if i < len(args) && args[i].lit && args[i].s == "-" {
		i++
	}
	i++ // group
	if i < len(args) && args[i].lit && args[i].s == "-c" {
		i++
	}
	if i >= len(args) {
		return nil
	}
	s := joinFields(args[i:])
	return []inner{{label: "sg", script: &s}}
}

// unwrapScript handles script [options] -c CMD [FILE].
func unwrapScript(args []field) []inner {
	opts, _ := scriptOpts.parse(args)
	if s := values(opts, "-c", "--command"); len(s) > 0 {
		return []inner{{label: "script", script: &s[len(s)-1]}}
	}
	return nil
}

// unwrapSSH handles ssh [options] HOST [CMD…]: the words after the host are
// joined and run by the remote user's shell.
func unwrapSSH(args []field) []inner {
	i := sshOpts.first(args)
	if i+1 >= len(args) {
		return nil
	}
	rest := args[i+1:]
	if rest[0].lit && rest[0].s == "--" {
		rest = rest[1:]
	}
	if len(rest) == 0 {
		return nil
	}
	s := joinFields(rest)
	return []inner{{label: "ssh", script: &s, remote: true}}
}

var dockerGlobal = optSpec{short: "cHl", long: []string{"--config", "--context", "--host", "--log-level", "--tlscacert", "--tlscert", "--tlskey"}}

var dockerExec = optSpec{short: "euw", long: []string{"--env", "--env-file", "--user", "--workdir", "--detach-keys"}}

var dockerRun = optSpec{short: "acehlmpuvw", long: []string{"--add-host", "--attach", "--blkio-weight",
	"--cap-add", "--cap-drop", "--cgroup-parent", "--cgroupns", "--cidfile", "--cpu-period", "--cpu-quota",
	"--cpu-shares", "--cpus", "--cpuset-cpus", "--cpuset-mems", "--device", "--dns", "--dns-option",
	"--dns-search", "--domainname", "--entrypoint", "--env", "--env-file", "--expose", "--gpus",
	"--group-add", "--health-cmd", "--hostname", "--ip", "--ip6", "--ipc", "--isolation", "--label",
	"--label-file", "--link", "--log-driver", "--log-opt", "--mac-address", "--memory", "--memory-swap",
	"--mount", "--name", "--network", "--net", "--network-alias", "--pid", "--platform", "--publish",
	"--pull", "--restart", "--runtime", "--security-opt", "--shm-size", "--stop-signal", "--stop-timeout",
	"--storage-opt", "--sysctl", "--tmpfs", "--ulimit", "--user", "--userns", "--uts", "--volume",
	"--volume-driver", "--volumes-from", "--workdir", "--memory-reservation", "--pids-limit", "--annotation"}}

// unwrapDocker handles docker [container] exec [options] CONTAINER CMD…,
// docker [container] run [options] IMAGE [CMD…] and docker compose
// exec|run [options] SERVICE CMD….
func unwrapDocker(name string, args []field) []inner {
	i := dockerGlobal.first(args)
	if i < len(args) && args[i].lit && (args[i].s == "container" || args[i].s == "compose") {
		i++
		if args[i-1].s == "compose" {
			i += optSpec{short: "fp", long: []string{"--file", "--project-name", "--profile", "--env-file", "--project-directory"}}.first(args[i:])
		}
	}
	if i >= len(args) || !args[i].lit {
		return nil
	}
	var spec optSpec
	switch args[i].s {
	case "exec":
		spec = dockerExec
	case "run":
		spec = dockerRun
	default:
		return nil
	}
	sub := args[i].s
	rest := args[i+1:]
	j := spec.first(rest)
	if j+1 >= len(rest) {
		return nil
	}
	in := inner{label: name + " " + sub, argv: rest[j+1:], remote: true}
	if sub == "run" {
		in.mounts, in.workdir = containerMounts(rest[:j])
	}
	return []inner{in}
}

// unwrapKubectl handles kubectl exec [options] POD [--] CMD….
func unwrapKubectl(name string, args []field) []inner {
	global := optSpec{short: "ns", long: []string{"--namespace", "--context", "--kubeconfig", "--cluster", "--user", "--server", "--token"}}
	i := global.first(args)
	if i >= len(args) || !args[i].lit || args[i].s != "exec" {
		return nil
	}
	rest := args[i+1:]
	for j, f := range rest {
		if f.lit && f.s == "--" {
			if j+1 < len(rest) {
				return []inner{{label: name + " exec", argv: rest[j+1:], remote: true}}
			}
			return nil
		}
	}
	spec := optSpec{short: "cnf", long: append([]string{"--container", "--filename", "--pod-running-timeout"}, global.long...)}
	j := spec.first(rest)
	if j+1 >= len(rest) {
		return nil
	}
	return []inner{{label: name + " exec", argv: rest[j+1:], remote: true}}
}

func fieldPos(fs []field) syntax.Pos {
	if len(fs) > 0 {
		return fs[0].pos
	}
	return syntax.Pos{}
}

// unwrapSocat finds the programs socat starts: an EXEC:PROGRAM ARGS
// address (a word list, not a shell string) and a SYSTEM:STRING address
// (a shell string). socat's address options follow the first comma.
func unwrapSocat(args []field) []inner {
	var out []inner
	for _, f := range args {
		if !f.lit {
			continue
		}
		kind, rest, ok := strings.Cut(f.s, ":")
		if !ok {
			continue
		}
		cmd := socatCommand(rest)
		switch strings.ToUpper(kind) {
		case "EXEC":
			if argv := litWords(cmd, f.pos); len(argv) > 0 {
				out = append(out, inner{label: "socat EXEC", argv: argv})
			}
		case "SYSTEM":
			sf := litField(cmd, f.pos)
			out = append(out, inner{label: "socat SYSTEM", script: &sf})
		}
	}
	return out
}

// socatCommand is an EXEC/SYSTEM address's command: up to the first comma
// that is not escaped or quoted.
func socatCommand(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ',':
			return s[:i]
		}
	}
	return s
}

// unwrapNcat finds the program a netcat runs for each connection: -e
// PROGRAM / --exec PROGRAM (a word list) and -c STRING / --sh-exec STRING
// (a shell string).
func unwrapNcat(name string, args []field) []inner {
	var out []inner
	for i := 0; i < len(args); i++ {
		f := args[i]
		if !f.lit {
			continue
		}
		opt, val, eq := strings.Cut(f.s, "=")
		var v *field
		switch {
		case eq && (opt == "--exec" || opt == "--sh-exec"):
			vf := litField(val, f.pos)
			v = &vf
		case (f.s == "-e" || f.s == "-c" || f.s == "--exec" || f.s == "--sh-exec") && i+1 < len(args):
			i++
			v = &args[i]
		default:
			continue
		}
		if f.s == "-c" || opt == "--sh-exec" {
			out = append(out, inner{label: name + " " + opt, script: v})
			continue
		}
		if !v.lit {
			out = append(out, inner{label: name + " " + opt, argv: []field{*v}})
			continue
		}
		if argv := litWords(v.s, v.pos); len(argv) > 0 {
			out = append(out, inner{label: name + " " + opt, argv: argv})
		}
	}
	return out
}

// pkgBin turns the package a runner fetches into the program it runs:
// rimraf@5 is rimraf, @scope/tool@1.2 is tool.
func pkgBin(argv []field) []field {
	if len(argv) == 0 || !argv[0].lit {
		return argv
	}
	s := argv[0].s
	if i := strings.LastIndexByte(s, '@'); i > 0 {
		s = s[:i]
	}
	if strings.HasPrefix(s, "@") {
		if j := strings.IndexByte(s, '/'); j >= 0 {
			s = s[j+1:]
		}
	}
	if s == argv[0].s {
		return argv
	}
	out := append([]field{sub(argv[0], s)}, argv[1:]...)
	return out
}

// denoPackage: deno run [opts] npm:PKG[@v] ARGS (or jsr:) runs the
// package's program, like npx PKG.
func denoPackage(args []field) []inner {
	if len(args) == 0 || !args[0].lit || args[0].s != "run" {
		return nil
	}
	spec := optSpec{short: "cL", long: []string{"--config", "--import-map", "--lock", "--cert", "--location", "--seed", "--ext", "--watch-exclude", "--log-level"}}
	rest := args[1:]
	i := spec.first(rest)
	if i >= len(rest) || !rest[i].lit {
		return nil
	}
	for _, pre := range []string{"npm:", "jsr:"} {
		if pkg, ok := strings.CutPrefix(rest[i].s, pre); ok && pkg != "" {
			argv := append([]field{sub(rest[i], pkg)}, rest[i+1:]...)
			return []inner{{label: "deno run", argv: pkgBin(argv)}}
		}
	}
	return nil
}
