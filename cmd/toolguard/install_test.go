package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/install"
)

// fakeToolguard writes a script that answers `version` as toolguard does.
func fakeToolguard(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho 'toolguard 1.2 linux/amd64 go1.26'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// issue 21: install refused a binary not named toolguard, and resolved a
// package manager's symlink to the versioned target the next upgrade deletes.
func TestInstallBinaryPath(t *testing.T) {
	root := t.TempDir()
	cellar := filepath.Join(root, "Cellar", "toolguard", "1.2", "bin", "toolguard")
	fakeToolguard(t, cellar)
	link := filepath.Join(root, "bin", "toolguard")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(cellar, link); err != nil {
		t.Fatal(err)
	}
	renamed := filepath.Join(root, "opt", "tg-1.2")
	fakeToolguard(t, renamed)

	tests := []struct {
		name, exe, argv0, want string
	}{
		{"symlink on PATH kept", cellar, link, link},
		{"renamed binary accepted", renamed, "tg-1.2-not-on-path", renamed},
	}
	old := argv0
	defer func() { argv0 = old }()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proj := t.TempDir()
			f, sys := newFake(t, nil, nil)
			sys.executable = func() (string, error) { return tt.exe, nil }
			argv0 = func() string { return tt.argv0 }
			if code := run(context.Background(), []string{"install", "--provider", "claude-code", "--dir", proj}, sys); code != 0 {
				t.Fatalf("install exit %d: %s", code, f.stderr.String())
			}
			data, _ := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
			if !strings.Contains(string(data), `"command": "`+tt.want+` hook --provider claude-code"`) {
				t.Fatalf("settings do not run %s:\n%s", tt.want, data)
			}
			f.stdout.Reset()
			if code := run(context.Background(), []string{"install", "--provider", "claude-code", "--dir", proj}, sys); code != 0 || !strings.Contains(f.stdout.String(), "already installed") {
				t.Fatalf("second install (exit %d) not a no-op: %s%s", code, f.stdout.String(), f.stderr.String())
			}
			if code := run(context.Background(), []string{"uninstall", "--provider", "claude-code", "--dir", proj}, sys); code != 0 {
				t.Fatalf("uninstall exit %d: %s", code, f.stderr.String())
			}
			if _, err := os.Stat(filepath.Join(proj, ".claude", "settings.json")); err == nil {
				t.Error("uninstall left the settings file")
			}
			// uninstall run by another binary finds the renamed one with --command
			run(context.Background(), []string{"install", "--provider", "claude-code", "--dir", proj}, sys)
			sys.executable = func() (string, error) { return "/usr/local/bin/toolguard", nil }
			argv0 = func() string { return "/usr/local/bin/toolguard" }
			if code := run(context.Background(), []string{"uninstall", "--provider", "claude-code", "--dir", proj, "--command", tt.want}, sys); code != 0 {
				t.Fatalf("uninstall --command exit %d: %s", code, f.stderr.String())
			}
			if _, err := os.Stat(filepath.Join(proj, ".claude", "settings.json")); err == nil {
				t.Error("uninstall --command left the settings file")
			}
		})
	}
}

// The doctor's probe payloads, through the real hook path in each agent's
// dialect, come back as the doctor's classifier expects: the must-deny call
// denied, the must-pass call passed (no output or allow), and look-alikes
// of the deny probe (a plain push, a force push to a branch named in a
// string) classified from the real reply too.
func TestDoctorProbePayloads(t *testing.T) {
	cases := []struct {
		call, want string
	}{
		{install.DenyProbeCommand, "deny"},
		{install.PassProbeCommand, "pass"},
		{"echo 'git push --force origin main'", "pass"},
		{"git log --oneline", "pass"},
	}
	for _, agent := range []string{"claude-code", "codebuddy", "codex", "gemini", "cursor", "copilot", "windsurf"} {
		for _, c := range cases {
			t.Run(agent+"/"+c.call, func(t *testing.T) {
				dir := t.TempDir()
				f, sys := newFake(t, install.Payload(agent, c.call, dir), map[string]string{"HOME": "/home/user"})
				sys.etc = "/home/user/etc"
				code := run(context.Background(), []string{"hook", "--provider", agent}, sys)
				got, problem := install.Classify(code, f.stdout.Bytes())
				if got != c.want && !(c.want == "pass" && got == "allow") {
					t.Fatalf("got %s (%s), want %s; exit %d, reply %q, stderr %q", got, problem, c.want, code, f.stdout.String(), f.stderr.String())
				}
			})
		}
	}
}
