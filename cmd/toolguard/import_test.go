package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// importHome copies the import fixtures where the agents keep them under
// a fresh home: Claude Code's user settings, Codex's rules, Gemini's
// policies.
func importHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	for src, dst := range map[string]string{
		"claude/home/.claude/settings.json": ".claude/settings.json",
		"codex/default.rules":               ".codex/rules/default.rules",
		"gemini/policies.toml":              ".gemini/policies/team.toml",
	} {
		data, err := os.ReadFile(filepath.Join("../../testdata/import", src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(home, dst)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return home
}

// TestImportCLI runs `toolguard import` in-process: discovery in the
// home, the policy on stdout, the lists on stderr; then `toolguard
// validate` on what it wrote passes.
func TestImportCLI(t *testing.T) {
	home := importHome(t)
	f, sys := newFake(t, nil, map[string]string{"HOME": home})
	if code := run(context.Background(), []string{"import"}, sys); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, f.stderr.String())
	}
	out := f.stdout.String()
	for _, want := range []string{"version = 1", "# ~/.claude/settings.json:6: claude-code permissions.allow Bash(git status:*)",
		"# ~/.codex/rules/default.rules:", "# ~/.gemini/policies/team.toml:"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q", want)
		}
	}
	for _, want := range []string{"imported ", "from 3 files", "never consulted Write(~/.bashrc)", "shadowed [\"sudo\", \"-n\", \"true\"]"} {
		if !strings.Contains(f.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, f.stderr.String())
		}
	}
	// -o writes the file; a second run refuses to overwrite it.
	dst := filepath.Join(t.TempDir(), "imported.toml")
	f, sys = newFake(t, nil, map[string]string{"HOME": home})
	if code := run(context.Background(), []string{"import", "-o", dst}, sys); code != 0 {
		t.Fatalf("-o: exit %d, stderr %s", code, f.stderr.String())
	}
	if f.stdout.Len() != 0 {
		t.Errorf("-o printed to stdout: %q", f.stdout.String())
	}
	written, err := os.ReadFile(dst)
	if err != nil || string(written) != out {
		t.Fatalf("-o wrote %d bytes (%v), stdout had %d", len(written), err, len(out))
	}
	f, sys = newFake(t, nil, map[string]string{"HOME": home})
	if code := run(context.Background(), []string{"import", "-o", dst}, sys); code != 1 || !strings.Contains(f.stderr.String(), "exists") {
		t.Errorf("second -o: exit %d, stderr %q; want 1 and a refusal", code, f.stderr.String())
	}
	f, sys = newFake(t, nil, map[string]string{"HOME": home})
	if code := run(context.Background(), []string{"validate", dst}, sys); code != 0 {
		t.Fatalf("validate: exit %d\n%s%s", code, f.stdout.String(), f.stderr.String())
	}
	if !strings.Contains(f.stdout.String(), "ok: ") {
		t.Errorf("validate: %q", f.stdout.String())
	}
}

func TestImportCLIErrors(t *testing.T) {
	empty := t.TempDir()
	bad := filepath.Join(empty, "bad.rules")
	if err := os.WriteFile(bad, []byte("prefix_rule(pattern = [\"rm\"], decision = \"forbidden\")\nexec(\"x\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"nothing found", []string{"import"}, "no agent rule file found"},
		{"missing file", []string{"import", "--claude", filepath.Join(empty, "nope.json")}, "nope.json"},
		{"unparsable rules", []string{"import", "--codex", bad}, "bad.rules:2: exec: want key = value"},
		{"stray argument", []string{"import", "x"}, "takes no arguments"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f, sys := newFake(t, nil, map[string]string{"HOME": empty})
			code := run(context.Background(), c.args, sys)
			if code != 1 || !strings.Contains(f.stderr.String(), c.want) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, f.stderr.String(), c.want)
			}
			if f.stdout.Len() != 0 {
				t.Errorf("stdout %q, want nothing", f.stdout.String())
			}
		})
	}
}

// TestImportedPolicyHook: the imported policy, given to the hook, decides
// real payloads in Claude Code's and Gemini CLI's dialects: the imported
// allows, asks and denies, a compound that starts with an allowed prefix,
// and look-alikes that must pass.
func TestImportedPolicyHook(t *testing.T) {
	home := importHome(t)
	f, sys := newFake(t, nil, map[string]string{"HOME": home})
	pol := filepath.Join(t.TempDir(), "imported.toml")
	if code := run(context.Background(), []string{"import", "--claude", filepath.Join(home, ".claude/settings.json"), "-o", pol}, sys); code != 0 {
		t.Fatalf("import: exit %d, %s", code, f.stderr.String())
	}
	cases := []routeCase{
		{cmd: "git status --short", want: "allow"},  // Bash(git status:*)
		{cmd: "npm run lint", want: "allow"},        // Bash(npm run lint), exact
		{cmd: "npm run lint --fix", want: "pass"},   // not the exact command
		{cmd: "git status; rm -rf ~", want: "deny"}, // the compound: rm decides
		{cmd: "git status && curl https://x.example", want: "deny", rule: "claude-deny-bash-curl"},
		{cmd: "git statusx", want: "pass"}, // not at a word boundary
		{cmd: "curl -s https://example.com", want: "deny", rule: "claude-deny-bash-curl"},
		{cmd: "echo curl", want: "pass"}, // look-alike: curl is an argument
		{cmd: "git push origin feature", want: "ask", rule: "claude-ask-bash-git-push"},
		{cmd: "git log --oneline | head", want: "pass"}, // head is not allowed
		{tool: "Read", in: `{"file_path":"/home/user/project/.env"}`, want: "deny", rule: "claude-deny-read-env"},
		{tool: "Read", in: `{"file_path":"/home/user/project/src/.envrc.md"}`, want: "pass"},
		{tool: "mcp__puppeteer__navigate", in: `{"url":"https://example.com"}`, want: "allow"},
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, c := range cases {
			name := c.cmd
			if name == "" {
				name = c.tool + " " + c.in
			}
			t.Run(agent+"/"+name, func(t *testing.T) {
				t.Parallel()
				f, sys := newFake(t, routePayload(t, agent, c), map[string]string{"HOME": "/home/user"})
				sys.etc = "/home/user/etc"
				code := run(context.Background(), []string{"hook", "--provider", agent, "--policy", pol}, sys)
				if code != 0 {
					t.Fatalf("exit %d, stderr %q", code, f.stderr.String())
				}
				got, reason := routeDecision(t, agent, f.stdout.String())
				if got != c.want {
					t.Fatalf("got %s (%q), want %s; reply %s", got, reason, c.want, f.stdout.String())
				}
				if c.rule != "" && !strings.Contains(reason, "rule "+c.rule+":") {
					t.Errorf("reason %q does not name rule %s", reason, c.rule)
				}
			})
		}
	}
}
