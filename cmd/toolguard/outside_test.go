package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 16 item 9: writes outside the workspace ask in the defaults
// (write-outside-workspace), for file tools and shell targets alike; the
// safe prefixes, /dev/null and descriptor files, the build tools' caches
// and the agents' scratch directories pass; a specific rule (the guard's
// surfaces, system files, shell start-up files) names itself first. Every
// case goes through the real hook path with the embedded defaults only.

// outsideCase is one hook call: a shell command (cmd) or a file tool call
// (tool "write", "edit" or "read" on path).
type outsideCase struct {
	cwd  string // the payload's cwd (and the workspace); proj when empty
	cmd  string
	tool string
	path string
	want string // pass, ask or deny
	rule string // the rule the reason must name (want ask or deny)
	home string // HOME; outsideHome when empty
	tmp  string // TMPDIR; unset when empty
}

const (
	outsideHome = "/home/user"
	outsideProj = "/home/user/project"
)

// outsidePayload builds agent's PreToolUse (BeforeTool) payload for c.
func outsidePayload(t *testing.T, agent string, c outsideCase) []byte {
	t.Helper()
	cwd := c.cwd
	if cwd == "" {
		cwd = outsideProj
	}
	event := map[string]string{"claude-code": "PreToolUse", "gemini": "BeforeTool"}[agent]
	var name string
	var input map[string]string
	switch {
	case c.cmd != "":
		name = map[string]string{"claude-code": "Bash", "gemini": "run_shell_command"}[agent]
		input = map[string]string{"command": c.cmd}
	case c.tool == "write":
		name = map[string]string{"claude-code": "Write", "gemini": "write_file"}[agent]
		input = map[string]string{"file_path": c.path, "content": "x\n"}
	case c.tool == "edit":
		name = map[string]string{"claude-code": "Edit", "gemini": "replace"}[agent]
		input = map[string]string{"file_path": c.path, "old_string": "a", "new_string": "b"}
	case c.tool == "read":
		name = map[string]string{"claude-code": "Read", "gemini": "read_file"}[agent]
		input = map[string]string{"file_path": c.path}
	default:
		t.Fatalf("bad case %+v", c)
	}
	b, err := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": outsideHome + "/.claude/projects/p/s1.jsonl",
		"cwd": cwd, "hook_event_name": event, "tool_name": name, "tool_input": input})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// outsideHook runs one case through `toolguard hook --provider agent`
// and returns the exit code and the reply bytes.
func outsideHook(t *testing.T, agent string, c outsideCase, args ...string) (int, string, string) {
	t.Helper()
	cwd := c.cwd
	if cwd == "" {
		cwd = outsideProj
	}
	// The audit log and state go to temporary directories, not under the
	// (fictional) home.
	home := c.home
	if home == "" {
		home = outsideHome
	}
	env := map[string]string{"HOME": home, "XDG_STATE_HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()}
	if c.tmp != "" {
		env["TMPDIR"] = c.tmp
	}
	f, sys := newFake(t, outsidePayload(t, agent, c), env)
	sys.etc = filepath.Join(t.TempDir(), "etc")
	sys.getwd = func() (string, error) { return cwd, nil }
	code := run(context.Background(), append([]string{"hook", "--provider", agent}, args...), sys)
	return code, f.stdout.String(), f.stderr.String()
}

func runOutside(t *testing.T, cases []outsideCase, args ...string) {
	t.Helper()
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, c := range cases {
			name := c.cmd
			if name == "" {
				name = c.tool + " " + c.path
			}
			if c.cwd != "" {
				name = "cwd=" + c.cwd + "/" + name
			}
			t.Run(agent+"/"+name, func(t *testing.T) {
				t.Parallel()
				code, out, errOut := outsideHook(t, agent, c, args...)
				if code != 0 {
					t.Fatalf("exit %d, stderr %q", code, errOut)
				}
				got, reason := routeDecision(t, agent, out)
				if got != c.want {
					t.Fatalf("got %s (%q), want %s", got, reason, c.want)
				}
				if c.want == "pass" && out != "" {
					t.Errorf("a pass must print nothing, got %q", out)
				}
				if c.rule != "" && !strings.Contains(reason, " rule "+c.rule+":") {
					t.Errorf("reason %q does not name rule %s", reason, c.rule)
				}
			})
		}
	}
}

