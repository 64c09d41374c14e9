package install

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestInspect(t *testing.T) {
	t.Parallel()
	const tg = "toolguard hook --provider "
	claudeHook := func(matcher, cmd string) string {
		return `{"hooks":{"PreToolUse":[{"matcher":"` + matcher + `","hooks":[{"type":"command","command":"` + cmd + `"}]}]}}`
	}
	type want struct {
		detected, guarded, enforceable bool
		commands                       []string
		files                          []string // relative to the temp root, "h/…" or "p/…"
		note                           string   // substring; "" = empty note
	}
	tests := []struct {
		name  string
		files map[string]string // "h/…" under home, "p/…" under project; "" content = directory
		want  map[string]want   // by agent; agents not listed: not detected, not guarded
	}{
		{
			name:  "nothing",
			files: map[string]string{},
			want:  map[string]want{},
		},
		{
			name: "claude project hook also guards copilot",
			files: map[string]string{
				"p/.claude/settings.json": claudeHook("*", tg+"claude-code"),
			},
			want: map[string]want{
				"claude-code": {detected: true, guarded: true, enforceable: true, commands: []string{tg + "claude-code"}, files: []string{"p/.claude/settings.json"},
					note: `the hook runs "toolguard", found through PATH`},
				"copilot": {guarded: true, enforceable: true, commands: []string{tg + "claude-code"}, files: []string{"p/.claude/settings.json"}, note: "guarded through Claude Code settings"},
			},
		},
		{
			name: "claude detected, unguarded; cursor note on third-party hooks",
			files: map[string]string{
				"h/.claude/settings.json":       claudeHook("Bash", "lint.sh"),
				"p/.claude/settings.local.json": `{"hooks":{"PostToolUse":[{"hooks":[{"type":"command","command":"toolguard hook"}]}]}}`,
				"h/.cursor/hooks.json":          `{"version":1,"hooks":{"stop":[{"command":"toolguard hook"}]}}`,
				"p/.claude/settings.json":       claudeHook("*", "toolguard hook"),
			},
			want: map[string]want{
				"claude-code": {detected: true, guarded: true, enforceable: true, commands: []string{"toolguard hook"},
					files: []string{"h/.claude/settings.json", "p/.claude/settings.json", "p/.claude/settings.local.json"}, note: "found through PATH"},
				"copilot": {guarded: true, enforceable: true, commands: []string{"toolguard hook"},
					files: []string{"p/.claude/settings.json", "p/.claude/settings.local.json"}, note: "guarded through"},
				"cursor": {detected: true, enforceable: true, files: []string{"h/.cursor/hooks.json"}, note: "third-party hooks"},
			},
		},
		{
			name: "narrow matcher and disableAllHooks",
			files: map[string]string{
				"h/.codebuddy/settings.json":       claudeHook("Bash", tg+"codebuddy"),
				"p/.codebuddy/settings.local.json": `{"disableAllHooks": true}`,
			},
			want: map[string]want{
				"codebuddy": {detected: true, enforceable: true, commands: []string{tg + "codebuddy"},
					files: []string{"h/.codebuddy/settings.json", "p/.codebuddy/settings.local.json"}, note: "disableAllHooks is true"},
			},
		},
		{
			name: "codex trust record: unknown, not guessed",
			files: map[string]string{
				"h/.codex/hooks.json":  `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/bin/toolguard hook --provider codex"}]}]}}`,
				"h/.codex/config.toml": "[hooks.state.\"h/.codex/hooks.json:pre_tool_use:0:0\"]\ntrusted_hash = \"sha256:abc\"\n",
			},
			want: map[string]want{
				"codex": {detected: true, guarded: true, enforceable: true, commands: []string{"/bin/toolguard hook --provider codex"},
					files: []string{"h/.codex/hooks.json", "h/.codex/config.toml"}, note: "Codex trust: unknown"},
			},
		},
		{
			name: "codex config.toml hooks, trust note",
			files: map[string]string{
				"h/.codex/config.toml": "model = \"o3\"\n[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/bin/toolguard hook --provider codex\"\n",
			},
			want: map[string]want{
				"codex": {detected: true, guarded: true, enforceable: true, commands: []string{"/bin/toolguard hook --provider codex"},
					files: []string{"h/.codex/config.toml"}, note: "no hook trust record in config.toml"},
			},
		},
		{
			name: "codex hooks feature off, unparsable project hooks.json",
			files: map[string]string{
				"h/.codex/config.toml": "[features]\nhooks = false\n",
				"h/.codex/hooks.json":  claudeHook("", tg+"codex"),
				"p/.codex/hooks.json":  "{\n  \"hooks\": [\n",
			},
			want: map[string]want{
				"codex": {detected: true, enforceable: true, commands: []string{tg + "codex"},
					files: []string{"h/.codex/hooks.json", "h/.codex/config.toml", "p/.codex/hooks.json"}, note: "[features] hooks = false"},
			},
		},
		{
			name: "gemini with comments; hooks disabled by name",
			files: map[string]string{
				"h/.gemini/settings.json": "{\n  // mine\n  \"hooksConfig\": {\"disabled\": [\"toolguard\"]},\n  \"hooks\": {\"BeforeTool\": [{\"matcher\": \"*\", \"hooks\": [{\"name\": \"toolguard\", \"command\": \"toolguard hook --provider gemini\"}]}]}\n}\n",
			},
			want: map[string]want{
				"gemini": {detected: true, enforceable: true, commands: []string{tg + "gemini"}, files: []string{"h/.gemini/settings.json"}, note: `hooksConfig.disabled lists "toolguard"`},
			},
		},
		{
			name: "gemini project guarded, user unparsable",
			files: map[string]string{
				"h/.gemini/settings.json": "{,}",
				"p/.gemini/settings.json": `{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"command":"toolguard hook --provider gemini"}]}]}}`,
			},
			want: map[string]want{
				"gemini": {detected: true, guarded: true, enforceable: true, commands: []string{tg + "gemini"},
					files: []string{"h/.gemini/settings.json", "p/.gemini/settings.json"}, note: "settings.json:1:2: invalid character ','"},
			},
		},
		{
			name: "copilot user hooks dir and repo hooks",
			files: map[string]string{
				"h/.copilot/hooks/other.json":     `{"version":1,"hooks":{"preToolUse":[{"bash":"audit.sh"}]}}`,
				"h/.copilot/hooks/toolguard.json": `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"toolguard hook --provider copilot"}]}}`,
				"h/.copilot/hooks/notes.txt":      "toolguard hook",
				"p/.github/hooks/x.json":          `{"version":1,"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"command":"toolguard hook --provider copilot"}]}]}}`,
			},
			want: map[string]want{
				"copilot": {detected: true, guarded: true, enforceable: true, commands: []string{tg + "copilot"},
					files: []string{"p/.github/hooks/x.json", "h/.copilot/hooks/other.json", "h/.copilot/hooks/toolguard.json"}, note: `matching "Bash"`},
			},
		},
		{
			// An absolute program path draws no PATH warning; a relative
			// one (resolved from the agent's cwd) does.
			name: "absolute and relative hook commands",
			files: map[string]string{
				"p/.codex/hooks.json":     `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/usr/local/bin/toolguard hook --provider codex"}]}]}}`,
				"h/.gemini/settings.json": `{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"command":"bin/toolguard hook --provider gemini"}]}]}}`,
			},
			want: map[string]want{
				"codex": {detected: true, guarded: true, enforceable: true, commands: []string{"/usr/local/bin/toolguard hook --provider codex"},
					files: []string{"p/.codex/hooks.json"}, note: "no hook trust record in config.toml"},
				"gemini": {detected: true, guarded: true, enforceable: true, commands: []string{"bin/toolguard hook --provider gemini"},
					files: []string{"h/.gemini/settings.json"}, note: `the hook runs "bin/toolguard", found through PATH`},
			},
		},
		{
			name: "cursor old-style event counts",
			files: map[string]string{
				"p/.cursor/hooks.json": `{"version":1,"hooks":{"beforeShellExecution":[{"command":"toolguard hook --provider cursor"}]}}`,
			},
			want: map[string]want{
				"cursor": {detected: true, guarded: true, enforceable: true, commands: []string{tg + "cursor"}, files: []string{"p/.cursor/hooks.json"},
					note: `the hook runs "toolguard", found through PATH`},
			},
		},
		{
			// opencode without toolguard's plugin is not enforced; Cline cannot be guarded
			name: "opencode without the plugin, cline",
			files: map[string]string{
				"p/opencode.json":        `{"$schema":"https://opencode.ai/config.json"}`,
				"p/.clinerules/hooks/":   "",
				"h/.config/opencode/x":   "",
				"h/Documents/Cline/Rule": "",
				// a plugin file that is not toolguard's does not count
				"h/.config/opencode/plugins/toolguard.js": "const COMMAND = \"toolguard hook --provider opencode\";\n",
			},
			want: map[string]want{
				"opencode": {detected: true, enforceable: true, files: []string{"h/.config/opencode/plugins/toolguard.js"}, note: "policy not enforced: no toolguard plugin"},
				"cline":    {detected: true, note: "Cline's hook protocol"},
			},
		},
		{
			name: "opencode guarded by toolguard's plugin",
			files: map[string]string{
				"p/.opencode/plugins/toolguard.js": string(pluginSource("/usr/local/bin/toolguard hook --provider opencode")),
			},
			want: map[string]want{
				"opencode": {detected: true, guarded: true, enforceable: true, commands: []string{"/usr/local/bin/toolguard hook --provider opencode"},
					files: []string{"p/.opencode/plugins/toolguard.js"}},
			},
		},
	}
	agentsOrder := []string{"claude-code", "codebuddy", "codex", "gemini", "cursor", "copilot", "qwen", "windsurf", "opencode", "cline"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			home, project := filepath.Join(root, "h"), filepath.Join(root, "p")
			for rel, content := range tt.files {
				path := filepath.Join(root, filepath.FromSlash(rel))
				if content == "" {
					writeFile(t, filepath.Join(path, ".keep"), nil)
					continue
				}
				writeFile(t, path, []byte(content))
			}
			got := Inspect(home, project)
			var names []string
			for _, st := range got {
				names = append(names, st.Agent)
			}
			if !slices.Equal(names, agentsOrder) {
				t.Fatalf("agents = %q, want %q", names, agentsOrder)
			}
			for _, st := range got {
				w, listed := tt.want[st.Agent]
				if !listed {
					w = want{enforceable: st.Agent != "cline"}
				}
				var files []string
				for _, f := range w.files {
					files = append(files, filepath.Join(root, filepath.FromSlash(f)))
				}
				if st.Detected != w.detected || st.Guarded != w.guarded || st.Enforceable != w.enforceable {
					t.Errorf("%s: detected/guarded/enforceable = %v/%v/%v, want %v/%v/%v (note %q)", st.Agent,
						st.Detected, st.Guarded, st.Enforceable, w.detected, w.guarded, w.enforceable, st.Note)
				}
				if !slices.Equal(st.Commands, w.commands) {
					t.Errorf("%s: commands = %q, want %q", st.Agent, st.Commands, w.commands)
				}
				if !slices.Equal(st.SettingsFiles, files) {
					t.Errorf("%s: files = %q, want %q", st.Agent, st.SettingsFiles, files)
				}
				if w.note == "" && st.Note != "" || !strings.Contains(st.Note, w.note) {
					t.Errorf("%s: note = %q, want %q", st.Agent, st.Note, w.note)
				}
			}
		})
	}
}

// TestInspectAfterInstall: every provider installed at user scope is seen
// as guarded with exactly the installed command, and no longer after
// uninstall.
func TestInspectAfterInstall(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			home := t.TempDir()
			o := Options{Provider: p, Scope: ScopeUser, Home: home, Command: testCommand(p)}
			install(t, o, true)
			st := find(t, Inspect(home, ""), p)
			if !st.Detected || !st.Guarded || !slices.Equal(st.Commands, []string{o.Command}) {
				t.Errorf("after install: %+v", st)
			}
			uninstall(t, o, true)
			if st := find(t, Inspect(home, ""), p); st.Guarded {
				t.Errorf("after uninstall: %+v", st)
			}
		})
	}
}

func find(t *testing.T, sts []AgentStatus, agent string) AgentStatus {
	t.Helper()
	for _, st := range sts {
		if st.Agent == agent {
			return st
		}
	}
	t.Fatalf("no status for %s", agent)
	return AgentStatus{}
}
