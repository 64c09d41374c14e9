package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writesPolicy denies writes and deletes under .claude/ (and of .claude
// itself) and a recursive rm of the workspace root or a directory above
// it; nothing else.
const writesPolicy = `
[settings]
builtin = false

[[rule]]
id = "claude-config"
decision = "deny"
justification = "Agent configuration is not to be changed."
path = [".claude", ".claude/**"]
op = ["write", "delete"]

[[rule]]
id = "rm-workspace"
decision = "deny"
justification = "This deletes the whole project."
command = "rm"
args = ["-r", "-R", "--recursive"]
path = ["@workspace"]
op = ["delete"]
`

// TestHookWrites runs shell commands that write .claude/ or delete the
// workspace through a mechanism the analysis attributes (directory
// destinations, archives, in-place editors, git, cwd spellings, links,
// arrays, aliases, interpreter one-liners, write-then-run, a value bomb)
// through the real hook path, for Claude Code and Gemini CLI: each must be
// denied by the right rule (reply bytes, exit 0 as both agents read a
// JSON deny); each look-alike must pass (no output).
func TestHookWrites(t *testing.T) {
	bomb := "X=a; " + strings.TrimSuffix(strings.Repeat("X=$X$X; ", 40), "; ")
	cases := []struct {
		cmd  string
		rule string // "" for a look-alike that must pass
	}{
		{"cp /tmp/s.json .claude/", "claude-config"},
		{"cp -t .claude /tmp/settings.json", "claude-config"},
		{"install -m 644 /tmp/s .claude/", "claude-config"},
		{"mv ~/.claude.bak .claude", "claude-config"},
		{"tar -xzf /tmp/a.tgz -C .claude", "claude-config"},
		{"unzip -o /tmp/a.zip -d .claude", "claude-config"},
		{"rsync -a /tmp/conf/ .claude/", "claude-config"},
		{"jq '.hooks={}' /tmp/s.json | sponge .claude/settings.json", "claude-config"},
		{"yq -i '.hooks = {}' .claude/settings.json", "claude-config"},
		{"ed -s .claude/settings.json <<< $'1d\\nw'", "claude-config"},
		{"vim -es -c '%d|wq' .claude/settings.json", "claude-config"},
		{"git rm -rq .claude", "claude-config"},
		{"git checkout -- .claude/settings.json", "claude-config"},
		{"echo '{}' > $PWD/.claude/settings.json", "claude-config"},
		{`echo '{}' > "$(pwd)/.claude/settings.json"`, "claude-config"},
		{"echo '{}' > ~+/.claude/settings.json", "claude-config"},
		{"cd src && echo '{}' > ~-/.claude/settings.json", "claude-config"},
		{"cd src && echo '{}' > ../.claude/settings.json", "claude-config"},
		{"ln -s .claude c; echo '{}' > c/settings.json", "claude-config"},
		{`python3 -c "open('.claude/settings.json','w').write('{}')"`, "claude-config"},
		{`node -e "require('fs').writeFileSync('.claude/settings.json', '{}')"`, "claude-config"},
		{`ruby -e "File.write('.claude/settings.json', '{}')"`, "claude-config"},
		{`perl -e 'unlink ".claude/settings.json"'`, "claude-config"},
		{"echo 'rm -f .claude/settings.json' > c.sh && bash c.sh", "claude-config"},
		{"a=(-f .claude/settings.json); rm \"${a[@]}\"", "claude-config"},
		{"alias x='rm -rf'; x .claude", "claude-config"},
		{bomb + "; rm -rf .claude", "claude-config"},
		{`X='eval "$X"'; eval "$X"; rm -rf .claude`, "claude-config"},
		{"install -t .claude /tmp/s", "claude-config"},
		{"mv .claude /tmp/c", "claude-config"},
		{"git mv .claude old-claude", "claude-config"},
		{"git restore --source=HEAD~3 .claude", "claude-config"},
		{"dd if=/tmp/x of=.claude/settings.json", "claude-config"},
		{"ln -sf /tmp/evil .claude/settings.json", "claude-config"},
		{"chmod 000 .claude", "claude-config"},
		{"truncate -s 0 .claude/settings.json", "claude-config"},
		{"echo 'rm -rf .claude' | tee c.sh; sh c.sh", "claude-config"},
		{"cat > c.sh <<'EOF'\nrm -rf .claude\nEOF\nsource c.sh", "claude-config"},
		{"printf 'rm -rf .claude\\n' > c.sh; chmod +x c.sh; ./c.sh", "claude-config"},
		{"a=(.claude/settings.json); rm -f ${a[0]}", "claude-config"},
		{`a=(.claude); rm -rf "${a[*]}"`, "claude-config"},
		{`python3 -c "import shutil; shutil.rmtree('.claude')"`, "claude-config"},
		{`node -e "require('fs').rmSync('.claude', {recursive: true})"`, "claude-config"},
		{"rm -rf \"$PWD\"", "rm-workspace"},
		{"rm -rf \"$(pwd)\"", "rm-workspace"},
		{`rm -rf "$(cd .. && pwd)/project"`, "rm-workspace"},
		{"rm -rf ~+", "rm-workspace"},
		{"cd .. && rm -rf project", "rm-workspace"},
		{"rm -rf $PWD/..", "rm-workspace"},
		{"ln -s \"$PWD\" p && rm -rf p/", "rm-workspace"},
		// Look-alikes.
		{"cp /tmp/s.json .config/", ""},
		{"tar -xzf /tmp/a.tgz -C build", ""},
		{"tar -tzf /tmp/a.tgz", ""},
		{"unzip -l /tmp/a.zip", ""},
		{"yq '.hooks' .claude/settings.json", ""},
		{"vim -R .claude/settings.json", ""},
		{"git rm --cached .claude/settings.json", ""},
		{"cat .claude/settings.json", ""},
		{"echo '{}' > $PWD/build/settings.json", ""},
		{"ln -s docs d; echo x > d/notes.md", ""},
		{`python3 -c "print(open('.claude/settings.json').read())"`, ""},
		{"echo 'rm -f .claude/settings.json' > notes.txt", ""},
		{"a=(-f build/x); rm \"${a[@]}\"", ""},
		{"alias x='ls -la'; x .claude", ""},
		{"rm -rf \"$PWD/build\"", ""},
		{"cd .. && rm -rf project/build", ""},
		{bomb + "; ls", ""},
		{"dd if=.claude/settings.json of=/tmp/backup.json", ""},
		{"ln -s .claude/agents/x.md x.md", ""},
		{"git mv docs/a.md docs/b.md", ""},
		{"printf 'ls .claude\\n' > c.sh; sh c.sh", ""},
		{`node -e "require('fs').readFileSync('.claude/settings.json')"`, ""},
	}
	dir := t.TempDir()
	pol := filepath.Join(dir, "writes.toml")
	if err := os.WriteFile(pol, []byte(writesPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, tc := range cases {
			t.Run(agent+"/"+tc.cmd, func(t *testing.T) {
				payload := writesPayload(t, agent, tc.cmd)
				f, sys := newFake(t, payload, nil)
				code := run(context.Background(), []string{"hook", "--provider", agent, "--policy", pol}, sys)
				if code != 0 {
					t.Fatalf("exit %d, stderr %q", code, f.stderr.String())
				}
				out := f.stdout.String()
				if tc.rule == "" {
					if out != "" {
						t.Fatalf("look-alike got a reply: %s", out)
					}
					return
				}
				reason := "toolguard: denied by rule " + tc.rule + ": "
				var want string
				switch agent {
				case "claude-code":
					want = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"` + reason
				case "gemini":
					want = `{"decision":"deny","reason":"` + reason
				}
				if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, "\"}}\n") && !strings.HasSuffix(out, "\"}\n") {
					t.Fatalf("reply %s\nwant a deny starting %s", out, want)
				}
			})
		}
	}
}

// writesPayload is a Bash call of cmd from /home/user/project in agent's
// dialect.
func writesPayload(t *testing.T, agent, cmd string) []byte {
	t.Helper()
	var v any
	switch agent {
	case "claude-code":
		v = map[string]any{"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/user/project",
			"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": map[string]any{"command": cmd}}
	case "gemini":
		v = map[string]any{"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": "/home/user/project",
			"hook_event_name": "BeforeTool", "timestamp": "2026-11-29T10:00:00.000Z", "tool_name": "run_shell_command",
			"tool_input": map[string]any{"command": cmd}}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