func TestOutsideWrites(t *testing.T) {
	// A directory on PATH or an autostart location names its own rule.
	const w, b = "write-outside-workspace", "user-bin-autostart-write"
	runOutside(t, []outsideCase{
		// File tools.
		{tool: "write", path: "~/.local/bin/x", want: "ask", rule: b},
		{tool: "write", path: outsideHome + "/.local/bin/git", want: "ask", rule: b},
		{tool: "edit", path: "/opt/app/config.yml", want: "ask", rule: w},
		{tool: "write", path: outsideHome + "/.config/autostart/x.desktop", want: "ask", rule: b},
		{tool: "write", path: outsideHome + "/other-project/main.go", want: "ask", rule: w},
		{tool: "edit", path: outsideProj + "-old/main.go", want: "ask", rule: w}, // a sibling sharing the prefix
		{tool: "write", path: outsideProj + "/../other/x.go", want: "ask", rule: w},
		{tool: "write", path: "/srv/www/index.html", want: "ask", rule: w},
		{tool: "write", path: outsideHome + "/.deno/bin/git", want: "ask", rule: b},    // on PATH, not a cache
		{tool: "write", path: outsideHome + "/.cargo/bin/cargo", want: "ask", rule: b}, // the same
		{tool: "write", path: outsideHome + "/.bun/bin/bun", want: "ask", rule: b},
		{tool: "write", path: outsideHome + "/go/bin/gopls", want: "ask", rule: b},
		{tool: "write", path: outsideHome + "/.claude/agents/x.md", want: "ask", rule: w}, // not a scratch dir
		{tool: "write", path: outsideHome + "/.gemini/GEMINI.md", want: "ask", rule: w},
		{tool: "write", path: outsideHome + "/.copilot/session-state/3cfe/extensions/x/extension.mjs", want: "ask", rule: w}, // code copilot loads
		{tool: "write", path: outsideHome + "/.copilot/extensions/x/extension.mjs", want: "ask", rule: w},
		{tool: "write", path: "/var/folders/zz/abc123/C/x", want: "ask", rule: w}, // not the T (temp) directory
		// Shell targets.
		{cmd: "cp build/app ~/.local/bin/app", want: "ask", rule: b},
		{cmd: "mv old.txt ../other/output", want: "ask", rule: w},
		{cmd: "echo '[Desktop Entry]' | tee ~/.config/autostart/x.desktop", want: "ask", rule: b},
		{cmd: "echo x > /opt/app/config", want: "ask", rule: w},
		{cmd: "printf 'x\\n' >> ~/notes.txt", want: "ask", rule: w},
		{cmd: "ln -s $PWD/bin/tool ~/bin/tool", want: "ask", rule: b},
		{cmd: "install -m755 build/app ~/.local/bin/app", want: "ask", rule: b},
		{cmd: "rsync -a dist/ /srv/www/", want: "ask", rule: w},
		{cmd: "tar -xzf dep.tgz -C /opt/dep", want: "ask", rule: w},
		{cmd: "touch ~/.config/systemd/user/x.service", want: "ask", rule: b},
		{cmd: "mkdir -p ~/.config/app", want: "ask", rule: w},
		{cmd: "cd .. && touch x", want: "ask", rule: w},
		{cmd: "cp x $HOME/.cargo/bin/cargo", want: "ask", rule: b},
		{cmd: "chmod +x ~/.local/bin/app", want: "ask", rule: b},
		{cmd: "curl -o ~/Downloads/x.tgz https://example.com/x.tgz", want: "ask", rule: w},
		{cmd: "sudo cp x /opt/x", want: "ask", rule: w},
		{cmd: "bash -c 'cp x /opt/x'", want: "ask", rule: w},
		// The same writes spelled other ways.
		{cmd: "cp -t ~/.local/bin app", want: "ask", rule: b},
		{cmd: "mv -t /opt app", want: "ask", rule: w},
		{cmd: "install -D -t ~/.local/bin app", want: "ask", rule: b},
		{cmd: "dd if=app of=/opt/app", want: "ask", rule: w},
		{cmd: "sed -i 's/a/b/' ~/.config/app.toml", want: "ask", rule: w},
		{cmd: "sort -o ~/x.txt a.txt", want: "ask", rule: w},
		{cmd: "unzip -d /opt/x a.zip", want: "ask", rule: w},
		{cmd: "tar -C /opt -xzf a.tgz", want: "ask", rule: w},
		{cmd: "wget -O ~/.local/bin/x https://example.com/x", want: "ask", rule: b},
		{cmd: "echo hi &> ~/log.txt", want: "ask", rule: w},
		{cmd: "exec > ~/log.txt", want: "ask", rule: w},
		{cmd: "printf x >| /opt/x", want: "ask", rule: w},
		{cmd: "cp x \"${HOME}/.local/bin/x\"", want: "ask", rule: b},
		{cmd: "cd ~ && cp x .local/bin/x", want: "ask", rule: b},
		{cmd: "pushd ~/.local/bin && cp ~/project/x .", want: "ask", rule: b},
		{cmd: "env -C /opt cp ~/project/x .", want: "ask", rule: w},
		{cmd: "python3 -c 'open(\"/opt/x\",\"w\").write(\"x\")'", want: "ask", rule: w},
		{cmd: "node -e 'require(\"fs\").writeFileSync(\"/opt/x\",\"x\")'", want: "ask", rule: w},
		{cmd: "find . -name x -exec cp {} /opt/ \\;", want: "ask", rule: w},
		{cmd: "echo app | xargs -I{} cp {} /opt/", want: "ask", rule: w},
		{cmd: "gzip -c a > /opt/a.gz", want: "ask", rule: w},
		{cmd: "cp -r . ../backup", want: "ask", rule: w},
		{cmd: "ln -s /opt o && echo x > o/y", want: "ask", rule: w},

		// Look-alikes that pass: the safe prefixes, /dev/null and
		// descriptors, caches, the agents' scratch directories, writes
		// inside the workspace, reads outside it, writes nobody names.
		{tool: "write", path: "/tmp/x", want: "pass"},
		{tool: "write", path: "/var/tmp/x/y", want: "pass"},
		{tool: "write", path: outsideProj + "/src/main.go", want: "pass"},
		{tool: "edit", path: outsideProj + "/README.md", want: "pass"},
		{tool: "write", path: outsideHome + "/.cache/go-build/ab/x", want: "pass"},
		{tool: "write", path: outsideHome + "/.claude/plans/p.md", want: "pass"},
		{tool: "write", path: outsideHome + "/.claude/projects/-home-user-project/memory/MEMORY.md", want: "pass"},
		{tool: "write", path: outsideHome + "/.gemini/tmp/project/plans/p.md", want: "pass"},
		{tool: "write", path: outsideHome + "/.gemini/antigravity/brain/5c1e/task.md", want: "pass"},
		{tool: "write", path: outsideHome + "/.qwen/tmp/185d/x.txt", want: "pass"},
		{tool: "write", path: outsideHome + "/.copilot/session-state/3cfe/plan.md", want: "pass"},
		{tool: "edit", path: outsideHome + "/.copilot/session-state/3cfe/files/notes.md", want: "pass"},
		{tool: "write", path: "/var/folders/zz/abc123/T/tmp.x/out.txt", want: "pass"}, // macOS's $TMPDIR
		{tool: "write", path: "/private/var/folders/zz/abc123/T/x", want: "pass"},
		{tool: "read", path: "/etc/hosts", want: "pass"},
		{tool: "read", path: outsideHome + "/other-project/main.go", want: "pass"},
		{cmd: "echo x > /tmp/x", want: "pass"},
		{cmd: "cp a /var/tmp/y && mkdir -p /tmp/z", want: "pass"},
		{cmd: "echo x > \"$TMPDIR/x\"", want: "pass"},
		{cmd: "echo x > /dev/null", want: "pass"},
		{cmd: "make 2>/dev/stderr >/dev/stdout", want: "pass"},
		{cmd: "echo x >&2; echo y | tee /dev/stderr", want: "pass"},
		{cmd: "exec 3>/dev/fd/1; echo x >/proc/self/fd/2", want: "pass"},
		{cmd: "cp out.o ~/.cache/go-build/x", want: "pass"},
		{cmd: "tar -xzf dep.tgz -C ~/go/pkg/mod/cache/download", want: "pass"},
		{cmd: "cp x.tgz ~/.npm/_cacache/x && cp y ~/.cargo/registry/cache/y", want: "pass"},
		{cmd: "cp plan.md ~/.claude/plans/p.md", want: "pass"},
		{cmd: "go build ./... && go test ./...", want: "pass"},
		{cmd: "go install ./cmd/tool", want: "pass"},
		{cmd: "npm install && npm run build", want: "pass"},
		{cmd: "pip install --user requests", want: "pass"},
		{cmd: "echo hi > src/a.txt && cp src/a.txt dist/", want: "pass"},
		{cmd: "cp /etc/hosts ./hosts.txt", want: "pass"},
		{cmd: "cat /etc/hosts", want: "pass"},
		{cmd: "rsync -n -a dist/ /srv/www/", want: "pass"},
		{cmd: "rsync --dry-run -a dist/ /srv/www/", want: "pass"},
		{cmd: "tar -xzf dep.tgz -C build", want: "pass"},
		{cmd: "ls ~/.local/bin && diff ~/.config/app/a.toml a.toml", want: "pass"},
	})
}

