package install

import (
	"encoding/json"
	"testing"
)

// TestFailClosedSwitch: install writes an agent's fail-closed switch where
// the conformance table says so (Claude Code's onFailure, Cursor's
// failClosed), on the pre-tool entries only — never on the prompt,
// session or post-tool events, where a toolguard that cannot run must not
// block the user's prompt — and not for agents without one (CodeBuddy,
// Codex, Gemini, Copilot).
func TestFailClosedSwitch(t *testing.T) {
	want := map[string][2]any{"claude-code": {"onFailure", "block"}, "cursor": {"failClosed", true}}
	for _, provider := range []string{"claude-code", "codebuddy", "codex", "gemini", "cursor", "copilot"} {
		t.Run(provider, func(t *testing.T) {
			dir := t.TempDir()
			if _, err := Install(Options{Provider: provider, Dir: dir, Command: "/usr/bin/toolguard hook --provider " + provider}); err != nil {
				t.Fatal(err)
			}
			file, _ := SettingsPath(provider, "", dir, "")
			var cfg map[string]any
			if err := json.Unmarshal(mustRead(t, file), &cfg); err != nil {
				t.Fatal(err)
			}
			a, _ := lookup(provider)
			pre := map[string]bool{}
			for _, e := range a.events {
				pre[e] = true
			}
			hooks, _ := cfg["hooks"].(map[string]any)
			seen := 0
			for event, v := range hooks {
				for _, h := range handlersOf(v) {
					kv, has := want[provider]
					got, set := h[asStr(kv[0])]
					switch {
					case has && pre[event] && (!set || got != kv[1]):
						t.Errorf("%s %s: %v = %v, want %v", provider, event, kv[0], got, kv[1])
					case (!has || !pre[event]) && (h["onFailure"] != nil || h["failClosed"] != nil):
						t.Errorf("%s %s: a fail-closed switch where none belongs: %v", provider, event, h)
					}
					seen++
				}
			}
			if seen == 0 {
				t.Fatalf("no handlers in %s", file)
			}
		})
	}
}

func asStr(v any) string { s, _ := v.(string); return s }

// handlersOf returns the handler objects of one event: flat, or nested in matcher groups.
func handlersOf(v any) []map[string]any {
	var out []map[string]any
	arr, _ := v.([]any)
	for _, e := range arr {
		m, _ := e.(map[string]any)
		if inner, ok := m["hooks"].([]any); ok {
			for _, h := range inner {
				if hm, ok := h.(map[string]any); ok {
					out = append(out, hm)
				}
			}
		} else if m != nil {
			out = append(out, m)
		}
	}
	return out
}
