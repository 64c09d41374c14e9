package policy

import (
	"strings"
	"testing"
)

// TestAskFallbackSettings: values are checked, "claude" is Claude Code,
// the per-agent value wins, and a later trusted layer may change either.
func TestAskFallbackSettings(t *testing.T) {
	load := func(t *testing.T, docs ...string) (*Policy, error) {
		t.Helper()
		var srcs []Source
		for i, d := range docs {
			srcs = append(srcs, Source{Name: string(rune('a' + i)), Path: string(rune('a'+i)) + ".toml", Data: []byte(d)})
		}
		return Load(srcs, LoadOptions{})
	}
	p, err := load(t, "version = 1\n[settings]\nask_fallback = \"deny\"\nask_fallback_for = { claude = \"defer\", codex = \"native\" }\n")
	if err != nil {
		t.Fatal(err)
	}
	for prov, want := range map[string]string{"claude-code": "defer", "claude": "defer", "codex": "native", "gemini": "deny"} {
		if got := p.Settings.AskFallbackFor(prov); got != want {
			t.Errorf("%s: %q, want %q", prov, got, want)
		}
	}
	p, err = load(t, "version = 1\n[settings]\nask_fallback = \"deny\"\n", "version = 1\n[settings]\nask_fallback = \"native\"\n")
	if err != nil || p.Settings.AskFallbackFor("gemini") != "native" {
		t.Errorf("a later trusted layer: %v %q", err, p.Settings.AskFallbackFor("gemini"))
	}
	if p, err := load(t, "version = 1\n"); err != nil || p.Settings.AskFallbackFor("codex") != "" {
		t.Errorf("unset: %v", err)
	}
	for _, bad := range []string{`ask_fallback = "ask"`, `ask_fallback_for = { codex = "allow" }`, `ask_fallback_for = { "Codex!" = "deny" }`, `ask_fallback_for = { "*" = "deny" }`} {
		_, err := load(t, "version = 1\n[settings]\n"+bad+"\n")
		if err == nil || !strings.Contains(err.Error(), "ask_fallback") {
			t.Errorf("%s: %v, want an ask_fallback error", bad, err)
		}
	}
}

// TestAskFallbackMaterialized: the setting survives materialize (JSON form).
func TestAskFallbackMaterialized(t *testing.T) {
	p, err := Load([]Source{{Name: "a", Path: "a.toml", Data: []byte("version = 1\n[settings]\nask_fallback = \"deny\"\nask_fallback_for = { claude-code = \"defer\" }\n")}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	q, err := Load([]Source{{Name: "m", Path: "m.json", Data: data}}, LoadOptions{})
	if err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if q.Settings.AskFallbackFor("claude-code") != "defer" || q.Settings.AskFallbackFor("codex") != "deny" {
		t.Errorf("materialized: %v", q.Settings.AskFallback)
	}
}
