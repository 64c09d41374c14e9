// Package jsonw writes the few JSON values a hook process writes on its
// way out (its reply, its audit line) without encoding/json's reflection:
// building the encoder of a struct type costs a fresh process tens of
// microseconds, more than the write. Each writer is tested to give the
// bytes encoding/json's Encoder with SetEscapeHTML(false) gives.
package jsonw

import "unicode/utf8"

// AppendString appends s quoted as encoding/json quotes it without
// HTML escaping: " and \ escaped, control characters as \b \f \n \r \t
// or \u00XX, a byte that is not UTF-8 as \ufffd, U+2028 and U+2029
// escaped, everything else as is.
func AppendString(b []byte, s string) []byte { return appendString(b, s, false) }

// AppendStringHTML is AppendString with encoding/json's HTML escaping
// (json.Marshal, and an Encoder by default): <, > and & as \u003c,
// \u003e and \u0026.
func AppendStringHTML(b []byte, s string) []byte { return appendString(b, s, true) }

func appendString(b []byte, s string, html bool) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && !(html && (c == '<' || c == '>' || c == '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
