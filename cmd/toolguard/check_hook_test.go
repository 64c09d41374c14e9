package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestCheckToolMatchesHook: `check --tool X --path P` (and `check --mcp
// S/T --input JSON`) decides exactly what the hook decides for the same
// tool call, in Claude Code's and Gemini CLI's payload shapes: the path is
// put in the field the tool's classification reads and decoded by the
// codec, so ~, relative paths, .. and the guard's own surfaces come out
// as in the hook.
func TestCheckToolMatchesHook(t *testing.T) {
	home, proj := surfaceWorld(t)
	if err := os.WriteFile(filepath.Join(proj, "main.go"), []byte("package main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// kind → the tool name in each dialect, and the input field of its path.
	tools := []struct{ kind, claude, gemini, key string }{
		{"write", "Write", "write_file", "file_path"},
		{"edit", "Edit", "replace", "file_path"},
		{"read", "Read", "read_file", "file_path"},
		{"search", "Grep", "grep_search", "path"},
	}
	paths := []string{
		"main.go", "./src/../main.go", "new/file.txt", "../outside.txt", "/etc/passwd", "/etc/hosts", "/tmp/x",
		"~/.ssh/id_rsa", "~/.ssh/config", "~/.bashrc", "~", ".env", ".env.example", "src/.env.local",
		".github/workflows/ci.yml", ".git/hooks/pre-commit", ".git/config", ".claude/settings.json",
		".claude/agents/x.md", "~/.claude/settings.json", "~/.codex/hooks.json", "~/.config/toolguard/approver.key",
		"~/.config/toolguard/policy.toml", ".toolguard/policy.toml", "/usr/local/bin/toolguard", "~/.aws/credentials",
		"/", "//etc//shadow", "~other/x", "",
	}
	decideCheck := func(t *testing.T, args ...string) string {
		t.Helper()
		f, sys := newFake(t, nil, map[string]string{"HOME": home})
		sys.etc = filepath.Join(home, "etc")
		args = append([]string{"check", "--json", "--cwd", proj, "--workspace", proj}, args...)
		if code := run(context.Background(), args, sys); code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, f.stderr.String())
		}
		var j checkJSON
		if err := json.Unmarshal(f.stdout.Bytes(), &j); err != nil {
			t.Fatalf("check --json: %v\n%s", err, f.stdout.String())
		}
		return j.Decision.String()
	}
	decideHook := func(t *testing.T, agent, tool string, in map[string]any) string {
		t.Helper()
		payload := hookPayload(t, agent, proj, "", tool, in)
		f, sys := newFake(t, payload, map[string]string{"HOME": home})
		sys.etc = filepath.Join(home, "etc")
		if code := run(context.Background(), []string{"hook", "--provider", agent, "--workspace", proj}, sys); code != 0 {
			t.Fatalf("exit %d, stderr %q", code, f.stderr.String())
		}
		d, _ := routeDecision(t, agent, f.stdout.String())
		return d
	}
	seen := map[string]bool{}
	for _, tl := range tools {
		for _, p := range paths {
			in := map[string]any{tl.key: p}
			if p == "" {
				in = map[string]any{}
			}
			args := []string{"--tool", tl.kind}
			if p != "" {
				args = append(args, "--path", p)
			}
			got := decideCheck(t, args...)
			seen[got] = true
			for _, agent := range []string{"claude-code", "gemini"} {
				name := map[string]string{"claude-code": tl.claude, "gemini": tl.gemini}[agent]
				t.Run(agent+"/"+tl.kind+"/"+p, func(t *testing.T) {
					if want := decideHook(t, agent, name, in); got != want {
						t.Errorf("check --tool %s --path %q = %s, hook %s %v = %s", tl.kind, p, got, name, in, want)
					}
					// The dialect's own tool name decides the same.
					if byName := decideCheck(t, append([]string{"--tool", name}, args[2:]...)...); byName != got {
						t.Errorf("check --tool %s = %s, --tool %s = %s", name, byName, tl.kind, got)
					}
				})
			}
		}
	}
	// An MCP filesystem server's tools: --mcp with --input.
	for _, tool := range []string{"write_file", "read_file", "delete_file", "move_file"} {
		for _, p := range paths {
			in := map[string]any{"path": p, "source": p}
			raw, _ := json.Marshal(in)
			got := decideCheck(t, "--mcp", "fs/"+tool, "--input", string(raw))
			seen[got] = true
			for _, agent := range []string{"claude-code", "gemini"} {
				t.Run(agent+"/mcp/"+tool+"/"+p, func(t *testing.T) {
					if want := decideHook(t, agent, "mcp__fs__"+tool, in); got != want {
						t.Errorf("check --mcp fs/%s --input %s = %s, hook = %s", tool, raw, got, want)
					}
				})
			}
		}
	}
	for _, d := range []string{"pass", "ask", "deny"} {
		if !seen[d] {
			t.Errorf("no case decided %s: the table does not exercise the policy", d)
		}
	}
}
