package shellparse

import (
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"mvdan.cc/sh/v3/syntax"
)

// The paths an interpreter one-liner opens, deletes or moves when it names
// them as string literals: python3 -c "open('.claude/settings.json','w')",
// os.remove('p'), shutil.rmtree('p'), Path('p').write_text(…), node's
// fs.writeFileSync('p', …), ruby's File.write('p', …), FileUtils.rm_rf,
// perl's unlink 'p' and open(F, '>p'). The scan is lexical, like the one
// for shell commands in the code (codecalls.go): a call whose argument is
// built at run time (a variable, concatenation, an f-string) gives nothing.

// fileCall is one library call that takes paths: ops[i] is what it does
// to its i-th argument (only literal string arguments count).
type fileCall struct {
	name string
	ops  []call.Op
	mode bool // the second argument is an open mode ('w', 'a', 'r+', "w")
}

const (
	opW = call.OpWrite
	opD = call.OpDelete
	opR = call.OpRead
)

var fileCalls = lazy[map[string][]fileCall]{build: func() map[string][]fileCall {
	return map[string][]fileCall{
		"python": {
			{name: "Path"}, {name: "pathlib.Path"}, {name: "PosixPath"},
			{name: "open", ops: []call.Op{opR}, mode: true}, {name: "io.open", ops: []call.Op{opR}, mode: true},
			{name: "os.open", ops: []call.Op{opW}}, {name: "codecs.open", ops: []call.Op{opR}, mode: true},
			{name: "os.remove", ops: []call.Op{opD}}, {name: "os.unlink", ops: []call.Op{opD}},
			{name: "os.rmdir", ops: []call.Op{opD}}, {name: "os.removedirs", ops: []call.Op{opD}},
			{name: "shutil.rmtree", ops: []call.Op{opD}},
			{name: "os.rename", ops: []call.Op{opD, opW}}, {name: "os.replace", ops: []call.Op{opD, opW}},
			{name: "shutil.move", ops: []call.Op{opD, opW}},
			{name: "shutil.copy", ops: []call.Op{opR, opW}}, {name: "shutil.copy2", ops: []call.Op{opR, opW}},
			{name: "shutil.copyfile", ops: []call.Op{opR, opW}}, {name: "shutil.copytree", ops: []call.Op{opR, opW}},
			{name: "os.symlink", ops: []call.Op{opR, opW}}, {name: "os.link", ops: []call.Op{opR, opW}},
			{name: "os.chmod", ops: []call.Op{opW}}, {name: "os.chown", ops: []call.Op{opW}},
			{name: "os.truncate", ops: []call.Op{opW}}, {name: "os.mkdir", ops: []call.Op{opW}},
			{name: "os.makedirs", ops: []call.Op{opW}},
		},
		"node": {
			{name: "writeFileSync", ops: []call.Op{opW}}, {name: "writeFile", ops: []call.Op{opW}},
			{name: "appendFileSync", ops: []call.Op{opW}}, {name: "appendFile", ops: []call.Op{opW}},
			{name: "createWriteStream", ops: []call.Op{opW}}, {name: "openSync", ops: []call.Op{opR}, mode: true},
			{name: "truncateSync", ops: []call.Op{opW}}, {name: "truncate", ops: []call.Op{opW}},
			{name: "chmodSync", ops: []call.Op{opW}}, {name: "chmod", ops: []call.Op{opW}},
			{name: "chownSync", ops: []call.Op{opW}}, {name: "mkdirSync", ops: []call.Op{opW}},
			{name: "rmSync", ops: []call.Op{opD}}, {name: "rm", ops: []call.Op{opD}},
			{name: "rmdirSync", ops: []call.Op{opD}}, {name: "rmdir", ops: []call.Op{opD}},
			{name: "unlinkSync", ops: []call.Op{opD}}, {name: "unlink", ops: []call.Op{opD}},
			{name: "renameSync", ops: []call.Op{opD, opW}}, {name: "rename", ops: []call.Op{opD, opW}},
			{name: "copyFileSync", ops: []call.Op{opR, opW}}, {name: "copyFile", ops: []call.Op{opR, opW}},
			{name: "cpSync", ops: []call.Op{opR, opW}}, {name: "cp", ops: []call.Op{opR, opW}},
			{name: "symlinkSync", ops: []call.Op{opR, opW}}, {name: "linkSync", ops: []call.Op{opR, opW}},
			{name: "readFileSync", ops: []call.Op{opR}}, {name: "readFile", ops: []call.Op{opR}},
			{name: "Bun.write", ops: []call.Op{opW}}, {name: "Deno.writeTextFile", ops: []call.Op{opW}},
			{name: "Deno.writeFile", ops: []call.Op{opW}}, {name: "Deno.remove", ops: []call.Op{opD}},
		},
		"ruby": {
			{name: "File.write", ops: []call.Op{opW}}, {name: "IO.write", ops: []call.Op{opW}},
			{name: "File.binwrite", ops: []call.Op{opW}}, {name: "File.open", ops: []call.Op{opR}, mode: true},
			{name: "File.new", ops: []call.Op{opR}, mode: true}, {name: "open", ops: []call.Op{opR}, mode: true},
			{name: "File.delete", ops: []call.Op{opD, opD, opD}}, {name: "File.unlink", ops: []call.Op{opD, opD, opD}},
			{name: "File.rename", ops: []call.Op{opD, opW}}, {name: "File.symlink", ops: []call.Op{opR, opW}},
			{name: "File.chmod", ops: []call.Op{opR, opW}}, {name: "File.truncate", ops: []call.Op{opW}},
			{name: "File.read", ops: []call.Op{opR}}, {name: "IO.read", ops: []call.Op{opR}},
			{name: "Dir.rmdir", ops: []call.Op{opD}}, {name: "Dir.mkdir", ops: []call.Op{opW}},
			{name: "FileUtils.rm_rf", ops: []call.Op{opD}}, {name: "FileUtils.rm_r", ops: []call.Op{opD}},
			{name: "FileUtils.rm", ops: []call.Op{opD}}, {name: "FileUtils.rm_f", ops: []call.Op{opD}},
			{name: "FileUtils.remove_dir", ops: []call.Op{opD}}, {name: "FileUtils.remove_entry", ops: []call.Op{opD}},
			{name: "FileUtils.rmtree", ops: []call.Op{opD}}, {name: "FileUtils.touch", ops: []call.Op{opW}},
			{name: "FileUtils.mv", ops: []call.Op{opD, opW}}, {name: "FileUtils.cp", ops: []call.Op{opR, opW}},
			{name: "FileUtils.cp_r", ops: []call.Op{opR, opW}}, {name: "FileUtils.ln_s", ops: []call.Op{opR, opW}},
			{name: "FileUtils.mkdir_p", ops: []call.Op{opW}}, {name: "FileUtils.chmod", ops: []call.Op{opR, opW}},
		},
		"perl": {
			{name: "unlink", ops: []call.Op{opD, opD, opD, opD}}, {name: "rmdir", ops: []call.Op{opD}},
			{name: "rename", ops: []call.Op{opD, opW}}, {name: "symlink", ops: []call.Op{opR, opW}},
			{name: "link", ops: []call.Op{opR, opW}}, {name: "truncate", ops: []call.Op{opW}},
			{name: "rmtree", ops: []call.Op{opD}}, {name: "remove_tree", ops: []call.Op{opD}},
			{name: "File::Path::rmtree", ops: []call.Op{opD}}, {name: "File::Path::remove_tree", ops: []call.Op{opD}},
			{name: "mkdir", ops: []call.Op{opW}}, {name: "chmod", ops: []call.Op{opR, opW, opW, opW}},
			{name: "open", ops: []call.Op{opR, opR, opR}, mode: true}, {name: "sysopen", ops: []call.Op{opR, opW}},
		},
	}
}}

