package protocol

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// Decoding of the codecs written from documentation (Antigravity, Kiro,
// Windsurf), beyond the scenario payloads.
func TestDocCodecsDecode(t *testing.T) {
	t.Parallel()
	const p = "/home/user/project"
	agy := func(tool, args string) string {
		return `{"conversationId":"c","toolCall":{"name":"` + tool + `","args":` + args + `},"workspacePaths":["` + p + `"]}`
	}
	kiro := func(tool, input string) string {
		return `{"hook_event_name":"preToolUse","cwd":"` + p + `","tool_name":"` + tool + `","tool_input":` + input + `}`
	}
	ws := func(action, info string) string {
		return `{"agent_action_name":"` + action + `","trajectory_id":"t","tool_info":` + info + `}`
	}
	rw := func(path string) []call.Path {
		return []call.Path{{Path: path, Op: call.OpRead}, {Path: path, Op: call.OpWrite}}
	}
	cases := []struct {
		name, agent, payload string
		want                 shape
		cwd                  string
	}{
		{"agy shell in a subdirectory", NameAntigravity, agy("run_command", `{"CommandLine":"make","Cwd":"sub"}`),
			shape{Kind: call.KindShell, Command: "make", Shell: "bash"}, p + "/sub"},
		{"agy relative view_file", NameAntigravity, agy("view_file", `{"AbsolutePath":"README.md"}`),
			shape{Kind: call.KindRead, Paths: r(p + "/README.md")}, p},
		{"agy replace_file_content edits", NameAntigravity, agy("replace_file_content", `{"TargetFile":"/etc/hosts"}`),
			shape{Kind: call.KindEdit, Paths: w("/etc/hosts")}, p},
		{"agy unknown tool's TargetFile is read and written", NameAntigravity, agy("frobnicate_file", `{"TargetFile":"/home/user/.bashrc"}`),
			shape{Kind: call.KindOther, Paths: rw("/home/user/.bashrc")}, p},
		{"agy unknown tool's CommandLine is analyzed", NameAntigravity, agy("send_command_input", `{"CommandLine":"rm -rf /"}`),
			shape{Kind: call.KindOther, Command: "rm -rf /"}, p},
		{"agy mcp with a dashed server", NameAntigravity, agy("mcp_mcp-git_git_status", `{}`),
			shape{Kind: call.KindMCP, MCPServer: "mcp-git", MCPTool: "git_status"}, p},
		{"agy web", NameAntigravity, agy("read_url_content", `{"Url":"https://example.com/x"}`),
			shape{Kind: call.KindWeb, URL: "https://example.com/x"}, p},
		{"agy args as a JSON string", NameAntigravity, agy("run_command", `"{\"CommandLine\":\"ls\"}"`),
			shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}, p},
		{"kiro working_dir", NameKiro, kiro("execute_bash", `{"command":"make","working_dir":"/tmp/x"}`),
			shape{Kind: call.KindShell, Command: "make", Shell: "bash"}, "/tmp/x"},
		{"kiro fs_read batch and images", NameKiro, kiro("fs_read", `{"operations":[{"mode":"Line","path":"a.txt"},{"mode":"Directory","path":"/etc"},{"mode":"Image","image_paths":["/home/user/.ssh/id_rsa"]}]}`),
			shape{Kind: call.KindRead, Paths: []call.Path{{Path: p + "/a.txt", Op: call.OpRead}, {Path: "/etc", Op: call.OpRead}, {Path: "/home/user/.ssh/id_rsa", Op: call.OpRead}}}, p},
		{"kiro fs_write str_replace edits", NameKiro, kiro("fs_write", `{"command":"str_replace","path":"~/.bashrc","old_str":"a","new_str":"b"}`),
			shape{Kind: call.KindEdit, Paths: w(testHome + "/.bashrc")}, p},
		{"kiro fs_write append edits", NameKiro, kiro("fs_write", `{"command":"append","path":"x","new_str":"b"}`),
			shape{Kind: call.KindEdit, Paths: w(p + "/x")}, p},
		{"kiro glob", NameKiro, kiro("glob", `{"pattern":"**/*.go"}`),
			shape{Kind: call.KindSearch, Patterns: []string{"**/*.go"}}, p},
		{"kiro mcp path argument", NameKiro, kiro("@fs/write_file", `{"path":"/etc/passwd"}`),
			shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "write_file", Paths: append(rw("/etc/passwd"), call.Path{Path: "/etc/passwd", Op: call.OpWrite})}, p}, // + the MCP input path (AddMCPPaths)
		{"kiro @ without a tool is not mcp", NameKiro, kiro("@fs", `{}`),
			shape{Kind: call.KindOther}, p},
		{"kiro use_aws is other", NameKiro, kiro("use_aws", `{"service_name":"s3","operation_name":"ls","region":"us-east-1"}`),
			shape{Kind: call.KindOther}, p},
		{"windsurf read", NameWindsurf, ws("pre_read_code", `{"file_path":"/home/user/.aws/credentials"}`),
			shape{Kind: call.KindRead, Paths: r("/home/user/.aws/credentials")}, "/hookdir"},
		{"windsurf mcp arguments as a string", NameWindsurf, ws("pre_mcp_tool_use", `{"mcp_server_name":"fs","mcp_tool_name":"write","mcp_tool_arguments":"{\"path\":\"/etc/x\"}"}`),
			shape{Kind: call.KindMCP, MCPServer: "fs", MCPTool: "write", Paths: append(rw("/etc/x"), call.Path{Path: "/etc/x", Op: call.OpWrite})}, "/hookdir"}, // + the MCP input path
		{"windsurf command cwd beats the hook's", NameWindsurf, ws("pre_run_command", `{"command_line":"ls","cwd":"/w"}`),
			shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}, "/w"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := DecodeWith(mustLookup(t, tc.agent), []byte(tc.payload), DecodeOptions{Home: testHome, Dir: "/hookdir"})
			if err != nil {
				t.Fatal(err)
			}
			if g := shapeOf(got); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("got  %+v\nwant %+v", g, tc.want)
			}
			if got.Cwd != tc.cwd {
				t.Errorf("cwd %q, want %q", got.Cwd, tc.cwd)
			}
			if d := Detect([]byte(tc.payload)); d.Name() != tc.agent && !strings.HasPrefix(tc.name, "kiro @ without") && !strings.HasPrefix(tc.name, "kiro glob") && !strings.HasPrefix(tc.name, "kiro use_aws") {
				t.Errorf("Detect = %s", d.Name())
			}
		})
	}
}

