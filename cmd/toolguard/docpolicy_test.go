package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestDocPolicyExamples validates the policies docs/policy.md shows: the
// TOML rule, its JSON twin, and the [[test]] block with the rule and
// docs/examples/mcp.toml as layers.
func TestDocPolicyExamples(t *testing.T) {
	b, err := os.ReadFile("../../docs/policy.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```(toml|json)\n(.*?)```").FindAllStringSubmatch(string(b), -1)
	dir := t.TempDir()
	var tomls, jsons []string
	for i, m := range blocks {
		if m[1] == "toml" && regexp.MustCompile(`(?m)^(\[\[(rule|test)\]\]|version)`).MatchString(m[2]) {
			p := filepath.Join(dir, "b"+string(rune('a'+i))+".toml")
			os.WriteFile(p, []byte(m[2]), 0o644)
			tomls = append(tomls, p)
		}
		if m[1] == "json" && regexp.MustCompile(`"rules"`).MatchString(m[2]) {
			p := filepath.Join(dir, "b"+string(rune('a'+i))+".json")
			os.WriteFile(p, []byte(m[2]), 0o644)
			jsons = append(jsons, p)
		}
	}
	if len(tomls) != 2 || len(jsons) != 1 {
		t.Fatalf("found %d TOML and %d JSON policies in docs/policy.md, want 2 and 1", len(tomls), len(jsons))
	}
	mcp, _ := filepath.Abs("../../docs/examples/mcp.toml")
	for _, args := range [][]string{
		{"validate", tomls[0], mcp, tomls[1]},
		{"validate", jsons[0]},
	} {
		f, sys := newFake(t, nil, nil)
		if code := run(context.Background(), args, sys); code != 0 {
			t.Errorf("%v: exit %d\n%s%s", args, code, f.stdout.String(), f.stderr.String())
		}
	}
}