// inlinePaths scans the one-liner code of the interpreter name for file
// calls with literal paths.
func (a *analyzer) inlinePaths(name, code string, sc *scope) []PathRef {
	lang := interpreter(name)
	if lang == "deno" {
		lang = "node"
	}
	calls := fileCalls.get()[lang]
	if len(calls) == 0 {
		return nil
	}
	var out []PathRef
	add := func(p string, op call.Op) {
		if p == "" || len(out) >= 64 {
			return
		}
		if pr, ok := resolve(litField(p, syntax.Pos{}), op, sc); ok {
			out = append(out, pr)
		}
	}
	for i := 0; i < len(code); i++ {
		c := code[i]
		if !isIdentStart(c) || (i > 0 && (isIdentChar(code[i-1]) || code[i-1] == '$' || code[i-1] == '@')) {
			continue
		}
		j := i
		for j < len(code) && (isIdentChar(code[j]) || code[j] == '.' || code[j] == ':') {
			j++
		}
		word := code[i:j]
		fc, ok := findCall(calls, word)
		if !ok {
			i = j - 1
			continue
		}
		args, end := fileArgs(code[j:], lang == "perl" || lang == "ruby")
		if fc.name == "Path" {
			// pathlib: Path('p').write_text(…), .unlink(), .rmdir() …
			method := code[j+end:]
			k := 0
			for k < len(method) && (method[k] == '.' || isIdentChar(method[k])) {
				k++
			}
			if len(args) == 1 && args[0].lit {
				if op, ok := pathMethod(method[:k]); ok {
					add(args[0].s, op)
				}
			}
		} else {
			a.fileCallPaths(lang, fc, args, add)
		}
		i = j - 1
	}
	return out
}

// findCall matches word (os.remove, fs.writeFileSync, fs.promises.rm,
// require('fs').rmSync's tail) against calls: a name with a dot matches
// exactly; the node names also match as the last member of a chain.
func findCall(calls []fileCall, word string) (fileCall, bool) {
	for _, fc := range calls {
		if word == fc.name {
			return fc, true
		}
	}
	if k := strings.LastIndexByte(word, '.'); k > 0 {
		tail := word[k+1:]
		head := word[:k]
		for _, fc := range calls {
			if fc.name == tail && !strings.Contains(fc.name, ".") && (strings.HasPrefix(head, "fs") || strings.HasSuffix(head, "fs") ||
				strings.HasSuffix(head, "promises") || head == "FileUtils" || head == "Path" || head == "pathlib.Path") {
				return fc, true
			}
		}
	}
	return fileCall{}, false
}

