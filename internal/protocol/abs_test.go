package protocol

import (
	"slices"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

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

// TestToolInput: the field check --tool --path puts a path in is the one
// the tool's classification reads, for tools of every dialect.
func TestToolInput(t *testing.T) {
	t.Parallel()
	for tool, key := range map[string]string{
		"Write": "file_path", "write_file": "file_path", "Edit": "file_path", "replace": "file_path",
		"Read": "file_path", "read_file": "file_path", "view": "file_path", "NotebookEdit": "file_path",
		"Grep": "path", "Glob": "path", "LS": "path", "grep_search": "path", "list_directory": "path",
		"read_many_files": "paths", "mcp__fs__write_file": "file_path", "someTool": "file_path",
		"WebFetch": "file_path", "Agent": "file_path",
	} {
		in := ToolInput(tool, "/x")
		if _, ok := in[key]; !ok || len(in) != 1 {
			t.Errorf("ToolInput(%s) = %v, want the field %s", tool, in, key)
		}
	}
	if in := ToolInput("Write", ""); len(in) != 0 {
		t.Errorf("ToolInput(Write, \"\") = %v, want {}", in)
	}
}

// TestMCPPathsOnEveryDecode: Decode and DecodeWith both end with
// AddMCPPaths, so an MCP call's input paths are in Paths whichever is
// called, for every codec; a call that is not MCP gets none.
func TestMCPPathsOnEveryDecode(t *testing.T) {
	t.Parallel()
	payloads := map[string]string{
		NameClaude:    `{"cwd":"/w","tool_name":"mcp__fs__delete_file","tool_input":{"path":"a"}}`,
		NameCodex:     `{"cwd":"/w","tool_name":"mcp__fs__delete_file","tool_input":{"path":"a"}}`,
		NameGemini:    `{"cwd":"/w","tool_name":"mcp_fs_delete_file","tool_input":{"path":"a"}}`,
		NameCopilot:   `{"cwd":"/w","serverName":"fs","toolName":"delete_file","arguments":{"path":"a"}}`,
		NameUniversal: `{"cwd":"/w","tool_name":"mcp__fs__delete_file","tool_input":{"path":"a"}}`,
	}
	for name, p := range payloads {
		k, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		c1, err1 := k.Decode([]byte(p))
		c2, err2 := DecodeWith(k, []byte(p), DecodeOptions{})
		if err1 != nil || err2 != nil {
			t.Fatalf("%s: %v %v", name, err1, err2)
		}
		want := call.Path{Path: "/w/a", Op: call.OpDelete}
		if n := len(c1.Paths); n == 0 || c1.Paths[n-1] != want || !slices.Equal(c1.Paths, c2.Paths) {
			t.Errorf("%s: Decode %v, DecodeWith %v; want both to end with %v", name, c1.Paths, c2.Paths, want)
		}
	}
	k, _ := Lookup(NameClaude)
	c, _ := k.Decode([]byte(`{"cwd":"/w","tool_name":"someTool","tool_input":{"path":"a"}}`))
	for _, p := range c.Paths {
		if p.Op == call.OpDelete {
			t.Errorf("an unknown tool got an MCP input path: %v", c.Paths)
		}
	}
}
