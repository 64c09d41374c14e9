package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHookArgs: the command lines install writes are read without the
// command tree; every other form is left to it.
func TestHookArgs(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		provider string
		files    []string
	}{
		{[]string{"hook", "--provider", "claude-code"}, "claude-code", nil},
		{[]string{"hook", "--provider", "codex", "--policy", "/etc/p.json"}, "codex", []string{"/etc/p.json"}},
		{[]string{"hook", "--policy", "a.toml", "--provider", "gemini", "--policy", "b.toml"}, "gemini", []string{"a.toml", "b.toml"}},
	} {
		o := hookArgs(tc.args)
		if o == nil || o.provider != tc.provider || !slices.Equal(o.Files, tc.files) {
			t.Errorf("%q: %+v", tc.args, o)
		}
	}
	for _, args := range [][]string{
		{"hook"}, {"hook", "--provider"}, {"hook", "--provider=claude-code"}, {"hook", "--provider", "claude-code", "--mode", "headless"},
		{"hook", "--provider", "claude-code", "--provider", "codex"}, {"hook", "--provider", "--policy"}, {"hook", "--provider", ""},
		{"hook", "--provider", "claude-code", "extra"}, {"hook", "--policy", "p.toml"}, {"hook", "--provider", "claude-code", "-h", "x"},
		{"check", "--provider", "claude-code"}, {"hook", "--provider", "claude-code", "--policy", "-"},
	} {
		if o := hookArgs(args); o != nil {
			t.Errorf("%q read without the command tree: %+v", args, o)
		}
	}
}

// TestHookArgsAsCobra: a hook command line read by hookArgs answers
// exactly what the command tree answers for it (the same line with
// --provider=P, which hookArgs leaves to cobra): reply bytes, stderr and
// exit code, for a pass, a deny, a payload that does not decode, an
// unknown provider and a --policy file, in two dialects.
func TestHookArgsAsCobra(t *testing.T) {
	pol := filepath.Join(t.TempDir(), "p.toml")
	if err := os.WriteFile(pol, []byte("version = 1\n\n[[rule]]\nid = \"no-status\"\ndecision = \"deny\"\ncommand = [\"git status\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, provider := range []string{"claude-code", "gemini", "no-such-agent"} {
		dialect := provider
		if provider == "no-such-agent" {
			dialect = "claude-code"
		}
		for _, payload := range []string{"git-status.json", "push-force.json", "read.json", "-"} {
			data := []byte(`{"tool_name":`)
			if payload != "-" {
				var err error
				if data, err = os.ReadFile(filepath.Join("../../testdata/payloads", dialect, payload)); err != nil {
					t.Fatal(err)
				}
			}
			for _, extra := range [][]string{nil, {"--policy", pol}} {
				fast := append([]string{"hook", "--provider", provider}, extra...)
				if hookArgs(fast) == nil {
					t.Fatalf("%q not read by hookArgs", fast)
				}
				slow := append([]string{"hook", "--provider=" + provider}, extra...)
				f1, sys1 := newFake(t, data, nil)
				c1 := run(context.Background(), fast, sys1)
				f2, sys2 := newFake(t, data, nil)
				c2 := run(context.Background(), slow, sys2)
				if got, want := reply(c1, f1), reply(c2, f2); got != want {
					t.Errorf("%s %s %q:\nhookArgs: %s\ncobra:    %s", provider, payload, extra, got, want)
				}
			}
		}
	}
}
