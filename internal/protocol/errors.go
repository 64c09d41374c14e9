package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// DecodeError is the error every codec's Decode returns for a payload that
// is not a usable tool call: not JSON, empty, truncated, not an object, or
// missing the tool name.
type DecodeError struct {
	// Offset is the byte offset in the payload where the problem was found,
	// or -1 when the problem has no position (a missing field).
	Offset int64
	// Msg says what is wrong and what was wanted, in lowercase.
	Msg string
}

func (e *DecodeError) Error() string {
	if e.Offset < 0 {
		return e.Msg
	}
	return "offset " + strconv.FormatInt(e.Offset, 10) + ": " + e.Msg
}

func decodeErr(off int64, format string, args ...any) *DecodeError {
	return &DecodeError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// utf8BOM is tolerated in front of a payload (some Windows shells add one).
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// object is a payload's top-level JSON object, its values kept raw.
type object struct {
	src    []byte // the payload, for positioning errors
	base   int64  // offset of src within the original payload (a skipped BOM)
	fields map[string]json.RawMessage
}

// parseObject checks that payload is exactly one JSON object and returns its
// fields. Every failure is a *DecodeError.
func parseObject(payload []byte) (object, error) {
	var base int64
	if bytes.HasPrefix(payload, utf8BOM) {
		payload = payload[len(utf8BOM):]
		base = int64(len(utf8BOM))
	}
	trimmed := bytes.TrimLeft(payload, " \t\r\n")
	if len(trimmed) == 0 {
		if len(payload) == 0 {
			return object{}, decodeErr(-1, "empty payload (want a JSON object)")
		}
		return object{}, decodeErr(-1, "payload is only whitespace (want a JSON object)")
	}
	start := base + int64(len(payload)-len(trimmed))
	if trimmed[0] != '{' {
		var v json.RawMessage
		if err := json.Unmarshal(payload, &v); err != nil {
			return object{}, syntaxErr(err, base, len(payload))
		}
		return object{}, decodeErr(start, "payload is a JSON %s, want an object", jsonType(v))
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(payload, &fields); err != nil {
		return object{}, syntaxErr(err, base, len(payload))
	}
	return object{src: payload, base: base, fields: fields}, nil
}

func syntaxErr(err error, base int64, n int) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		if se.Error() == "unexpected end of JSON input" {
			return decodeErr(base+int64(n), "payload is truncated: unexpected end of JSON input")
		}
		// SyntaxError.Offset counts the offending byte; report where it is.
		off := se.Offset - 1
		if off < 0 {
			off = 0
		}
		return decodeErr(base+off, "payload is not valid JSON: %s", se.Error())
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return decodeErr(base+te.Offset, "payload is a JSON %s, want an object", te.Value)
	}
	return decodeErr(-1, "payload is not valid JSON: %v", err)
}

// jsonType names the JSON type of a valid raw value.
func jsonType(v json.RawMessage) string {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}

// has reports whether key is present (even as null).
func (o object) has(key string) bool {
	_, ok := o.fields[key]
	return ok
}

// str returns the string value of key, or "" when it is absent or not a
// string: decoding is lenient about fields toolguard does not depend on.
func (o object) str(key string) string {
	return rawString(o.fields[key])
}

func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

// requireString returns the non-empty string value of key, or a
// *DecodeError naming the field.
func (o object) requireString(key string) (string, error) {
	raw, ok := o.fields[key]
	if !ok {
		return "", decodeErr(-1, "missing %s", key)
	}
	if len(raw) == 0 || raw[0] != '"' {
		return "", decodeErr(o.offset(key), "%s is a JSON %s, want a string", key, jsonType(raw))
	}
	s := rawString(raw)
	if s == "" {
		return "", decodeErr(o.offset(key), "%s is empty", key)
	}
	return s, nil
}

// strings returns key's value as a list of strings: a JSON array of strings
// (other elements skipped) or a single string.
func (o object) strings(key string) []string {
	return rawStrings(o.fields[key])
}

func rawStrings(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '"' {
		if s := rawString(raw); s != "" {
			return []string{s}
		}
		return nil
	}
	var items []json.RawMessage
	if raw[0] != '[' || json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items {
		if s := rawString(it); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// offset finds where key's value starts in the payload. It walks the
// already-validated object once, so it is only used on the error path.
// The last occurrence wins, as it does for encoding/json.
func (o object) offset(key string) int64 {
	dec := json.NewDecoder(bytes.NewReader(o.src))
	if _, err := dec.Token(); err != nil {
		return -1
	}
	found := int64(-1)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return found
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return found
		}
		if k, _ := tok.(string); k == key {
			found = o.base + dec.InputOffset() - int64(len(raw))
		}
	}
	return found
}
