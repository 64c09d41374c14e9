package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMistypedHookLine: a hook line that fails before any command runs —
// a misspelled subcommand, a root flag without the subcommand — with a hook
// payload on stdin is answered with the agent's deny, not a bare exit 1
// (which most agents take as "run the tool"). A mistyped command with no
// payload (a terminal, /dev/null) stays an ordinary usage error.
func TestMistypedHookLine(t *testing.T) {
	lines := [][]string{
		{"hok", "--provider", "P"},
		{"--provider", "P"},
		{"hook-x"},
		{"chek"},
	}
	for _, agent := range []string{"claude-code", "codex", "gemini"} {
		payload, err := os.ReadFile(filepath.Join("../../testdata/payloads", agent, "git-status.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range lines {
			args := make([]string, len(line))
			for i, a := range line {
				args[i] = strings.ReplaceAll(a, "P", agent)
			}
			t.Run(agent+"/"+strings.Join(args, " "), func(t *testing.T) {
				f, sys := newFake(t, payload, nil)
				code := run(context.Background(), args, sys)
				if code != 0 {
					t.Fatalf("exit %d, want the dialect's 0 with a JSON deny; %s", code, reply(code, f))
				}
				dialect := agent
				if agent == "codex" {
					dialect = "claude-code" // Codex replies in Claude Code's shape
				}
				got, reason := routeDecision(t, dialect, f.stdout.String())
				if got != "deny" || !strings.Contains(reason, "hook command line is wrong") {
					t.Fatalf("got %s (%q), want the usage deny", got, reason)
				}
			})
		}
	}
	for _, stdin := range []string{"", "not json"} {
		f, sys := newFake(t, []byte(stdin), nil)
		if code := run(context.Background(), []string{"chek"}, sys); code != exitFailure || f.stdout.Len() != 0 {
			t.Errorf("stdin %q: %s, want exit 1 and no reply", stdin, reply(code, f))
		}
	}
}
