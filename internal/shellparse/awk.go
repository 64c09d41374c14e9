package shellparse

import (
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// awkCalls finds what an awk program runs: system("…"), "…" | getline
// and print … | "…" (|& too) run their string with sh -c. A command that
// is not a string literal (system($0), cmd | getline, print | cmd,
// system("rm " $1)) is known only at run time: Dynamic. Strings,
// comments and the operands of other operators are skipped; it is a
// lexical scan, not an awk parser.
func (a *analyzer) awkCalls(code field, x runCtx) {
	s := code.s
	dyn := false
	dynamic := func(text string) {
		if dyn {
			return // one is enough to ask
		}
		dyn = true
		a.emit(Command{Dynamic: true, DynamicText: strings.TrimSpace(text), Wrappers: x.wrappers, Env: x.sc.environ(x.env), Sources: x.srcs, Pos: x.pos})
	}
	shellString := func(str string) { a.script(litField(str, code.pos), x, false) }
	strStart, strEnd := -1, -1 // the last string literal
	for i := 0; i < len(s) && a.err == nil; i++ {
		c := s[i]
		switch {
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		case c == '"':
			_, end, ok := readString(s, i, "awk")
			if !ok {
				return
			}
			strStart, strEnd = i, end
			i = end - 1
		case c == '|':
			if i+1 < len(s) && s[i+1] == '|' {
				i++
				continue
			}
			k := i + 1
			if k < len(s) && s[k] == '&' {
				k++
			}
			k = skipSpace(s, k)
			if strings.HasPrefix(s[k:], "getline") && (k+7 >= len(s) || !isIdentChar(s[k+7])) {
				// CMD | getline: the command is the operand on the left.
				left := strings.TrimRight(s[:i], " \t")
				if strEnd == len(left) && strStart >= 0 {
					if str, _, ok := readString(s, strStart, "awk"); ok && !concatBefore(s, strStart) {
						shellString(str)
						continue
					}
				}
				dynamic(s[stmtStart(s, i) : k+7])
				continue
			}
			if !strings.HasPrefix(strings.TrimLeft(s[stmtStart(s, i):i], " \t("), "print") {
				continue // a | inside a regular expression
			}
			if str, end, ok := readString(s, k, "awk"); ok && !concatAfter(s, end) {
				if readsProgram(str) {
					// print … | "sh": what awk prints is the program.
					dynamic(s[stmtStart(s, i):stmtEnd(s, i)])
				}
				shellString(str)
				strEnd = end
				i = end - 1
				continue
			}
			dynamic(s[stmtStart(s, i):stmtEnd(s, i)])
		case isIdentStart(c) && c != '$' && (i == 0 || !isIdentChar(s[i-1])):
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			if s[i:j] != "system" {
				i = j - 1
				continue
			}
			k := skipSpace(s, j)
			if k >= len(s) || s[k] != '(' {
				i = j - 1
				continue
			}
			k = skipSpace(s, k+1)
			if str, end, ok := readString(s, k, "awk"); ok {
				if e := skipSpace(s, end); e < len(s) && s[e] == ')' {
					shellString(str)
					strEnd = end
					i = e
					continue
				}
			}
			dynamic(s[i:stmtEnd(s, i)])
			i = j - 1
		}
	}
}

// concatBefore reports an operand just before the string at s[start]
// that awk would concatenate with it ("x" y "z" | getline).
func concatBefore(s string, start int) bool {
	left := strings.TrimRight(s[:start], " \t")
	if left == "" {
		return false
	}
	switch left[len(left)-1] {
	case ';', '{', '}', '(', '\n', ',', '=', '&', '|', '!':
		return false
	}
	return !strings.HasSuffix(left, "print") && !strings.HasSuffix(left, "printf")
}

// concatAfter reports an operand just after a string ending at s[end].
func concatAfter(s string, end int) bool {
	k := skipSpace(s, end)
	if k >= len(s) {
		return false
	}
	switch s[k] {
	case ';', '}', ')', '\n', '|', '>', ',':
		return false
	}
	return true
}

// stmtStart and stmtEnd bound the awk statement around s[i], looking at
// most stmtWindow bytes away so that the scan stays linear.
func stmtStart(s string, i int) int {
	lo := max(0, i-stmtWindow)
	return lo + strings.LastIndexAny(s[lo:i], ";{}\n") + 1
}

func stmtEnd(s string, i int) int {
	hi := min(len(s), i+stmtWindow)
	if j := strings.IndexAny(s[i:hi], ";}\n"); j >= 0 {
		return i + j
	}
	return hi
}

const stmtWindow = 512

// awkFiles adds the files an awk program opens by name: getline < "f"
// reads, print > "f" and print >> "f" write. The scan is forward and
// knows strings and parentheses: in awk's grammar a > at the top level of
// a print or printf statement is always a redirection (a comparison there
// must be parenthesized), anywhere else a comparison. So
// BEGIN{print "{}" > "f"} writes f and if ($1 > 2) print does not. A
// target that is not a string literal (print > $2, print > FILENAME
// ".bak") is a write known only at run time: a Dynamic path.
func awkFiles(prog field, add pathAdder) {
	if !prog.lit {
		return
	}
	s := prog.s
	depth := 0
	printAt := -1 // the paren depth of the print of the current statement; -1 none
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			printAt = -1
		case c == '"':
			_, end, ok := readString(s, i, "awk")
			if !ok {
				return
			}
			i = end - 1
		case c == '(':
			depth++
		case c == ')':
			depth = max(0, depth-1)
		case c == ';' || c == '{' || c == '}' || c == '\n':
			printAt = -1
			if c != '\n' {
				depth = 0
			}
		case isIdentStart(c) && c != '$' && (i == 0 || !isIdentChar(s[i-1])):
			j := i
			for j < len(s) && isIdentChar(s[j]) {
				j++
			}
			if w := s[i:j]; w == "print" || w == "printf" {
				printAt = depth
			}
			i = j - 1
		case c == '>' && printAt >= 0 && depth == printAt:
			k := i + 1
			if k < len(s) && s[k] == '>' {
				k++
			}
			k = skipSpace(s, k)
			if str, end, ok := readString(s, k, "awk"); ok && !concatAfter(s, end) {
				if str != "" && str != "-" && str != "/dev/stdout" && str != "/dev/stderr" {
					add(litField(str, prog.pos), call.OpWrite)
				}
				i = end - 1
				continue
			}
			e := stmtEnd(s, k)
			if e > k {
				add(field{s: strings.TrimSpace(s[k:e]), pos: prog.pos}, call.OpWrite)
			}
			i = max(e-1, i)
		case c == '<' && getlineBefore(s[:i]):
			if str, end, ok := readString(s, skipSpace(s, i+1), "awk"); ok {
				if str != "" && str != "-" {
					add(litField(str, prog.pos), call.OpRead)
				}
				i = end - 1
			}
		}
	}
}

