package protocol

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

const (
	testCwd  = "/home/user/project"
	testHome = "/home/user"
)

// shape is the kind-specific part of a Call that decode tests compare.
type shape struct {
	Kind      call.Kind
	Command   string
	Shell     string
	Paths     []call.Path
	Patterns  []string
	MCPServer string
	MCPTool   string
	URL       string
}

func shapeOf(c call.Call) shape {
	return shape{c.Kind, c.Command, c.Shell, c.Paths, c.Patterns, c.MCPServer, c.MCPTool, c.URL}
}

func w(p string) []call.Path { return []call.Path{{Path: p, Op: call.OpWrite}} }
func r(p string) []call.Path { return []call.Path{{Path: p, Op: call.OpRead}} }
func del(p string) []call.Path {
	return []call.Path{{Path: p, Op: call.OpDelete}}
}

func mustLookup(t testing.TB, name string) Codec {
	t.Helper()
	c, err := Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type decodeCase struct {
	name    string
	payload string
	want    shape
}

func runDecodeCases(t *testing.T, codec string, cases []decodeCase) {
	t.Helper()
	c := mustLookup(t, codec)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeWith(c, []byte(tc.payload), DecodeOptions{Home: testHome})
			if err != nil {
				t.Fatalf("decode: %v\npayload: %s", err, tc.payload)
			}
			if got.Provider != c.Name() {
				t.Errorf("provider = %q, want %q", got.Provider, c.Name())
			}
			if g := shapeOf(got); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("got  %+v\nwant %+v", g, tc.want)
			}
			if len(got.Input) > 0 && !json.Valid(got.Input) {
				t.Errorf("Input is not valid JSON: %s", got.Input)
			}
		})
	}
}

// hookJSON builds a Claude-family payload (Claude Code, CodeBuddy, Codex).
func hookJSON(tool, input string) string {
	return fmt.Sprintf(`{"session_id":"s1","cwd":%q,"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":%q,"tool_input":%s,"tool_use_id":"t1"}`, testCwd, tool, input)
}