// TestOutsideSpecificFirst: a specific rule names itself over the
// low-priority write-outside-workspace, and the guard's own surfaces stay
// a locked deny (not an ask).
func TestOutsideSpecificFirst(t *testing.T) {
	const self = "toolguard-self-protect"
	runOutside(t, []outsideCase{
		{tool: "write", path: outsideHome + "/.claude/settings.json", want: "deny", rule: self},
		{tool: "edit", path: outsideHome + "/.gemini/settings.json", want: "deny", rule: self},
		{tool: "write", path: outsideHome + "/.config/toolguard/policy.toml", want: "deny", rule: self},
		{tool: "write", path: outsideHome + "/.local/bin/toolguard", want: "deny", rule: self},
		{cmd: "echo '{}' > ~/.claude/settings.json", want: "deny", rule: self},
		{cmd: "cp evil.toml ~/.config/toolguard/policy.toml", want: "deny", rule: self},
		{cmd: "ln -sf /tmp/x ~/.codex/hooks.json", want: "deny", rule: self},
		{cwd: outsideHome, cmd: "echo '{}' > .claude/settings.json", want: "deny", rule: self},
		{cwd: "/", cmd: "echo '{}' > ~/.claude/settings.json", want: "deny", rule: self},

		{tool: "write", path: "/etc/hosts", want: "ask", rule: "system-file-write"},
		{cmd: "echo 'export X=1' >> ~/.bashrc", want: "ask", rule: "shell-env-file-write"},
		{cmd: "echo 'rm -rf ~' > .git/hooks/pre-commit", want: "ask", rule: "git-hook-write"},
	})
}

