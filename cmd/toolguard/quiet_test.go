package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRoutesQuiet: everyday work that asked or was a locked deny (issue
// 33 item 7), through the real hook path for Claude Code and Gemini CLI,
// next to the spellings that must still be stopped.
func TestRoutesQuiet(t *testing.T) {
	runRoutes(t, []routeCase{
		// find deletes what its tests select, not its start point.
		{cmd: "find . -name '*.orig' -delete", want: "pass"},
		{cmd: "find . -name __pycache__ -exec rm -rf {} +", want: "pass"},
		{cmd: "find . -type d -empty -delete", want: "pass"},
		{cmd: "find . -name .DS_Store -delete", want: "pass"},
		{cmd: "find . -name '*.pyc' -delete", want: "pass"},
		{cmd: `find . \( -name '*.pyc' -o -name '*.pyo' \) -delete`, want: "pass"},
		{cmd: `find src -type f -name '*.o' -exec rm -f {} \;`, want: "pass"},
		{cmd: "find . -iname '*.TMP' -delete", want: "pass"},
		{cmd: "find . -delete", want: "deny", rule: "toolguard-self-protect-root-delete"},
		{cmd: "find . -name 'settings*.json' -delete", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "find . -name '*.json' -delete", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "find . -iname 'SETTINGS.LOCAL.JSON' -delete", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "find . -name .claude -exec rm -rf {} +", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "find . -path './.claude/*' -delete", want: "deny", rule: "toolguard-self-protect-root-delete"},
		{cmd: "find . ! -name keep -delete", want: "deny", rule: "toolguard-self-protect-root-delete"},
		{cmd: "find . -name '*.orig' -o -type f -delete", want: "deny", rule: "toolguard-self-protect-root-delete"},
		// GIT_SSH_COMMAND with ssh options only.
		{cmd: "GIT_SSH_COMMAND='ssh -i key -o IdentitiesOnly=yes' git fetch", want: "pass"},
		{cmd: "GIT_SSH_COMMAND='ssh -i ~/.ssh/deploy_key -o StrictHostKeyChecking=no' git clone git@github.com:o/r.git vendor/r", want: "pass"},
		{cmd: `GIT_SSH_COMMAND='ssh -o ProxyCommand="rm -rf ~"' git fetch`, want: "deny"},
		{cmd: "GIT_SSH_COMMAND=./evil git fetch", want: "ask", rule: "git-env-exec"},
		{cmd: "GIT_SSH_COMMAND='ssh -F ./cfg' git fetch", want: "ask", rule: "git-env-exec"},
		{cmd: "GIT_SSH_COMMAND='ssh -i k' GIT_PROXY_COMMAND=./x git fetch", want: "ask", rule: "git-env-exec"},
		// mktemp's paths removed in the same string.
		{cmd: `d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; cd "$d" && echo hi`, want: "pass"},
		{cmd: `tmp=$(mktemp); echo x > "$tmp"; rm -f "$tmp"`, want: "pass"},
		{cmd: `d=$(mktemp -d); trap 'rm -rf "$d"' EXIT; cp -r src "$d/" && make -C "$d/src"`, want: "pass"},
		{cmd: `d=$(mktemp -d); rm -rf "$d"/..`, want: "deny"},
		{cmd: `rm -rf "$UNKNOWN"`, want: "ask"},
		// Commands inside docker/podman run act in the container but for its mounts.
		{cmd: "docker run --rm alpine rm -rf /var/cache/apk/*", want: "pass"},
		{cmd: "docker run --rm node:20 npm test", want: "pass"},
		{cmd: `docker run --rm -v "$(pwd)":/src -w /src golang:1.22 go build -o bin/app ./cmd/app`, want: "pass"},
		{cmd: `docker run --rm -v "$PWD":/w alpine rm -rf /w/.claude`, want: "deny", rule: "toolguard-self-protect"},
		{cmd: "docker run --rm -v /home/user/project:/w -w /w alpine sh -c 'echo {} > .claude/settings.json'", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "docker run --rm -v ~/.codex:/c alpine sh -c 'echo x > /c/hooks.json'", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "podman run --rm --mount type=bind,source=/home/user/.config,target=/cfg alpine rm -rf /cfg/toolguard", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "docker run --rm --privileged alpine rm -rf /var/cache/apk/*", want: "ask"},
		{cmd: "docker exec web rm -rf /var/cache/x", want: "ask"},
	})
}

// TestHookFindTreeSurface: a find selection reaches a tree surface (the
// state directory) only through files that are there: the hook lists
// them (Env.Glob) — find ~ -name '*.jsonl' -delete with an audit log in
// the state directory is the guard's, with none it is not.
func TestHookFindTreeSurface(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	state := filepath.Join(home, ".local", "state", "toolguard")
	if err := os.MkdirAll(filepath.Join(state, "grants"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "audit.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "grants", "g1.json"), []byte("{}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, tc := range []struct{ cmd, want string }{
			{"find " + filepath.Join(home, ".local") + " -name '*.jsonl' -delete", "deny"},
			{"find " + filepath.Join(home, ".local") + " -name 'g*.json' -delete", "deny"},
			{"find " + filepath.Join(home, ".local") + " -name '*.orig' -delete", "pass"},
			{"find . -name '*.orig' -delete", "pass"},
		} {
			shell := map[string]string{"claude-code": "Bash", "gemini": "run_shell_command"}[agent]
			event := map[string]string{"claude-code": "PreToolUse", "gemini": "BeforeTool"}[agent]
			in, _ := json.Marshal(map[string]string{"command": tc.cmd})
			payload, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": ws, "hook_event_name": event,
				"tool_name": shell, "tool_input": json.RawMessage(in)})
			f, sys := newFake(t, payload, map[string]string{"HOME": home})
			sys.etc = filepath.Join(home, "etc")
			if code := run(context.Background(), []string{"hook", "--provider", agent}, sys); code != 0 {
				t.Fatalf("%s %q: exit %d, stderr %q", agent, tc.cmd, code, f.stderr.String())
			}
			if got, reason := routeDecision(t, agent, f.stdout.String()); got != tc.want {
				t.Errorf("%s %q: got %s (%q), want %s", agent, tc.cmd, got, reason, tc.want)
			}
		}
	}
}
