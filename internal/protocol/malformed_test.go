package protocol

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestDecodeMalformed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name    string
		payload string
		offset  int64
		msg     string
	}{
		{"empty", ``, -1, "empty payload (want a JSON object)"},
		{"whitespace", " \n\t\r ", -1, "payload is only whitespace (want a JSON object)"},
		{"BOM only", "\ufeff", -1, "empty payload (want a JSON object)"},
		{"not JSON", `hello`, 0, "payload is not valid JSON: invalid character 'h' looking for beginning of value"},
		{"not JSON after space", `  {x}`, 3, "payload is not valid JSON: invalid character 'x' looking for beginning of object key string"},
		{"binary junk", "\x00\xff\xfe\x01", 0, `payload is not valid JSON: invalid character '\x00' looking for beginning of value`},
		{"truncated", `{"tool_name":"Bash","tool_input":{"command":"ls"`, 48, "payload is truncated: unexpected end of JSON input"},
		{"truncated string", `{"tool_name":"Ba`, 16, "payload is truncated: unexpected end of JSON input"},
		{"lone brace", `{`, 1, "payload is truncated: unexpected end of JSON input"},
		{"trailing garbage", `{"tool_name":"Bash"} x`, 21, "payload is not valid JSON: invalid character 'x' after top-level value"},
		{"two objects", `{"tool_name":"Bash"}{"tool_name":"Bash"}`, 20, "payload is not valid JSON: invalid character '{' after top-level value"},
		{"array", `[1,2]`, 0, "payload is a JSON array, want an object"},
		{"array of payload", ` [{"tool_name":"Bash"}]`, 1, "payload is a JSON array, want an object"},
		{"string", `"Bash"`, 0, "payload is a JSON string, want an object"},
		{"number", `42`, 0, "payload is a JSON number, want an object"},
		{"boolean", `true`, 0, "payload is a JSON boolean, want an object"},
		{"null", `null`, 0, "payload is a JSON null, want an object"},
		{"empty object", `{}`, -1, "missing tool_name"},
		{"tool_name number", `{"tool_name": 7}`, 14, "tool_name is a JSON number, want a string"},
		{"tool_name null", `{"tool_name":null}`, 13, "tool_name is a JSON null, want a string"},
		{"tool_name empty", `{"tool_name":""}`, 13, "tool_name is empty"},
		{"duplicate key, last wins", `{"tool_name":"Bash","tool_name":3}`, 32, "tool_name is a JSON number, want a string"},
		{"tool_input array", `{"tool_name":"Bash","tool_input":[1]}`, 33, "tool_input is a JSON array, want an object"},
		{"tool_input number", `{"tool_name":"Bash","tool_input":1}`, 33, "tool_input is a JSON number, want an object"},
		{"invalid escape", `{"tool_name":"\x"}`, 15, `payload is not valid JSON: invalid character 'x' in string escape code`},
		{"control char in string", "{\"tool_name\":\"a\nb\"}", 15, `payload is not valid JSON: invalid character '\n' in string literal`},
	}
	// Every codec that reads tool_name/tool_input must reject these the same way.
	for _, codec := range []string{NameClaude, NameCodeBuddy, NameGemini, NameUniversal} {
		c := mustLookup(t, codec)
		for _, tc := range cases {
			t.Run(codec+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				_, err := c.Decode([]byte(tc.payload))
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("err = %#v, want *DecodeError", err)
				}
				if de.Msg != tc.msg || de.Offset != tc.offset {
					t.Errorf("got  {%d %q}\nwant {%d %q}", de.Offset, de.Msg, tc.offset, tc.msg)
				}
			})
		}
	}
}

