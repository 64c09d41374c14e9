package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInstallNativeCLI: install --native writes the defaults' locked denies
// that Claude Code can express, says what it leaves to the hook, and
// uninstall --native takes them out again.
func TestInstallNativeCLI(t *testing.T) {
	proj := t.TempDir()
	file := filepath.Join(proj, ".claude", "settings.json")
	f, sys := newFake(t, nil, nil)
	if code := run(context.Background(), []string{"install", "--native", "--provider", "claude-code", "--dir", proj}, sys); code != 0 {
		t.Fatalf("exit %d: %s", code, f.stderr.String())
	}
	data, _ := os.ReadFile(file)
	for _, want := range []string{`"Edit(~/.claude/settings.json)"`, `"Edit(/` + filepath.ToSlash(filepath.Join(proj, ".toolguard")) + `/**)"`, `"Bash(gemini hooks disable *)"`} {
		if !strings.Contains(string(data), want) {
			t.Errorf("settings lack %s:\n%s", want, data)
		}
	}
	if strings.Contains(string(data), `"hooks"`) {
		t.Errorf("--native installed a hook too:\n%s", data)
	}
	if !strings.Contains(f.stdout.String(), "left to the hook: rule toolguard-cli-mutate: args_none") {
		t.Errorf("stdout does not list what is left to the hook:\n%s", f.stdout.String())
	}
	f, sys = newFake(t, nil, nil)
	if code := run(context.Background(), []string{"uninstall", "--native", "--provider", "claude-code", "--dir", proj}, sys); code != 0 {
		t.Fatalf("uninstall exit %d: %s", code, f.stderr.String())
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("settings file left after uninstall --native (it held only the native rules): %v", err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"install", "--native", "--provider", "codex"}, "--provider claude-code"},
		{[]string{"install", "--native", "--provider", "claude-code", "--portable"}, "do not apply"},
	} {
		f, sys = newFake(t, nil, nil)
		if code := run(context.Background(), append(c.args, "--dir", proj), sys); code != 1 || !strings.Contains(f.stderr.String(), c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, f.stderr.String())
		}
	}
}
