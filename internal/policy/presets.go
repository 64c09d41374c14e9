package policy

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed presets/*.toml
var presetFS embed.FS

// PresetNames lists the starter policies `toolguard init` can write.
func PresetNames() []string {
	return []string{"standard", "strict", "headless", "allow-list", "autopilot"}
}

// Preset returns the commented starter policy of that name.
func Preset(name string) ([]byte, error) {
	for _, n := range PresetNames() {
		if n == name {
			return presetFS.ReadFile("presets/" + name + ".toml")
		}
	}
	return nil, fmt.Errorf("unknown preset %q (want %s)", name, strings.Join(PresetNames(), ", "))
}
