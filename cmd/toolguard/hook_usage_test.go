package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHookUsageDenies: a hook command line toolguard cannot run — an
// unknown flag, an unknown provider, a bad --mode, extra arguments, a flag
// without its value — is answered with the agent's deny (the dialect
// detected from the payload unless a valid --provider names it), the
// message on stderr, and the exit code with which the agent blocks: the
// dialect's own (0 with the JSON deny), 2 where the dialect is unknown.
// Before, each of these exited 1 with no output: an allow for Claude Code,
// Codex, Cursor and Gemini.
func TestHookUsageDenies(t *testing.T) {
	cases := []struct {
		name string
		args func(p string) []string // p: the provider flag value ("" for detect)
	}{
		{"unknown-flag", func(p string) []string { return withProvider(p, "--polcy", "x") }},
		{"flag-before-provider", func(p string) []string {
			if p == "" {
				return []string{"hook", "--polcy", "x"}
			}
			return []string{"hook", "--polcy", "x", "--provider", p}
		}},
		{"bad-provider", func(string) []string { return []string{"hook", "--provider", "gemini-cli"} }},
		{"bad-mode", func(p string) []string { return withProvider(p, "--mode", "headles") }},
		{"extra-arg", func(p string) []string { return withProvider(p, "extra") }},
		{"help-word", func(p string) []string { return withProvider(p, "help") }},
		{"missing-value", func(p string) []string { return withProvider(p, "--policy") }},
		{"bad-bool", func(p string) []string { return withProvider(p, "--no-builtin=maybe") }},
	}
	for _, agent := range []string{"claude-code", "codebuddy", "codex", "gemini", "cursor", "copilot", "antigravity", "kiro", "windsurf", "devin", ""} {
		name := agent
		payload := []byte(`{"tool":"Bash","input":"ls"}`) // no agent's shape
		if agent == "" {
			name = "detect"
		} else {
			var err error
			if payload, err = os.ReadFile(filepath.Join("../../testdata/payloads", agent, "git-status.json")); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range cases {
			t.Run(name+"/"+tc.name, func(t *testing.T) {
				f, sys := newFake(t, payload, nil)
				code := run(context.Background(), tc.args(agent), sys)
				golden(t, filepath.Join("testdata/golden/usage", name+"-"+tc.name+".golden"), reply(code, f))
				wantCode := 0
				if agent == "" || exitCodeDialect(agent) || agent == "devin" {
					wantCode = 2 // Devin: the JSON block and exit 2
				}
				if code != wantCode {
					t.Errorf("exit %d, want %d", code, wantCode)
				}
				if exitCodeDialect(agent) {
					// Kiro and Cascade read no JSON: exit 2 blocks, and
					// stderr is the message.
					if f.stdout.Len() != 0 || !strings.Contains(f.stderr.String(), "on_error = deny") {
						t.Errorf("stdout %q, stderr %q", f.stdout.String(), f.stderr.String())
					}
				} else if !isDenyReply(f.stdout.String()) {
					t.Errorf("stdout is not a deny: %q", f.stdout.String())
				}
				if !strings.Contains(f.stderr.String(), "Run 'toolguard hook --help' for usage.") {
					t.Errorf("stderr does not explain: %q", f.stderr.String())
				}
			})
		}
		if agent != "" {
			// Look-alike: the same payload under a correct command line is
			// answered normally (git status is no deny).
			t.Run(name+"/well-formed", func(t *testing.T) {
				f, sys := newFake(t, payload, nil)
				code := run(context.Background(), []string{"hook", "--provider", agent, "--mode", "headless"}, sys)
				if code != 0 || isDenyReply(f.stdout.String()) || strings.Contains(f.stdout.String(), `"force_ask"`) {
					t.Errorf("exit %d, stdout %q, stderr %q", code, f.stdout.String(), f.stderr.String())
				}
			})
		}
	}
}

// exitCodeDialect reports whether agent's pre-tool hook speaks by exit
// code only (2 blocks, stderr is the message): Kiro and Windsurf's Cascade.
func exitCodeDialect(agent string) bool { return agent == "kiro" || agent == "windsurf" }

func withProvider(p string, rest ...string) []string {
	args := []string{"hook"}
	if p != "" {
		args = append(args, "--provider", p)
	}
	return append(args, rest...)
}

// isDenyReply reports whether a reply's stdout is one of the dialects'
// deny objects.
func isDenyReply(out string) bool {
	for _, s := range []string{`"permissionDecision":"deny"`, `"decision":"deny"`, `"permission":"deny"`, `"decision":"block"`} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}
