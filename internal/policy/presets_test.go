package policy

import "testing"

// Every preset loads on top of the defaults and its own examples and
// [[test]]s pass.
func TestPresets(t *testing.T) {
	t.Parallel()
	for _, name := range PresetNames() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			b, err := Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			p, err := Load([]Source{{Path: name + ".toml", Data: b}}, LoadOptions{})
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			if p.TestCount() == 0 {
				t.Error("preset has no [[test]]s")
			}
			for _, pr := range p.Check() {
				t.Error(pr.String())
			}
		})
	}
	if _, err := Preset("lax"); err == nil {
		t.Error("unknown preset accepted")
	}
}
