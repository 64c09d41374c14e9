package protocol

import "testing"

// TestAbs pins Abs (every path a codec decodes) and its lexical variant
// JoinAbs (an MCP input's path arguments with home "", a policy's
// examples and [[test]]s) on the same inputs; the rows where they differ
// are the differences the two helpers always had.
func TestAbs(t *testing.T) {
	t.Parallel()
	const cwd, home = "/home/u/proj", "/home/u"
	tests := []struct {
		p, cwd, home string
		abs, join    string
	}{
		{"", cwd, home, "", cwd}, // differs: Abs keeps "", JoinAbs gives cwd
		{"", "", "", "", "."},
		{"a/b", cwd, home, cwd + "/a/b", cwd + "/a/b"},
		{"./a/../b", cwd, home, cwd + "/b", cwd + "/b"},
		{"../x", cwd, home, "/home/u/x", "/home/u/x"},
		{"/etc//passwd/", cwd, home, "/etc/passwd", "/etc/passwd"},
		{"/", cwd, home, "/", "/"},
		{"~", cwd, home, home, home},
		{"~/.ssh/id_rsa", cwd, home, home + "/.ssh/id_rsa", home + "/.ssh/id_rsa"},
		{"~/a/../../etc", cwd, home, "/home/etc", "/home/etc"},
		{"~/.ssh", cwd, "", "~/.ssh", cwd + "/~/.ssh"},                  // differs: no home
		{"~/.ssh", cwd, "rel", "~/.ssh", "rel/.ssh"},                    // differs: a relative home
		{"~other/x", cwd, home, "~other/x", cwd + "/~other/x"},          // differs: ~user
		{`C:\x\y`, cwd, home, `C:\x\y`, cwd + `/C:\x\y`},                // differs: Windows path
		{`\\srv\share`, cwd, home, `\\srv\share`, cwd + `/\\srv\share`}, // differs: UNC path
		{`a\b`, `C:\proj`, home, `C:\proj\a\b`, `C:\proj/a\b`},          // differs: Windows cwd
		{"a", "rel/dir", home, "a", "rel/dir/a"},                        // differs: a relative cwd
		{"a", "", home, "a", "a"},
	}
	for _, tc := range tests {
		if got := Abs(tc.p, tc.cwd, tc.home); got != tc.abs {
			t.Errorf("Abs(%q, %q, %q) = %q, want %q", tc.p, tc.cwd, tc.home, got, tc.abs)
		}
		if got := JoinAbs(tc.p, tc.cwd, tc.home); got != tc.join {
			t.Errorf("JoinAbs(%q, %q, %q) = %q, want %q", tc.p, tc.cwd, tc.home, got, tc.join)
		}
		if got := (pather{cwd: tc.cwd, home: tc.home}).abs(tc.p); got != tc.abs {
			t.Errorf("pather.abs(%q) = %q, want Abs's %q", tc.p, got, tc.abs)
		}
	}
}