// pathMethods are the pathlib.Path methods that change the file.
func pathMethod(m string) (call.Op, bool) {
	switch m {
	case ".write_text", ".write_bytes", ".touch", ".mkdir", ".chmod", ".symlink_to", ".hardlink_to":
		return opW, true
	case ".unlink", ".rmdir", ".rename", ".replace":
		return opD, true
	case ".read_text", ".read_bytes":
		return opR, true
	}
	return 0, false
}

// arg is one argument of a call: its value when it is a string literal.
type arg struct {
	s   string
	lit bool
}

// fileArgs reads the arguments after a call's name: (a, b, …), or for perl
// and ruby also without parentheses up to the end of the statement. It
// stops at the first argument that is not a plain string literal (and
// records it as not literal), and at 4 arguments.
func fileArgs(s string, bare bool) ([]arg, int) {
	i := 0
	skip := func() {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	skip()
	paren := i < len(s) && s[i] == '('
	if paren {
		i++
	} else if !bare {
		return nil, 0
	}
	var out []arg
	for len(out) < 4 {
		skip()
		if i >= len(s) {
			break
		}
		// keyword (mode='w') or Python's r/b string prefixes
		if k := keywordEnd(s[i:]); k > 0 {
			i += k
			skip()
		}
		for i < len(s) && strings.IndexByte("rbuRBU", s[i]) >= 0 && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"') {
			i++
		}
		if i >= len(s) || (s[i] != '\'' && s[i] != '"') {
			// not a literal: a variable, a handle (perl's F, my $fh), …
			j := i
			for j < len(s) && s[j] != ',' && s[j] != ')' && s[j] != ';' && s[j] != '\n' {
				j++
			}
			out = append(out, arg{s: strings.TrimSpace(s[i:j])})
			i = j
		} else {
			q := s[i]
			j := i + 1
			var b strings.Builder
			for j < len(s) && s[j] != q {
				if s[j] == '\\' && j+1 < len(s) {
					j++
				}
				b.WriteByte(s[j])
				j++
			}
			if j >= len(s) {
				break
			}
			val := b.String()
			lit := !(q == '"' && strings.ContainsAny(val, "$@#{")) // interpolation
			out = append(out, arg{s: val, lit: lit})
			i = j + 1
		}
		skip()
		if i >= len(s) || s[i] != ',' {
			break
		}
		i++
	}
	if paren && i < len(s) && s[i] == ')' {
		i++
	}
	return out, i
}

// keywordEnd is the length of a leading `name=` (not ==) keyword.
func keywordEnd(s string) int {
	j := 0
	for j < len(s) && isIdentChar(s[j]) {
		j++
	}
	if j > 0 && j+1 < len(s) && s[j] == '=' && s[j+1] != '=' {
		return j + 1
	}
	return 0
}

// fileCallPaths gives the literal path arguments of one call their ops.
func (a *analyzer) fileCallPaths(lang string, fc fileCall, args []arg, add func(string, call.Op)) {
	if fc.name == "PosixPath" || fc.name == "pathlib.Path" {
		return
	}
	if fc.mode {
		a.openPaths(lang, fc, args, add)
		return
	}
	for i, ar := range args {
		if i >= len(fc.ops) {
			break
		}
		if ar.lit {
			add(ar.s, fc.ops[i])
		}
	}
}

// openPaths: open(P, MODE) writes P when MODE writes (w, a, x, +); perl's
// open(F, '>P') and open(F, '>', 'P') by the mode in the string.
func (a *analyzer) openPaths(lang string, fc fileCall, args []arg, add func(string, call.Op)) {
	if lang == "perl" {
		// open(FH, MODEPATH) or open(FH, MODE, PATH)
		if len(args) < 2 {
			return
		}
		if len(args) >= 3 && args[1].lit && args[2].lit {
			add(args[2].s, perlModeOp(args[1].s))
			return
		}
		if args[1].lit {
			m := strings.TrimLeft(args[1].s, " ")
			k := 0
			for k < len(m) && strings.IndexByte("+<>|&=", m[k]) >= 0 {
				k++
			}
			if strings.HasPrefix(m, "|") || strings.HasSuffix(strings.TrimSpace(m), "|") {
				return // a pipe: a command, not a file
			}
			add(strings.TrimSpace(m[k:]), perlModeOp(m[:k]))
		}
		return
	}
	if len(args) == 0 || !args[0].lit {
		return
	}
	op := call.OpRead
	if len(args) > 1 && args[1].lit && strings.ContainsAny(args[1].s, "wax+") {
		op = call.OpWrite
	}
	if len(args) > 1 && !args[1].lit && args[1].s != "" && !strings.HasPrefix(args[1].s, "encoding") {
		op = call.OpWrite // a mode the scan cannot read: count it as a write
	}
	add(args[0].s, op)
}

func perlModeOp(m string) call.Op {
	if strings.ContainsAny(m, ">+") {
		return call.OpWrite
	}
	return call.OpRead
}
