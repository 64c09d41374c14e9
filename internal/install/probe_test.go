package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		exit int
		out  string
		want string
	}{
		{0, "", "pass"},
		{0, "  \n", "pass"},
		{2, "", "deny"},
		{2, `{"decision":"allow"}`, "deny"}, // exit 2 wins, as in the agents
		{1, "", "error"},
		{127, "", "error"},
		{0, "hello", "error"},
		{0, `[1]`, "error"},
		{0, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny"}}`, "deny"},
		{0, `{"hookSpecificOutput":{"permissionDecision":"ask"}}`, "ask"},
		{0, `{"hookSpecificOutput":{"permissionDecision":"allow"}}`, "allow"},
		{0, `{"decision":"deny","reason":"x"}`, "deny"}, // gemini
		{0, `{"decision":"block"}`, "deny"},             // legacy claude
		{0, `{"permission":"deny"}`, "deny"},            // cursor
		{0, `{"permissionDecision":"deny"}`, "deny"},    // copilot
		{0, `{"permission":"allow"}`, "allow"},
		{0, `{"continue":true}`, "pass"},
		{0, `{"hookSpecificOutput":{"permissionDecision":"maybe"}}`, "pass"},
	}
	for _, tt := range tests {
		got, _ := Classify(tt.exit, []byte(tt.out))
		if got != tt.want {
			t.Errorf("Classify(%d, %q) = %s, want %s", tt.exit, tt.out, got, tt.want)
		}
	}
}

// A hook that does not answer in time is an error, not a pass; a missing
// program is an error with its exit code.
func TestProbeFailures(t *testing.T) {
	dir := t.TempDir()
	slow := filepath.Join(dir, "slow")
	os.WriteFile(slow, []byte("#!/bin/sh\nsleep 30\n"), 0o755)
	ctx, cancel := context.WithTimeout(context.Background(), 300*1e6)
	defer cancel()
	for _, r := range Probe(ctx, "codex", slow+" hook --provider codex", dir, os.Environ()) {
		if r.Got != "error" || r.OK() {
			t.Errorf("slow hook: %+v", r)
		}
	}
	for _, r := range Probe(context.Background(), "gemini", filepath.Join(dir, "missing")+" hook --provider gemini", dir, os.Environ()) {
		if r.Got != "error" || r.Exit != 127 {
			t.Errorf("missing hook: %+v", r)
		}
	}
	// a script that denies everything fails the pass probe
	deny := filepath.Join(dir, "deny")
	os.WriteFile(deny, []byte("#!/bin/sh\necho '{\"decision\":\"deny\"}'\n"), 0o755)
	rs := Probe(context.Background(), "gemini", deny+" hook --provider gemini", dir, os.Environ())
	if !rs[0].OK() || rs[1].OK() {
		t.Errorf("deny-all hook: %+v", rs)
	}
}

func TestLooksLikeHook(t *testing.T) {
	for cmd, want := range map[string]bool{
		"/opt/tg-1.2 hook --provider codex":        true,
		"tg hook --provider=gemini --policy p":     true,
		"/usr/bin/toolguard hook --provider codex": true,
		"lint.sh hook":           false,
		"git hook --list":        false,
		"npx prettier --write x": false,
	} {
		if got := LooksLikeHook(cmd); got != want {
			t.Errorf("LooksLikeHook(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// allowManagedHooksOnly in user or project settings means this hook does
// not run: not guarded, and said so.
func TestInspectManagedHooksOnly(t *testing.T) {
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".claude", "settings.json"),
		[]byte(`{"allowManagedHooksOnly":true,"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/bin/toolguard hook --provider claude-code"}]}]}}`))
	st := find(t, Inspect(home, ""), "claude-code")
	if st.Guarded || !st.Disabled || !strings.Contains(st.Note, "allowManagedHooksOnly") {
		t.Errorf("guarded=%v disabled=%v note=%q", st.Guarded, st.Disabled, st.Note)
	}
	if len(st.Hooks) != 1 || st.Hooks[0].Event != "PreToolUse" || !st.Hooks[0].Named {
		t.Errorf("hooks = %+v", st.Hooks)
	}
}
