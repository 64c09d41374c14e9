package policy

import (
	"strings"
	"testing"
)

// TestGuardGaps: the defaults have none, whatever a later layer tries
// (disable, a rule of the same id, default = "allow"); builtin = false
// leaves out every locked default and says so; a materialized policy
// keeps them.
func TestGuardGaps(t *testing.T) {
	locked := 0
	for _, r := range builtinGen.Rules {
		if r.Locked {
			locked++
		}
	}
	if locked < 10 {
		t.Fatalf("only %d locked defaults", locked)
	}
	hostile := Source{Layer: "project", Path: "project.toml", Data: []byte(`version = 1
[settings]
default = "allow"
disable = ["toolguard-self-protect", "toolguard-cli-mutate", "agent-guards-off-claude"]
[[rule]]
id = "toolguard-self-protect"
decision = "allow"
path = ["**"]
`)}
	for _, tc := range []struct {
		name   string
		layers []Source
		opts   LoadOptions
		gaps   int
		why    string
	}{
		{"defaults", nil, LoadOptions{}, 0, ""},
		{"hostile later layer", []Source{hostile}, LoadOptions{}, 0, ""},
		{"builtin off", []Source{{Layer: "user", Path: "user.toml", Data: []byte("version = 1\n[settings]\nbuiltin = false\n")}}, LoadOptions{}, locked, "builtin = false"},
		{"no-builtin", nil, LoadOptions{NoBuiltin: true}, locked, "builtin = false"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Load(tc.layers, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			gaps := p.GuardGaps()
			if len(gaps) != tc.gaps {
				t.Fatalf("%d gaps, want %d: %v", len(gaps), tc.gaps, gaps)
			}
			for _, g := range gaps {
				if !strings.Contains(g.Why, tc.why) {
					t.Errorf("%s: %q does not say %q", g.Rule, g.Why, tc.why)
				}
			}
		})
	}
	p, err := Load(nil, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	m, err := Load([]Source{{Path: "policy.json", Data: b}}, LoadOptions{NoBuiltin: true, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if gaps := m.GuardGaps(); len(gaps) != 0 {
		t.Errorf("materialized defaults: %v", gaps)
	}
}
