// Package jsonw writes the few JSON values a hook process writes on its
// way out (its reply, its audit line) without encoding/json's reflection:
// building the encoder of a struct type costs a fresh process tens of
// microseconds, more than the write. Each writer that uses it is tested
// to give the bytes encoding/json gives for the same value.
package jsonw

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

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

// An Object appends the members of one JSON object to B, in the order
// they are written, as encoding/json writes a struct's fields: Open, the
// members, Close. HTML selects json.Marshal's escaping (AppendStringHTML)
// over an Encoder's with SetEscapeHTML(false) (AppendString). Keys are
// the writer's own constants and are written as they are. A member
// written "Omit" is left out when encoding/json's omitempty would leave
// it out. An object inside an object is an Object of its own on B.
type Object struct {
	B    []byte
	HTML bool
	n    int // members written
}

// Open starts the object.
func (o *Object) Open() {
	o.B = append(o.B, '{')
	o.n = 0
}

// Close ends it.
func (o *Object) Close() { o.B = append(o.B, '}') }

// Key writes a member's key (and the comma before it).
func (o *Object) Key(k string) {
	if o.n > 0 {
		o.B = append(o.B, ',')
	}
	o.n++
	o.B = append(o.B, '"')
	o.B = append(o.B, k...)
	o.B = append(o.B, '"', ':')
}

// Nested writes a member whose value is an object, its members written
// by members.
func (o *Object) Nested(k string, members func(*Object)) {
	o.Key(k)
	o.ObjectValue(members)
}

// ObjectValue appends an object, its members written by members: a
// member's value (Nested) or an array's element.
func (o *Object) ObjectValue(members func(*Object)) {
	in := Object{B: o.B, HTML: o.HTML}
	in.Open()
	members(&in)
	in.Close()
	o.B = in.B
}

// MapKey writes the key of a map's member: data, not a constant, so it
// is quoted as a value is.
func (o *Object) MapKey(k string) {
	if o.n > 0 {
		o.B = append(o.B, ',')
	}
	o.n++
	o.Value(k)
	o.B = append(o.B, ':')
}

// Value appends a string value, quoted.
func (o *Object) Value(s string) { o.B = appendString(o.B, s, o.HTML) }

// Str writes a string member.
func (o *Object) Str(k, v string) {
	o.Key(k)
	o.Value(v)
}

// StrOmit writes a string member unless it is empty.
func (o *Object) StrOmit(k, v string) {
	if v != "" {
		o.Str(k, v)
	}
}

// StrPtr writes a *string member unless it is nil.
func (o *Object) StrPtr(k string, v *string) {
	if v != nil {
		o.Str(k, *v)
	}
}

// Bool writes a bool member.
func (o *Object) Bool(k string, v bool) {
	o.Key(k)
	o.B = strconv.AppendBool(o.B, v)
}

// BoolOmit writes a bool member when it is true.
func (o *Object) BoolOmit(k string, v bool) {
	if v {
		o.Bool(k, v)
	}
}

// BoolPtr writes a *bool member unless it is nil.
func (o *Object) BoolPtr(k string, v *bool) {
	if v != nil {
		o.Bool(k, *v)
	}
}

// IntOmit writes an int member unless it is 0.
func (o *Object) IntOmit(k string, v int) {
	if v != 0 {
		o.Key(k)
		o.B = strconv.AppendInt(o.B, int64(v), 10)
	}
}

// List appends an array of strings (null for a nil slice, as
// encoding/json writes it).
func (o *Object) List(v []string) {
	if v == nil {
		o.B = append(o.B, "null"...)
		return
	}
	o.B = append(o.B, '[')
	for i, s := range v {
		if i > 0 {
			o.B = append(o.B, ',')
		}
		o.Value(s)
	}
	o.B = append(o.B, ']')
}

// ListOmit writes a []string member unless it is empty.
func (o *Object) ListOmit(k string, v []string) {
	if len(v) > 0 {
		o.Key(k)
		o.List(v)
	}
}

// Float appends f as encoding/json writes a float64: the shortest
// decimal, in exponent form below 1e-6 and from 1e21 with no leading zero
// in the exponent. NaN and the infinities are an error, as there.
func (o *Object) Float(k string, f float64) error {
	o.Key(k)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		o.B = append(o.B, '0')
		return fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	o.B = strconv.AppendFloat(o.B, f, format, -1, 64)
	if n := len(o.B); format == 'e' && n >= 4 && o.B[n-4] == 'e' && o.B[n-3] == '-' && o.B[n-2] == '0' {
		o.B[n-2] = o.B[n-1]
		o.B = o.B[:n-1]
	}
	return nil
}

// Time writes t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds; a year outside 0–9999 is an error).
func (o *Object) Time(k string, t time.Time) error {
	o.Key(k)
	b, err := t.MarshalJSON()
	if err != nil {
		o.B = append(o.B, '0')
		return fmt.Errorf("json: error calling MarshalJSON for type time.Time: %v", err)
	}
	o.B = append(o.B, b...)
	return nil
}
