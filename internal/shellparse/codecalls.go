package shellparse

import (
	"strings"
)

// The call tables below are switches, not maps: a package-level map is
// built at every process start, even for a call that never reaches a
// shell analysis.

// shellCall reports, per language, the functions whose first string
// argument is run by a shell, or whose list argument is an argument vector.
func shellCall(lang, id string) bool {
	switch lang {
	case "python":
		switch id {
		case "system", "popen", "getoutput", "getstatusoutput", "check_output", "check_call", "call", "run", "Popen", "spawn",
			"execv", "execvp", "execve", "execvpe", "execl", "execlp", "execle", "execlpe", "spawnv", "spawnvp", "spawnl", "spawnlp", "posix_spawn", "posix_spawnp":
			return true
		}
	case "perl":
		return id == "system" || id == "exec"
	case "ruby":
		switch id {
		case "system", "exec", "spawn", "popen", "capture2", "capture2e", "capture3", "popen2", "popen2e", "popen3", "pipeline":
			return true
		}
	case "node":
		switch id {
		case "exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync", "execa", "execaSync", "execaCommand", "execaCommandSync":
			return true
		}
	case "deno":
		switch id {
		case "exec", "execSync", "execFile", "execFileSync", "spawn", "spawnSync":
			return true
		}
	case "php":
		switch id {
		case "system", "exec", "shell_exec", "passthru", "popen", "proc_open":
			return true
		}
	case "lua":
		return id == "execute" || id == "popen"
	case "r":
		return id == "system" || id == "system2"
	}
	return false
}

// argvCall reports the calls that take a program and a list of arguments
// (spawn("rm", ["-rf"])).
func argvCall(id string) bool {
	switch id {
	case "execFile", "execFileSync", "spawn", "spawnSync", "system2", "execa", "execaSync":
		return true
	}
	return false
}

// execvCall reports Python's os.exec*/os.spawn* family: a program path,
// then the whole argument vector (argv[0] included) as a list or as
// arguments. os.spawn* take a mode first.
func execvCall(id string) bool {
	switch id {
	case "execv", "execvp", "execve", "execvpe", "execl", "execlp", "execle", "execlpe",
		"spawnv", "spawnvp", "spawnl", "spawnlp", "posix_spawn", "posix_spawnp":
		return true
	}
	return false
}

// dynCall reports the calls that run a command even when their argument
// is not a literal: such a call is a Dynamic command (os.system(cmd)).
// Ambiguous names (run, call, exec in node) are left out unless qualified
// (subprocess.run).
func dynCall(lang, id string) bool {
	switch lang {
	case "python":
		switch id {
		case "system", "popen", "getoutput", "getstatusoutput", "check_output", "check_call", "Popen",
			"execv", "execvp", "execve", "execvpe", "execl", "execlp", "spawnv", "spawnvp", "spawnl", "spawnlp":
			return true
		}
	case "perl":
		return id == "system" || id == "exec"
	case "ruby":
		return id == "system" || id == "exec" || id == "spawn"
	case "node":
		switch id {
		case "execSync", "execFileSync", "spawnSync", "execFile":
			return true
		}
	case "php":
		switch id {
		case "system", "shell_exec", "passthru", "proc_open":
			return true
		}
	}
	return false
}

// evalCall reports the calls that run their string argument as code of
// the same language.
func evalCall(lang, id string) bool {
	switch lang {
	case "python":
		return id == "exec" || id == "eval" || id == "compile"
	case "perl", "php":
		return id == "eval"
	case "ruby":
		return id == "eval" || id == "instance_eval" || id == "class_eval"
	case "node", "deno":
		return id == "eval" || id == "Function"
	case "lua":
		return id == "load" || id == "loadstring"
	}
	return false
}

