package policy

import (
	"strings"
	"testing"
)

// TestShellFieldsSetting: settings.shell_fields loads, merges by adding
// (an untrusted project layer may add), and refuses a glob path.Match
// cannot use or an empty field name, with the position.
func TestShellFieldsSetting(t *testing.T) {
	t.Parallel()
	p, err := Load([]Source{
		{Path: "a.toml", Data: []byte("[settings]\nshell_fields = { \"mcp__db__*\" = [\"sh\"] }\n")},
		{Path: "p.toml", Layer: "project", Untrusted: true, Data: []byte("[settings]\nshell_fields = { \"mcp__db__*\" = [\"q\", \"sh\"], \"x\" = [\"c\"] }\n")},
	}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatal(err)
	}
	got := p.Settings.ShellFields
	if strings.Join(got["mcp__db__*"], ",") != "sh,q" || strings.Join(got["x"], ",") != "c" {
		t.Fatalf("merged shell_fields %v", got)
	}
	for _, bad := range []string{"shell_fields = { \"[\" = [\"sh\"] }", "shell_fields = { \"x\" = [\"\"] }"} {
		_, err := Load([]Source{{Path: "b.toml", Data: []byte("[settings]\n" + bad + "\n")}}, LoadOptions{NoBuiltin: true})
		if err == nil || !strings.Contains(err.Error(), "b.toml:") || !strings.Contains(err.Error(), "shell_fields") {
			t.Errorf("%s: err %v, want a positioned shell_fields error", bad, err)
		}
	}
}