// TestOutsideOwnershipRepair: chown/chmod -R of a tree under the user's
// home (an ownership repair) asks and is never denied; the home itself
// and system trees stay denied.
func TestOutsideOwnershipRepair(t *testing.T) {
	runOutside(t, []outsideCase{
		{cmd: "chown -R \"$USER\" ~/.npm", want: "ask", rule: "chmod-recursive-home"},
		{cmd: "sudo chown -R $(whoami) ~/.npm", want: "ask", rule: "chmod-recursive-home"},
		{cmd: "chmod -R u+w ~/go/pkg/mod", want: "ask", rule: "chmod-recursive-home"},
		{cmd: "chown -R user:user ~/.cache/pip", want: "ask", rule: "chmod-recursive-home"},
		{cwd: outsideHome, cmd: "chmod -R u+w go/pkg/mod", want: "ask", rule: "chmod-recursive-home"},
		{cmd: "chmod 600 ~/.config/app/x", want: "ask", rule: "write-outside-workspace"},
		{cmd: "chmod -R 755 dist", want: "pass"},
		{cmd: "chmod -R 700 ~", want: "deny", rule: "chmod-recursive-system"},
		{cmd: "chown -R user /usr", want: "deny", rule: "chmod-recursive-system"},
	})
}

// TestOutsideExposedWorkspace: an agent started in the home directory or
// in / with no project around it has home as its inside: only writes
// outside home ask.
func TestOutsideExposedWorkspace(t *testing.T) {
	const w = "write-outside-workspace"
	runOutside(t, []outsideCase{
		{cwd: outsideHome, cmd: "cp notes.txt ~/Documents/notes.txt", want: "pass"},
		{cwd: outsideHome, cmd: "mkdir -p src/x && echo hi > src/x/a.txt", want: "pass"},
		{cwd: outsideHome, tool: "write", path: outsideHome + "/.config/app/x.toml", want: "pass"},
		{cwd: outsideHome, cmd: "cp notes.txt /opt/notes.txt", want: "ask", rule: w},
		// PATH directories and autostart locations are not sheltered by home.
		{cwd: outsideHome, cmd: "cp build/app ~/.local/bin/git", want: "ask", rule: "user-bin-autostart-write"},
		{cwd: outsideHome, cmd: "cp build/app .local/bin/git", want: "ask", rule: "user-bin-autostart-write"},
		{cwd: outsideHome, tool: "write", path: outsideHome + "/.config/autostart/x.desktop", want: "ask", rule: "user-bin-autostart-write"},
		{cwd: "/", cmd: "touch /home/user/.config/systemd/user/x.service", want: "ask", rule: "user-bin-autostart-write"},
		{cwd: outsideHome, cmd: "ls ~/.local/bin && cat ~/bin/tool", want: "pass"},
		// A project inside such a directory is its own inside.
		{cwd: outsideHome + "/bin", cmd: "echo x > tool.sh && chmod +x tool.sh", want: "pass"},
		{cwd: outsideHome, tool: "write", path: "/srv/www/index.html", want: "ask", rule: w},
		{cwd: outsideHome, cmd: "echo x > /tmp/x", want: "pass"},
		{cwd: "/", cmd: "touch /home/user/notes.txt", want: "pass"},
		{cwd: "/", cmd: "touch /opt/x", want: "ask", rule: w},
		{cwd: "/", cmd: "cd home/user && touch notes.txt", want: "pass"},
		// A project below home is a workspace like any other.
		{cwd: outsideHome + "/src/app", cmd: "cp notes.txt ~/Documents/notes.txt", want: "ask", rule: w},
	})
}

