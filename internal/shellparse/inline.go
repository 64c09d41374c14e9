package shellparse

import (
	"regexp"
	"strings"
)

// interpreter returns the language of the interpreter name, or "".
func interpreter(name string) string {
	trim := strings.TrimRight(name, "0123456789.")
	switch trim {
	case "python", "pypy", "python-dbg":
		return "python"
	case "perl":
		return "perl"
	case "ruby", "jruby", "truffleruby":
		return "ruby"
	case "node", "nodejs", "bun":
		return "node"
	case "deno":
		return "deno"
	case "php":
		return "php"
	case "lua", "luajit":
		return "lua"
	case "osascript":
		return "osascript"
	case "Rscript":
		return "r"
	case "julia":
		return "julia"
	case "awk", "gawk", "mawk", "nawk":
		return "awk"
	case "pwsh", "powershell":
		return "pwsh"
	}
	return ""
}

// inlineCode finds the program text of an interpreter one-liner: the code,
// the option that gave it ("-c", "-e"; "" for awk), and whether one was
// found. stdin reports that the program is read from standard input.
func inlineCode(lang string, args []field) (code field, flag string, found, stdin bool) {
	switch lang {
	case "python":
		return pythonCode(args)
	case "perl":
		p := parsePerl(args)
		return p.code, "-e", p.hasCode, !p.hasCode && len(p.operands) == 0
	case "ruby":
		return clusterCode(args, "eE", "rICEx", "-e")
	case "lua":
		return clusterCode(args, "e", "l", "-e")
	case "node":
		for i := 0; i < len(args); i++ {
			f := args[i]
			s := f.s
			if !f.lit || !strings.HasPrefix(s, "-") || s == "-" {
				return field{}, "", false, !f.lit || s == "-"
			}
			if s == "--" {
				return field{}, "", false, i+1 >= len(args)
			}
			if v, ok := strings.CutPrefix(s, "--eval="); ok {
				return litField(v, f.pos), "-e", true, false
			}
			if v, ok := strings.CutPrefix(s, "--print="); ok {
				return litField(v, f.pos), "-p", true, false
			}
			switch {
			case s == "-e" || s == "--eval" || s == "-p" || s == "--print" || s == "-pe" || s == "-ep":
				if i+1 < len(args) {
					flag := "-e"
					if strings.Contains(s, "p") {
						flag = "-p"
					}
					return args[i+1], flag, true, false
				}
				return field{}, "", false, false
			case s == "-r" || s == "--require" || s == "--import" || s == "--loader" || s == "--input-type" || s == "--env-file":
				i++
			}
		}
		return field{}, "", false, true
	case "deno":
		if len(args) > 0 && args[0].lit && args[0].s == "eval" {
			i := optSpec{long: []string{"--ext", "--config", "--import-map", "--location", "--seed", "--v8-flags", "--cert"}}.first(args[1:]) + 1
			if i < len(args) {
				return args[i], "eval", true, false
			}
		}
	case "php":
		return clusterCode(args, "rBRFE", "dcfz", "-r")
	case "osascript", "r", "julia":
		var codes []field
		for i := 0; i < len(args); i++ {
			if args[i].lit && (args[i].s == "-e" || args[i].s == "-E" || args[i].s == "--eval") && i+1 < len(args) {
				codes = append(codes, args[i+1])
				i++
			}
		}
		if len(codes) > 0 {
			f := joinFields(codes)
			return f, "-e", true, false
		}
	case "awk":
		spec := optSpec{short: "Fvfi", long: []string{"--field-separator", "--assign", "--file", "--include", "--load"}}
		opts, ops := spec.parse(args)
		if has(opts, "-f", "--file") || len(ops) == 0 {
			return field{}, "", false, false
		}
		return ops[0], "", true, false
	case "pwsh":
		for i, f := range args {
			if f.lit && (strings.EqualFold(f.s, "-c") || strings.EqualFold(f.s, "-command")) && i+1 < len(args) {
				return joinFields(args[i+1:]), "-c", true, false
			}
		}
	}
	return field{}, "", false, false
}

// pythonCode handles python [options] -c CODE, including clusters (-Bc).
func pythonCode(args []field) (field, string, bool, bool) {
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		if !f.lit || !strings.HasPrefix(s, "-") || s == "-" {
			return field{}, "", false, !f.lit || s == "-"
		}
		if s == "--" {
			return field{}, "", false, i+1 >= len(args)
		}
		if strings.HasPrefix(s, "--") {
			continue
		}
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'c':
				if j+1 < len(s) {
					return litField(s[j+1:], f.pos), "-c", true, false
				}
				if i+1 < len(args) {
					return args[i+1], "-c", true, false
				}
				return field{}, "", false, false
			case 'm':
				return field{}, "", false, false
			case 'W', 'X':
				if j+1 == len(s) {
					i++
				}
				j = len(s)
			}
		}
	}
	return field{}, "", false, true
}

