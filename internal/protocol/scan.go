package protocol

import (
	"encoding/json"
	"unicode/utf8"
)

// The hook decodes one small payload per process, where encoding/json's
// first use (reflection over map and string types, its scanner's code) is
// most of the decode. scanObject and plainString read what agents send
// without it; anything they do not check as encoding/json would — invalid
// JSON, escaped or non-ASCII keys, deep nesting, escaped strings — is left
// to encoding/json, which also words and positions the errors.

// maxScanDepth bounds the nesting scanObject follows (encoding/json allows
// 10,000; deeper payloads go to it).
const maxScanDepth = 64

// scanObject returns the fields of b, a JSON object with nothing but JSON
// whitespace around it, as json.Unmarshal into a map[string]json.RawMessage
// would (the last of duplicate keys wins; values are sub-slices of b). ok is
// false when b is not such an object or holds what scanObject leaves to
// encoding/json.
func scanObject(b []byte) (fields map[string]json.RawMessage, ok bool) {
	s := scanner{b: b}
	s.space()
	fields, ok = s.object(0, true)
	if !ok {
		return nil, false
	}
	s.space()
	return fields, s.i == len(b)
}

// plainString returns the value of raw, a JSON string without escapes, as
// json.Unmarshal into a string would. ok is false for anything else.
func plainString(raw []byte) (string, bool) {
	n := len(raw)
	if n < 2 || raw[0] != '"' || raw[n-1] != '"' {
		return "", false
	}
	body := raw[1 : n-1]
	for _, c := range body {
		if c < 0x20 || c == '"' || c == '\\' {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false // encoding/json replaces invalid bytes with U+FFFD
	}
	return string(body), true
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object reads an object at s.i ('{' expected); with collect it returns
// its fields.
func (s *scanner) object(depth int, collect bool) (map[string]json.RawMessage, bool) {
	if depth >= maxScanDepth || s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, false
	}
	s.i++
	var fields map[string]json.RawMessage
	if collect {
		fields = map[string]json.RawMessage{}
	}
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return fields, true
	}
	for {
		var key string
		if collect {
			k, ok := s.key()
			if !ok {
				return nil, false
			}
			key = k
		} else if s.i >= len(s.b) || s.b[s.i] != '"' || !s.str() {
			return nil, false
		}
		s.space()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return nil, false
		}
		s.i++
		s.space()
		start := s.i
		if !s.value(depth + 1) {
			return nil, false
		}
		if collect {
			fields[key] = s.b[start:s.i:s.i]
		}
		s.space()
		if s.i >= len(s.b) {
			return nil, false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			return fields, true
		default:
			return nil, false
		}
	}
}

// key reads an object key: a string of printable ASCII without escapes.
func (s *scanner) key() (string, bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return "", false
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			k := string(s.b[s.i+1 : j])
			s.i = j + 1
			return k, true
		case c < 0x20 || c >= 0x80 || c == '\\':
			return "", false
		}
	}
	return "", false
}

func (s *scanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return false
	}
	switch c := s.b[s.i]; {
	case c == '{':
		_, ok := s.object(depth, false)
		return ok
	case c == '[':
		return s.array(depth)
	case c == '"':
		return s.str()
	case c == '-' || '0' <= c && c <= '9':
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	}
	return false
}

func (s *scanner) array(depth int) bool {
	if depth >= maxScanDepth {
		return false
	}
	s.i++ // '['
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		if !s.value(depth + 1) {
			return false
		}
		s.space()
		if s.i >= len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str reads a string value. Bytes from 0x80 up are taken as they are, as
// encoding/json's scanner takes them.
func (s *scanner) str() bool {
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return true
		case c < 0x20:
			return false
		case c == '\\':
			j++
			if j >= len(s.b) {
				return false
			}
			switch s.b[j] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if j+4 >= len(s.b) {
					return false
				}
				for _, h := range s.b[j+1 : j+5] {
					if !isHex(h) {
						return false
					}
				}
				j += 4
			default:
				return false
			}
		}
	}
	return false
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() bool {
	if s.b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(s.b) && s.b[s.i] == '0':
		s.i++
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !s.digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !s.digits() {
			return false
		}
	}
	return true
}

// digits reads one or more decimal digits.
func (s *scanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

func (s *scanner) literal(word string) bool {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return false
	}
	s.i += len(word)
	return true
}