// claudeCases hold for Claude Code and CodeBuddy, which share tool names.
var claudeCases = []decodeCase{
	{"Bash", hookJSON("Bash", `{"command":"git push --force origin main","description":"x","timeout":120000}`),
		shape{Kind: call.KindShell, Command: "git push --force origin main", Shell: "bash"}},
	{"PowerShell", hookJSON("PowerShell", `{"command":"Remove-Item -Recurse build"}`),
		shape{Kind: call.KindShell, Command: "Remove-Item -Recurse build", Shell: "powershell"}},
	{"Write absolute", hookJSON("Write", `{"file_path":"/home/user/project/.github/workflows/ci.yml","content":"x"}`),
		shape{Kind: call.KindWrite, Paths: w("/home/user/project/.github/workflows/ci.yml")}},
	{"Write relative", hookJSON("Write", `{"file_path":"src/../.github/./ci.yml","content":"x"}`),
		shape{Kind: call.KindWrite, Paths: w("/home/user/project/.github/ci.yml")}},
	{"Write tilde", hookJSON("Write", `{"file_path":"~/.bashrc","content":"x"}`),
		shape{Kind: call.KindWrite, Paths: w("/home/user/.bashrc")}},
	{"Write bare tilde", hookJSON("Write", `{"file_path":"~","content":"x"}`),
		shape{Kind: call.KindWrite, Paths: w("/home/user")}},
	{"Write other user tilde", hookJSON("Write", `{"file_path":"~root/.bashrc","content":"x"}`),
		shape{Kind: call.KindWrite, Paths: w("~root/.bashrc")}},
	{"Write windows", hookJSON("Write", `{"file_path":"C:\\project\\src\\index.ts","content":"x"}`),
		shape{Kind: call.KindWrite, Paths: w(`C:\project\src\index.ts`)}},
	{"Write dotdot escapes", hookJSON("Write", `{"file_path":"../../etc/passwd","content":"x"}`),
		shape{Kind: call.KindWrite, Paths: w("/home/etc/passwd")}},
	{"Edit", hookJSON("Edit", `{"file_path":"main.go","old_string":"a","new_string":"b"}`),
		shape{Kind: call.KindEdit, Paths: w("/home/user/project/main.go")}},
	{"MultiEdit", hookJSON("MultiEdit", `{"file_path":"/x/y.go","edits":[{"old_string":"a","new_string":"b"}]}`),
		shape{Kind: call.KindEdit, Paths: w("/x/y.go")}},
	{"NotebookEdit", hookJSON("NotebookEdit", `{"notebook_path":"nb.ipynb","new_source":"x","edit_mode":"delete"}`),
		shape{Kind: call.KindEdit, Paths: w("/home/user/project/nb.ipynb")}},
	{"Read", hookJSON("Read", `{"file_path":"/etc/shadow","offset":1}`),
		shape{Kind: call.KindRead, Paths: r("/etc/shadow")}},
	{"NotebookRead", hookJSON("NotebookRead", `{"notebook_path":"~/n.ipynb"}`),
		shape{Kind: call.KindRead, Paths: r("/home/user/n.ipynb")}},
	{"Glob with path", hookJSON("Glob", `{"pattern":"**/*.pem","path":"~/.ssh"}`),
		shape{Kind: call.KindSearch, Paths: r("/home/user/.ssh"), Patterns: []string{"**/*.pem"}}},
	{"Glob without path", hookJSON("Glob", `{"pattern":"*.go"}`),
		shape{Kind: call.KindSearch, Patterns: []string{"*.go"}}},
	{"Grep", hookJSON("Grep", `{"pattern":"password","path":"config","glob":"*.yml","-i":true}`),
		shape{Kind: call.KindSearch, Paths: r("/home/user/project/config"), Patterns: []string{"*.yml"}}},
	{"LS", hookJSON("LS", `{"path":"/tmp"}`),
		shape{Kind: call.KindSearch, Paths: r("/tmp")}},
	{"WebFetch", hookJSON("WebFetch", `{"url":"https://example.com/a?b=1","prompt":"summarize"}`),
		shape{Kind: call.KindWeb, URL: "https://example.com/a?b=1"}},
	{"WebSearch", hookJSON("WebSearch", `{"query":"go fuzzing"}`),
		shape{Kind: call.KindWeb}},
	{"Agent", hookJSON("Agent", `{"prompt":"x","description":"y","subagent_type":"general"}`),
		shape{Kind: call.KindAgent}},
	{"Task", hookJSON("Task", `{"prompt":"x"}`),
		shape{Kind: call.KindAgent}},
	{"MCP", hookJSON("mcp__github__create_issue", `{"title":"x"}`),
		shape{Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"}},
	// An MCP tool's path field is a target, read and written.
	{"MCP filesystem path", hookJSON("mcp__filesystem__read_file", `{"path":"/home/u/.ssh/id_rsa"}`),
		shape{Kind: call.KindMCP, MCPServer: "filesystem", MCPTool: "read_file",
			Paths: []call.Path{{Path: "/home/u/.ssh/id_rsa", Op: call.OpRead}, {Path: "/home/u/.ssh/id_rsa", Op: call.OpWrite},
				{Path: "/home/u/.ssh/id_rsa", Op: call.OpRead}}}}, // the last from mcpInputPaths: read_file reads
	{"MCP move and read many", hookJSON("mcp__fs__move_file", `{"source":"a","destination":"/b","paths":["c"]}`),
		shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "move_file",
			Paths: []call.Path{{Path: testCwd + "/a", Op: call.OpRead}, {Path: testCwd + "/a", Op: call.OpWrite},
				{Path: "/b", Op: call.OpRead}, {Path: "/b", Op: call.OpWrite},
				{Path: testCwd + "/c", Op: call.OpRead}, {Path: testCwd + "/c", Op: call.OpWrite},
				// mcpInputPaths, keys sorted: destination, paths, source (a move deletes its source)
				{Path: "/b", Op: call.OpWrite}, {Path: testCwd + "/c", Op: call.OpWrite}, {Path: testCwd + "/a", Op: call.OpDelete}}}},
	{"MCP plugin server", hookJSON("mcp__plugin_acme_db__run_query", `{}`),
		shape{Kind: call.KindMCP, MCPServer: "plugin_acme_db", MCPTool: "run_query"}},
	{"MCP tool with double underscore", hookJSON("mcp__srv__a__b", `{}`),
		shape{Kind: call.KindMCP, MCPServer: "srv", MCPTool: "a__b"}},
	{"mcp prefix without tool", hookJSON("mcp__memory", `{}`),
		shape{Kind: call.KindOther}},
	{"unknown tool", hookJSON("TodoWrite", `{"todos":[]}`),
		shape{Kind: call.KindOther}},
	{"no tool_input", `{"hook_event_name":"PreToolUse","cwd":"/p","tool_name":"ExitPlanMode"}`,
		shape{Kind: call.KindOther}},
	{"unknown fields ignored", `{"tool_name":"Bash","tool_input":{"command":"ls","extra":{"a":[1,2]}},"effort":{"level":"high"},"future":true,"session_id":42}`,
		shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}},
	{"no cwd keeps relative", `{"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"a/./b.txt"}}`,
		shape{Kind: call.KindWrite, Paths: w("a/b.txt")}},
	{"BOM tolerated", "\ufeff" + hookJSON("Bash", `{"command":"ls"}`),
		shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}},
}

