package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
)

var scanSeeds = []string{
	`{}`, ` {} `, "\t{\n}\r\n", `{"a":1}`, `{"a":"b","a":"c"}`, `{"":null}`,
	`{"a":[1,-2.5e+3,true,false,null,"x",{"b":[]}]}`, `{"a":{"b":{"c":{}}}}`,
	`{"a":"\u00e9\n\"\\\/\b\f\r\t"}`, `{"a":"é"}`, "{\"a\":\"\xff\"}", `{"é":1}`, `{"a\n":1}`,
	`{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":-}`, `{"a":1e}`, `{"a":0.0e-0}`, `{"a":tru}`, `{"a":truex}`,
	`{"a":1,}`, `{,}`, `{"a" 1}`, `{"a":1} x`, `{"a":1}}`, `{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}",
	`{"a":[1,]}`, `{"a":[,1]}`, `{"a":[}`, `{"a":"`, `{"a`, `{`, ``, `[]`, `"x"`, `{'a':1}`,
	`{"tool_name":"Bash","tool_input":{"command":"git status"},"cwd":"/w"}`,
}

// scanObject and plainString agree with encoding/json wherever they answer.
func FuzzScanObject(f *testing.F) {
	for _, s := range scanSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkScan(t, b)
	})
}

func TestScanObject(t *testing.T) {
	t.Parallel()
	answered := 0
	for _, s := range scanSeeds {
		if checkScan(t, []byte(s)) {
			answered++
		}
	}
	if answered < 10 {
		t.Errorf("scanObject answered only %d seeds", answered)
	}
	deep := bytes.Repeat([]byte(`{"a":`), maxScanDepth+1)
	deep = append(append(deep, '1'), bytes.Repeat([]byte("}"), maxScanDepth+1)...)
	if _, ok := scanObject(deep); ok {
		t.Errorf("scanObject took %d levels of nesting", maxScanDepth+1)
	}
}

// checkScan compares scanObject, and plainString on every field, with
// encoding/json; it reports whether scanObject answered.
func checkScan(t *testing.T, b []byte) bool {
	t.Helper()
	got, ok := scanObject(b)
	var want map[string]json.RawMessage
	err := json.Unmarshal(b, &want)
	if !ok {
		return false
	}
	if err != nil || want == nil {
		t.Fatalf("scanObject(%q) took what encoding/json rejects: %v", b, err)
	}
	if len(got) != len(want) {
		t.Fatalf("scanObject(%q) = %q, encoding/json %q", b, got, want)
	}
	for k, w := range want {
		g, found := got[k]
		if !found || !bytes.Equal(g, w) {
			t.Fatalf("scanObject(%q)[%q] = %q, encoding/json %q", b, k, g, w)
		}
		if s, ok := plainString(g); ok {
			var ws string
			if err := json.Unmarshal(g, &ws); err != nil || s != ws {
				t.Fatalf("plainString(%q) = %q, encoding/json %q (%v)", g, s, ws, err)
			}
		}
	}
	return true
}
