package protocol

import (
	"bytes"
	"encoding/json"
)

// input is a tool's arguments.
type input struct {
	raw    json.RawMessage            // the argument object as sent, or decoded from a string; nil if none
	fields map[string]json.RawMessage // its fields
	text   string                     // a plain-string input (Codex apply_patch may send the bare patch)
}

// inputMode says which JSON types a codec accepts for a tool's arguments.
type inputMode int

const (
	// inputObject accepts an object, null or an absent field.
	inputObject inputMode = iota
	// inputObjectOrJSONString also accepts a string that holds a JSON object
	// (Copilot toolArgs, Cursor MCP tool_input).
	inputObjectOrJSONString
	// inputObjectOrText also accepts any string, kept as input.text.
	inputObjectOrText
)

func (o object) input(key string, mode inputMode) (input, error) {
	raw, ok := o.fields[key]
	if !ok || jsonType(raw) == "null" {
		return input{}, nil
	}
	switch raw[0] {
	case '{':
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(raw, &fields); err != nil {
			// Unreachable: the payload was validated as a whole.
			return input{}, decodeErr(o.offset(key), "%s: %v", key, err)
		}
		return input{raw: raw, fields: fields}, nil
	case '"':
		s := rawString(raw)
		switch mode {
		case inputObjectOrText:
			return input{raw: raw, text: s}, nil
		case inputObjectOrJSONString:
			inner := bytes.TrimSpace([]byte(s))
			if len(inner) == 0 {
				return input{}, nil
			}
			var fields map[string]json.RawMessage
			if inner[0] != '{' || json.Unmarshal(inner, &fields) != nil {
				return input{}, decodeErr(o.offset(key), "%s is a string that does not hold a JSON object", key)
			}
			return input{raw: json.RawMessage(inner), fields: fields}, nil
		}
	}
	return input{}, decodeErr(o.offset(key), "%s is a JSON %s, want an object", key, jsonType(raw))
}

func (in input) str(key string) string { return rawString(in.fields[key]) }

// first returns the first non-empty string among keys.
func (in input) first(keys ...string) string {
	for _, k := range keys {
		if s := in.str(k); s != "" {
			return s
		}
	}
	return ""
}

func (in input) strings(key string) []string { return rawStrings(in.fields[key]) }
