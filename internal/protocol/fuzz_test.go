package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// FuzzDecode feeds arbitrary payloads to every codec and to Detect. A
// decode either fails with a *DecodeError or yields a call with the codec's
// provider, a tool name and a JSON Input; it never panics. The decoded call
// is then encoded for every decision, which must give one JSON line.
func FuzzDecode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(payloadDir, "*", "*.json"))
	for _, file := range files {
		if b, err := os.ReadFile(file); err == nil {
			f.Add(b)
		}
	}
	for _, s := range []string{
		hookJSON("apply_patch", `{"command":"*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** Delete File: c\n*** End Patch"}`),
		hookJSON("Bash", `{"command":["bash","-lc","ls"]}`),
		geminiJSON("web_fetch", `{"prompt":"see https://x.example/a."}`, ""),
		geminiJSON("mcp_a_b_c", `{}`, `,"mcp_context":{"server_name":"a_b"}`),
		copilotCamel("bash", `"{\"command\":\"ls\"}"`),
		cursorJSON("beforeMCPExecution", `,"tool_name":"q","tool_input":"{\"a\":1}"`),
		cursorJSON("beforeReadFile", `,"file_path":"~/x"`),
		`{"tool_name":"Write","tool_input":{"file_path":"C:\\a\\b"},"cwd":"C:\\w"}`,
		"\ufeff{}", "", " ", "null", "[]", `{"tool_name":1}`, `{"tool_name":"Bash","tool_input":"x"}`,
	} {
		f.Add([]byte(s))
	}
	for _, s := range jsonSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, payload []byte) {
		verdicts := []call.Verdict{
			{Decision: call.Pass}, {Decision: call.Allow},
			{Decision: call.Ask, Reason: "r"}, {Decision: call.Deny, Reason: "r", StopTurn: true},
		}
		_ = Detect(payload)
		for _, c := range allCodecs() {
			got, err := DecodeWith(c, payload, DecodeOptions{Home: "/home/u"})
			if err != nil {
				var de *DecodeError
				if !errors.As(err, &de) {
					t.Fatalf("%s: error %T %v, want *DecodeError", c.Name(), err, err)
				}
				if de.Msg == "" || de.Offset > int64(len(payload)) {
					t.Fatalf("%s: bad DecodeError %+v for %d bytes", c.Name(), de, len(payload))
				}
				continue
			}
			if got.Provider != c.Name() || got.Tool == "" {
				t.Fatalf("%s: provider %q tool %q", c.Name(), got.Provider, got.Tool)
			}
			if len(got.Input) > 0 && !json.Valid(got.Input) {
				t.Fatalf("%s: Input not JSON: %q", c.Name(), got.Input)
			}
			for _, v := range verdicts {
				checkReply(t, c.Name(), EncodeFor(c, got, v))
			}
		}
	})
}

// FuzzEncode checks that any reason text gives exactly one JSON object on
// one line, or nothing.
func FuzzEncode(f *testing.F) {
	f.Add("toolguard: denied by rule git-push-force: push a branch instead", "", uint8(3), false)
	f.Add("a\nb\t\"c\" <d> & \u2028", "stop", uint8(2), true)
	f.Add("\xff\xfe", "\x00", uint8(200), true)
	f.Fuzz(func(t *testing.T, reason, stop string, d uint8, stopTurn bool) {
		v := call.Verdict{Decision: call.Decision(d % 6), Reason: reason, StopTurn: stopTurn, StopReason: stop}
		for _, c := range allCodecs() {
			checkReply(t, c.Name(), c.Encode(v))
			checkReply(t, c.Name(), EncodeFor(c, call.Call{Event: "beforeReadFile"}, v))
		}
	})
}

func checkReply(t *testing.T, codec string, r Reply) {
	t.Helper()
	if codec == NameDevin && r.ExitCode == 2 {
		// Devin: the JSON block on stdout, the reason on stderr, exit 2.
		if len(r.Stderr) == 0 {
			t.Fatalf("%s: exit 2 without a reason on stderr", codec)
		}
		r.ExitCode = 0 // check stdout below
	}
	if (codec == NameKiro || codec == NameWindsurf) && r.ExitCode == 2 {
		// The exit-code dialects block with exit 2 and the reason on
		// stderr, nothing on stdout.
		if len(r.Stdout) != 0 || len(r.Stderr) == 0 {
			t.Fatalf("%s: exit 2 with stdout %q, stderr %q", codec, r.Stdout, r.Stderr)
		}
		return
	}
	if r.ExitCode != 0 {
		t.Fatalf("%s: exit %d", codec, r.ExitCode)
	}
	if len(r.Stdout) == 0 {
		return
	}
	body, ok := bytes.CutSuffix(r.Stdout, []byte("\n"))
	if !ok || bytes.ContainsAny(body, "\n\r") {
		t.Fatalf("%s: stdout is not one line: %q", codec, r.Stdout)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatalf("%s: stdout is not a JSON object: %v: %q", codec, err, body)
	}
}

// jsonSeeds are JSON edge cases (once the seeds of a hand-written object
// scanner, now gone): every codec must decode them as encoding/json does,
// or refuse them, without panicking.
var jsonSeeds = []string{
	`{}`, ` {} `, "\t{\n}\r\n", `{"a":1}`, `{"a":"b","a":"c"}`, `{"":null}`,
	`{"a":[1,-2.5e+3,true,false,null,"x",{"b":[]}]}`, `{"a":{"b":{"c":{}}}}`,
	`{"a":"\u00e9\n\"\\\/\b\f\r\t"}`, `{"a":"é"}`, "{\"a\":\"\xff\"}", `{"é":1}`, `{"a\n":1}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":0.0e-0}`, `{"a":tru}`, `{"a":truex}`,
	`{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":1} x`, `{"a":1}}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}",
	`{"a":[1,]}`, `{"a":[,1]}`, `{"a":[}`, `{"a":"`, `{"a`, `{`, ``, `[]`, `"x"`, `{'a':1}`,
	`{"tool_name":"Bash","tool_input":{"command":"git status"},"cwd":"/w"}`,
	`{"tool_name":"Bash","tool_input":{"command":"git status","command":"rm -rf /"},"cwd":"/w"}`,
	`{"tool_name":"Bash","tool_input":{"command":"git \u0073tatus"},"cwd":"/w"}`,
	`{"tool_name":"Bash","tool_input":{"comm\u0061nd":"rm -rf /"},"cwd":"/w"}`,
}