func TestDecodeClaude(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, NameClaude, claudeCases)
}

func TestDecodeCodeBuddy(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, NameCodeBuddy, claudeCases)
}

func TestDecodeCodex(t *testing.T) {
	t.Parallel()
	patch := func(body string) string {
		b, _ := json.Marshal(map[string]string{"command": body})
		return hookJSON("apply_patch", string(b))
	}
	runDecodeCases(t, NameCodex, []decodeCase{
		{"Bash", hookJSON("Bash", `{"command":"git push --force origin main"}`),
			shape{Kind: call.KindShell, Command: "git push --force origin main", Shell: "bash"}},
		{"Bash argv script", hookJSON("Bash", `{"command":["bash","-lc","rm -rf build"]}`),
			shape{Kind: call.KindShell, Command: "rm -rf build", Shell: "bash"}},
		{"Bash argv words", hookJSON("Bash", `{"command":["git","commit","-m","a b"]}`),
			shape{Kind: call.KindShell, Command: "git commit -m 'a b'", Shell: "bash"}},
		{"Bash bare string input", hookJSON("Bash", `"ls -la"`),
			shape{Kind: call.KindShell, Command: "ls -la", Shell: "bash"}},
		{"apply_patch add", patch("*** Begin Patch\n*** Add File: .github/workflows/ci.yml\n+name: ci\n*** End Patch\n"),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/.github/workflows/ci.yml")}},
		{"apply_patch update delete", patch("*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Delete File: /abs/b.go\n*** End Patch"),
			shape{Kind: call.KindEdit, Paths: []call.Path{{Path: "/home/user/project/a.go", Op: call.OpWrite}, {Path: "/abs/b.go", Op: call.OpDelete}}}},
		{"apply_patch move", patch("*** Begin Patch\n*** Update File: src/old.go\n*** Move to: src/new.go\n@@\n-a\n+b\n*** End Patch\n"),
			shape{Kind: call.KindEdit, Paths: []call.Path{{Path: "/home/user/project/src/old.go", Op: call.OpDelete}, {Path: "/home/user/project/src/new.go", Op: call.OpWrite}}}},
		{"apply_patch CRLF and indent", patch("*** Begin Patch\r\n  *** Add File: x.txt\r\n+a\r\n*** End Patch\r\n"),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/x.txt")}},
		{"apply_patch duplicate header", patch("*** Update File: a\n*** Update File: a\n"),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/a")}},
		{"apply_patch tilde", patch("*** Add File: ~/.ssh/authorized_keys\n+k\n"),
			shape{Kind: call.KindEdit, Paths: w("/home/user/.ssh/authorized_keys")}},
		{"apply_patch content line not a header", patch("*** Update File: a\n@@\n+*** Add File: evil\n"),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/a")}},
		{"apply_patch patch key", hookJSON("apply_patch", `{"patch":"*** Delete File: gone.txt\n"}`),
			shape{Kind: call.KindEdit, Paths: del("/home/user/project/gone.txt")}},
		{"apply_patch input key", hookJSON("apply_patch", `{"input":"*** Add File: n.txt\n+x\n"}`),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/n.txt")}},
		{"apply_patch bare string", hookJSON("apply_patch", `"*** Begin Patch\n*** Add File: s.txt\n+x\n*** End Patch"`),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/s.txt")}},
		{"MCP", hookJSON("mcp__github__create_issue", `{"title":"x"}`),
			shape{Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"}},
		{"spawn_agent", hookJSON("spawn_agent", `{"prompt":"x"}`),
			shape{Kind: call.KindAgent}},
		{"view_image reads", hookJSON("view_image", `{"path":"a.png"}`),
			shape{Kind: call.KindRead, Paths: []call.Path{{Path: testCwd + "/a.png", Op: call.OpRead}}}},
		{"other local tool", hookJSON("render_chart", `{"title":"x"}`),
			shape{Kind: call.KindOther}},
		// An unknown tool's path is read and written, for all anyone knows.
		{"other local tool with a path", hookJSON("custom_tool", `{"path":".env"}`),
			shape{Kind: call.KindOther, Paths: []call.Path{{Path: testCwd + "/.env", Op: call.OpRead}, {Path: testCwd + "/.env", Op: call.OpWrite}}}},
	})
}

func geminiJSON(tool, input, extra string) string {
	return fmt.Sprintf(`{"session_id":"g1","transcript_path":"/t","cwd":%q,"hook_event_name":"BeforeTool","timestamp":"2026-11-29T10:00:00.000Z","tool_name":%q,"tool_input":%s%s}`, testCwd, tool, input, extra)
}

func TestDecodeGemini(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, NameGemini, []decodeCase{
		{"run_shell_command", geminiJSON("run_shell_command", `{"command":"rm -rf ./build","dir_path":"sub"}`, ""),
			shape{Kind: call.KindShell, Command: "rm -rf ./build", Shell: "bash"}},
		{"write_file", geminiJSON("write_file", `{"file_path":".github/workflows/ci.yml","content":"x"}`, ""),
			shape{Kind: call.KindWrite, Paths: w("/home/user/project/.github/workflows/ci.yml")}},
		{"replace", geminiJSON("replace", `{"file_path":"/a/b.go","instruction":"x","old_string":"a","new_string":"b"}`, ""),
			shape{Kind: call.KindEdit, Paths: w("/a/b.go")}},
		{"read_file", geminiJSON("read_file", `{"file_path":"~/.aws/credentials"}`, ""),
			shape{Kind: call.KindRead, Paths: r("/home/user/.aws/credentials")}},
		{"read_many_files", geminiJSON("read_many_files", `{"include":["README.md","src/**/*.ts"],"exclude":["x"]}`, ""),
			shape{Kind: call.KindRead, Paths: r("/home/user/project/README.md"), Patterns: []string{"src/**/*.ts"}}},
		{"read_many_files old paths", geminiJSON("read_many_files", `{"paths":["a.txt"]}`, ""),
			shape{Kind: call.KindRead, Paths: r("/home/user/project/a.txt")}},
		{"glob", geminiJSON("glob", `{"pattern":"**/*.env","dir_path":"/srv"}`, ""),
			shape{Kind: call.KindSearch, Paths: r("/srv"), Patterns: []string{"**/*.env"}}},
		{"grep_search", geminiJSON("grep_search", `{"pattern":"TODO","dir_path":"src","include_pattern":"*.go"}`, ""),
			shape{Kind: call.KindSearch, Paths: r("/home/user/project/src"), Patterns: []string{"*.go"}}},
		{"search_file_content", geminiJSON("search_file_content", `{"pattern":"x"}`, ""),
			shape{Kind: call.KindSearch}},
		{"list_directory", geminiJSON("list_directory", `{"dir_path":"~"}`, ""),
			shape{Kind: call.KindSearch, Paths: r("/home/user")}},
		{"web_fetch prompt URL", geminiJSON("web_fetch", `{"prompt":"Summarize (https://example.com/docs/page.html), thanks"}`, ""),
			shape{Kind: call.KindWeb, URL: "https://example.com/docs/page.html"}},
		{"web_fetch first URL", geminiJSON("web_fetch", `{"prompt":"compare http://a.example/x and https://b.example/y."}`, ""),
			shape{Kind: call.KindWeb, URL: "http://a.example/x"}},
		{"web_fetch no URL", geminiJSON("web_fetch", `{"prompt":"fetch the docs"}`, ""),
			shape{Kind: call.KindWeb}},
		{"google_web_search", geminiJSON("google_web_search", `{"query":"x"}`, ""),
			shape{Kind: call.KindWeb}},
		{"mcp with context", geminiJSON("mcp_my_server_do_thing", `{}`, `,"mcp_context":{"server_name":"my_server","tool_name":"do_thing","command":"srv"}`),
			shape{Kind: call.KindMCP, MCPServer: "my_server", MCPTool: "do_thing"}},
		{"mcp context without tool_name", geminiJSON("mcp_my_server_do_thing", `{}`, `,"mcp_context":{"server_name":"my_server"}`),
			shape{Kind: call.KindMCP, MCPServer: "my_server", MCPTool: "do_thing"}},
		{"mcp with a path", geminiJSON("mcp_fs_read_file", `{"path":"/etc/shadow"}`, ""),
			shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "read_file",
				Paths: []call.Path{{Path: "/etc/shadow", Op: call.OpRead}, {Path: "/etc/shadow", Op: call.OpWrite}, {Path: "/etc/shadow", Op: call.OpRead}}}},
		{"mcp name only", geminiJSON("mcp_github_create_issue", `{}`, ""),
			shape{Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"}},
		{"mcp old double underscore", geminiJSON("github__create_issue", `{}`, ""),
			shape{Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"}},
		{"mcp_context wrong type ignored", geminiJSON("write_todos", `{}`, `,"mcp_context":"x"`),
			shape{Kind: call.KindOther}},
		{"write_todos", geminiJSON("write_todos", `{"todos":[]}`, ""),
			shape{Kind: call.KindOther}},
	})
}

func cursorJSON(event, fields string) string {
	return fmt.Sprintf(`{"hook_event_name":%q,"conversation_id":"c1","generation_id":"g1","workspace_roots":[%q]%s}`, event, testCwd, fields)
}

func TestDecodeCursor(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, NameCursor, []decodeCase{
		{"beforeShellExecution", cursorJSON("beforeShellExecution", `,"command":"git push --force origin main","cwd":"/home/user/project/sub"`),
			shape{Kind: call.KindShell, Command: "git push --force origin main", Shell: "bash"}},
		{"beforeReadFile relative", cursorJSON("beforeReadFile", `,"file_path":".env","content":"SECRET=1"`),
			shape{Kind: call.KindRead, Paths: r("/home/user/project/.env")}},
		{"beforeMCPExecution string input", cursorJSON("beforeMCPExecution", `,"tool_name":"query","tool_input":"{\"sql\":\"DROP TABLE x\"}","url":"http://localhost:3000"`),
			shape{Kind: call.KindMCP, MCPServer: "http://localhost:3000", MCPTool: "query"}},
		{"beforeMCPExecution object input", cursorJSON("beforeMCPExecution", `,"tool_name":"query","tool_input":{"sql":"x"},"command":"npx mcp-server"`),
			shape{Kind: call.KindMCP, MCPServer: "npx mcp-server", MCPTool: "query"}},
		{"beforeMCPExecution server field", cursorJSON("beforeMCPExecution", `,"tool_name":"create_issue","tool_input":"{}","server":"github","url":"http://x"`),
			shape{Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"}},
		{"beforeMCPExecution with a path", cursorJSON("beforeMCPExecution", `,"tool_name":"read_file","tool_input":{"path":".env"},"server":"fs"`),
			shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "read_file",
				Paths: []call.Path{{Path: testCwd + "/.env", Op: call.OpRead}, {Path: testCwd + "/.env", Op: call.OpWrite}, {Path: testCwd + "/.env", Op: call.OpRead}}}},
		{"beforeMCPExecution empty string input", cursorJSON("beforeMCPExecution", `,"tool_name":"ping","tool_input":""`),
			shape{Kind: call.KindMCP, MCPTool: "ping"}},
		{"preToolUse Shell", cursorJSON("preToolUse", `,"tool_name":"Shell","tool_input":{"command":"ls"},"tool_use_id":"u","cwd":"/home/user/project"`),
			shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}},
		{"preToolUse Write", cursorJSON("preToolUse", `,"tool_name":"Write","tool_input":{"file_path":".github/workflows/ci.yml"}`),
			shape{Kind: call.KindWrite, Paths: w("/home/user/project/.github/workflows/ci.yml")}},
		{"preToolUse Edit target_file", cursorJSON("preToolUse", `,"tool_name":"Edit","tool_input":{"target_file":"a.go"}`),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/a.go")}},
		{"preToolUse Delete", cursorJSON("preToolUse", `,"tool_name":"Delete","tool_input":{"file_path":"/home/user/project/go.mod"}`),
			shape{Kind: call.KindEdit, Paths: del("/home/user/project/go.mod")}},
		{"preToolUse Read", cursorJSON("preToolUse", `,"tool_name":"Read","tool_input":{"file_path":"x"}`),
			shape{Kind: call.KindRead, Paths: r("/home/user/project/x")}},
		{"preToolUse Grep", cursorJSON("preToolUse", `,"tool_name":"Grep","tool_input":{"pattern":"x","path":"."}`),
			shape{Kind: call.KindSearch, Paths: r("/home/user/project")}},
		{"preToolUse Task", cursorJSON("preToolUse", `,"tool_name":"Task","tool_input":{}`),
			shape{Kind: call.KindAgent}},
		{"preToolUse MCP", cursorJSON("preToolUse", `,"tool_name":"mcp__linear__create","tool_input":{}`),
			shape{Kind: call.KindMCP, MCPServer: "linear", MCPTool: "create"}},
		{"no event but tool_name", `{"conversation_id":"c","tool_name":"Read","tool_input":{"file_path":"/a"}}`,
			shape{Kind: call.KindRead, Paths: r("/a")}},
	})
}

func copilotCamel(tool, args string) string {
	return fmt.Sprintf(`{"sessionId":"p1","timestamp":1704614600000,"cwd":%q,"toolName":%q,"toolArgs":%s}`, testCwd, tool, args)
}

func copilotPascal(tool, input string) string {
	return fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":"p1","timestamp":"2026-11-29T10:00:00.000Z","cwd":%q,"tool_name":%q,"tool_input":%s}`, testCwd, tool, input)
}

func TestDecodeCopilot(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, NameCopilot, []decodeCase{
		{"bash object args", copilotCamel("bash", `{"command":"rm -rf ./build","mode":"sync","initial_wait":10}`),
			shape{Kind: call.KindShell, Command: "rm -rf ./build", Shell: "bash"}},
		{"bash string args", copilotCamel("bash", `"{\"command\":\"rm -rf dist\",\"description\":\"Clean\"}"`),
			shape{Kind: call.KindShell, Command: "rm -rf dist", Shell: "bash"}},
		{"bash string args padded", copilotCamel("bash", `" {\"command\":\"ls\"} "`),
			shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}},
		{"powershell", copilotCamel("powershell", `{"command":"echo hi"}`),
			shape{Kind: call.KindShell, Command: "echo hi", Shell: "powershell"}},
		{"view", copilotCamel("view", `{"path":"README.md"}`),
			shape{Kind: call.KindRead, Paths: r("/home/user/project/README.md")}},
		{"create", copilotCamel("create", `{"path":".github/workflows/ci.yml","file_text":"x"}`),
			shape{Kind: call.KindWrite, Paths: w("/home/user/project/.github/workflows/ci.yml")}},
		{"edit", copilotCamel("edit", `{"path":"/a.go","old_str":"a","new_str":"b"}`),
			shape{Kind: call.KindEdit, Paths: w("/a.go")}},
		{"str_replace_editor view", copilotCamel("str_replace_editor", `{"command":"view","path":"a"}`),
			shape{Kind: call.KindRead, Paths: r("/home/user/project/a")}},
		{"str_replace_editor create", copilotCamel("str_replace_editor", `{"command":"create","path":"a"}`),
			shape{Kind: call.KindWrite, Paths: w("/home/user/project/a")}},
		{"str_replace_editor str_replace", copilotCamel("str_replace_editor", `{"command":"str_replace","path":"a"}`),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/a")}},
		{"apply_patch", copilotCamel("apply_patch", `{"input":"*** Begin Patch\n*** Delete File: old.txt\n*** End Patch"}`),
			shape{Kind: call.KindEdit, Paths: del("/home/user/project/old.txt")}},
		{"glob", copilotCamel("glob", `{"pattern":"**/*.key"}`),
			shape{Kind: call.KindSearch, Patterns: []string{"**/*.key"}}},
		{"grep", copilotCamel("grep", `{"pattern":"x","path":"src","glob":"*.ts"}`),
			shape{Kind: call.KindSearch, Paths: r("/home/user/project/src"), Patterns: []string{"*.ts"}}},
		{"web_fetch", copilotCamel("web_fetch", `{"url":"https://example.com"}`),
			shape{Kind: call.KindWeb, URL: "https://example.com"}},
		{"web_search", copilotCamel("web_search", `{"query":"x"}`),
			shape{Kind: call.KindWeb}},
		{"task", copilotCamel("task", `{"prompt":"x"}`),
			shape{Kind: call.KindAgent}},
		{"dashed MCP", copilotCamel("github-mcp-server-create_issue", `{"title":"x"}`),
			shape{Kind: call.KindMCP, MCPServer: "github-mcp-server", MCPTool: "create_issue"}},
		{"report_intent", copilotCamel("report_intent", `{"intent":"x"}`),
			shape{Kind: call.KindOther}},
		{"no toolArgs", `{"sessionId":"p","cwd":"/p","toolName":"ask_user"}`,
			shape{Kind: call.KindOther}},
		{"preMcpToolCall", `{"sessionId":"p","cwd":"/p","serverName":"github","toolName":"delete_repo","arguments":{"repo":"x"}}`,
			shape{Kind: call.KindMCP, MCPServer: "github", MCPTool: "delete_repo"}},
		{"preMcpToolCall with a path", `{"sessionId":"p","cwd":"/p","serverName":"fs","toolName":"read_file","arguments":{"path":".env"}}`,
			shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "read_file",
				Paths: []call.Path{{Path: "/p/.env", Op: call.OpRead}, {Path: "/p/.env", Op: call.OpWrite}, {Path: "/p/.env", Op: call.OpRead}}}},
		{"Pascal Bash", copilotPascal("Bash", `{"command":"git push --force origin main"}`),
			shape{Kind: call.KindShell, Command: "git push --force origin main", Shell: "bash"}},
		{"Pascal Write", copilotPascal("Write", `{"file_path":"/x/y"}`),
			shape{Kind: call.KindWrite, Paths: w("/x/y")}},
		{"Pascal Edit from apply_patch", copilotPascal("Edit", `{"input":"*** Add File: n.go\n+x"}`),
			shape{Kind: call.KindEdit, Paths: w("/home/user/project/n.go")}},
		{"Pascal Read", copilotPascal("Read", `{"path":"/etc/hosts"}`),
			shape{Kind: call.KindRead, Paths: r("/etc/hosts")}},
		{"Pascal Agent", copilotPascal("Agent", `{}`),
			shape{Kind: call.KindAgent}},
	})
}

func TestDecodeUniversal(t *testing.T) {
	t.Parallel()
	runDecodeCases(t, NameUniversal, []decodeCase{
		{"claude shape", hookJSON("Bash", `{"command":"ls"}`),
			shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}},
		{"camel shape string args", `{"toolName":"bash","toolArgs":"{\"command\":\"ls\"}","cwd":"/p"}`,
			shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}},
		{"gemini names", `{"tool_name":"write_file","tool_input":{"file_path":"a"},"cwd":"/p"}`,
			shape{Kind: call.KindWrite, Paths: w("/p/a")}},
		{"kiro-like", `{"hook_event_name":"preToolUse","cwd":"/p","tool_name":"execute_bash","tool_input":{"command":"ls"}}`,
			shape{Kind: call.KindOther, Command: "ls"}}, // an unknown tool with a command field runs shell: analyzed
	})
}

// TestDecodeFields checks the call metadata each codec fills.
func TestDecodeFields(t *testing.T) {
	t.Parallel()
	cases := []struct {
		codec   string
		payload string
		want    call.Call // Kind-specific fields and Input are not compared
	}{
		{NameClaude, hookJSON("Bash", `{"command":"ls"}`),
			call.Call{Provider: NameClaude, Event: "PreToolUse", SessionID: "s1", Cwd: testCwd, Tool: "Bash", PermissionMode: "default"}},
		{NameCodeBuddy, hookJSON("Bash", `{"command":"ls"}`),
			call.Call{Provider: NameCodeBuddy, Event: "PreToolUse", SessionID: "s1", Cwd: testCwd, Tool: "Bash", PermissionMode: "default"}},
		{NameCodex, `{"session_id":"x1","turn_id":"t","cwd":"/a/b/../c/","hook_event_name":"PreToolUse","model":"m","permission_mode":"bypassPermissions","tool_name":"Bash","tool_input":{"command":"ls"},"tool_use_id":"u"}`,
			call.Call{Provider: NameCodex, Event: "PreToolUse", SessionID: "x1", Cwd: "/a/c", Tool: "Bash", PermissionMode: "bypassPermissions"}},
		{NameGemini, geminiJSON("read_file", `{"file_path":"a"}`, ""),
			call.Call{Provider: NameGemini, Event: "BeforeTool", SessionID: "g1", Cwd: testCwd, Tool: "read_file"}},
		{NameCursor, cursorJSON("beforeShellExecution", `,"command":"ls","cwd":"/home/user/project/sub"`),
			call.Call{Provider: NameCursor, Event: "beforeShellExecution", SessionID: "c1", Cwd: "/home/user/project/sub", Tool: "beforeShellExecution", ProjectDir: testCwd}},
		{NameCursor, cursorJSON("beforeReadFile", `,"file_path":"a"`),
			call.Call{Provider: NameCursor, Event: "beforeReadFile", SessionID: "c1", Cwd: testCwd, Tool: "beforeReadFile", ProjectDir: testCwd}},
		{NameCopilot, copilotCamel("bash", `{"command":"ls"}`),
			call.Call{Provider: NameCopilot, Event: "preToolUse", SessionID: "p1", Cwd: testCwd, Tool: "bash"}},
		{NameCopilot, copilotPascal("Bash", `{"command":"ls"}`),
			call.Call{Provider: NameCopilot, Event: "PreToolUse", SessionID: "p1", Cwd: testCwd, Tool: "Bash"}},
		{NameCopilot, `{"sessionId":"p","cwd":"C:\\Users\\u\\proj","serverName":"s","toolName":"t"}`,
			call.Call{Provider: NameCopilot, Event: "preMcpToolCall", SessionID: "p", Cwd: `C:\Users\u\proj`, Tool: "t"}},
		{NameUniversal, `{"sessionId":"u1","toolName":"bash","toolArgs":{"command":"ls"},"workspace_roots":["/w"]}`,
			call.Call{Provider: NameUniversal, SessionID: "u1", Cwd: "/w", Tool: "bash"}},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d", tc.codec, i), func(t *testing.T) {
			t.Parallel()
			got, err := mustLookup(t, tc.codec).Decode([]byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			meta := call.Call{Provider: got.Provider, Event: got.Event, SessionID: got.SessionID, Cwd: got.Cwd,
				Tool: got.Tool, PermissionMode: got.PermissionMode, ProjectDir: got.ProjectDir}
			if !reflect.DeepEqual(meta, tc.want) {
				t.Errorf("got  %+v\nwant %+v", meta, tc.want)
			}
		})
	}
}

// TestDecodeInput checks that Call.Input is the tool's argument object, also
// when it arrived as a JSON-encoded string.
func TestDecodeInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		codec, payload, want string
	}{
		{NameClaude, hookJSON("Bash", `{"command":"ls","timeout":5}`), `{"command":"ls","timeout":5}`},
		{NameCopilot, copilotCamel("bash", `"{\"command\":\"ls\"}"`), `{"command":"ls"}`},
		{NameCursor, cursorJSON("beforeMCPExecution", `,"tool_name":"q","tool_input":"{\"a\":1}"`), `{"a":1}`},
		{NameCursor, cursorJSON("beforeShellExecution", `,"command":"ls"`), `{"command":"ls"}`},
		{NameCursor, cursorJSON("beforeReadFile", `,"file_path":"/x","content":"big"`), `{"file_path":"/x"}`},
		{NameCodex, hookJSON("apply_patch", `"*** Add File: a\n"`), `"*** Add File: a\n"`},
		{NameClaude, `{"tool_name":"X"}`, ``},
	}
	for i, tc := range cases {
		t.Run(fmt.Sprintf("%s/%d", tc.codec, i), func(t *testing.T) {
			t.Parallel()
			got, err := mustLookup(t, tc.codec).Decode([]byte(tc.payload))
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Input) != tc.want {
				t.Errorf("Input = %s, want %s", got.Input, tc.want)
			}
		})
	}
}

// TestDecodeWithoutHome checks that a plain Decode leaves ~ unexpanded.
func TestDecodeWithoutHome(t *testing.T) {
	t.Parallel()
	got, err := mustLookup(t, NameClaude).Decode([]byte(hookJSON("Read", `{"file_path":"~/.ssh/id_rsa"}`)))
	if err != nil {
		t.Fatal(err)
	}
	if want := r("~/.ssh/id_rsa"); !reflect.DeepEqual(got.Paths, want) {
		t.Errorf("Paths = %v, want %v", got.Paths, want)
	}
}

func TestPathsWindowsCwd(t *testing.T) {
	t.Parallel()
	pt := pather{cwd: `C:\Users\u\proj`, home: testHome}
	cases := map[string]string{
		`src\main.go`:    `C:\Users\u\proj\src\main.go`,
		`src/main.go`:    `C:\Users\u\proj\src/main.go`,
		`D:\other\x`:     `D:\other\x`,
		`\\server\share`: `\\server\share`,
		`c:/lower/x.txt`: `c:/lower/x.txt`,
		`/unix/abs/../x`: `/unix/x`,
		``:               ``,
		`~/x`:            `/home/user/x`,
	}
	for in, want := range cases {
		if got := pt.abs(in); got != want {
			t.Errorf("abs(%q) = %q, want %q", in, got, want)
		}
	}
	unix := pather{cwd: testCwd}
	for in, want := range map[string]string{
		`/a/../etc/x\y`: `/etc/x\y`,
		`src\main.go`:   testCwd + `/src\main.go`,
		`C:\x\..\y`:     `C:\x\..\y`,
	} {
		if got := unix.abs(in); got != want {
			t.Errorf("unix abs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDecodeErrorIsTyped(t *testing.T) {
	t.Parallel()
	_, err := mustLookup(t, NameClaude).Decode([]byte(`{"tool_input":{}}`))
	var de *DecodeError
	if !errors.As(err, &de) || de.Msg != "missing tool_name" || de.Offset != -1 {
		t.Fatalf("err = %#v, want *DecodeError{-1, missing tool_name}", err)
	}
	if err.Error() != "missing tool_name" {
		t.Errorf("Error() = %q", err.Error())
	}
}
