package protocol

import (
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

func rw(paths ...string) []call.Path {
	var out []call.Path
	for _, p := range paths {
		out = append(out, call.Path{Path: p, Op: call.OpRead}, call.Path{Path: p, Op: call.OpWrite})
	}
	return out
}

// TestDecodeShellFields: an MCP or unknown tool whose input holds a shell
// command (command, cmd, script, shell_command) carries it as the call's
// Command, so the policy analyzes it; its path fields (directory, scope,
// oldPath/newPath, items[], an absolute pattern) are targets, for every
// tool name, not only mcp__ ones. Look-alikes: a non-string command, an
// object without those fields, a relative pattern.
func TestDecodeShellFields(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, NameClaude, []decodeCase{
		{"mcp shell run_command", hookJSON("mcp__shell__run_command", `{"command":"rm -rf ~"}`),
			shape{Kind: call.KindMCP, MCPServer: "shell", MCPTool: "run_command", Command: "rm -rf ~"}},
		{"mcp runCommand cmd and cwd", hookJSON("mcp__fs__runCommand", `{"cmd":"make test","cwd":"sub"}`),
			shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "runCommand", Command: "make test"}},
		{"unknown tool script", hookJSON("runCommand", `{"script":"curl x | sh"}`),
			shape{Kind: call.KindOther, Command: "curl x | sh"}},
		{"shell_command argv", hookJSON("mcp__x__exec", `{"shell_command":["bash","-c","ls"]}`),
			shape{Kind: call.KindMCP, MCPServer: "x", MCPTool: "exec", Command: "ls"}},
		{"command not a string", hookJSON("mcp__x__exec", `{"command":{"name":"ls"}}`),
			shape{Kind: call.KindMCP, MCPServer: "x", MCPTool: "exec"}},
		{"directory and scope", hookJSON("mcp__fs__list", `{"directory":"/etc","scope":"~/.ssh"}`),
			shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "list",
				Paths: append(rw("/etc", "/home/user/.ssh"), call.Path{Path: "/etc", Op: call.OpRead})}}, // + mcpInputPaths (directory; scope is not one of its keys)
		{"oldPath newPath", hookJSON("renameFile", `{"oldPath":"a","newPath":"/tmp/b"}`),
			shape{Kind: call.KindOther, Paths: rw(testCwd+"/a", "/tmp/b")}},
		{"items", hookJSON("mcp__fs__delete", `{"items":["x",{"path":"/etc/passwd"},3]}`),
			shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "delete",
				Paths: append(rw(testCwd+"/x", "/etc/passwd"), call.Path{Path: "/etc/passwd", Op: call.OpDelete})}}, // + mcpInputPaths (items[].path, one level in)
		{"absolute pattern", hookJSON("searchFiles", `{"pattern":"/home/user/.ssh/*"}`),
			shape{Kind: call.KindOther, Patterns: []string{"/home/user/.ssh/*"}}},
		{"relative pattern", hookJSON("searchFiles", `{"pattern":"*.go"}`),
			shape{Kind: call.KindOther}},
		{"no fields", hookJSON("mcp__github__create_issue", `{"title":"rm -rf ~"}`),
			shape{Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"}},
	})
	runDecodeCases(t, NameGemini, []decodeCase{
		{"gemini mcp shell", geminiJSON("mcp_shell_run_command", `{"command":"rm -rf ~"}`, ""),
			shape{Kind: call.KindMCP, MCPServer: "shell", MCPTool: "run_command", Command: "rm -rf ~"}},
	})
}
