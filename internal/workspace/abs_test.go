package workspace

import (
	"testing"

	"github.com/toolguard/toolguard/internal/protocol"
)

// TestArgPath pins argPath (paths typed on the command line or named in a
// setting) against protocol.Abs (the paths a tool names): they agree on
// ordinary paths and differ, on purpose and as they always did, where
// marked.
func TestArgPath(t *testing.T) {
	t.Parallel()
	const cwd, home = "/home/u/proj", "/home/u"
	tests := []struct {
		p, cwd, home string
		arg, abs     string
	}{
		{"", cwd, home, "", ""},
		{"policy.toml", cwd, home, cwd + "/policy.toml", cwd + "/policy.toml"},
		{"../x/./y", cwd, home, "/home/u/x/y", "/home/u/x/y"},
		{"~/.config/toolguard", cwd, home, home + "/.config/toolguard", home + "/.config/toolguard"},
		{"~", cwd, home, home, home},
		{"/etc//x/", cwd, home, "/etc//x/", "/etc/x"},          // differs: absolute kept as typed
		{"~/a/../b", cwd, home, home + "/a/../b", home + "/b"}, // differs: expanded ~ not cleaned
		{"~/x", cwd, "", cwd + "/~/x", "~/x"},                  // differs: no home
		{"~other/x", cwd, home, cwd + "/~other/x", "~other/x"}, // differs: ~user
		{`C:\x`, cwd, home, cwd + `/C:\x`, `C:\x`},             // differs: Windows path
		{"a", "rel", home, "rel/a", "a"},                       // differs: a relative cwd
	}
	for _, tc := range tests {
		if got := ArgPath(tc.p, tc.cwd, tc.home); got != tc.arg {
			t.Errorf("ArgPath(%q, %q, %q) = %q, want %q", tc.p, tc.cwd, tc.home, got, tc.arg)
		}
		if got := protocol.Abs(tc.p, tc.cwd, tc.home); got != tc.abs {
			t.Errorf("protocol.Abs(%q, %q, %q) = %q, want %q", tc.p, tc.cwd, tc.home, got, tc.abs)
		}
	}
}
