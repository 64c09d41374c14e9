package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// surfaceWorld is a home with a project (a git repository) and Claude
// Code's user settings running toolguard from /opt/tgbin.
func surfaceWorld(t *testing.T) (home, proj string) {
	t.Helper()
	home = t.TempDir()
	proj = filepath.Join(home, "src", "project")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(proj, ".claude", "agents"), filepath.Join(home, ".claude")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/opt/tgbin/toolguard hook --provider claude-code","timeout":30}]}]}}`
	if err := os.WriteFile(filepath.Join(home, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	// Codex's user hooks live in a dotfiles checkout, linked in.
	dot := filepath.Join(home, "dotfiles", "codex-hooks.json")
	if err := os.MkdirAll(filepath.Dir(dot), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dot, []byte(`{"hooks":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, ".codex"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(dot, filepath.Join(home, ".codex", "hooks.json")); err != nil {
		t.Fatal(err)
	}
	return home, proj
}

// hookPayload builds a shell call (or, with tool, a file or MCP call whose
// input is in) in an agent's dialect.
func hookPayload(t *testing.T, provider, cwd, command, tool string, in map[string]any) []byte {
	t.Helper()
	p := map[string]any{"session_id": "s1", "cwd": cwd}
	switch provider {
	case "gemini":
		p["hook_event_name"] = "BeforeTool"
		p["tool_name"] = "run_shell_command"
	default:
		p["hook_event_name"] = "PreToolUse"
		p["tool_name"] = "Bash"
		p["permission_mode"] = "default"
		p["tool_use_id"] = "t1"
	}
	p["tool_input"] = map[string]any{"command": command}
	if tool != "" {
		p["tool_name"], p["tool_input"] = tool, in
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSurfacesHook answers each class of the guard's surfaces through the
// real hook path, for Claude Code, Gemini CLI and Codex: the decision in
// the agent's reply, the rule named in it, and the exit code; and the
// look-alikes that must pass.
func TestSurfacesHook(t *testing.T) {
	type row struct {
		name, command string
		tool          string         // a file or MCP tool instead of the shell
		in            map[string]any // its input (paths relative to the project)
		want          string         // deny, ask or "" (pass)
		rule          string
		exe           string // the running binary, when not /usr/local/bin/toolguard
	}
	rows := []row{
		// 1: surfaces and their ancestors
		{name: "rm project settings dir", command: "rm -rf .claude", want: "deny", rule: "toolguard-self-protect"},
		{name: "mv user codex dir", command: "mv ~/.codex /tmp/x", want: "deny", rule: "toolguard-self-protect"},
		{name: "chmod settings dir", command: "chmod 000 .claude", want: "deny", rule: "toolguard-self-protect"},
		{name: "mv config dir", command: "mv ~/.config /tmp/c", want: "deny", rule: "toolguard-self-protect"},
		{name: "rm .github", command: "rm -rf .github", want: "deny", rule: "toolguard-self-protect"},
		{name: "mv state parent", command: "mv ~/.local/state /tmp/s", want: "deny", rule: "toolguard-self-protect"},
		{name: "truncate audit log", command: ": > ~/.local/state/toolguard/audit.jsonl", want: "deny", rule: "toolguard-self-protect"},
		{name: "forge a request", command: "sed -i s/pending/approved/ ~/.local/state/toolguard/requests/req_abcdefghij.json", want: "deny", rule: "toolguard-self-protect"},
		{name: "link over settings", command: "ln -sf /tmp/empty.json .claude/settings.local.json", want: "deny", rule: "toolguard-self-protect"},
		{name: "replace running binary", command: "cp /tmp/true /usr/local/bin/toolguard", want: "deny", rule: "toolguard-self-protect"},
		{name: "hook command binary", command: "rm /opt/tgbin/toolguard", want: "deny", rule: "toolguard-self-protect"},
		{name: "hook command binary dir", command: "mv /opt/tgbin /tmp/x", want: "deny", rule: "toolguard-self-protect"},
		{name: "discovery location", command: "mkdir -p .toolguard && echo 'builtin = false' > .toolguard/policy.toml", want: "deny", rule: "toolguard-self-protect"},
		{name: "user policy location", command: "echo 'builtin = false' > ~/.config/toolguard/policy.toml", want: "deny", rule: "toolguard-self-protect"},
		{name: "mcp move settings dir", tool: "mcp__fs__move_file", in: map[string]any{"source": ".claude", "destination": "/tmp/c"}, want: "deny", rule: "toolguard-self-protect"},
		{name: "rm workspace root", command: "rm -rf .", want: "deny", rule: "toolguard-self-protect-root-delete"},
		{name: "chmod workspace root", command: "chmod -R u+w .", want: "ask", rule: "toolguard-self-protect-root-change"},
		{name: "tree copied into root", command: "cp -r /tmp/tpl/. .", want: "ask", rule: "toolguard-self-protect-root-copy"},
		{name: "rm home", command: "rm -rf ~", want: "deny", rule: "rm-recursive-root"},
		{name: "hard link to settings", command: "ln .claude/settings.json x", want: "deny", rule: "toolguard-self-protect-ln"},
		{name: "hard-link copy of project", command: "cp -al . /tmp/c", want: "deny", rule: "toolguard-self-protect-hardlink"},
		{name: "shadow toolguard on PATH", command: "cp /bin/true ~/.local/bin/toolguard", want: "deny", rule: "toolguard-self-protect"},
		{name: "settings behind a link", command: "echo '{}' > ~/dotfiles/codex-hooks.json", want: "deny", rule: "toolguard-self-protect"},
		{name: "read approver key", command: "cat ~/.config/toolguard/approver.key", want: "deny", rule: "toolguard-key-read"},
		// 2: toolguard's own mutating subcommands
		{name: "uninstall", command: "toolguard uninstall --provider claude", want: "deny", rule: "toolguard-cli-mutate"},
		{name: "install command", command: "./toolguard install --command /bin/true", want: "deny", rule: "toolguard-cli-mutate"},
		{name: "init force", command: "/usr/local/bin/toolguard init --force", want: "deny", rule: "toolguard-cli-mutate"},
		{name: "approve", command: "toolguard approvals --state-dir /tmp/s approve req_abcdefghij", want: "deny", rule: "toolguard-cli-mutate"},
		{name: "python os.system", command: `python3 -c "import os; os.system('toolguard uninstall')"`, want: "deny", rule: "toolguard-cli-mutate"},
		{name: "go run install", command: "go run ./cmd/toolguard install --provider codex", want: "deny", rule: "toolguard-cli-go-run"},
		{name: "copy the binary", command: "cp /usr/local/bin/toolguard /tmp/x && /tmp/x uninstall", want: "deny", rule: "toolguard-binary-copy"},
		{name: "serve binary approves", command: "toolguard-serve approvals approve req_abcdefghij --key k", want: "deny", rule: "toolguard-cli-mutate"},
		{name: "serve binary by path uninstalls", command: "/opt/tg/toolguard-serve uninstall --provider codex", want: "deny", rule: "toolguard-cli-mutate"},
		{name: "serve binary serves", command: "toolguard-serve serve --addr 127.0.0.1:9", want: "deny", rule: "toolguard-cli-mutate"},
		{name: "replace the serve binary beside", command: "cp /tmp/evil /usr/local/bin/toolguard-serve", want: "deny", rule: "toolguard-self-protect"},
		{name: "copy the serve binary", command: "cp /usr/local/bin/toolguard-serve /tmp/y", want: "deny", rule: "toolguard-binary-copy"},
		{name: "link the hook binary", command: "ln -s /opt/tgbin/toolguard /tmp/x", want: "deny", rule: "toolguard-binary-copy"},
		{name: "renamed binary", command: "tg uninstall", want: "deny", rule: "toolguard-cli-mutate", exe: "/opt/x/tg"},
		// 3: agents started with their guards off
		{name: "claude skip permissions", command: `claude -p x --dangerously-skip-permissions --settings '{"disableAllHooks":true}'`, want: "deny", rule: "agent-guards-off-claude"},
		{name: "claude config dir", command: "CLAUDE_CONFIG_DIR=/tmp/empty claude -p x", want: "deny", rule: "agent-guards-off-env"},
		{name: "agent with another policy", command: "TOOLGUARD_POLICY=/tmp/allow.toml codex exec x", want: "deny", rule: "agent-guards-off-env"},
		{name: "agent as another user", command: "sudo -u bob claude -p x", want: "deny", rule: "agent-guards-off-other-user"},
		{name: "qwen yolo", command: "qwen --approval-mode yolo -p x", want: "deny", rule: "agent-guards-off-qwen"},
		{name: "qwen without hooks", command: "qwen --bare -p x", want: "deny", rule: "agent-guards-off-qwen"},
		{name: "opencode without plugins", command: "opencode run --pure 'fix it'", want: "deny", rule: "agent-guards-off-opencode"},
		{name: "opencode without project config", command: "OPENCODE_DISABLE_PROJECT_CONFIG=1 opencode run x", want: "deny", rule: "agent-guards-off-env"},
		{name: "node launcher bypass", command: "node /usr/lib/node_modules/@anthropic-ai/claude-code/cli.js --dangerously-skip-permissions", want: "deny", rule: "agent-guards-off-launcher"},
		{name: "codex bypass", command: "codex exec --dangerously-bypass-approvals-and-sandbox x", want: "deny", rule: "agent-guards-off-codex"},
		{name: "gemini yolo", command: "sh -c 'gemini --yolo -p x'", want: "deny", rule: "agent-guards-off-gemini"},
		// 4: shell start-up and environment files ask
		{name: "bashrc append", command: "echo 'export TOOLGUARD_POLICY=/tmp/p.toml' >> ~/.bashrc", want: "ask", rule: "shell-env-file-write"},
		{name: "envrc write", tool: "Write", in: map[string]any{"file_path": ".envrc", "content": "export XDG_STATE_HOME=/tmp"}, want: "ask", rule: "shell-env-file-write"},
		{name: "systemctl set-environment", command: "systemctl --user set-environment TOOLGUARD_POLICY=/tmp/p", want: "ask", rule: "shell-env-set"},
		// look-alikes that pass
		{name: "rm inside .claude", command: "rm -rf .claude/agents/tmp"},
		{name: "ls .claude", command: "ls .claude"},
		{name: "cat bashrc", command: "cat ~/.bashrc"},
		{name: "mkdir issue template", command: "mkdir -p .github/ISSUE_TEMPLATE"},
		{name: "toolguard check", command: "toolguard check -- rm -rf /"},
		{name: "toolguard dry run", command: "toolguard install --dry-run --provider claude"},
		{name: "toolguard approvals list", command: "toolguard approvals list"},
		{name: "claude version", command: "claude --version"},
		{name: "claude with guards", command: `claude -p "fix tests"`},
		{name: "codex with guards", command: `codex exec "fix tests"`},
		{name: "mv build", command: "mv build/ out/"},
		{name: "copy a file into the root", command: "cp /tmp/a.txt ."},
		{name: "move a file into the root", command: "mv ../x.txt ."},
		{name: "chmod script", command: "chmod +x scripts/run.sh"},
		{name: "hash the binary", command: "sha256sum /usr/local/bin/toolguard"},
		{name: "qwen with its guards", command: "qwen -p 'fix the tests'"},
		{name: "opencode with its plugins", command: "opencode run 'fix the tests'"},
		{name: "serve binary checks", command: "toolguard-serve check -- git status"},
		{name: "serve binary version", command: "/usr/local/bin/toolguard-serve version"},
		{name: "other dotfile", command: "echo x > ~/dotfiles/vimrc"},
		{name: "copy settings out", command: "cp .claude/settings.json /tmp/s.json"},
		{name: "symlink to settings", command: "ln -s .claude/settings.json x"},
		{name: "write source", tool: "Write", in: map[string]any{"file_path": "src/main.go", "content": "package main"}},
	}
	for _, provider := range []string{"claude-code", "gemini", "codex"} {
		for _, r := range rows {
			if r.tool != "" && provider != "claude-code" {
				continue // file and MCP payloads are built in Claude's dialect
			}
			t.Run(provider+"/"+r.name, func(t *testing.T) {
				home, proj := surfaceWorld(t)
				in := map[string]any{}
				for k, v := range r.in {
					if s, ok := v.(string); ok && (k == "source" || k == "file_path") && !filepath.IsAbs(s) {
						v = filepath.Join(proj, s)
					}
					in[k] = v
				}
				f, sys := newFake(t, hookPayload(t, provider, proj, r.command, r.tool, in), map[string]string{"HOME": home})
				if r.exe != "" {
					sys.executable = func() (string, error) { return r.exe, nil }
				}
				code := run(context.Background(), []string{"hook", "--provider", provider}, sys)
				out := f.stdout.String()
				if code != 0 {
					t.Fatalf("exit %d, want 0 (stdout %q, stderr %q)", code, out, f.stderr.String())
				}
				if r.want == "" {
					if out != "" {
						t.Fatalf("want pass (no reply), got %s", out)
					}
					return
				}
				want := r.want
				if provider == "codex" && want == "ask" {
					want = "deny" // Codex has no ask: a pending approval
				}
				var key string
				switch provider {
				case "gemini":
					key = `"decision":"` + want + `"`
				default:
					key = `"permissionDecision":"` + want + `"`
				}
				if !strings.Contains(out, key) || !strings.Contains(out, r.rule) {
					t.Fatalf("want %s by %s, got %s", key, r.rule, out)
				}
			})
		}
	}
}

// TestSurfacesDerived checks what the derivation finds in a configured
// world: the settings files, the hook command's binary, the policy and
// state places, the running binary's name when renamed.
func TestSurfacesDerived(t *testing.T) {
	home, proj := surfaceWorld(t)
	dot := filepath.Join(home, "dotfiles", "codex-hooks.json") // linked in as ~/.codex/hooks.json
	_, sys := newFake(t, nil, map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "CODEX_HOME": "/srv/codex"})
	sys.executable = func() (string, error) { return "/opt/x/TG.exe", nil }
	pol, err := policy.Load(nil, policy.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ps := &workspace.Set{Pol: pol, Files: []string{"/srv/platform.toml"}}
	got, names := guard.Surfaces(sys.env(), &guard.Options{AuditLog: "/srv/audit/log.jsonl"}, ps, proj, proj), guard.SelfNames(sys.env())
	has := func(p string, tree bool) bool {
		return slices.ContainsFunc(got, func(s policy.Surface) bool { return s.Path == p && s.Tree == tree })
	}
	for _, want := range []struct {
		path string
		tree bool
	}{
		{filepath.Join(proj, ".claude/settings.json"), false},
		{filepath.Join(proj, ".claude/settings.local.json"), false},
		{filepath.Join(home, ".codex/hooks.json"), false},
		{filepath.Join(proj, ".gemini/settings.json"), false},
		{filepath.Join(proj, ".github/hooks"), true},
		{filepath.Join(home, ".copilot/hooks"), true},
		{"/srv/codex/config.toml", false},
		{"/etc/claude-code", true},
		{"/srv/platform.toml", false},
		{filepath.Join(proj, ".toolguard"), true},
		{filepath.Join(home, "cfg/toolguard"), true},
		{filepath.Join(home, ".config/toolguard"), true},
		{filepath.Join(home, ".local/state/toolguard"), true},
		{"/srv/audit/log.jsonl", false},
		{"/opt/x/TG.exe", false},
		{"/opt/x/toolguard-serve.exe", false},
		{"/opt/tgbin/toolguard", false},
		{guard.ResolveExisting(dot), false},
	} {
		if !has(want.path, want.tree) {
			t.Errorf("surfaces lack %s (tree %v)", want.path, want.tree)
		}
	}
	if !slices.ContainsFunc(got, func(s policy.Surface) bool {
		return s.Secret && s.Path == filepath.Join(home, "cfg/toolguard/approver.key")
	}) {
		t.Error("the approver key is not a secret surface")
	}
	if !slices.Equal(names, []string{guard.ServeBinary, "tg"}) {
		t.Errorf("self names %v, want [toolguard-serve tg]", names)
	}
}

// BenchmarkSurfaces derives the surfaces of a machine with toolguard
// installed for Claude Code (user and project), Codex and Gemini CLI: the
// work the hook adds to every call.
func BenchmarkSurfaces(b *testing.B) {
	home := b.TempDir()
	proj := filepath.Join(home, "src", "project")
	claude := `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"/usr/local/bin/toolguard hook --provider claude-code","timeout":30}]}]},"permissions":{"allow":["Bash(go test:*)","Bash(git status)"]}}`
	codex := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/usr/local/bin/toolguard hook --provider codex","timeout":30}]}]}}`
	gemini := `{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"name":"toolguard","type":"command","command":"/usr/local/bin/toolguard hook --provider gemini","timeout":30000}]}]}}`
	for file, data := range map[string]string{
		filepath.Join(home, ".claude/settings.json"): claude, filepath.Join(proj, ".claude/settings.json"): claude,
		filepath.Join(home, ".codex/hooks.json"): codex, filepath.Join(home, ".gemini/settings.json"): gemini,
	} {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	sys := realSystem()
	sys.getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	pol, err := policy.Load(nil, policy.LoadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	ps := &workspace.Set{Pol: pol}
	b.ReportAllocs()
	for b.Loop() {
		guard.Surfaces(sys.env(), &guard.Options{}, ps, proj, proj)
	}
}

// TestSurfacesCaseInsensitive: with settings.case_insensitive_paths (a
// case-insensitive file system), .Claude is .claude; without it (on Linux)
// it is another directory.
func TestSurfacesCaseInsensitive(t *testing.T) {
	for _, provider := range []string{"claude-code", "gemini"} {
		for _, on := range []bool{true, false} {
			home, proj := surfaceWorld(t)
			if on {
				cfg := filepath.Join(home, ".config", "toolguard")
				if err := os.MkdirAll(cfg, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(cfg, "policy.toml"), []byte("version = 1\n[settings]\ncase_insensitive_paths = true\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			f, sys := newFake(t, hookPayload(t, provider, proj, "echo '{}' > .Claude/settings.local.json", "", nil), map[string]string{"HOME": home})
			code := run(context.Background(), []string{"hook", "--provider", provider}, sys)
			denied := strings.Contains(f.stdout.String(), `"deny"`) && strings.Contains(f.stdout.String(), "toolguard-self-protect")
			if code != 0 || denied != (on || guard.FoldCase(nil)) {
				t.Errorf("%s, case_insensitive_paths %v: exit %d, reply %q", provider, on, code, f.stdout.String())
			}
		}
	}
}

// TestSurfacesPatch: a Codex apply_patch that moves or deletes a guard
// surface is denied like the shell command; one that edits source passes.
func TestSurfacesPatch(t *testing.T) {
	for _, tc := range []struct{ patch, want string }{
		{"*** Begin Patch\n*** Delete File: .github/hooks/toolguard.json\n*** End Patch\n", "deny"},
		{"*** Begin Patch\n*** Update File: .claude/settings.json\n*** Move to: .claude/old.json\n@@\n-{}\n+{}\n*** End Patch\n", "deny"},
		{"*** Begin Patch\n*** Update File: src/a.go\n@@\n-package a\n+package b\n*** End Patch\n", ""},
	} {
		home, proj := surfaceWorld(t)
		payload := hookPayload(t, "codex", proj, "", "apply_patch", map[string]any{"command": tc.patch})
		f, sys := newFake(t, payload, map[string]string{"HOME": home})
		code := run(context.Background(), []string{"hook", "--provider", "codex"}, sys)
		out := f.stdout.String()
		if code != 0 {
			t.Fatalf("exit %d: %s %s", code, out, f.stderr.String())
		}
		if tc.want == "" && out != "" || tc.want != "" && !(strings.Contains(out, `"permissionDecision":"deny"`) && strings.Contains(out, "toolguard-self-protect")) {
			t.Errorf("%q: got %s, want %q", tc.patch, out, tc.want)
		}
	}
}

// TestSurfacesCoverDoctor keeps the derived set in step with what doctor
// reads (install.Inspect): with every settings file either knows in place,
// each file doctor reports reading is a surface or below one.
func TestSurfacesCoverDoctor(t *testing.T) {
	home, proj := surfaceWorld(t)
	// The sources of internal/install/doctor.go Inspect, written out here
	// on their own: a file added there fails this test until it is derived.
	var files []string
	for _, rel := range []string{".claude/settings.json", ".codebuddy/settings.json", ".codex/hooks.json", ".codex/config.toml",
		".gemini/settings.json", ".cursor/hooks.json", ".copilot/hooks/a.json", ".copilot/settings.json",
		".qwen/settings.json", ".config/opencode/plugins/toolguard.js"} {
		files = append(files, filepath.Join(home, rel))
	}
	for _, rel := range []string{".claude/settings.json", ".claude/settings.local.json", ".codebuddy/settings.json",
		".codebuddy/settings.local.json", ".codex/hooks.json", ".codex/config.toml", ".gemini/settings.json",
		".cursor/hooks.json", ".github/hooks/a.json", ".github/copilot/settings.json", ".github/copilot/settings.local.json",
		".qwen/settings.json", ".opencode/plugins/toolguard.js"} {
		files = append(files, filepath.Join(proj, rel))
	}
	for _, f := range files {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(f); err == nil {
			continue // the world's own files (a link among them)
		}
		if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, sys := newFake(t, nil, map[string]string{"HOME": home})
	pol, err := policy.Load(nil, policy.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := guard.Surfaces(sys.env(), &guard.Options{}, &workspace.Set{Pol: pol}, proj, proj)
	covered := func(p string) bool {
		return slices.ContainsFunc(got, func(s policy.Surface) bool {
			return s.Path == p || s.Tree && strings.HasPrefix(p, s.Path+"/")
		})
	}
	read := 0
	for _, st := range install.Inspect(home, proj) {
		for _, f := range st.SettingsFiles {
			read++
			if !covered(f) {
				t.Errorf("doctor reads %s (%s), which is no guard surface", f, st.Agent)
			}
		}
	}
	if read < len(files) {
		t.Errorf("doctor read %d of the %d files", read, len(files))
	}
}

// TestSurfacesNoBlanketTree: a state directory (or any directory surface)
// that holds the home or the project is protected as itself, not as all
// below it — else a policy naming state_dir = "~" would deny every write.
// A hook command naming $CLAUDE_PROJECT_DIR/… names a binary in the project.
func TestSurfacesNoBlanketTree(t *testing.T) {
	home, proj := surfaceWorld(t)
	settings := `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"\"$CLAUDE_PROJECT_DIR\"/bin/toolguard hook"}]}]}}`
	if err := os.WriteFile(filepath.Join(proj, ".claude", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	_, sys := newFake(t, nil, map[string]string{"HOME": home})
	pol, err := policy.Load(nil, policy.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{home, "/", proj, filepath.Dir(proj)} {
		got := guard.Surfaces(sys.env(), &guard.Options{StateDir: dir}, &workspace.Set{Pol: pol}, proj, proj)
		for _, s := range got {
			if s.Tree && (s.Path == dir || s.Path == "/") {
				t.Errorf("state dir %s: %s is a tree surface", dir, s.Path)
			}
		}
		if !slices.ContainsFunc(got, func(s policy.Surface) bool { return s.Binary && s.Path == filepath.Join(proj, "bin/toolguard") }) {
			t.Errorf("the project's hook binary %s is no surface", filepath.Join(proj, "bin/toolguard"))
		}
	}
}

// TestSurfacesSettingsForms: the toolguard binary a hook command names is
// a surface whatever form the settings file writes it in — the forms the
// fast scan reads (toolguardStrings) and those it leaves to the parser (a
// \u escape, exec-form args) — through the real hook path, in two
// dialects; a look-alike path passes.
func TestSurfacesSettingsForms(t *testing.T) {
	cmd := func(c string) string {
		return `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":` + c + `,"timeout":30}]}]}}`
	}
	for _, tc := range []struct {
		name, file, data, bin string
	}{
		{"plain", ".claude/settings.json", cmd(`"/opt/tga/toolguard hook --provider claude-code"`), "/opt/tga/toolguard"},
		{"upper case", ".claude/settings.json", cmd(`"/opt/TGB/ToolGuard hook --provider claude-code"`), "/opt/TGB/ToolGuard"},
		{"escaped quotes", ".claude/settings.json", cmd(`"\"/opt/tgc/toolguard\" hook --provider claude-code"`), "/opt/tgc/toolguard"},
		{"after a comment", ".claude/settings.json", "// \"see toolguard hook\n" + cmd(`"env X=1 /opt/tgd/toolguard hook"`), "/opt/tgd/toolguard"},
		{"unicode escape", ".claude/settings.json", cmd(`"/opt/tge/\u0074oolguard hook --provider claude-code"`), "/opt/tge/toolguard"},
		{"windows exe", ".claude/settings.json", cmd(`"/opt/tgf/toolguard.EXE hook"`), "/opt/tgf/toolguard.EXE"},
		{"exec-form args", ".copilot/hooks/toolguard.json", `{"version":1,"hooks":{"preToolUse":[{"type":"command","exec":"/opt/tgg/toolguard","args":["hook","--provider","copilot"]}]}}`, "/opt/tgg/toolguard"},
	} {
		for _, provider := range []string{"claude-code", "gemini"} {
			t.Run(provider+"/"+tc.name, func(t *testing.T) {
				home, proj := surfaceWorld(t)
				file := filepath.Join(home, tc.file)
				if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(tc.data), 0o644); err != nil {
					t.Fatal(err)
				}
				for _, c := range []struct{ command, want string }{
					{"rm " + tc.bin, "deny"},
					{"mv " + filepath.Dir(tc.bin) + " /tmp/x", "deny"},
					{"rm " + tc.bin + ".bak", ""},
					{"rm /opt/other/toolguardx", ""},
				} {
					f, sys := newFake(t, hookPayload(t, provider, proj, c.command, "", nil), map[string]string{"HOME": home})
					code := run(context.Background(), []string{"hook", "--provider", provider}, sys)
					out := f.stdout.String()
					if code != 0 {
						t.Fatalf("%s: exit %d (stdout %q, stderr %q)", c.command, code, out, f.stderr.String())
					}
					if c.want == "" {
						if out != "" {
							t.Errorf("%s: want pass, got %s", c.command, out)
						}
						continue
					}
					key := `"permissionDecision":"deny"`
					if provider == "gemini" {
						key = `"decision":"deny"`
					}
					if !strings.Contains(out, key) || !strings.Contains(out, "toolguard-self-protect") {
						t.Errorf("%s: want a deny by toolguard-self-protect, got %s", c.command, out)
					}
				}
			})
		}
	}
}