// clusterCode handles interpreters whose code options may end a cluster
// (ruby -ne CODE): codeOpts give code, valOpts take a value; several code
// options are joined by newlines.
func clusterCode(args []field, codeOpts, valOpts, flag string) (field, string, bool, bool) {
	var codes []field
	for i := 0; i < len(args); i++ {
		f := args[i]
		s := f.s
		if !f.lit || !strings.HasPrefix(s, "-") || s == "-" || s == "--" {
			break
		}
		if strings.HasPrefix(s, "--") {
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			if strings.IndexByte(codeOpts, c) >= 0 {
				if j+1 < len(s) {
					codes = append(codes, litField(s[j+1:], f.pos))
				} else if i+1 < len(args) {
					i++
					codes = append(codes, args[i])
				}
				break
			}
			if strings.IndexByte(valOpts, c) >= 0 {
				if j+1 == len(s) {
					i++
				}
				break
			}
		}
	}
	if len(codes) == 0 {
		return field{}, "", false, len(args) == 0
	}
	code := codes[0]
	if len(codes) > 1 {
		code = joinFields(codes)
		code.s = strings.Join(texts(codes), "\n")
	}
	return code, flag, true, false
}

// perlArgs is what the analysis reads from a perl command line.
type perlArgs struct {
	code     field
	hasCode  bool
	inPlace  bool
	operands []field // script file (when no -e) and data files
}

func parsePerl(args []field) perlArgs {
	var p perlArgs
	var codes []field
	i := 0
loop:
	for ; i < len(args); i++ {
		f := args[i]
		s := f.s
		if !f.lit || !strings.HasPrefix(s, "-") || s == "-" {
			break
		}
		if s == "--" {
			i++
			break
		}
		for j := 1; j < len(s); j++ {
			switch s[j] {
			case 'e', 'E':
				if j+1 < len(s) {
					codes = append(codes, litField(s[j+1:], f.pos))
				} else if i+1 < len(args) {
					i++
					codes = append(codes, args[i])
				}
				continue loop
			case 'i':
				p.inPlace = true
				continue loop
			case 'I', 'M', 'm', 'x', 'd', 'D', 'C', 'V':
				if s[j] == 'I' && j+1 == len(s) {
					i++
				}
				continue loop
			case 'l', '0':
				for j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
					j++
				}
			}
		}
	}
	p.operands = args[min(i, len(args)):]
	if len(codes) > 0 {
		p.hasCode = true
		p.code = codes[0]
		if len(codes) > 1 {
			p.code = joinFields(codes)
			p.code.s = strings.Join(texts(codes), "\n")
		}
	}
	return p
}

// interp records the one-liner of an interpreter and analyzes the shell
// commands its code runs.
func (a *analyzer) interp(idx int, lang, name string, args []field, x runCtx) {
	code, flag, found, stdin := inlineCode(lang, args)
	knowsStdin := lang == "python" || lang == "perl" || lang == "node" || lang == "ruby" || lang == "lua"
	if (found || (!stdin && knowsStdin)) && !runsInput(code) {
		// The program comes from -c/-e, a script file or a module:
		// standard input is data (curl … | python3 -m json.tool), unless
		// the code hands what it reads to exec/eval.
		a.dataInput(idx)
	}
	label := name
	if f, ok := inputCode(args, code, found); ok {
		// xargs fills in an option, the script or the module: the code
		// that runs is unknown (`xargs python`, `xargs -I{} perl -M{} -e …`).
		code, found, flag = f, true, ""
	}
	if !found {
		if !stdin || x.in == nil || x.in.opaque {
			return
		}
		code = x.in.f
	} else if flag != "" {
		label = name + " " + flag
	}
	a.cmds[idx].Inline = code.s
	wx := x.with(label)
	if wx.depth > a.opts.MaxDepth {
		a.fail(&LimitError{Limit: "depth", Max: a.opts.MaxDepth})
		return
	}
	if !code.lit {
		srcs := appendSources(append([]Source(nil), x.srcs...), code.srcs...)
		a.emit(Command{Dynamic: true, DynamicText: code.s, Wrappers: wx.wrappers, Sources: srcs, Pos: x.pos})
		if code.subst {
			return
		}
	}
	a.budget -= len(code.s)
	if a.budget < 0 {
		a.fail(&LimitError{Limit: "size", Max: a.opts.MaxBytes})
		return
	}
	a.codeCalls(lang, code, wx, 0)
}

// inputCode reports an argument that xargs fills in from unknown input
// before the program is fixed: before the inline code when there is one,
// else before the first operand (the script file or module name).
func inputCode(args []field, code field, found bool) (field, bool) {
	for _, f := range args {
		if found && f.pos == code.pos && f.s == code.s {
			return field{}, false
		}
		if f.input {
			return f, true
		}
		if !found && f.lit && !strings.HasPrefix(f.s, "-") {
			return field{}, false
		}
	}
	return field{}, false
}

// execInput matches code that may run what it reads: exec, eval and
// friends, or a shell call.
var execInput = lazy[*regexp.Regexp]{build: func() *regexp.Regexp {
	return regexp.MustCompile(`\b(exec\w*|eval|compile|Function|system|popen|spawn\w*|execSync|fork|instance_eval|class_eval|loadstring|dofile|Invoke-Expression|iex|subprocess|Popen)\b|` + "`")
}}

// runsInput reports inline code that could execute its standard input.
func runsInput(code field) bool {
	return code.s != "" && (!code.lit || code.s == "-" || execInput.get().MatchString(code.s))
}
