package approval

import (
	"encoding/json"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

func TestKeySame(t *testing.T) {
	t.Parallel()
	base := call.Call{Provider: "codex", Event: "PreToolUse", SessionID: "s1", Cwd: "/r", Tool: "Bash", Kind: call.KindShell, Command: "git push", Shell: "bash"}
	files := call.Call{Cwd: "/r", Tool: "Edit", Kind: call.KindEdit, Paths: []call.Path{{Path: "/r/a", Op: call.OpWrite}, {Path: "/r/b", Op: call.OpDelete}}}
	mcp := call.Call{Cwd: "/r", Tool: "mcp__gh__x", Kind: call.KindMCP, MCPServer: "gh", MCPTool: "x", Input: json.RawMessage(`{"a":1,"b":{"c":[1,2],"d":"<&>"}}`)}
	tests := []struct {
		name string
		a, b call.Call
	}{
		{"surrounding white space", base, with(base, func(c *call.Call) { c.Command = "  git push\n" })},
		{"provider and event ignored", base, with(base, func(c *call.Call) { c.Provider, c.Event = "claude-code", "BeforeTool" })},
		{"permission mode and project dir ignored", base, with(base, func(c *call.Call) { c.PermissionMode, c.ProjectDir = "auto", "/p" })},
		{"cwd cleaned", base, with(base, func(c *call.Call) { c.Cwd = "/r/" })},
		{"shell input ignored", base, with(base, func(c *call.Call) { c.Input = json.RawMessage(`{"timeout":5}`) })},
		{"path order", files, with(files, func(c *call.Call) { c.Paths = []call.Path{c.Paths[1], c.Paths[0]} })},
		{"path duplicates", files, with(files, func(c *call.Call) { c.Paths = append(c.Paths, c.Paths[0]) })},
		{"file content ignored", files, with(files, func(c *call.Call) { c.Input = json.RawMessage(`{"new_string":"x"}`) })},
		{"mcp key order and space", mcp, with(mcp, func(c *call.Call) { c.Input = json.RawMessage(` { "b" : {"d":"<&>","c":[1, 2]}, "a":1 } `) })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ka, kb := Key(tc.a), Key(tc.b)
			if ka != kb {
				t.Errorf("keys differ: %s vs %s", ka, kb)
			}
			if len(ka) != 64 {
				t.Errorf("key %q is not 64 hex digits", ka)
			}
		})
	}
}

func TestKeyDiffers(t *testing.T) {
	t.Parallel()
	base := call.Call{SessionID: "s1", Cwd: "/r", Tool: "Bash", Kind: call.KindShell, Command: "git push", Shell: "bash"}
	files := call.Call{Cwd: "/r", Tool: "Write", Kind: call.KindWrite, Paths: []call.Path{{Path: "/r/a", Op: call.OpWrite}}}
	mcp := call.Call{Cwd: "/r", Tool: "mcp__gh__x", Kind: call.KindMCP, MCPServer: "gh", MCPTool: "x", Input: json.RawMessage(`{"a":1}`)}
	web := call.Call{Cwd: "/r", Tool: "WebFetch", Kind: call.KindWeb, URL: "https://a.example/"}
	other := call.Call{Cwd: "/r", Tool: "Task", Kind: call.KindAgent, Input: json.RawMessage(`{"prompt":"a"}`)}
	tests := []struct {
		name string
		a, b call.Call
	}{
		{"command", base, with(base, func(c *call.Call) { c.Command = "git push -f" })},
		{"inner white space", base, with(base, func(c *call.Call) { c.Command = "git  push" })},
		{"shell", base, with(base, func(c *call.Call) { c.Shell = "powershell" })},
		{"tool", base, with(base, func(c *call.Call) { c.Tool = "run_shell_command" })},
		{"kind", base, with(base, func(c *call.Call) { c.Kind = call.KindOther })},
		{"cwd", base, with(base, func(c *call.Call) { c.Cwd = "/s" })},
		{"session", base, with(base, func(c *call.Call) { c.SessionID = "s2" })},
		{"no session", base, with(base, func(c *call.Call) { c.SessionID = "" })},
		{"path", files, with(files, func(c *call.Call) { c.Paths[0].Path = "/r/b" })},
		{"op", files, with(files, func(c *call.Call) { c.Paths[0].Op = call.OpDelete })},
		{"extra path", files, with(files, func(c *call.Call) { c.Paths = append(c.Paths, call.Path{Path: "/r/b"}) })},
		{"pattern", files, with(files, func(c *call.Call) { c.Patterns = []string{"*.go"} })},
		{"mcp server", mcp, with(mcp, func(c *call.Call) { c.MCPServer = "gl" })},
		{"mcp tool", mcp, with(mcp, func(c *call.Call) { c.MCPTool = "y" })},
		{"mcp input", mcp, with(mcp, func(c *call.Call) { c.Input = json.RawMessage(`{"a":2}`) })},
		{"mcp number text", mcp, with(mcp, func(c *call.Call) { c.Input = json.RawMessage(`{"a":1.0}`) })},
		{"mcp bad json", mcp, with(mcp, func(c *call.Call) { c.Input = json.RawMessage(`{"a":1} x`) })},
		{"url", web, with(web, func(c *call.Call) { c.URL = "https://b.example/" })},
		{"agent input", other, with(other, func(c *call.Call) { c.Input = json.RawMessage(`{"prompt":"b"}`) })},
		// A value that would blur field boundaries without length prefixes.
		{"field boundaries", base, with(base, func(c *call.Call) { c.Command, c.Shell = "git push\nshell 4:bash", "" })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if ka, kb := Key(tc.a), Key(tc.b); ka == kb {
				t.Errorf("same key %s for different calls", ka)
			}
		})
	}
}

// with returns a copy of c (with its own Paths) changed by f.
func with(c call.Call, f func(*call.Call)) call.Call {
	c.Paths = append([]call.Path(nil), c.Paths...)
	f(&c)
	return c
}

// TestKeyStable pins the encoding: a change to it must change keyVersion,
// since stored requests would no longer match their calls.
func TestKeyStable(t *testing.T) {
	t.Parallel()
	c := call.Call{SessionID: "s1", Cwd: "/r", Tool: "Bash", Kind: call.KindShell, Command: "git push", Shell: "bash"}
	if got, want := Key(c), "4114e65274bc5901dfc61c56cd837e9ead3e4f405352433336a77ec4ea9b52b2"; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
}
