package policy

import (
	"bytes"
	"fmt"
	"go/format"
	"os"
	"regexp"
	"strings"
	"testing"
)

var crcField = regexp.MustCompile(` crc=\d+ `)

// TestBuiltinGenerated keeps builtin_gen.go — the embedded defaults decoded
// at build time, so that the hook does not parse TOML on every start — in
// step with defaults.toml and its generator (gen_builtin.go). It never
// writes: after editing the defaults, run go generate ./internal/policy.
// (The hook does not rehash the embedded TOML, so a stale file would be
// used: this test is what keeps it current.)
func TestBuiltinGenerated(t *testing.T) {
	src, err := GenerateBuiltin()
	if err != nil {
		t.Fatal(err)
	}
	want, err := format.Source(src)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile(BuiltinGenFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatalf("%s is stale: run go generate ./internal/policy", BuiltinGenFile)
	}
	ld, _ := decodeTOML(BuiltinSource())
	if ld == nil {
		t.Fatal("defaults.toml does not decode")
	}
	slow, probs := compileAndMerge([]*layerDoc{ld}, LoadOptions{})
	if len(probs) > 0 {
		t.Fatalf("defaults.toml does not compile: %v", probs)
	}
	// The generated path and the TOML path give the same policy.
	fast, err := Load(nil, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if fast.idx.raw == "" {
		t.Error("the defaults were indexed at load, not from builtinGenIndex")
	}
	// builtinIndex serves every LoadOptions: the index must not depend on
	// them (Home expands ~ in patterns, which are indexed unexpanded).
	withHome, err := Load(nil, LoadOptions{Home: "/home/u"})
	if err != nil {
		t.Fatal(err)
	}
	built := buildIndex(allRules(withHome))
	if got := crcField.ReplaceAllString(encodeIndex(&built, nil), " crc=0 "); got != builtinGenIndex {
		t.Errorf("the defaults' index depends on LoadOptions.Home:\n%s\n%s", got, builtinGenIndex)
	}
	if fast.Hash() != slow.Hash() || len(allRules(fast)) != len(allRules(slow)) {
		t.Fatalf("generated %s/%d rules, TOML %s/%d rules", fast.Hash(), len(allRules(fast)), slow.Hash(), len(allRules(slow)))
	}
	for i := range allRules(fast) {
		if allRules(fast)[i].Source != allRules(slow)[i].Source || allRules(fast)[i].Layer != allRules(slow)[i].Layer {
			t.Errorf("%s: provenance %s/%s, want %s/%s", allRules(fast)[i].ID, allRules(fast)[i].Layer, allRules(fast)[i].Source, allRules(slow)[i].Layer, allRules(slow)[i].Source)
		}
	}
}

// TestBuiltinSourceLines checks the line each built-in rule reports as its
// source (toolguard rules, explain, the audit log) against defaults.toml
// itself, read here line by line: the line of the rule's [[rule]] header,
// found by the id that follows it. The generated file once carried line 1
// for every rule after the first one-line literal regex whose quotes and
// brackets the scanner miscounted (locate.go).
func TestBuiltinSourceLines(t *testing.T) {
	headers := map[string]int{} // rule id -> line of its [[rule]] header
	header := 0
	idLine := regexp.MustCompile(`^id\s*=\s*"([^"]+)"`)
	for i, line := range strings.Split(string(BuiltinSource().Data), "\n") {
		if strings.TrimSpace(line) == "[[rule]]" {
			header = i + 1
			continue
		}
		if m := idLine.FindStringSubmatch(line); m != nil && header != 0 {
			if _, dup := headers[m[1]]; dup {
				t.Fatalf("defaults.toml: rule id %q twice", m[1])
			}
			headers[m[1]] = header
			header = 0
		}
	}
	p, err := Load(nil, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rules := allRules(p)
	if len(rules) != len(headers) {
		t.Errorf("%d built-in rules, %d [[rule]] headers with an id in defaults.toml", len(rules), len(headers))
	}
	for _, r := range rules {
		line, ok := headers[r.ID]
		if !ok {
			t.Errorf("rule %s: no [[rule]] header with this id in defaults.toml", r.ID)
			continue
		}
		if want := fmt.Sprintf("%s:%d", BuiltinFile, line); r.Source != want {
			t.Errorf("rule %s: source %s, want %s", r.ID, r.Source, want)
		}
	}
}

// TestDefaultsDocGenerated keeps docs/defaults.md's list of rules in step
// with defaults.toml. It only checks freshness; it never writes.
func TestDefaultsDocGenerated(t *testing.T) {
	have, err := os.ReadFile(DefaultsDocFile)
	if err != nil {
		t.Fatal(err)
	}
	want, err := GenerateDefaultsDoc(have)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatalf("docs/defaults.md is stale (its rules are not defaults.toml's): run go generate ./internal/policy")
	}
}