// codeCalls finds the shell commands run by interpreter code: string
// literals passed to system-like calls, backticks and qx// in the languages
// that have them, AppleScript's do shell script. It is a lexical scan, not
// a parser of those languages: it finds literal strings, and treats
// anything else as unknown.
func (a *analyzer) codeCalls(lang string, code field, x runCtx, depth int) {
	if lang == "awk" {
		a.awkCalls(code, x)
		return
	}
	s := code.s
	// Without child_process (or a module named at run time), node's exec
	// and spawn are some other object's methods: database.exec("CREATE …").
	noCalls := (lang == "node" || lang == "deno") && !nodeProcesses(s)
	calls := func(id string) bool { return !noCalls && shellCall(lang, id) }
	backticks := lang == "perl" || lang == "ruby" || lang == "php" || lang == "julia"
	shellString := func(str string) {
		a.script(litField(str, code.pos), x, false)
	}
	if lang == "osascript" {
		low := strings.ToLower(s)
		for i := 0; a.err == nil; {
			j := strings.Index(low[i:], "do shell script")
			if j < 0 {
				break
			}
			i += j + len("do shell script")
			k := skipSpace(s, i)
			if str, end, ok := readString(s, k, lang); ok {
				shellString(str)
				i = end
			}
		}
		return
	}
	for i := 0; i < len(s) && a.err == nil; i++ {
		c := s[i]
		if c == '`' && backticks {
			if str, end, ok := readString(s, i, "shell"); ok {
				shellString(str)
				i = end - 1
			}
			continue
		}
		if !isIdentStart(c) || (i > 0 && isIdentChar(s[i-1])) {
			continue
		}
		j := i
		for j < len(s) && isIdentChar(s[j]) {
			j++
		}
		id, start := s[i:j], i
		i = j - 1
		if (lang == "perl" && id == "qx") || (lang == "ruby" && id == "x" && i > 0 && j-2 >= 0 && s[j-2] == '%') {
			if j < len(s) {
				if str, end, ok := readDelimited(s, j); ok {
					shellString(str)
					i = end - 1
				}
			}
			continue
		}
		if !calls(id) && !evalCall(lang, id) {
			continue
		}
		args, end, ok := callArgs(s, skipSpace(s, j), lang)
		if !ok {
			if k := skipSpace(s, j); calls(id) && k < len(s) && (s[k] == '(' || lang == "perl" || lang == "ruby") &&
				(dynCall(lang, id) || (lang == "python" && (id == "run" || id == "call") && strings.HasSuffix(s[:start], "subprocess."))) {
				// A command built at run time: known only then.
				e := stmtEnd(s, k)
				a.script(field{s: strings.TrimSpace(s[start:e]), pos: code.pos}, x, false)
			}
			continue
		}
		i = end - 1
		if evalCall(lang, id) {
			if depth < 4 && !args[0].list && args[0].lit {
				a.codeCalls(lang, litField(args[0].s, code.pos), x, depth+1)
			}
			continue
		}
		if lang == "python" && execvCall(id) {
			// os.execvp("rm", ["rm", "-rf", "/"]): the vector after the
			// program (and the mode of os.spawn*).
			if strings.HasPrefix(id, "spawn") && len(args) > 0 && !args[0].list && !args[0].lit {
				args = args[1:]
			}
			if len(args) > 1 {
				args = args[1:]
			}
			var argv []field
			for _, ca := range args {
				f := litField(ca.s, code.pos)
				f.lit = ca.lit
				if h, ok := codeHomeArg(ca.s, ca.lit, a.opts.Home); ok {
					f = litField(h, code.pos)
				}
				argv = append(argv, f)
			}
			if len(argv) > 0 {
				a.run(argv, x)
			}
			continue
		}
		multi := lang == "perl" || lang == "ruby" || argvCall(id)
		switch {
		case args[0].list || (multi && len(args) > 1):
			var argv []field
			for _, ca := range args {
				if !multi && !ca.list {
					break
				}
				f := litField(ca.s, code.pos)
				f.lit = ca.lit
				if h, ok := codeHomeArg(ca.s, ca.lit, a.opts.Home); ok && len(argv) > 0 {
					f = litField(h, code.pos)
				}
				argv = append(argv, f)
			}
			if len(argv) > 0 {
				a.run(argv, x)
			}
		case args[0].lit:
			shellString(args[0].s)
		default:
			// "rm -rf " + path: the command is built at run time.
			a.script(field{s: strings.TrimSpace(s[start:max(end, stmtEnd(s, end))]), pos: code.pos}, x, false)
		}
	}
}

// codeArg is one argument of a call found in code.
type codeArg struct {
	s    string
	lit  bool // a string literal
	list bool // an element of a list literal
}

// callArgs reads the arguments of a call at s[k]: "(" then string literals
// or lists of them separated by commas. Perl, Ruby and awk also call
// without parentheses (system "…"). It stops at the first argument that is
// neither; ok is false when there is no string or list first.
func callArgs(s string, k int, lang string) ([]codeArg, int, bool) {
	if k < len(s) && s[k] == '(' {
		k++
	} else if lang != "perl" && lang != "ruby" && lang != "awk" {
		return nil, k, false
	}
	var args []codeArg
	for {
		k = skipSpace(s, k)
		if k >= len(s) {
			break
		}
		if s[k] == '[' {
			k++
			for {
				k = skipSpace(s, k)
				if k >= len(s) || s[k] == ']' {
					k++
					break
				}
				if str, end, ok, whole := foldString(s, k, lang); ok && whole { // codefold.go: 'tool'+'guard'
					args = append(args, codeArg{s: str, lit: true, list: true})
					k = end
				} else {
					end := skipExpr(s, k)
					if end == k {
						return args, k, len(args) > 0 // not a list after all
					}
					args = append(args, codeArg{s: strings.TrimSpace(s[k:end]), list: true})
					k = end
				}
				k = skipSpace(s, k)
				if k < len(s) && s[k] == ',' {
					k++
				}
			}
		} else if str, end, ok, whole := foldString(s, k, lang); ok {
			// A string joined to more (+, ., %, f-string parts) is
			// built at run time: not a literal, unless every part is one
			// (foldString: 'rm -rf ' + '/', ' '.join([…])).
			e := skipSpace(s, end)
			lit := whole && (e >= len(s) || strings.IndexByte(",)];\n}", s[e]) >= 0 || (s[e] == 'o' || s[e] == 'a' || s[e] == 'i' || s[e] == 'u'))
			args = append(args, codeArg{s: str, lit: lit})
			k = end
		} else if end := skipExpr(s, k); len(args) > 0 && end > k {
			// An argument naming the home directory through the
			// environment (system("rm", "-rf", $ENV{HOME})): codeHomeArg.
			e := k + strings.IndexAny(s[k:end]+";", ";\n")
			if _, ok := codeHomeArg(s[k:e], false, ""); !ok {
				break
			}
			args = append(args, codeArg{s: strings.TrimSpace(s[k:e])})
			k = e
		} else {
			break
		}
		k = skipSpace(s, k)
		if k < len(s) && s[k] == ',' {
			k++
			continue
		}
		break
	}
	return args, k, len(args) > 0
}

