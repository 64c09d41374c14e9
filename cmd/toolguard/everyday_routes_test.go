package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEverydayRoutes runs internal/policy/testdata/everyday.txt (issue 33:
// builds, tests, git daily work, declared installs, cleanups) through the
// real hook path, Claude Code's dialect, in a project on disk that
// declares and installs its tools; it fails when more than 2 % ask or
// deny, listing them.
func TestEverydayRoutes(t *testing.T) {
	home := t.TempDir()
	ws := filepath.Join(home, "project")
	for _, d := range []string{".git", "node_modules/.bin", "src"} {
		if err := os.MkdirAll(filepath.Join(ws, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, text string) {
		if err := os.WriteFile(filepath.Join(ws, rel), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("package.json", `{"devDependencies": {"typescript": "5", "eslint": "9", "prettier": "3", "jest": "29", "vitest": "2"}}`)
	for _, b := range []string{"tsc", "eslint", "prettier", "jest", "vitest"} {
		write("node_modules/.bin/"+b, "#!/usr/bin/env node\nrequire('../lib/cli')\n")
	}
	write("requirements.txt", "requests\n")

	f, err := os.Open(filepath.Join("..", "..", "internal", "policy", "testdata", "everyday.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cmds, flagged []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmds = append(cmds, line)
		in, _ := json.Marshal(map[string]string{"command": line})
		payload, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": ws, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": json.RawMessage(in)})
		fk, sys := newFake(t, payload, map[string]string{"HOME": home})
		sys.etc = filepath.Join(home, "etc")
		sys.getwd = func() (string, error) { return ws, nil }
		if code := run(context.Background(), []string{"hook", "--provider", "claude-code"}, sys); code != 0 {
			t.Fatalf("%q: exit %d, stderr %q", line, code, fk.stderr.String())
		}
		if got, reason := routeDecision(t, "claude-code", fk.stdout.String()); got == "ask" || got == "deny" {
			flagged = append(flagged, got+": "+line+" ("+reason+")")
		}
	}
	limit := len(cmds) * 2 / 100
	t.Logf("%d of %d everyday commands ask or deny (limit %d):\n%s", len(flagged), len(cmds), limit, strings.Join(flagged, "\n"))
	if len(cmds) < 200 {
		t.Fatalf("only %d everyday commands", len(cmds))
	}
	if len(flagged) > limit {
		t.Errorf("%d of %d everyday commands ask or deny, more than 2 %% (%d)", len(flagged), len(cmds), limit)
	}
}
