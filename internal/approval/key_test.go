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
	edit := call.Call{Cwd: "/r", Tool: "Edit", Kind: call.KindEdit, Paths: []call.Path{{Path: "/r/a", Op: call.OpWrite}},
		Input: json.RawMessage(`{"file_path":"/r/a","old_string":"a","new_string":"b"}`)}
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
		{"edit input key order and space", edit, with(edit, func(c *call.Call) {
			c.Input = json.RawMessage(` {"new_string":"b", "old_string":"a","file_path":"/r/a"} `)
		})},
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
	write := with(files, func(c *call.Call) { c.Input = json.RawMessage(`{"file_path":"/r/a","content":"on: push"}`) })
	edit := call.Call{Cwd: "/r", Tool: "Edit", Kind: call.KindEdit, Paths: []call.Path{{Path: "/r/a", Op: call.OpWrite}},
		Input: json.RawMessage(`{"file_path":"/r/a","old_string":"a","new_string":"b"}`)}
	multi := with(edit, func(c *call.Call) {
		c.Tool = "MultiEdit"
		c.Input = json.RawMessage(`{"file_path":"/r/a","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`)
	})
	notebook := with(edit, func(c *call.Call) {
		c.Tool = "NotebookEdit"
		c.Input = json.RawMessage(`{"notebook_path":"/r/a","cell_id":"c1","new_source":"print(1)"}`)
	})
	patch := with(edit, func(c *call.Call) {
		c.Tool = "apply_patch"
		c.Input = json.RawMessage(`"*** Begin Patch\n*** Update File: a\n-a\n+b\n*** End Patch\n"`)
	})
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
		// What a file call writes is part of what the human approves.
		{"write content", write, with(write, func(c *call.Call) { c.Input = json.RawMessage(`{"file_path":"/r/a","content":"on: pull_request"}`) })},
		{"write without content", write, with(write, func(c *call.Call) { c.Input = nil })},
		{"edit new string", edit, with(edit, func(c *call.Call) {
			c.Input = json.RawMessage(`{"file_path":"/r/a","old_string":"a","new_string":"c"}`)
		})},
		{"edit old string", edit, with(edit, func(c *call.Call) {
			c.Input = json.RawMessage(`{"file_path":"/r/a","old_string":"z","new_string":"b"}`)
		})},
		{"edit replace_all", edit, with(edit, func(c *call.Call) {
			c.Input = json.RawMessage(`{"file_path":"/r/a","old_string":"a","new_string":"b","replace_all":true}`)
		})},
		{"multiedit one edit", multi, with(multi, func(c *call.Call) {
			c.Input = json.RawMessage(`{"file_path":"/r/a","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"e"}]}`)
		})},
		{"multiedit edit order", multi, with(multi, func(c *call.Call) {
			c.Input = json.RawMessage(`{"file_path":"/r/a","edits":[{"old_string":"c","new_string":"d"},{"old_string":"a","new_string":"b"}]}`)
		})},
		{"notebook source", notebook, with(notebook, func(c *call.Call) {
			c.Input = json.RawMessage(`{"notebook_path":"/r/a","cell_id":"c1","new_source":"print(2)"}`)
		})},
		{"patch text", patch, with(patch, func(c *call.Call) {
			c.Input = json.RawMessage(`"*** Begin Patch\n*** Update File: a\n-a\n+c\n*** End Patch\n"`)
		})},
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
	if got, want := Key(c), "6df6b6b4ef628a7d2b70b11e62f864b6167a1d8de2ea8b35ce2a9f6a4edc3bd2"; got != want {
		t.Errorf("Key = %s, want %s", got, want)
	}
}
