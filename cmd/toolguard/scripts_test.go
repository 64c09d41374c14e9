package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestHookReadsScriptFiles: a script file written by an earlier tool call
// and run by this one (bash c.sh, ./c.sh, source c.sh, python3 x.py) is
// judged by its text, through the real hook path for Claude Code and
// Gemini CLI. Look-alikes: a harmless script passes; a script the agent
// may not read (a secret), one too large, a FIFO, a binary are not read.
func TestHookReadsScriptFiles(t *testing.T) {
	proj := filepath.Join(t.TempDir(), "project")
	home := filepath.Join(filepath.Dir(proj), "home")
	for _, d := range []string{proj, home, filepath.Join(proj, "scripts")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(name, text string, mode os.FileMode) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(proj, name), []byte(text), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("c.sh", "echo cleaning\nrm -rf ~\n", 0o644)
	write("run.sh", "#!/usr/bin/env bash\nset -e\ngit push --force origin main\n", 0o755)
	write("ok.sh", "#!/bin/sh\ngit status\nls -la\n", 0o755)
	write("scripts/deploy.py", "import os\nos.system('git push --force origin main')\n", 0o644)
	write("tool.js", "require('child_process').execSync('rm -rf /')\n", 0o644)
	write("big.sh", strings.Repeat("# padding line\n", 5000)+"rm -rf ~\n", 0o644)
	write("prog", "\x7fELF\x00\x00rm -rf ~\n", 0o755)
	write(".env", "rm -rf ~\n", 0o644)
	if err := syscall.Mkfifo(filepath.Join(proj, "fifo.sh"), 0o644); err != nil {
		t.Fatal(err)
	}

	cases := []struct{ cmd, want string }{
		{"bash c.sh", "deny"},
		{"sh ./c.sh", "deny"},
		{"source c.sh", "deny"},
		{". ./c.sh", "deny"},
		{"./run.sh", "deny"},
		{"cd scripts && python3 deploy.py", "deny"},
		{"node tool.js", "deny"},
		{"bash " + filepath.Join(proj, "c.sh"), "deny"},
		{"bash ok.sh", "pass"},
		{"./ok.sh", "pass"},
		{"bash big.sh", "ask"},  // larger than 64 KiB: cannot be judged, on_dynamic
		{"./prog", "pass"},      // a NUL byte: no script
		{"bash fifo.sh", "ask"}, // not a regular file: cannot be judged, on_dynamic (and opening it does not block)
		{"bash missing.sh", "pass"},
		{"cat c.sh", "pass"}, // reading a script runs nothing
		{"bash .env", "ask"}, // secrets-env asks for the read; the text is not analyzed
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, c := range cases {
			t.Run(agent+"/"+c.cmd, func(t *testing.T) {
				if got, reason := shellHook(t, agent, proj, home, c.cmd, "--workspace", proj); got != c.want {
					t.Fatalf("got %s (%q), want %s", got, reason, c.want)
				}
			})
		}
	}
}

// shellHook runs one shell call through `toolguard hook --provider agent`
// (Claude Code's Bash or Gemini CLI's run_shell_command) in cwd with HOME
// home, and returns the decision and reason of the reply (pass: none). A
// non-zero exit fails the test: both dialects answer with exit 0.
func shellHook(t *testing.T, agent, cwd, home, command string, args ...string) (string, string) {
	t.Helper()
	shell := map[string]string{"claude-code": "Bash", "gemini": "run_shell_command"}[agent]
	event := map[string]string{"claude-code": "PreToolUse", "gemini": "BeforeTool"}[agent]
	payload, err := json.Marshal(map[string]any{"session_id": "s1", "cwd": cwd, "hook_event_name": event,
		"tool_name": shell, "tool_input": map[string]string{"command": command}})
	if err != nil {
		t.Fatal(err)
	}
	f, sys := newFake(t, payload, map[string]string{"HOME": home})
	sys.etc = filepath.Join(home, "etc")
	if code := run(context.Background(), append([]string{"hook", "--provider", agent}, args...), sys); code != 0 {
		t.Fatalf("exit %d, stderr %q", code, f.stderr.String())
	}
	return routeDecision(t, agent, f.stdout.String())
}
