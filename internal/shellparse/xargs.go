package shellparse

import (
	"slices"
	"strings"
)

// unwrapXargs handles xargs [options] [CMD [ARGS]]; without a command xargs
// runs echo.
func unwrapXargs(args []field) []inner {
	argv := args[xargsOpts.first(args):]
	if len(argv) == 0 {
		argv = []field{litField("echo", fieldPos(args))}
	}
	return []inner{{label: "xargs", argv: argv}}
}

// xargsRepl is the replacement string of xargs -I/-i/-J, or "".
func xargsRepl(args []field) string {
	opts, _ := xargsOpts.parse(args[:xargsOpts.first(args)])
	if r := values(opts, "-I", "--replace", "-i", "-J"); len(r) > 0 {
		return r[len(r)-1].s
	} else if has(opts, "-i", "--replace") {
		return "{}"
	}
	return ""
}

// xargsUnknown marks what xargs fills in from an input the analysis does
// not know: the words holding the -I string, or, for a shell or an
// interpreter (whose script or code the input then is), the words it
// appends. `xargs bash -c` and `xargs -I{} sh -c {}` run unknown scripts.
func xargsUnknown(args []field, in inner) inner {
	contains := func(s string) bool { return false }
	if args == nil { // parallel
		if slices.ContainsFunc(in.argv, func(f field) bool { return parallelRepl(f.s) }) {
			contains = parallelRepl
		}
	} else if repl := xargsRepl(args); repl != "" {
		contains = func(s string) bool { return strings.Contains(s, repl) }
	}
	argv := slices.Clone(in.argv)
	if args == nil || xargsRepl(args) != "" {
		replaced := false
		for i, f := range argv {
			if f.lit && contains(f.s) {
				replaced = true
				if args == nil && !strings.HasPrefix(f.s, "-") && strings.TrimSpace(fillParallel(f.s, "")) != "" &&
					!(argv[0].lit && interpreter(progName(argv[0].s)) != "") {
					// parallel quotes what it fills in: in `sh -c 'echo {}'`
					// the input is one word of a known script. (Not so in
					// an interpreter's code: python -c 'print("{}")'.)
					continue
				}
				argv[i].lit = false
				argv[i].input = true
				argv[i].text = strings.TrimSpace(fillParallel(strings.ReplaceAll(f.s, xargsRepl(args), ""), "")) != ""
				if i > 0 {
					// The program's arguments show where the input goes:
					// `rm -r{}` gives "-r{xargs input}".
					if args == nil {
						argv[i].s = fillParallel(f.s, InputWord)
					} else {
						argv[i].s = strings.ReplaceAll(f.s, xargsRepl(args), InputWord)
					}
				}
			}
		}
		if replaced || args != nil {
			in.argv = argv
			return in
		}
	}
	if len(argv) > 0 && argv[0].lit {
		// The unknown input is appended to the command's arguments.
		in.argv = append(argv, field{s: InputWord, input: true, pos: fieldPos(argv)})
	}
	return in
}

// InputWord stands, in a command's arguments, for what xargs or parallel
// read from a standard input the analysis does not know: `xargs git
// reset` gives git ["reset", "{xargs input}"], `xargs -I{} rm -{} /` gives
// rm ["-{xargs input}", "/"].
const InputWord = "{xargs input}"

// xargsInput builds the commands xargs runs when its input is known: the
// input words appended, or each line put in place of the -I string (at
// most 16 lines).
func xargsInput(args []field, in inner, stdin field) []inner {
	opts, _ := xargsOpts.parse(args[:xargsOpts.first(args)])
	repl := xargsRepl(args)
	var words []string
	switch {
	case has(opts, "-0", "--null"):
		words = strings.Split(strings.TrimRight(stdin.s, "\x00"), "\x00")
	case repl != "":
		words = strings.Split(strings.TrimRight(stdin.s, "\n"), "\n")
	default:
		words = splitWords(stdin.s)
	}
	if repl == "" {
		argv := slices.Clone(in.argv)
		for _, w := range words[:min(len(words), 1024)] {
			argv = append(argv, litField(w, stdin.pos))
		}
		in.argv = argv
		return []inner{in}
	}
	var out []inner
	for _, line := range words[:min(len(words), 16)] {
		argv := slices.Clone(in.argv)
		for i, f := range argv {
			if f.lit && strings.Contains(f.s, repl) {
				argv[i] = litField(strings.ReplaceAll(f.s, repl, line), f.pos)
			}
		}
		out = append(out, inner{label: in.label, argv: argv})
	}
	return out
}

var parallelOpts = optSpec{short: "jSaIdnNPCELs", long: []string{"--jobs", "--sshlogin", "--arg-file",
	"--nice", "--header", "--rpl", "--tagstring", "--sshdelay", "--ssh", "--max-lines", "--max-replace-args",
	"--max-chars", "--block", "--block-size", "--termseq", "--limit", "--wd", "--semaphorename", "--id",
	"--tmux", "--shebang-wrap", "--filter", "--retry-failed", "--csv", "--tee", "--compress-program",
	"--delimiter", "--max-args", "--colsep", "--joblog", "--results", "--env", "--tmpdir", "--workdir",
	"--timeout", "--retries", "--halt", "--basefile", "--transfer-file", "--return", "--sshloginfile", "--memfree", "--load", "--delay"}}