// getlineBefore reports text ending in getline or getline VAR.
func getlineBefore(s string) bool {
	t := strings.TrimRight(s, " \t")
	if strings.HasSuffix(t, "getline") {
		return true
	}
	j := len(t)
	for j > 0 && (isIdentChar(t[j-1]) || t[j-1] == '[' || t[j-1] == ']') {
		j--
	}
	return j < len(t) && strings.HasSuffix(strings.TrimRight(t[:j], " \t"), "getline")
}

// readsProgram reports a command line whose program reads the code it
// runs from standard input: a shell or an interpreter given no script,
// no -c/-e code and no operand (sh, bash -s, python3 -, perl).
func readsProgram(cmdline string) bool {
	words := splitWords(cmdline)
	if len(words) == 0 {
		return false
	}
	name := progName(words[0])
	for name == "sudo" || name == "env" || name == "exec" || name == "nohup" {
		words = words[1:]
		if len(words) == 0 {
			return false
		}
		name = progName(words[0])
	}
	if !isShell(name) && interpreter(name) == "" {
		return false
	}
	for _, w := range words[1:] {
		switch {
		case w == "-" || w == "-s" || w == "--":
		case strings.HasPrefix(w, "-") && !strings.ContainsAny(w, "ce"):
		default:
			return false
		}
	}
	return true
}