// TestOutsideReplyBytes pins the whole reply of an outside write for
// both dialects, and a pass's empty reply.
func TestOutsideReplyBytes(t *testing.T) {
	reason := "toolguard: approval required by rule write-outside-workspace: This writes a file outside the project directory. Write inside the project (or under /tmp), or ask the user. (/opt/app/config is outside the workspace /home/user/project)"
	cases := []struct {
		agent string
		c     outsideCase
		want  string
	}{
		{"claude-code", outsideCase{cmd: "echo x > /opt/app/config"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"` + reason + `"}}` + "\n"},
		{"claude-code", outsideCase{tool: "write", path: "/opt/app/config"},
			`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"` + reason + `"}}` + "\n"},
		{"gemini", outsideCase{cmd: "echo x > /opt/app/config"},
			`{"decision":"ask","reason":"` + reason + `","systemMessage":"` + reason + `"}` + "\n"},
		{"gemini", outsideCase{tool: "write", path: "/opt/app/config"},
			`{"decision":"ask","reason":"` + reason + `","systemMessage":"` + reason + `"}` + "\n"},
		{"claude-code", outsideCase{cmd: "echo x > /tmp/x"}, ""},
		{"gemini", outsideCase{tool: "write", path: "/tmp/x"}, ""},
	}
	for _, c := range cases {
		code, out, errOut := outsideHook(t, c.agent, c.c)
		if code != 0 || out != c.want {
			t.Errorf("%s %+v: exit %d, reply %q (stderr %q), want exit 0, %q", c.agent, c.c, code, out, errOut, c.want)
		}
	}
}

// TestOutsideStrictPreset: the strict preset layers over the defaults
// without a second write-outside-workspace: writes ask by the default
// rule, deletes outside by strict-outside-workspace.
func TestOutsideStrictPreset(t *testing.T) {
	pol := filepath.Join(t.TempDir(), "strict.toml")
	strict, err := os.ReadFile("../../internal/policy/presets/strict.toml")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(strict), `id = "write-outside-workspace"`) {
		t.Error("strict.toml defines write-outside-workspace again: it would replace the default with a copy")
	}
	if err := os.WriteFile(pol, strict, 0o600); err != nil {
		t.Fatal(err)
	}
	runOutside(t, []outsideCase{
		{cmd: "cp build/app ~/.local/bin/app", want: "ask", rule: "user-bin-autostart-write"},
		{cmd: "cp build/app ~/.config/app/app", want: "ask", rule: "write-outside-workspace"},
		{cmd: "rm /opt/x", want: "ask", rule: "strict-outside-workspace"},
		{cmd: "cp app ~/.cache/x/app", want: "pass"},
		{cmd: "echo '{}' > ~/.claude/settings.json", want: "deny", rule: "toolguard-self-protect"},
	}, "--policy", pol)
}

// TestOutsideSymlinkedWorkspace: a workspace reached through a symbolic
// link (~/code -> /data/code; macOS's /tmp -> /private/tmp) holds the
// resolved form of a path written inside it, so writes in it pass; a link
// inside the workspace that points out of it is still outside, and a safe
// prefix reached through a link is safe under its resolved name too. The
// directories are real (the hook resolves links on disk); the policy
// makes /tmp, where t.TempDir lives, an ordinary directory.
func TestOutsideSymlinkedWorkspace(t *testing.T) {
	dir := t.TempDir()
	for _, d := range []string{"real/proj/src", "elsewhere", "private-tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"link":           filepath.Join(dir, "real"),
		"real/proj/out":  filepath.Join(dir, "elsewhere"),
		"tmplink":        filepath.Join(dir, "private-tmp"),
		"real/proj/home": "/home/user",
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, l)); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte("version = 1\n[settings]\nsafe_prefixes = [\"/var/tmp\", \""+filepath.Join(dir, "tmplink")+"\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "link", "proj")
	const w = "write-outside-workspace"
	runOutside(t, []outsideCase{
		{cwd: ws, cmd: "echo x > out.txt && cp out.txt src/a.txt", want: "pass"},
		{cwd: ws, tool: "write", path: ws + "/src/a.go", want: "pass"},
		{cwd: ws, tool: "write", path: filepath.Join(dir, "real/proj/src/a.go"), want: "pass"},
		{cwd: ws, tool: "write", path: filepath.Join(dir, "tmplink/x"), want: "pass"},
		{cwd: ws, tool: "write", path: filepath.Join(dir, "private-tmp/x"), want: "pass"},
		{cwd: ws, tool: "write", path: filepath.Join(dir, "elsewhere/x"), want: "ask", rule: w},
		{cwd: ws, tool: "write", path: ws + "/out/x", want: "ask", rule: w}, // a link out of the workspace
		{cwd: ws, cmd: "echo x > out/x", want: "ask", rule: w},
		{cwd: ws, tool: "write", path: "/tmp/x", want: "ask", rule: w}, // /tmp is not safe in this policy
		{cwd: ws, cmd: "echo '{}' > home/.claude/settings.json", want: "deny", rule: "toolguard-self-protect"},
	}, "--policy", pol, "--workspace", ws)
}

// TestOutsideCodex: Codex has no ask, so an outside write is a deny that
// records an approval request (and holds the session, like every ask);
// its apply_patch headers are read like a file tool's path.
func TestOutsideCodex(t *testing.T) {
	cases := []struct {
		tool, input string
		want        string // "pass", or a substring of the deny reason
	}{
		{"apply_patch", "*** Begin Patch\n*** Add File: /opt/x.conf\n+x\n*** End Patch\n", "rule write-outside-workspace:"},
		{"apply_patch", "*** Begin Patch\n*** Add File: ../other/x.go\n+x\n*** End Patch\n", "rule write-outside-workspace:"},
		{"Bash", "cp build/app ~/.config/app/app", "rule write-outside-workspace:"},
		{"Bash", "cp build/app ~/.local/bin/app", "rule user-bin-autostart-write:"},
		{"apply_patch", "*** Begin Patch\n*** Add File: src/a.go\n+x\n*** End Patch\n", "pass"},
		{"Bash", "cp app ~/.cache/x/app && echo x > /tmp/y", "pass"},
		{"apply_patch", "*** Begin Patch\n*** Add File: ~/.codex/hooks.json\n+{}\n*** End Patch\n", "rule toolguard-self-protect:"},
	}
	for i, c := range cases {
		// Home is not under t.TempDir (/tmp is a safe prefix); the
		// approval requests go to a temporary state directory.
		home, proj := outsideHome, outsideProj
		payload, err := json.Marshal(map[string]any{"session_id": "s" + string(rune('a'+i)), "turn_id": "t1", "transcript_path": nil,
			"cwd": proj, "hook_event_name": "PreToolUse", "model": "m", "permission_mode": "default",
			"tool_name": c.tool, "tool_input": map[string]string{"command": c.input}, "tool_use_id": "c1"})
		if err != nil {
			t.Fatal(err)
		}
		f, sys := newFake(t, payload, map[string]string{"HOME": home, "XDG_STATE_HOME": t.TempDir(), "XDG_CONFIG_HOME": t.TempDir()})
		sys.etc = filepath.Join(t.TempDir(), "etc")
		sys.getwd = func() (string, error) { return proj, nil }
		code := run(context.Background(), []string{"hook", "--provider", "codex"}, sys)
		out := f.stdout.String()
		if code != 0 {
			t.Errorf("%s %q: exit %d, stderr %q", c.tool, c.input, code, f.stderr.String())
			continue
		}
		if c.want == "pass" {
			if out != "" {
				t.Errorf("%s %q: reply %q, want none (pass)", c.tool, c.input, out)
			}
			continue
		}
		got, reason := routeDecision(t, "claude-code", out) // Codex replies in Claude's shape
		if got != "deny" || !strings.Contains(reason, c.want) {
			t.Errorf("%s %q: %s %q, want deny naming %q", c.tool, c.input, got, reason, c.want)
		}
		if !strings.Contains(c.want, "self-protect") && !strings.Contains(reason, "approval request req_") {
			t.Errorf("%s %q: the deny records no approval request: %q", c.tool, c.input, reason)
		}
	}
}

// TestOutsideHardLinks: a hard link to a file outside the workspace is a
// second name for it inside the project, through which the next call's
// write (naming only the inside path) changes the outside file; making
// one asks. Symbolic links pass (a write through one is resolved), and
// hard links inside the project or from /tmp pass.
func TestOutsideHardLinks(t *testing.T) {
	runOutside(t, []outsideCase{
		{cmd: "ln ~/.bashrc b", want: "ask", rule: "hard-link-outside"},
		{cmd: "ln ~/notes.txt notes", want: "ask", rule: "hard-link-outside"},
		{cmd: "ln -f ../other/main.go main.go", want: "ask", rule: "hard-link-outside"},
		{cmd: "ln -P ~/x y", want: "ask", rule: "hard-link-outside"},
		{cmd: "ln -v ~/x ~/y", want: "ask"}, // the link itself is outside too
		{cmd: "cp -l ~/.bashrc b", want: "ask", rule: "hard-link-outside-cp"},
		{cmd: "cp -al ~/other/src ./src", want: "ask", rule: "hard-link-outside-cp"},
		{cmd: "cp --link ~/x y", want: "ask", rule: "hard-link-outside-cp"},
		{cmd: "ln ~/.claude/settings.json x", want: "deny", rule: "toolguard-self-protect-ln"},

		{cmd: "ln -s ~/notes.txt notes", want: "pass"},
		{cmd: "ln -sf ~/x y", want: "pass"},
		{cmd: "ln -fs ~/x y", want: "pass"},
		{cmd: "ln -nsf ~/x y", want: "pass"},
		{cmd: "ln --symbolic ~/x y", want: "pass"},
		{cmd: "ln a b", want: "pass"},
		{cmd: "ln /tmp/a b", want: "pass"},
		{cmd: "cp ~/x y && cp -r ~/other/src ./src && cp -L ~/x z", want: "pass"},
		{cmd: "cp -l a b", want: "pass"},
		{cwd: outsideHome, cmd: "ln notes.txt Documents/notes.txt", want: "pass"},
	})
}

// TestOutsideReplaceDisable: write-outside-workspace is an ordinary
// (unlocked) default: a later layer's rule with the same id replaces it,
// and disable switches it off; the locked self-protection stays either way.
func TestOutsideReplaceDisable(t *testing.T) {
	dir := t.TempDir()
	replaced := filepath.Join(dir, "replaced.toml")
	disabled := filepath.Join(dir, "disabled.toml")
	if err := os.WriteFile(replaced, []byte(`version = 1