// unwrapParallel handles GNU parallel [options] CMD ::: ARGS. The command
// words are joined and run by a shell; each argument (of the first :::
// group, up to 16) fills the replacement strings ({}, {1}, {.} …) or is
// appended when there is none. Without a command the arguments are the
// commands. Without ::: the arguments come from standard input: unknown
// (see xargsUnknown), or, without a command, unknown commands.
func unwrapParallel(args []field) []inner {
	out := parallelAt(args, parallelOpts.first(args))
	if j, ok := parallelOpts.firstAlt(args); ok {
		// An option the table cannot place (--jo 4): both readings run.
		alt := parallelAt(args, j)
		for k := range alt {
			alt[k].alt = true
		}
		out = append(out, alt...)
	}
	return out
}

// parallelAt is unwrapParallel with the options ending at i.
func parallelAt(args []field, i int) []inner {
	opts, _ := parallelOpts.parse(args[:i])
	perl := parallelPerl(args, values(opts, "--rpl"))
	if has(opts, "--dry-run", "--dryrun", "--version", "--help", "-h", "--number-of-cpus", "--number-of-cores") {
		return perl
	}
	j := i
	for j < len(args) && !(args[j].lit && strings.HasPrefix(args[j].s, ":::")) {
		j++
	}
	cmd := args[i:j]
	var vals []field
	if j < len(args) {
		for _, f := range args[j+1:] {
			if f.lit && strings.HasPrefix(f.s, ":::") {
				break
			}
			vals = append(vals, f)
		}
	}
	if j >= len(args) || (j+1 < len(args) && args[j].s != ":::") {
		// Arguments from standard input or a file (:::: FILE, ::::+).
		if len(cmd) == 0 {
			f := field{s: "{parallel input}", input: true, pos: fieldPos(args)}
			return append(perl, inner{label: "parallel", script: &f})
		}
		if len(cmd) == 1 {
			s := cmd[0]
			return append(perl, inner{label: "parallel", script: &s})
		}
		in := xargsUnknown(nil, inner{label: "parallel", argv: slices.Clone(cmd)})
		return append(perl, in)
	}
	if len(cmd) == 0 {
		out := perl
		for k := range vals[:min(len(vals), 16)] {
			out = append(out, inner{label: "parallel", script: &vals[k]})
		}
		return out
	}
	repl := slices.ContainsFunc(cmd, func(f field) bool { return parallelRepl(f.s) })
	if len(vals) == 0 {
		vals = []field{{lit: true}}
	}
	out := perl
	for _, v := range vals[:min(len(vals), 16)] {
		words := slices.Clone(cmd)
		for k := range words {
			if repl && parallelRepl(words[k].s) {
				w := words[k]
				w.s = fillParallel(w.s, v.s)
				w.lit = w.lit && v.lit
				words[k] = w
			}
			if len(cmd) > 1 && words[k].lit {
				words[k].s = Quote(words[k].s)
			}
		}
		if !repl && (v.s != "" || !v.lit) {
			q := v
			if v.lit {
				q.s = Quote(v.s)
			}
			words = append(words, q)
		}
		s := joinFields(words)
		out = append(out, inner{label: "parallel", script: &s})
	}
	return out
}

// parallelPerl returns the Perl code parallel itself evaluates, even under
// --dry-run: {= … =} (and {=N … =}) replacement strings in its words and
// --rpl definitions. Each runs as perl -e CODE, so that the code's system
// calls are found. At most 16.
func parallelPerl(args, rpl []field) []inner {
	var out []inner
	add := func(code field) {
		if len(out) < 16 {
			out = append(out, inner{label: "parallel", argv: []field{litField("perl", code.pos), litField("-e", code.pos), code}})
		}
	}
	for _, f := range rpl {
		add(f)
	}
	for _, f := range args {
		s := f.s
		for len(out) < 16 {
			i := strings.Index(s, "{=")
			if i < 0 {
				break
			}
			j := strings.Index(s[i+2:], "=}")
			if j < 0 {
				break
			}
			code := f
			code.s = strings.TrimLeft(s[i+2:i+2+j], "0123456789")
			add(code)
			s = s[i+2+j+2:]
		}
	}
	return out
}

// parallelRepls are GNU parallel's replacement strings.
var parallelRepls = []string{"{}", "{.}", "{/}", "{//}", "{/.}", "{1}", "{1.}", "{1/}", "{1//}", "{1/.}"}

func parallelRepl(s string) bool {
	for _, r := range parallelRepls {
		if strings.Contains(s, r) {
			return true
		}
	}
	return false
}

// fillParallel puts the argument v in place of the replacement strings of
// s (the derived forms {.} {/} … get v too: a superset of what runs).
func fillParallel(s, v string) string {
	for _, r := range parallelRepls {
		s = strings.ReplaceAll(s, r, v)
	}
	return s
}
