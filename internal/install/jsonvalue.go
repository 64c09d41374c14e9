package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// A JSON value decoded by decodeJSON is one of: *object, []any, string,
// json.Number, bool or nil. Objects keep their key order so that a rewritten
// settings file differs from the original only where toolguard changed it.

// member is one key of an object.
type member struct {
	key string
	val any
}

// object is a JSON object that remembers the order of its keys.
type object struct {
	members []member
}

func (o *object) index(key string) int {
	for i, m := range o.members {
		if m.key == key {
			return i
		}
	}
	return -1
}

func (o *object) get(key string) (any, bool) {
	if i := o.index(key); i >= 0 {
		return o.members[i].val, true
	}
	return nil, false
}

// set replaces the value of key in place, or appends key at the end.
func (o *object) set(key string, val any) {
	if i := o.index(key); i >= 0 {
		o.members[i].val = val
		return
	}
	o.members = append(o.members, member{key, val})
}

func (o *object) del(key string) {
	if i := o.index(key); i >= 0 {
		o.members = append(o.members[:i], o.members[i+1:]...)
	}
}

func (o *object) len() int { return len(o.members) }

// obj builds an object from alternating keys and values.
func obj(kv ...any) *object {
	o := &object{}
	for i := 0; i+1 < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o
}

// posError is a JSON error at a byte offset of the input.
type posError struct {
	line, col int
	msg       string
}

func (e *posError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col = 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// decodeJSON parses exactly one JSON value. Duplicate keys keep the position
// of the first and the value of the last, as JavaScript's JSON.parse does.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err == nil {
		if _, err = dec.Token(); err == nil {
			err = errors.New("unexpected data after the top-level value")
		} else if err == io.EOF {
			return v, nil
		}
	}
	// The streaming decoder's offsets are approximate; the one-shot scanner
	// behind json.Unmarshal reports the offending byte exactly.
	off := dec.InputOffset()
	msg := strings.TrimPrefix(err.Error(), "json: ")
	var syn *json.SyntaxError
	if errors.As(json.Unmarshal(data, new(any)), &syn) {
		off = max(syn.Offset-1, 0)
		msg = syn.Error()
	}
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) || strings.HasPrefix(msg, "unexpected end") {
		msg = "unexpected end of JSON input"
		off = int64(len(data))
	} else if int(off) < len(data) && data[off] == '/' {
		msg = "comments are not valid JSON"
	}
	line, col := position(data, off)
	return nil, &posError{line, col, msg}
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is %v, want a string", kt)
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.set(key, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			a := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return a, nil
		}
		return nil, fmt.Errorf("unexpected %q", rune(t))
	default:
		return t, nil // string, json.Number, bool, nil
	}
}

// style is how a file is laid out: indent unit ("" = compact), line ending,
// and whether the file ends with a line ending.
type style struct {
	indent   string
	eol      string
	finalEOL bool
}

var defaultStyle = style{indent: "  ", eol: "\n", finalEOL: true}

// detectStyle guesses the layout of an existing JSON file. A file that is
// only "{}" (or empty) gets the default layout.
func detectStyle(data []byte) style {
	s := defaultStyle
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) <= 2 {
		return s
	}
	s.finalEOL = bytes.HasSuffix(data, []byte("\n"))
	if bytes.Contains(data, []byte("\r\n")) {
		s.eol = "\r\n"
	}
	nl := bytes.IndexByte(trimmed, '\n')
	if nl < 0 {
		s.indent = "" // one line: stay compact
		return s
	}
	rest := trimmed[nl+1:]
	i := 0
	for i < len(rest) && (rest[i] == ' ' || rest[i] == '\t') {
		i++
	}
	if i > 0 {
		s.indent = string(rest[:i])
	}
	return s
}

// encodeJSON writes v in style s.
func encodeJSON(v any, s style) ([]byte, error) {
	var b bytes.Buffer
	if err := encodeValue(&b, v, s, 0); err != nil {
		return nil, err
	}
	if s.finalEOL {
		b.WriteString(s.eol)
	}
	return b.Bytes(), nil
}

func encodeValue(b *bytes.Buffer, v any, s style, depth int) error {
	newline := func(d int) {
		if s.indent == "" {
			return
		}
		b.WriteString(s.eol)
		for range d {
			b.WriteString(s.indent)
		}
	}
	switch t := v.(type) {
	case *object:
		if t.len() == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, m := range t.members {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			writeString(b, m.key)
			b.WriteByte(':')
			if s.indent != "" {
				b.WriteByte(' ')
			}
			if err := encodeValue(b, m.val, s, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte('}')
	case []any:
		if len(t) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			newline(depth + 1)
			if err := encodeValue(b, e, s, depth+1); err != nil {
				return err
			}
		}
		newline(depth)
		b.WriteByte(']')
	case string:
		writeString(b, t)
	case json.Number:
		b.WriteString(t.String())
	case int:
		fmt.Fprintf(b, "%d", t)
	case bool:
		if t {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case nil:
		b.WriteString("null")
	default:
		return fmt.Errorf("cannot encode %T", v)
	}
	return nil
}

// writeString writes a JSON string without HTML escaping (settings files are
// not HTML, and "&&" in a command line should stay readable).
func writeString(b *bytes.Buffer, s string) {
	var tmp bytes.Buffer
	enc := json.NewEncoder(&tmp)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	b.Write(bytes.TrimSuffix(tmp.Bytes(), []byte("\n")))
}

// stripComments blanks out // and /* */ comments outside strings, keeping
// byte offsets and line breaks, so that JSON-with-comments files (Gemini's
// settings.json) can be read. It is used for reading only, never for writes.
func stripComments(data []byte) []byte {
	if !bytes.Contains(data, []byte("/")) {
		return data
	}
	out := bytes.Clone(data)
	inStr := false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inStr:
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for i < len(out) && out[i] != '\n' {
				out[i] = ' '
				i++
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			stop := len(out)
			if end := bytes.Index(out[i+2:], []byte("*/")); end >= 0 {
				stop = i + 2 + end + 2
			}
			for k := i; k < stop; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			i = stop - 1
		}
	}
	return out
}

// equalJSON reports whether two decoded values are the same JSON value
// (objects compared with key order).
func equalJSON(a, b any) bool {
	switch x := a.(type) {
	case *object:
		y, ok := b.(*object)
		if !ok || x.len() != y.len() {
			return false
		}
		for i := range x.members {
			if x.members[i].key != y.members[i].key || !equalJSON(x.members[i].val, y.members[i].val) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalJSON(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}
