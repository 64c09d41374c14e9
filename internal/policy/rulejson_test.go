package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/tools/hookbench/policygen"
)

// stdDecode decodes b as the lazy loader does with encoding/json: one
// value, unknown fields refused, nothing after it.
func stdDecode[T any](b []byte) (T, error) {
	var v T
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		return v, err
	}
	if dec.InputOffset() != int64(len(b)) {
		return v, fmt.Errorf("trailing data at offset %d", dec.InputOffset())
	}
	return v, nil
}

func sptr(s string) *string { return &s }

// ruleJSONCases are hand-written rule lines: want is the decoded rule, or
// nil when decodeRuleJSON must leave the line to encoding/json (std says
// whether encoding/json accepts it).
var ruleJSONCases = []struct {
	name string
	line string
	want *fileRule
	std  bool
}{
	{"minimal", `{"id":"r","decision":"deny"}`, &fileRule{ID: "r", Decision: "deny"}, true},
	{"empty object", `{}`, &fileRule{}, true},
	{"leading whitespace", " \t\r\n{\"id\":\"r\"}", &fileRule{ID: "r"}, true},
	{"inner whitespace", "{ \"id\" :\t\"r\" ,\n\"args\" : [ \"a\" , \"b\" ] , \"examples\" : { } }",
		&fileRule{ID: "r", Args: stringList{"a", "b"}}, true},
	{"every field", `{"id":"all","description":"d","decision":"ask","justification":"j","priority":-12,"locked":true,` +
		`"tool":["Bash"],"command":["git push"],"args":["--force","-f"],"args_all":["-i"],"args_none":["--dry-run"],` +
		`"path":["**/.env"],"path_none":["/tmp/**"],"op":["write","delete"],"scope":"outside","mcp":["gh/*"],` +
		`"regex":"^x$","fed_by":["network"],"via":["xargs"],"env":["A=?*"],"env_none":["B=1"],"code":"eval\\(",` +
		`"domain":["*.example.com"],"modes":["plan"],` +
		`"input":[{"field":"f","exact":"e","prefix":"p","glob":"g*","regex":"r+","not":true},{"field":"g","not":false}],` +
		`"examples":{"match":["git push -f"],"not_match":["git push"]},"layer":"org","source":"org.toml:3"}`,
		&fileRule{ID: "all", Description: "d", Decision: "ask", Justification: "j", Priority: -12, Locked: true,
			Tool: stringList{"Bash"}, Command: stringList{"git push"}, Args: stringList{"--force", "-f"},
			ArgsAll: stringList{"-i"}, ArgsNone: stringList{"--dry-run"}, Path: stringList{"**/.env"},
			PathNone: stringList{"/tmp/**"}, Op: stringList{"write", "delete"}, Scope: "outside", MCP: stringList{"gh/*"},
			Regex: "^x$", FedBy: stringList{"network"}, Via: stringList{"xargs"}, Env: stringList{"A=?*"},
			EnvNone: stringList{"B=1"}, Code: `eval\(`, Domain: stringList{"*.example.com"}, Modes: stringList{"plan"},
			Input: []fileInput{{Field: "f", Exact: sptr("e"), Prefix: sptr("p"), Glob: sptr("g*"), Regex: sptr("r+"), Not: true},
				{Field: "g"}},
			Examples: fileExamples{Match: []string{"git push -f"}, NotMatch: []string{"git push"}},
			Layer:    "org", Source: "org.toml:3"}, true},
	{"empty arrays are non-nil", `{"args":[],"input":[],"examples":{"match":[],"not_match":[]}}`,
		&fileRule{Args: stringList{}, Input: []fileInput{}, Examples: fileExamples{Match: []string{}, NotMatch: []string{}}}, true},
	{"empty strings", `{"id":"","input":[{"field":"","exact":""}]}`,
		&fileRule{Input: []fileInput{{Exact: sptr("")}}}, true},
	{"many strings", `{"args":["1","2","3","4","5","6","7","8","9","10","11","12","13","14","15","16","17","18"]}`,
		&fileRule{Args: stringList{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18"}}, true},
	{"escapes", `{"regex":"\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC\ud83d\ude00\u003c\u0000x"}`,
		&fileRule{Regex: "\"\\/\b\f\n\r\t" + "Aé€😀<\x00x"}, true},
	{"escaped key", `{"i\u0064":"r"}`, &fileRule{ID: "r"}, true},
	{"utf-8 kept", `{"description":"héllo — ☃ 😀 \ufffd"}`, &fileRule{Description: "héllo — ☃ 😀 \ufffd"}, true},
	{"lone high surrogate", `{"id":"a\ud800b"}`, &fileRule{ID: "a\ufffdb"}, true},
	{"lone low surrogate", `{"id":"\udc00"}`, &fileRule{ID: "\ufffd"}, true},
	{"reversed pair", `{"id":"\ude00\ud83d"}`, &fileRule{ID: "\ufffd\ufffd"}, true},
	{"high surrogate then plain escape", `{"id":"\ud83d\u0041"}`, &fileRule{ID: "\ufffdA"}, true},
	{"invalid utf-8 replaced", "{\"id\":\"a\xffb\xed\xa0\x80\"}", &fileRule{ID: "a\ufffdb\ufffd\ufffd\ufffd"}, true},
	{"invalid utf-8 after escape", "{\"id\":\"\\n\xc3\"}", &fileRule{ID: "\n\ufffd"}, true},
	{"priority zero", `{"priority":0}`, &fileRule{}, true},
	{"priority minus zero", `{"priority":-0}`, &fileRule{}, true},
	{"priority large", `{"priority":9223372036854775807}`, &fileRule{Priority: 9223372036854775807}, true},
	{"locked false", `{"locked":false}`, &fileRule{}, true},

	{"empty input", ``, nil, false},
	{"not an object", `["id"]`, nil, false},
	{"trailing space", `{"id":"r"} `, nil, false},
	{"trailing comma after object", `{"id":"r"},`, nil, false},
	{"second value", `{"id":"r"}{}`, nil, false},
	{"truncated", `{"id":"r"`, nil, false},
	{"truncated string", `{"id":"r`, nil, false},
	{"trailing comma", `{"id":"r",}`, nil, false},
	{"leading comma", `{,"id":"r"}`, nil, false},
	{"missing colon", `{"id" "r"}`, nil, false},
	{"missing comma", `{"id":"r" "decision":"deny"}`, nil, false},
	{"unknown key", `{"id":"r","bogus":1}`, nil, false},
	{"case-folded key", `{"ID":"r"}`, nil, true},
	{"kelvin-folded key", `{"loc\u212aed":true}`, nil, true},
	{"duplicate key", `{"id":"a","id":"b"}`, nil, true},
	{"duplicate list", `{"args":["a"],"args":["b"]}`, nil, true},
	{"null string", `{"id":null}`, nil, true},
	{"null list", `{"args":null}`, nil, true},
	{"null element", `{"args":["a",null]}`, nil, true},
	{"null pointer", `{"input":[{"field":"f","exact":null}]}`, nil, true},
	{"null examples", `{"examples":null}`, nil, true},
	{"string list as string", `{"command":"git push"}`, nil, false},
	{"number for string", `{"id":1}`, nil, false},
	{"string for bool", `{"locked":"true"}`, nil, false},
	{"bool prefix", `{"locked":tru}`, nil, false},
	{"bool with tail", `{"locked":truex}`, nil, false},
	{"float priority", `{"priority":1.5}`, nil, false},
	{"integral float priority", `{"priority":1.0}`, nil, false},
	{"exponent priority", `{"priority":1e2}`, nil, false},
	{"priority overflow", `{"priority":9223372036854775808}`, nil, false},
	{"leading zero", `{"priority":01}`, nil, false},
	{"plus sign", `{"priority":+1}`, nil, false},
	{"bare minus", `{"priority":-}`, nil, false},
	{"string priority", `{"priority":"1"}`, nil, false},
	{"nested list", `{"args":[["a"]]}`, nil, false},
	{"list trailing comma", `{"args":["a",]}`, nil, false},
	{"list leading comma", `{"args":[,"a"]}`, nil, false},
	{"list missing comma", `{"args":["a" "b"]}`, nil, false},
	{"input not a list", `{"input":{"field":"f"}}`, nil, false},
	{"input unknown key", `{"input":[{"field":"f","bogus":"x"}]}`, nil, false},
	{"input duplicate key", `{"input":[{"field":"f","field":"g"}]}`, nil, true},
	{"examples unknown key", `{"examples":{"matches":["x"]}}`, nil, false},
	{"raw newline in string", "{\"id\":\"a\nb\"}", nil, false},
	{"raw tab in string", "{\"id\":\"a\tb\"}", nil, false},
	{"bad escape", `{"id":"\x41"}`, nil, false},
	{"single quote escape", `{"id":"\'"}`, nil, false},
	{"short unicode escape", `{"id":"\u12"}`, nil, false},
	{"bad hex", `{"id":"\u12g4"}`, nil, false},
	{"surrogate then bad escape", `{"id":"\ud83d\uzzzz"}`, nil, false},
	{"backslash at end", `{"id":"\`, nil, false},
	{"single-quoted", `{'id':'r'}`, nil, false},
	{"unquoted key", `{id:"r"}`, nil, false},
	{"byte order mark", "\ufeff{}", nil, false},
	{"non-breaking space", "{\u00a0}", nil, false},
}

func TestDecodeRuleJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range ruleJSONCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := decodeRuleJSON([]byte(tc.line))
			std, err := stdDecode[fileRule]([]byte(tc.line))
			if tc.want == nil {
				if ok {
					t.Errorf("decodeRuleJSON(%q) = %+v, true; want false", tc.line, got)
				}
				if (err == nil) != tc.std {
					t.Errorf("encoding/json accepts %q: %v, the table says %v", tc.line, err == nil, tc.std)
				}
				return
			}
			if !ok {
				t.Fatalf("decodeRuleJSON(%q) = false", tc.line)
			}
			if !reflect.DeepEqual(got, *tc.want) {
				t.Errorf("decodeRuleJSON(%q)\n got %#v\nwant %#v", tc.line, got, *tc.want)
			}
			if err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			if !reflect.DeepEqual(got, std) {
				t.Errorf("decodeRuleJSON(%q)\n got %#v\n encoding/json %#v", tc.line, got, std)
			}
		})
	}
}

var headerJSONCases = []struct {
	name string
	line string
	want *lazyHeader
	std  bool
}{
	{"materialized", `{"version":1,"materialized":{"hash":"sha256:ab","layers":["builtin=internal/policy/defaults.toml","org=org.toml"]},` +
		`"settings":{"builtin":false,"default":"pass","mode":"interactive","on_error":"deny","on_unparsable":"ask","on_dynamic":"ask",` +
		`"audit":"decisions","safe_prefixes":["/tmp"]},"tests":[]}`,
		&lazyHeader{Version: 1, Meta: &materialMeta{Hash: "sha256:ab", Layers: []string{"builtin=internal/policy/defaults.toml", "org=org.toml"}},
			Settings: fileSettings{Builtin: new(bool), Default: sptr("pass"), Mode: sptr("interactive"), OnError: sptr("deny"),
				OnUnparsable: sptr("ask"), OnDynamic: sptr("ask"), Audit: sptr("decisions"), SafePrefixes: []string{"/tmp"}},
			Tests: []fileTest{}}, true},
	{"every setting", `{"settings":{"layer":"org","builtin":true,"default":"ask","default_for":{"mcp":"deny","web":"ask","mcp":"allow"},` +
		`"mode":"headless","on_error":"deny","on_unparsable":"deny","on_dynamic":"pass","disable":["a","b"],"audit_log":"/var/log/tg",` +
		`"audit":"all","state_dir":"/s","workspace":"/w","safe_prefixes":[],"locked":["mode"]}}`,
		&lazyHeader{Settings: fileSettings{Layer: sptr("org"), Builtin: func() *bool { b := true; return &b }(), Default: sptr("ask"),
			DefaultFor: map[string]string{"mcp": "allow", "web": "ask"}, Mode: sptr("headless"), OnError: sptr("deny"),
			OnUnparsable: sptr("deny"), OnDynamic: sptr("pass"), Disable: []string{"a", "b"}, AuditLog: sptr("/var/log/tg"),
			Audit: sptr("all"), StateDir: sptr("/s"), Workspace: sptr("/w"), SafePrefixes: []string{}, Locked: []string{"mode"}}}, true},
	{"empty default_for", `{"settings":{"default_for":{}}}`, &lazyHeader{Settings: fileSettings{DefaultFor: map[string]string{}}}, true},
	{"empty meta", `{"materialized":{}}`, &lazyHeader{Meta: &materialMeta{}}, true},
	{"tests", `{"tests":[{"name":"n","command":"c","tool":"t","path":"p","mcp":"m","url":"u","mode":"plan","cwd":"/","expect":"deny",` +
		`"input":{"s":"x","n":-1.5e3,"i":7,"t":true,"f":false,"z":null,"a":[],"o":{},"deep":{"l":[1,"two",[null],{"k":"v"}]},"s":"last"}},{}]}`,
		&lazyHeader{Tests: []fileTest{{Name: "n", Command: "c", Tool: "t", Path: "p", MCP: "m", URL: "u", Mode: "plan", Cwd: "/", Expect: "deny",
			Input: map[string]any{"s": "last", "n": -1500.0, "i": 7.0, "t": true, "f": false, "z": nil, "a": []any{}, "o": map[string]any{},
				"deep": map[string]any{"l": []any{1.0, "two", []any{nil}, map[string]any{"k": "v"}}}}}, {}}}, true},
	{"version", `{"version":2}`, &lazyHeader{Version: 2}, true},

	{"unknown key", `{"version":1,"rules":[]}`, nil, false},
	{"index key", `{"version":1,"index":"v1"}`, nil, false},
	{"null meta", `{"materialized":null}`, nil, true},
	{"duplicate settings", `{"settings":{},"settings":{}}`, nil, true},
	{"unknown setting", `{"settings":{"bogus":"x"}}`, nil, false},
	{"builtin as string", `{"settings":{"builtin":"false"}}`, nil, false},
	{"default_for number", `{"settings":{"default_for":{"mcp":1}}}`, nil, false},
	{"test input not an object", `{"tests":[{"input":[1]}]}`, nil, false},
	{"test input number out of range", `{"tests":[{"input":{"n":1e400}}]}`, nil, false},
	{"test input bad number", `{"tests":[{"input":{"n":1.}}]}`, nil, false},
	{"test input bad exponent", `{"tests":[{"input":{"n":1e}}]}`, nil, false},
	{"test input bad literal", `{"tests":[{"input":{"n":nul}}]}`, nil, false},
	{"test input too deep", `{"tests":[{"input":{"a":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}}]}`, nil, true},
	{"test unknown key", `{"tests":[{"command":"c","bogus":1}]}`, nil, false},
	{"version float", `{"version":1.0}`, nil, false},
}

func TestDecodeHeaderJSON(t *testing.T) {
	t.Parallel()
	for _, tc := range headerJSONCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := decodeHeaderJSON([]byte(tc.line))
			std, err := stdDecode[lazyHeader]([]byte(tc.line))
			if tc.want == nil {
				if ok {
					t.Errorf("decodeHeaderJSON(%q) = %+v, true; want false", tc.line, got)
				}
				if (err == nil) != tc.std {
					t.Errorf("encoding/json accepts %q: %v, the table says %v", tc.line, err == nil, tc.std)
				}
				return
			}
			if !ok {
				t.Fatalf("decodeHeaderJSON(%q) = false", tc.line)
			}
			if !reflect.DeepEqual(got, *tc.want) {
				t.Errorf("decodeHeaderJSON(%q)\n got %#v\nwant %#v", tc.line, got, *tc.want)
			}
			if err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			if !reflect.DeepEqual(got, std) {
				t.Errorf("decodeHeaderJSON(%q)\n got %#v\n encoding/json %#v", tc.line, got, std)
			}
		})
	}
}

// ruleJSONExtra is a layer that uses what the generated policy does not:
// input conditions, priorities, modes, env_none, code, scope, settings
// with a default_for, and [[test]]s with an input.
const ruleJSONExtra = `
[settings]
layer = "extra"
default_for = { mcp = "ask", web = "deny" }
locked = ["on_error"]
workspace = "/home/u/proj"

[[rule]]
id = "extra-input"
decision = "deny"
priority = 7
locked = true
tool = ["agent", "Frob*"]
modes = ["plan", "acceptEdits"]
env_none = ["CI=1"]
description = "Quotes \" and backslashes \\ and <html> & a tab\t, é and 😀."
[[rule.input]]
field = "subagent_type"
exact = "deployer"
[[rule.input]]
field = "level"
prefix = "max"
not = true
[[rule.input]]
field = "path"
glob = "*.env"
[[rule.input]]
field = "body"
regex = "(?i)secret"

[[rule]]
id = "extra-code"
decision = "ask"
code = '''eval\s*\('''
scope = "outside"
path = ["/etc/**"]
op = ["write"]
examples.match = []

[[test]]
name = "input"
tool = "agent"
input = { subagent_type = "deployer", n = 3, f = 1.5, ok = true, list = [1, "a"], sub = { k = "v" } }
expect = "deny"
`

// materializedLines materializes a policy of the defaults, n generated
// rules and ruleJSONExtra, and returns its header (as the lazy loader cuts
// it) and its rule lines.
func materializedLines(n int) (header []byte, rules [][]byte, err error) {
	p, err := Load([]Source{
		{Path: "org.toml", Data: []byte(policygen.TOML(n))},
		{Path: "extra.toml", Data: []byte(ruleJSONExtra)},
	}, LoadOptions{})
	if err != nil {
		return nil, nil, err
	}
	data, err := p.Materialize()
	if err != nil {
		return nil, nil, err
	}
	lines := bytes.Split(data, []byte("\n"))
	i := bytes.Index(lines[0], []byte(indexKey))
	if i < 0 || len(lines) < 4 {
		return nil, nil, fmt.Errorf("not the materialized layout: %.80q", data)
	}
	header = append(append([]byte(nil), lines[0][:i]...), '}')
	for _, l := range lines[2 : len(lines)-2] {
		rules = append(rules, bytes.TrimSuffix(l, []byte(",")))
	}
	if len(rules) != p.RuleCount() {
		return nil, nil, fmt.Errorf("%d rule lines for %d rules", len(rules), p.RuleCount())
	}
	return header, rules, nil
}

// TestDecodeRuleJSONMaterialized: every rule line of a real materialized
// policy (the defaults and 2,000 generated rules) and its header decode
// without falling back, to what encoding/json gives.
func TestDecodeRuleJSONMaterialized(t *testing.T) {
	t.Parallel()
	header, rules, err := materializedLines(2000)
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range rules {
		got, ok := decodeRuleJSON(line)
		if !ok {
			t.Errorf("rule line %d falls back: %s", i, line)
			continue
		}
		want, err := stdDecode[fileRule](line)
		if err != nil {
			t.Fatalf("rule line %d: encoding/json: %v", i, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("rule line %d: %s\n got %#v\nwant %#v", i, line, got, want)
		}
	}
	got, ok := decodeHeaderJSON(header)
	if !ok {
		t.Fatalf("header falls back: %s", header)
	}
	want, err := stdDecode[lazyHeader](header)
	if err != nil {
		t.Fatalf("header: encoding/json: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("header: %s\n got %#v\nwant %#v", header, got, want)
	}
	if len(got.Tests) != 1 || got.Tests[0].Input["sub"] == nil || got.Settings.DefaultFor["web"] != "deny" {
		t.Errorf("header lacks the extra layer's settings and test: %s", header)
	}
}

// FuzzDecodeRuleJSON: whenever decodeRuleJSON or decodeHeaderJSON
// accepts an input, encoding/json accepts it too with the same value; on
// no input do they panic.
func FuzzDecodeRuleJSON(f *testing.F) {
	for _, tc := range ruleJSONCases {
		f.Add([]byte(tc.line))
	}
	for _, tc := range headerJSONCases {
		f.Add([]byte(tc.line))
	}
	header, rules, err := materializedLines(100)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(header)
	for i, line := range rules {
		f.Add(line)
		if i%10 != 0 {
			continue
		}
		// Mutations: a key in capitals, an escaped key, whitespace,
		// a cut, and a string with escapes.
		s := string(line)
		f.Add([]byte(strings.Replace(s, `"decision"`, `"Decision"`, 1)))
		f.Add([]byte(strings.Replace(s, `"id"`, `"\u0069d"`, 1)))
		f.Add([]byte(strings.ReplaceAll(s, `,"`, `, "`)))
		f.Add(line[:len(line)/2])
		f.Add([]byte(strings.Replace(s, `":"`, `":"\ud83d\ude00\t\"\\x`, 2)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, ok := decodeRuleJSON(b); ok {
			want, err := stdDecode[fileRule](b)
			if err != nil {
				t.Fatalf("decodeRuleJSON accepts %q, encoding/json: %v", b, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeRuleJSON(%q)\n got %#v\nwant %#v", b, got, want)
			}
		}
		if got, ok := decodeHeaderJSON(b); ok {
			want, err := stdDecode[lazyHeader](b)
			if err != nil {
				t.Fatalf("decodeHeaderJSON accepts %q, encoding/json: %v", b, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decodeHeaderJSON(%q)\n got %#v\nwant %#v", b, got, want)
			}
		}
	})
}

var benchLines = sync.OnceValues(func() ([][]byte, error) {
	header, rules, err := materializedLines(2000)
	return append([][]byte{header}, rules...), err
})

// benchRuleLine picks a typical rule line: a default rule (with examples)
// or a generated organisation rule.
func benchRuleLine(b *testing.B, prefix string) []byte {
	lines, err := benchLines()
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range lines[1:] {
		if bytes.HasPrefix(l, []byte(`{"id":"`+prefix)) {
			return l
		}
	}
	b.Fatalf("no rule line starts with id %q", prefix)
	return nil
}

// BenchmarkDecodeRuleJSON compares decodeRuleJSON with encoding/json on a
// default rule ("git-push-force", with examples) and a generated one.
func BenchmarkDecodeRuleJSON(b *testing.B) {
	for _, id := range []string{"git-push-force", "org-cmd-"} {
		line := benchRuleLine(b, id)
		b.Run(strings.TrimSuffix(id, "-")+"/rulejson", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := decodeRuleJSON(line); !ok {
					b.Fatal("falls back")
				}
			}
		})
		b.Run(strings.TrimSuffix(id, "-")+"/encoding-json", func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := stdDecode[fileRule](line); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkDecodeHeaderJSON(b *testing.B) {
	lines, err := benchLines()
	if err != nil {
		b.Fatal(err)
	}
	header := lines[0]
	b.Run("rulejson", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := decodeHeaderJSON(header); !ok {
				b.Fatal("falls back")
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := stdDecode[lazyHeader](header); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The first-decode helper: with firstDecodeEnv set to "rulejson" or
// "encoding-json", TestRuleJSONFirstDecodeHelper is a child process that
// decodes the header and the rule lines in the file firstDecodeFile
// names, the way a fresh hook process does, and prints how long that took.
const (
	firstDecodeEnv  = "TOOLGUARD_RULEJSON_FIRST_DECODE"
	firstDecodeFile = "TOOLGUARD_RULEJSON_FIRST_DECODE_FILE"
)

func TestRuleJSONFirstDecodeHelper(t *testing.T) {
	mode := os.Getenv(firstDecodeEnv)
	if mode == "" {
		t.Skip("a helper process for BenchmarkFirstDecode")
	}
	data, err := os.ReadFile(os.Getenv(firstDecodeFile))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	var ok bool
	start := time.Now()
	if mode == "rulejson" {
		_, ok = decodeHeaderJSON(lines[0])
	} else {
		_, err := stdDecode[lazyHeader](lines[0])
		ok = err == nil
	}
	header := time.Since(start)
	var first time.Duration
	for i, l := range lines[1:] {
		if mode == "rulejson" {
			_, ok = decodeRuleJSON(l)
		} else {
			_, err := stdDecode[fileRule](l)
			ok = err == nil
		}
		if !ok {
			t.Fatalf("rule line %d does not decode", i)
		}
		if i == 0 {
			first = time.Since(start) - header
		}
	}
	total := time.Since(start)
	fmt.Printf("first-decode %d %d %d\n", header.Nanoseconds(), first.Nanoseconds(), total.Nanoseconds())
}

// BenchmarkFirstDecode measures what a fresh hook process pays: each
// iteration starts the test binary as a child that decodes the header and
// then 37 rule lines (what a shell pipeline reaches in the 10,000-rule
// policy) with decodeRuleJSON or encoding/json, whose reflection caches
// are empty there. The metrics are the child's own timings: header-ns,
// first-rule-ns (the first rule line after the header) and all-ns (header
// and every rule); ns/op is dominated by starting the process.
func BenchmarkFirstDecode(b *testing.B) {
	lines, err := benchLines()
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	buf.Write(lines[0])
	buf.WriteByte('\n')
	for _, l := range lines[len(lines)-37:] {
		buf.Write(l)
		buf.WriteByte('\n')
	}
	file := filepath.Join(b.TempDir(), "lines")
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []string{"rulejson", "encoding-json"} {
		b.Run(mode, func(b *testing.B) {
			var sum [3]float64
			for b.Loop() {
				cmd := exec.Command(os.Args[0], "-test.run=^TestRuleJSONFirstDecodeHelper$", "-test.count=1")
				cmd.Env = append(os.Environ(), firstDecodeEnv+"="+mode, firstDecodeFile+"="+file)
				out, err := cmd.CombinedOutput()
				if err != nil {
					b.Fatalf("helper: %v\n%s", err, out)
				}
				_, rest, ok := strings.Cut(string(out), "first-decode ")
				f := strings.Fields(rest)
				if !ok || len(f) < 3 {
					b.Fatalf("helper printed %q", out)
				}
				for i := range sum {
					v, err := strconv.ParseFloat(f[i], 64)
					if err != nil {
						b.Fatal(err)
					}
					sum[i] += v
				}
			}
			for i, unit := range []string{"header-ns", "first-rule-ns", "all-ns"} {
				b.ReportMetric(sum[i]/float64(b.N), unit)
			}
		})
	}
}