[[rule]]
id = "write-outside-workspace"
description = "A copy that only asks for /srv."
decision = "ask"
path = ["/srv/**"]
op = ["write"]
`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(disabled, []byte("version = 1\n[settings]\ndisable = [\"write-outside-workspace\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Run("replaced", func(t *testing.T) {
		runOutside(t, []outsideCase{
			{cmd: "echo x > /opt/x", want: "pass"},
			{cmd: "echo x > /srv/x", want: "ask", rule: "write-outside-workspace"},
			{cmd: "echo '{}' > ~/.claude/settings.json", want: "deny", rule: "toolguard-self-protect"},
		}, "--policy", replaced)
	})
	t.Run("disabled", func(t *testing.T) {
		runOutside(t, []outsideCase{
			{cmd: "echo x > /opt/x", want: "pass"},
			{cmd: "cp app ~/.local/bin/app", want: "ask", rule: "user-bin-autostart-write"},
			{cmd: "echo '{}' > ~/.claude/settings.json", want: "deny", rule: "toolguard-self-protect"},
		}, "--policy", disabled)
	})
}

// TestOutsideWorkspaceLinkToHome: a workspace that is a link to the home
// directory does not make home inside through its resolved name (home
// would otherwise shelter everything the exposed-workspace logic keeps
// outside).
func TestOutsideWorkspaceLinkToHome(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(filepath.Join(home, ".config", "app"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(home, filepath.Join(dir, "ws")); err != nil {
		t.Skipf("symlink: %v", err)
	}
	pol := filepath.Join(dir, "policy.toml")
	if err := os.WriteFile(pol, []byte("version = 1\n[settings]\nsafe_prefixes = [\"/var/tmp\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	runOutside(t, []outsideCase{
		{home: home, cwd: ws, tool: "write", path: ws + "/.config/app/x.toml", want: "ask", rule: "write-outside-workspace"},
		{home: home, cwd: ws, tool: "write", path: home + "/.config/app/x.toml", want: "ask", rule: "write-outside-workspace"},
		{home: home, cwd: ws, tool: "write", path: home + "/.local/bin/git", want: "ask", rule: "user-bin-autostart-write"},
	}, "--policy", pol, "--workspace", ws)
}

// TestOutsideTempDir: the "$TMPDIR" safe prefix is the hook's $TMPDIR; a
// TMPDIR of /, the home directory or above it shelters nothing.
func TestOutsideTempDir(t *testing.T) {
	const w = "write-outside-workspace"
	runOutside(t, []outsideCase{
		{tool: "write", path: "/scratch/tmp/x.txt", tmp: "/scratch/tmp", want: "pass"},
		{tool: "write", path: "/scratch/tmp/a/b.txt", tmp: "/scratch/tmp/", want: "pass"},
		{cmd: "cp build/app /scratch/tmp/app", tmp: "/scratch/tmp", want: "pass"},
		{cmd: "echo x > \"$TMPDIR/x\"", tmp: "/scratch/tmp", want: "pass"}, // docs/defaults.md: a $TMPDIR/ target is temp
		// Look-alikes and bad values.
		{tool: "write", path: "/scratch/tmp-other/x.txt", tmp: "/scratch/tmp", want: "ask", rule: w},
		{tool: "write", path: "/scratch/x.txt", tmp: "/scratch/tmp", want: "ask", rule: w},
		{tool: "write", path: "/scratch/tmp/x.txt", want: "ask", rule: w}, // no TMPDIR
		{tool: "write", path: "/opt/x.conf", tmp: "/", want: "ask", rule: w},
		{tool: "write", path: outsideHome + "/notes.txt", tmp: outsideHome, want: "ask", rule: w},
		{tool: "write", path: outsideHome + "/notes.txt", tmp: "/home", want: "ask", rule: w},
		{tool: "write", path: "/scratch/tmp/x.txt", tmp: "scratch/tmp", want: "ask", rule: w}, // relative: ignored
		// A guard surface under TMPDIR stays the locked deny.
		{tool: "write", path: outsideHome + "/.claude/settings.json", tmp: outsideHome + "/.claude", want: "deny", rule: "toolguard-self-protect"},
	})
}