// skipExpr returns the end of a list element that is not a string: the
// next top-level comma or closing bracket.
func skipExpr(s string, k int) int {
	depth := 0
	for ; k < len(s); k++ {
		switch s[k] {
		case '(', '[', '{':
			depth++
		case ')', '}':
			depth--
		case ']':
			if depth == 0 {
				return k
			}
			depth--
		case ',':
			if depth == 0 {
				return k
			}
		}
		if depth < 0 {
			return k
		}
	}
	return k
}

// readString reads a string literal at s[k]: '…', "…" or `…`, Python
// prefixes (r"…", b'…') and triple quotes. Escapes are resolved except in
// raw and single-quoted Perl/Ruby/PHP/shell strings.
func readString(s string, k int, lang string) (string, int, bool) {
	raw := false
	for n := 0; n < 2 && k < len(s) && strings.IndexByte("rRbBuUfF", s[k]) >= 0 && lang == "python"; n++ {
		raw = raw || s[k] == 'r' || s[k] == 'R'
		k++
	}
	if k >= len(s) || (s[k] != '\'' && s[k] != '"' && s[k] != '`') {
		return "", k, false
	}
	q := s[k]
	delim := string(q)
	if lang == "python" && strings.HasPrefix(s[k:], strings.Repeat(delim, 3)) {
		delim = strings.Repeat(delim, 3)
	}
	start := k + len(delim)
	for i := start; i < len(s); i++ {
		if s[i] == '\\' {
			i++
			continue
		}
		if strings.HasPrefix(s[i:], delim) {
			body := s[start:i]
			simple := q == '\'' && (lang == "perl" || lang == "ruby" || lang == "php" || lang == "shell")
			switch {
			case q == '`' && lang == "shell":
				body = strings.ReplaceAll(body, "\\`", "`")
			case raw:
			case simple:
				body = strings.NewReplacer(`\\`, `\`, `\'`, `'`).Replace(body)
			default:
				body, _ = decodeEscapes(body, escANSIC)
			}
			return body, i + len(delim), true
		}
	}
	return "", k, false
}

// readDelimited reads qx{…}, qx(…), qx/…/ and %x(…) bodies.
func readDelimited(s string, k int) (string, int, bool) {
	if k >= len(s) {
		return "", k, false
	}
	open := s[k]
	closeCh := map[byte]byte{'(': ')', '{': '}', '[': ']', '<': '>'}[open]
	if closeCh == 0 {
		if isIdentChar(open) || open == ' ' {
			return "", k, false
		}
		closeCh = open
	}
	depth := 0
	for i := k + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case open:
			if open != closeCh {
				depth++
			}
		case closeCh:
			if depth == 0 {
				return s[k+1 : i], i + 1, true
			}
			depth--
		}
	}
	return "", k, false
}

func skipSpace(s string, k int) int {
	for k < len(s) && (s[k] == ' ' || s[k] == '\t' || s[k] == '\n' || s[k] == '\r') {
		k++
	}
	return k
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentChar(c byte) bool { return isIdentStart(c) || (c >= '0' && c <= '9') }

// nodeProcesses reports whether JavaScript code can reach a process API:
// it names child_process or a process library, or loads a module whose
// name is not a plain string literal (require("child_" + "process")).
func nodeProcesses(s string) bool {
	for _, m := range []string{"child_process", "childProcess", "cp.", "execa", "shelljs", "zx", "cross-spawn", "Deno.", "process.binding", "globalThis", "Function"} {
		if strings.Contains(s, m) {
			return true
		}
	}
	for _, kw := range []string{"require", "import"} {
		for i := 0; ; {
			j := strings.Index(s[i:], kw)
			if j < 0 {
				break
			}
			i += j + len(kw)
			k := skipSpace(s, i)
			if k < len(s) && s[k] == '(' {
				k = skipSpace(s, k+1)
				str, end, ok := readString(s, k, "node")
				if !ok || strings.Contains(s[k:end], `\`) || strings.Contains(str, "process") || strings.Contains(str, "exec") {
					return true
				}
				if e := skipSpace(s, end); e >= len(s) || s[e] != ')' {
					return true
				}
			}
		}
	}
	return false
}
