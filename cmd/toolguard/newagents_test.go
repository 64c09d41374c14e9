package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestNewAgentSurfaces: the files that hold the qwen hook and the opencode plugin are guard
// surfaces, through the real hook path in two dialects (Claude Code's Write and shell, and
// opencode's own write and bash as its plugin sends them); look-alikes pass.
func TestNewAgentSurfaces(t *testing.T) {
	home, proj := surfaceWorld(t)
	cases := []struct {
		name, path string
		deny       bool
	}{
		{"opencode project plugin", filepath.Join(proj, ".opencode", "plugins", "toolguard.js"), true},
		{"opencode second plugin", filepath.Join(proj, ".opencode", "plugins", "first.js"), true},
		{"opencode old plugin dir", filepath.Join(proj, ".opencode", "plugin", "x.ts"), true},
		{"opencode project config", filepath.Join(proj, "opencode.json"), true},
		{"opencode user plugin", filepath.Join(home, ".config", "opencode", "plugins", "x.js"), true},
		{"opencode user config", filepath.Join(home, ".config", "opencode", "opencode.json"), true},
		{"qwen project settings", filepath.Join(proj, ".qwen", "settings.json"), true},
		{"qwen user settings", filepath.Join(home, ".qwen", "settings.json"), true},
		// the agents whose codecs come from their documentation
		{"windsurf workspace hooks", filepath.Join(proj, ".windsurf", "hooks.json"), true},
		{"windsurf user hooks", filepath.Join(home, ".codeium", "windsurf", "hooks.json"), true},
		{"antigravity workspace hooks", filepath.Join(proj, ".agents", "hooks.json"), true},
		{"antigravity user hooks", filepath.Join(home, ".gemini", "config", "hooks.json"), true},
		{"kiro agent file", filepath.Join(proj, ".kiro", "agents", "default.json"), true},
		{"kiro v3 hook file", filepath.Join(home, ".kiro", "hooks", "guard.json"), true},
		{"devin hooks", filepath.Join(proj, ".devin", "hooks.v1.json"), true},
		// look-alikes
		{"windsurf rules", filepath.Join(proj, ".windsurf", "rules", "style.md"), false},
		{"kiro steering", filepath.Join(proj, ".kiro", "steering", "product.md"), false},
		{"devin notes", filepath.Join(proj, ".devin", "notes.md"), false},
		{"plugins dir of the source", filepath.Join(proj, "src", "plugins", "toolguard.js"), false},
		{"opencode notes", filepath.Join(proj, ".opencode", "notes.md"), false},
		{"qwen other file", filepath.Join(proj, ".qwen", "notes.md"), false},
	}
	for _, tc := range cases {
		for _, d := range []struct{ provider, writeTool, pathKey, shellTool string }{
			{"claude-code", "Write", "file_path", "Bash"},
			{"opencode", "write", "filePath", "bash"},
		} {
			for _, shell := range []bool{false, true} {
				name := d.provider + "/" + tc.name
				tool, in := d.writeTool, map[string]any{d.pathKey: tc.path, "content": "x"}
				if shell {
					name += "/shell"
					tool, in = d.shellTool, map[string]any{"command": "echo x > '" + tc.path + "'"}
				}
				t.Run(name, func(t *testing.T) {
					payload := hookPayload(t, d.provider, proj, "", tool, in)
					f, sys := newFake(t, payload, map[string]string{"HOME": home})
					code := run(context.Background(), []string{"hook", "--provider", d.provider}, sys)
					out := f.stdout.String()
					if code != 0 {
						t.Fatalf("exit %d: %s %s", code, out, f.stderr.String())
					}
					denied := strings.Contains(out, `"permissionDecision":"deny"`)
					if denied != tc.deny {
						t.Errorf("denied = %v, want %v: %s", denied, tc.deny, out)
					}
				})
			}
		}
	}
}
