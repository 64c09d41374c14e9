package install

import (
	"encoding/json"
	"testing"
	"time"
)

// TestHandlersPinTimeout: every handler Install writes carries the agent's
// timeout field, at HookTimeout in the agent's unit — above the hook's own
// deadline, so that toolguard answers before the agent gives up on it.
func TestHandlersPinTimeout(t *testing.T) {
	t.Parallel()
	for _, a := range agents {
		if a.name == "windsurf" {
			continue // Cascade's hooks.json documents no timeout field
		}
		h := a.handler("/usr/local/bin/toolguard hook")
		var got time.Duration
		for k, unit := range map[string]time.Duration{"timeout": time.Second, "timeoutSec": time.Second} {
			if a.name == "gemini" || a.name == "qwen" { // milliseconds
				unit = time.Millisecond
			}
			if v, ok := h.get(k); ok {
				f, err := v.(json.Number).Float64()
				if err != nil {
					t.Fatal(err)
				}
				got = time.Duration(f * float64(unit))
			}
		}
		if got != HookTimeout || got < minTimeout {
			t.Errorf("%s: handler timeout %s, want %s", a.name, got, HookTimeout)
		}
	}
}

// TestPathLookup: a hook command whose toolguard is not an absolute path
// is named, whatever wraps it.
func TestPathLookup(t *testing.T) {
	t.Parallel()
	for cmd, want := range map[string]string{
		"toolguard hook --provider codex":                   "toolguard",
		"env X=1 toolguard hook":                            "toolguard",
		"bin/toolguard hook":                                "bin/toolguard",
		"./toolguard hook":                                  "./toolguard",
		"~/bin/toolguard hook":                              "~/bin/toolguard",
		"/usr/local/bin/toolguard hook --provider claude":   "",
		"'/opt/my tools/toolguard' hook":                    "",
		`C:\Tools\toolguard.exe hook --provider copilot`:    "",
		`\\server\share\toolguard.exe hook`:                 "",
		"toolguard check -- ls":                             "",
		"/usr/bin/env TOOLGUARD_POLICY=/p toolguard hook":   "toolguard",
		"/usr/local/bin/toolguard hook; toolguard hook":     "",
		"/home/u/.local/bin/toolguard hook --mode headless": "",
	} {
		if got := PathLookup(cmd); got != want {
			t.Errorf("PathLookup(%q) = %q, want %q", cmd, got, want)
		}
	}
}