// TestDocCodecsDecodeErrors: payloads that are not a tool call of the
// dialect are errors (the hook then answers on_error = deny).
func TestDocCodecsDecodeErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, agent, payload, want string }{
		{"agy without toolCall", NameAntigravity, `{"conversationId":"c"}`, "missing toolCall"},
		{"agy toolCall not an object", NameAntigravity, `{"toolCall":"run_command"}`, "toolCall is a JSON string"},
		{"agy toolCall without name", NameAntigravity, `{"toolCall":{"args":{}}}`, "missing name"},
		{"kiro without tool_name", NameKiro, `{"hook_event_name":"preToolUse","cwd":"/p"}`, "missing tool_name"},
		{"windsurf prompt action", NameWindsurf, `{"agent_action_name":"pre_user_prompt","tool_info":{"user_prompt":"hi"}}`, "not a pre-tool action"},
		{"windsurf post action", NameWindsurf, `{"agent_action_name":"post_run_command","tool_info":{"command_line":"ls"}}`, "not a pre-tool action"},
		{"windsurf command without command_line", NameWindsurf, `{"agent_action_name":"pre_run_command","tool_info":{"cwd":"/p"}}`, "missing command_line"},
		{"windsurf write without file_path", NameWindsurf, `{"agent_action_name":"pre_write_code","tool_info":{}}`, "missing file_path"},
		{"windsurf mcp without server", NameWindsurf, `{"agent_action_name":"pre_mcp_tool_use","tool_info":{"mcp_tool_name":"x"}}`, "missing mcp_server_name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := mustLookup(t, tc.agent).Decode([]byte(tc.payload))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestDocCodecsEncode(t *testing.T) {
	t.Parallel()
	agy := mustLookup(t, NameAntigravity)
	for _, tc := range []struct {
		v    call.Verdict
		want string
	}{
		{call.Verdict{Decision: call.Pass}, `{"decision":"ask"}` + "\n"},
		{call.Verdict{Decision: call.Allow}, `{"decision":"allow"}` + "\n"},
		{call.Verdict{Decision: call.Ask, Reason: "r"}, `{"decision":"force_ask","reason":"r"}` + "\n"},
		{call.Verdict{Decision: call.Deny, Reason: "r", StopTurn: true}, `{"decision":"deny","reason":"r"}` + "\n"},
		{call.Verdict{Decision: call.Deny}, `{"decision":"deny","reason":"toolguard: blocked by policy"}` + "\n"},
		{call.Verdict{Decision: 99, Reason: "r"}, `{"decision":"deny","reason":"r"}` + "\n"},
	} {
		if r := agy.Encode(tc.v); string(r.Stdout) != tc.want || r.ExitCode != 0 || len(r.Stderr) != 0 {
			t.Errorf("agy %v: %+v, want %s", tc.v.Decision, r, tc.want)
		}
	}
	for _, name := range []string{NameKiro, NameWindsurf} {
		c := mustLookup(t, name)
		for _, tc := range []struct {
			v      call.Verdict
			code   int
			stderr string
		}{
			{call.Verdict{Decision: call.Pass}, 0, ""},
			{call.Verdict{Decision: call.Allow, Reason: "fine"}, 0, ""},
			{call.Verdict{Decision: call.Ask, Reason: "r"}, 2, "r\n"},
			{call.Verdict{Decision: call.Deny, Reason: "r"}, 2, "r\n"},
			{call.Verdict{Decision: call.Deny}, 2, "toolguard: blocked by policy\n"},
			{call.Verdict{Decision: 99}, 2, "toolguard: blocked by policy\n"},
		} {
			r := c.Encode(tc.v)
			if len(r.Stdout) != 0 || r.ExitCode != tc.code || string(r.Stderr) != tc.stderr {
				t.Errorf("%s %v: %+v, want exit %d stderr %q", name, tc.v.Decision, r, tc.code, tc.stderr)
			}
		}
	}
}

// TestDocCodecsDetectShapes: the new shapes are told apart from the
// existing agents' payloads, both ways.
func TestDocCodecsDetectShapes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, payload, want string }{
		{"kiro shell", `{"hook_event_name":"preToolUse","cwd":"/p","tool_name":"execute_bash","tool_input":{}}`, NameKiro},
		{"kiro mcp", `{"hook_event_name":"preToolUse","cwd":"/p","tool_name":"@git/status","tool_input":{}}`, NameKiro},
		{"kiro glob is cursor's shape", `{"hook_event_name":"preToolUse","cwd":"/p","tool_name":"glob","tool_input":{}}`, NameCursor},
		{"cursor preToolUse with a kiro name and conversation_id", `{"hook_event_name":"preToolUse","conversation_id":"c","tool_name":"execute_bash"}`, NameCursor},
		{"cursor preToolUse with a kiro name and workspace_roots", `{"hook_event_name":"preToolUse","workspace_roots":["/p"],"tool_name":"fs_write"}`, NameCursor},
		{"kiro postToolUse is not kiro", `{"hook_event_name":"postToolUse","tool_name":"execute_bash"}`, NameUniversal},
		{"agy", `{"toolCall":{"name":"run_command","args":{}}}`, NameAntigravity},
		{"toolCall string is not agy", `{"toolCall":"x","tool_name":"Bash","tool_use_id":"t"}`, NameClaude},
		{"windsurf", `{"agent_action_name":"pre_run_command","tool_info":{}}`, NameWindsurf},
		{"claude with a run_command tool", `{"hook_event_name":"PreToolUse","tool_name":"run_command","tool_use_id":"t"}`, NameClaude},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Detect([]byte(tc.payload)).Name(); got != tc.want {
				t.Errorf("Detect = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestDocCodecsKnownTools: a rule naming an Antigravity or Kiro tool is
// not flagged by validate as a tool no agent sends.
func TestDocCodecsKnownTools(t *testing.T) {
	t.Parallel()
	for _, n := range []string{"run_command", "write_to_file", "execute_bash", "fs_write", "Bash"} {
		if !KnownTool(n) {
			t.Errorf("KnownTool(%q) = false", n)
		}
	}
	if KnownTool("pre_run_command") || KnownTool("nope") {
		t.Error("KnownTool accepts a name no agent sends as a tool name")
	}
	all := KnownTools()
	if !slices.IsSorted(all) || !slices.Contains(all, "fs_read") || !slices.Contains(all, "view_file") {
		t.Errorf("KnownTools = %q", all)
	}
}

func TestDevinCodec(t *testing.T) {
	t.Parallel()
	c := mustLookup(t, NameDevin)
	for _, tc := range []struct {
		name, payload string
		want          shape
		cwd           string
	}{
		{"exec", `{"tool_name":"exec","tool_input":{"command":"git status","shell_id":"main"}}`,
			shape{Kind: call.KindShell, Command: "git status", Shell: "bash"}, "/hookdir"},
		{"payload cwd wins", `{"tool_name":"exec","cwd":"/w","tool_input":{"command":"ls"}}`,
			shape{Kind: call.KindShell, Command: "ls", Shell: "bash"}, "/w"},
		{"edit with a path", `{"tool_name":"edit","tool_input":{"file_path":"/w/.github/workflows/ci.yml"}}`,
			shape{Kind: call.KindEdit, Paths: w("/w/.github/workflows/ci.yml")}, "/hookdir"},
		{"edit with unknown keys keeps its paths", `{"tool_name":"edit","tool_input":{"filename":"/etc/hosts"}}`,
			shape{Kind: call.KindEdit, Paths: []call.Path{{Path: "/etc/hosts", Op: call.OpRead}, {Path: "/etc/hosts", Op: call.OpWrite}}}, "/hookdir"},
		{"mcp", `{"tool_name":"mcp__github__create_issue","tool_input":{}}`,
			shape{Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"}, "/hookdir"},
		{"unknown tool's command is analyzed", `{"tool_name":"run","tool_input":{"command":"rm -rf /"}}`,
			shape{Kind: call.KindOther, Command: "rm -rf /"}, "/hookdir"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecodeWith(c, []byte(tc.payload), DecodeOptions{Home: testHome, Dir: "/hookdir"})
			if err != nil {
				t.Fatal(err)
			}
			if g := shapeOf(got); !reflect.DeepEqual(g, tc.want) {
				t.Errorf("got  %+v\nwant %+v", g, tc.want)
			}
			if got.Cwd != tc.cwd {
				t.Errorf("cwd %q, want %q", got.Cwd, tc.cwd)
			}
			if Detect([]byte(tc.payload)).Name() == NameDevin {
				t.Error("Detect picked devin for a Claude-shaped payload")
			}
		})
	}
	for _, tc := range []struct {
		v              call.Verdict
		stdout, stderr string
		code           int
	}{
		{call.Verdict{Decision: call.Pass}, "", "", 0},
		{call.Verdict{Decision: call.Allow}, `{"decision":"approve"}` + "\n", "", 0},
		{call.Verdict{Decision: call.Ask, Reason: "r"}, `{"decision":"block","reason":"r"}` + "\n", "r\n", 2},
		{call.Verdict{Decision: call.Deny, Reason: "r"}, `{"decision":"block","reason":"r"}` + "\n", "r\n", 2},
		{call.Verdict{Decision: 7}, `{"decision":"block","reason":"toolguard: blocked by policy"}` + "\n", "toolguard: blocked by policy\n", 2},
	} {
		r := c.Encode(tc.v)
		if string(r.Stdout) != tc.stdout || string(r.Stderr) != tc.stderr || r.ExitCode != tc.code {
			t.Errorf("%v: %+v", tc.v.Decision, r)
		}
	}
}
