package doctor

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHookWords: the program before "hook" and the --policy files after
// it, in the forms install writes and people edit; a line without "hook"
// names no program.
func TestHookWords(t *testing.T) {
	for _, tt := range []struct {
		line, program string
		policies      []string
		noBuiltin     bool
	}{
		{"/usr/local/bin/toolguard hook --provider claude-code", "/usr/local/bin/toolguard", nil, false},
		{"'/opt/my tools/toolguard' hook --provider codex --policy /etc/p.json --policy=/x/q.toml", "/opt/my tools/toolguard", []string{"/etc/p.json", "/x/q.toml"}, false},
		{"env X=1 toolguard hook --no-builtin --policy p.toml", "toolguard", []string{"p.toml"}, true},
		{"toolguard version", "", nil, false},
		{"toolguard hook --policy", "toolguard", nil, false}, // a --policy without its file names none
	} {
		h := hookWords(tt.line)
		if h.program != tt.program || !slices.Equal(h.policies, tt.policies) || h.noBuiltin != tt.noBuiltin {
			t.Errorf("hookWords(%q) = %+v, want program %q policies %q no-builtin %v", tt.line, h, tt.program, tt.policies, tt.noBuiltin)
		}
	}
}

// TestNestedPolicies: a policy file below the workspace root is reported
// (discovery never reads it); the root's own, .git's and node_modules'
// are not.
func TestNestedPolicies(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{".toolguard/policy.toml", "sub/.toolguard/policy.toml", "node_modules/x/.toolguard/policy.toml", ".git/.toolguard/policy.toml"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := nestedPolicies(root)
	if want := []string{filepath.Join(root, "sub/.toolguard/policy.toml")}; !slices.Equal(got, want) {
		t.Errorf("nestedPolicies = %q, want %q", got, want)
	}
	if nestedPolicies("") != nil {
		t.Error("no root, yet policies")
	}
}
