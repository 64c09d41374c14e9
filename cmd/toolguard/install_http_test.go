package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallHTTPCommand: install --http writes Claude Code's HTTP hook
// (no command hook, no token in the file); uninstall removes it; --http
// with another agent, or with command-hook flags, is a usage error that
// writes nothing.
func TestInstallHTTPCommand(t *testing.T) {
	proj := t.TempDir()
	file := filepath.Join(proj, ".claude", "settings.json")
	f, sys := newFake(t, nil, nil)
	code := run(context.Background(), []string{"install", "--provider", "claude", "--dir", proj, "--http", "https://guard.example:8787"}, sys)
	if code != 0 || !strings.Contains(f.stdout.String(), "add PreToolUse HTTP hook: https://guard.example:8787/v1/hooks/claude-code") ||
		!strings.Contains(f.stdout.String(), "note: set TOOLGUARD_NODE_TOKEN") {
		t.Fatalf("install --http: exit %d %s%s", code, f.stdout.String(), f.stderr.String())
	}
	data, _ := os.ReadFile(file)
	for _, s := range []string{`"type": "http"`, `"onFailure": "block"`, `"Authorization": "Bearer ${TOOLGUARD_NODE_TOKEN}"`, `"allowedEnvVars": [`} {
		if !strings.Contains(string(data), s) {
			t.Errorf("settings lack %s:\n%s", s, data)
		}
	}
	if strings.Contains(string(data), `"command"`) {
		t.Errorf("install --http wrote a command hook:\n%s", data)
	}
	if code := run(context.Background(), []string{"uninstall", "--provider", "claude-code", "--dir", proj}, sys); code != 0 ||
		!strings.Contains(f.stdout.String(), "remove PreToolUse HTTP hook") {
		t.Fatalf("uninstall: exit %d %s%s", code, f.stdout.String(), f.stderr.String())
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("uninstall left %s", file)
	}
	for _, args := range [][]string{
		{"--provider", "codex", "--http", "https://guard.example"},
		{"--provider", "claude-code", "--http", "https://guard.example", "--policy", "/p.toml"},
		{"--provider", "claude-code", "--http", "https://guard.example", "--portable"},
		{"--provider", "claude-code", "--token-env", "X"},
		{"--provider", "claude-code", "--http", "http://guard.example"},
	} {
		f, sys := newFake(t, nil, nil)
		if code := run(context.Background(), append([]string{"install", "--dir", proj}, args...), sys); code == 0 {
			t.Errorf("%v: exit 0 %s", args, f.stdout.String())
		}
		if _, err := os.Stat(file); err == nil {
			t.Errorf("%v wrote settings", args)
			os.Remove(file)
		}
	}
}
