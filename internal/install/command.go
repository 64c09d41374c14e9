package install

import (
	"strings"

	"github.com/toolguard/toolguard/internal/shellparse"
)

// IsToolguardCommand reports whether a hook command line runs toolguard's
// hook: some word of it names a program called toolguard (in any directory,
// with or without .exe) and the next word is "hook". Wrappers are allowed
// (`env X=1 toolguard hook`, `/path/tee.sh log /bin/toolguard hook --provider
// codex`); `toolguard check` or `toolguard-dev hook` are not toolguard hooks.
func IsToolguardCommand(cmd string) bool {
	words := splitWords(cmd)
	for i := 0; i+1 < len(words); i++ {
		if isToolguardProgram(words[i]) && words[i+1] == "hook" {
			return true
		}
	}
	return false
}

// PathLookup returns the toolguard program word of a hook command line when
// it is not an absolute path — a bare "toolguard" found through PATH, or a
// path relative to wherever the agent runs the hook — and "" otherwise.
// Such a command runs whichever toolguard comes first on the agent's PATH
// (or none: the agent then treats the failed hook as an allow in most
// cases), which a program that can write a directory earlier on PATH
// chooses.
func PathLookup(cmd string) string {
	words := splitWords(cmd)
	for i := 0; i+1 < len(words); i++ {
		if isToolguardProgram(words[i]) && words[i+1] == "hook" {
			if isAbs(words[i]) {
				return ""
			}
			return words[i]
		}
	}
	return ""
}

// isAbs reports a path that no PATH lookup resolves, on any system
// toolguard runs on: /…, a Windows drive path, or one starting with a
// backslash (a UNC path, or the current drive's root).
func isAbs(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

func isToolguardProgram(word string) bool {
	base := word
	if i := strings.LastIndexAny(base, `/\`); i >= 0 {
		base = base[i+1:]
	}
	base = strings.ToLower(base)
	return base == "toolguard" || base == "toolguard.exe"
}

// splitWords splits a command line into words the way a POSIX shell would
// for plain words and quoting ('…', "…", backslash). It expands nothing;
// each operator character (; | & ( ) < >) is a word of its own. Backslashes inside
// double quotes are kept unless they escape ", \, $ or `, and outside quotes
// unless they escape a blank, a quote or an operator, so Windows paths
// survive. Good enough to recognize a program name, not to run anything.
func splitWords(s string) []string {
	var words []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			inWord = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				cur.WriteString(s[i+1:])
				i = len(s)
				break
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			inWord = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s) && strings.IndexByte(" \t\\'\"$`;|&()<>", s[i+1]) >= 0:
			inWord = true
			i++
			cur.WriteByte(s[i])
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			flush()
		case strings.IndexByte(";|&()<>", c) >= 0:
			flush()
			words = append(words, string(c)) // keeps "a;b" from reading as "a b"
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	flush()
	return words
}

// joinWords renders an exec-form command (program and arguments, no shell)
// as one shell-quoted command line, for display and recognition.
func joinWords(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellparse.Quote(w)
	}
	return strings.Join(q, " ")
}

// SplitWords splits a hook command line into words as splitWords does
// (quotes removed, nothing expanded), for callers that read its arguments.
func SplitWords(s string) []string { return splitWords(s) }