// TestDecodeMalformedPerDialect covers errors specific to one dialect.
func TestDecodeMalformedPerDialect(t *testing.T) {
	t.Parallel()
	cases := []struct {
		codec, name, payload string
		offset               int64
		msg                  string
	}{
		{NameCodex, "tool_input number", `{"tool_name":"Bash","tool_input":1}`, 33, "tool_input is a JSON number, want an object"},
		{NameCodex, "missing tool_name", `{"turn_id":"t"}`, -1, "missing tool_name"},
		{NameCopilot, "missing toolName", `{"sessionId":"s","toolArgs":{}}`, -1, "missing toolName"},
		{NameCopilot, "toolArgs not JSON", `{"toolName":"bash","toolArgs":"rm -rf /"}`, 30, "toolArgs is a string that does not hold a JSON object"},
		{NameCopilot, "toolArgs string array", `{"toolName":"bash","toolArgs":"[1]"}`, 30, "toolArgs is a string that does not hold a JSON object"},
		{NameCopilot, "toolArgs number", `{"toolName":"bash","toolArgs":5}`, 30, "toolArgs is a JSON number, want an object"},
		{NameCopilot, "pascal missing tool_name", `{"hook_event_name":"PreToolUse","tool_input":{}}`, -1, "missing tool_name"},
		{NameCursor, "shell without command", `{"hook_event_name":"beforeShellExecution","cwd":"/p"}`, -1, "missing command"},
		{NameCursor, "shell command number", `{"hook_event_name":"beforeShellExecution","command":1}`, 52, "command is a JSON number, want a string"},
		{NameCursor, "read without file_path", `{"hook_event_name":"beforeReadFile"}`, -1, "missing file_path"},
		{NameCursor, "mcp without tool_name", `{"hook_event_name":"beforeMCPExecution","tool_input":"{}"}`, -1, "missing tool_name"},
		{NameCursor, "mcp tool_input bad string", `{"hook_event_name":"beforeMCPExecution","tool_name":"q","tool_input":"{oops"}`, 69, "tool_input is a string that does not hold a JSON object"},
		{NameCursor, "array", `[]`, 0, "payload is a JSON array, want an object"},
		{NameGemini, "tool_input string", `{"tool_name":"read_file","tool_input":"a"}`, 38, "tool_input is a JSON string, want an object"},
		{NameClaude, "BOM keeps offsets", "\ufeff{\"tool_name\":1}", 16, "tool_name is a JSON number, want a string"},
		{NameClaude, "BOM then junk", "\ufeffx", 3, "payload is not valid JSON: invalid character 'x' looking for beginning of value"},
	}
	for _, tc := range cases {
		t.Run(tc.codec+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := mustLookup(t, tc.codec).Decode([]byte(tc.payload))
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("err = %#v, want *DecodeError", err)
			}
			if de.Msg != tc.msg || de.Offset != tc.offset {
				t.Errorf("got  {%d %q}\nwant {%d %q}", de.Offset, de.Msg, tc.offset, tc.msg)
			}
			if want := fmt.Sprintf("offset %d: %s", tc.offset, tc.msg); tc.offset >= 0 && err.Error() != want {
				t.Errorf("Error() = %q, want %q", err.Error(), want)
			}
		})
	}
}

// TestDecodeLarge decodes a valid 10 MB payload: size limits are the
// caller's, the codec must simply cope.
func TestDecodeLarge(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the 10 MiB payloads are left out")
	}
	content := strings.Repeat("x", 10<<20)
	payload := hookJSON("Write", `{"file_path":"big.txt","content":"`+content+`"}`)
	for _, codec := range []string{NameClaude, NameCodex, NameUniversal} {
		got, err := mustLookup(t, codec).Decode([]byte(payload))
		if err != nil {
			t.Fatalf("%s: %v", codec, err)
		}
		if len(got.Input) < 10<<20 || len(got.Paths) != 1 || got.Paths[0].Path != testCwd+"/big.txt" {
			t.Errorf("%s: paths %v, input %d bytes", codec, got.Paths, len(got.Input))
		}
	}
}

// TestDecodeDeepNesting checks that pathological nesting is an error or a
// call, never a panic or a hang.
func TestDecodeDeepNesting(t *testing.T) {
	t.Parallel()
	deep := `{"tool_name":"Bash","tool_input":{"a":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}}`
	for _, c := range allCodecs() {
		_, err := c.Decode([]byte(deep))
		var de *DecodeError
		if err != nil && !errors.As(err, &de) {
			t.Errorf("%s: err = %#v, want nil or *DecodeError", c.Name(), err)
		}
	}
	if _, err := mustLookup(t, NameClaude).Decode(bytes.Repeat([]byte("{"), 1<<16)); err == nil {
		t.Error("unbalanced braces decoded")
	}
}

func allCodecs() []Codec {
	return append(append([]Codec(nil), codecs...), universalCodec{})
}
