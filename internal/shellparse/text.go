package shellparse

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

func isIFS(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

func hasGlob(s string) bool { return strings.ContainsAny(s, "*?[") }

// isGlob reports whether an unquoted literal holds a pattern character: *,
// ? or a [ closed later.
func isGlob(s string) bool {
	if strings.ContainsAny(s, "*?") {
		return true
	}
	i := strings.IndexByte(s, '[')
	return i >= 0 && strings.IndexByte(s[i:], ']') > 0
}

// nodeText is the source text of n, or its printed form when the positions
// do not index src.
func nodeText(src string, n syntax.Node) string {
	s, e := n.Pos().Offset(), n.End().Offset()
	if n.Pos().IsValid() && n.End().IsValid() && s <= e && e <= uint(len(src)) {
		return src[s:e]
	}
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return ""
	}
	return b.String()
}

type escMode int

const (
	escANSIC  escMode = iota // $'…'
	escEcho                  // echo -e, printf %b: \0NNN octal, \c stops
	escPrintf                // printf format: \NNN octal
)

// decodeEscapes resolves backslash escapes. stop reports a \c that ends the
// output (echo -e, %b).
func decodeEscapes(s string, mode escMode) (out string, stop bool) {
	if strings.IndexByte(s, '\\') < 0 {
		return s, false
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte(8)
		case 'e', 'E':
			b.WriteByte(27)
		case 'f':
			b.WriteByte(12)
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte(11)
		case '\\', '\'', '"', '?':
			if mode != escANSIC && (e == '\'' || e == '?') {
				b.WriteByte('\\')
			}
			b.WriteByte(e)
		case 'c':
			if mode == escEcho {
				return b.String(), true
			}
			if mode == escANSIC && i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
				continue
			}
			b.WriteString(`\c`)
		case 'x', 'u', 'U':
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < maxDigits && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if e == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		default:
			if e < '0' || e > '7' {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			j := i
			if mode == escEcho {
				if e != '0' {
					b.WriteByte('\\')
					b.WriteByte(e)
					continue
				}
				j++ // \0NNN
			}
			k := j
			for k < len(s) && k-j < 3 && s[k] >= '0' && s[k] <= '7' {
				k++
			}
			n, _ := strconv.ParseUint(s[j:k], 8, 16)
			if k == j {
				n = 0
			}
			b.WriteByte(byte(n))
			i = k - 1
		}
	}
	return b.String(), false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

// litWords splits s like splitWords into known fields at pos.
func litWords(s string, pos syntax.Pos) []field {
	var out []field
	for _, w := range splitWords(s) {
		out = append(out, litField(w, pos))
	}
	return out
}

// splitWords splits s into words the way env -S and a simple shell-like
// splitter do: blanks separate, single and double quotes group, backslash
// escapes.
func splitWords(s string) []string {
	var words []string
	var b strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isIFS(c):
			if in {
				words = append(words, b.String())
				b.Reset()
				in = false
			}
		case c == '\'':
			in = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				b.WriteString(s[i+1:])
				i = len(s)
				break
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			in = true
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				b.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			in = true
			i++
			b.WriteByte(s[i])
		default:
			in = true
			b.WriteByte(c)
		}
	}
	if in {
		words = append(words, b.String())
	}
	return words
}

// Unbackslash removes the backslashes that quote the byte after them, as
// the shell does in an unquoted word without other quoting ("a\ b" is
// "a b"; a trailing backslash stays).
func Unbackslash(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// Quote quotes s so that a shell reads it back as one word: unchanged when
// it holds nothing a shell would interpret, else in single quotes.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`|&;<>()*?[]{}~#!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
