package protocol

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

const payloadDir = "../../testdata/payloads"

// TestPayloadFiles decodes every payload under testdata/payloads with the
// codec of its directory, and checks that Detect picks that codec.
func TestPayloadFiles(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(payloadDir, "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no payloads found: %v", err)
	}
	for _, f := range files {
		agent := filepath.Base(filepath.Dir(f))
		t.Run(agent+"/"+filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			c := mustLookup(t, agent)
			// Devin's documented payload is Claude's shape: Detect leaves it
			// to --provider devin.
			if d := Detect(b); d.Name() != agent && agent != NameDevin {
				t.Errorf("Detect = %s, want %s", d.Name(), agent)
			}
			got, err := DecodeWith(c, b, DecodeOptions{Home: testHome})
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if got.Provider != agent || got.Tool == "" {
				t.Errorf("provider %q tool %q", got.Provider, got.Tool)
			}
		})
	}
}

// TestScenarioPayloads pins what the scenario payloads the CLI golden
// tests use decode to, for every agent.
func TestScenarioPayloads(t *testing.T) {
	t.Parallel()
	const wf = testCwd + "/.github/workflows/ci.yml"
	shellOf := func(cmd string) shape { return shape{Kind: call.KindShell, Command: cmd, Shell: "bash"} }
	common := map[string]shape{
		"push-force.json": shellOf("git push --force origin main"),
		"git-status.json": shellOf("git status"),
		"rm-build.json":   shellOf("rm -rf ./build"),
		"read.json":       {Kind: call.KindRead, Paths: r(testCwd + "/README.md")},
	}
	write := map[string]shape{
		NameClaude:    {Kind: call.KindWrite, Paths: w(wf)},
		NameCodeBuddy: {Kind: call.KindWrite, Paths: w(wf)},
		NameCodex:     {Kind: call.KindEdit, Paths: w(wf)},
		NameGemini:    {Kind: call.KindWrite, Paths: w(wf)},
		NameCursor:    {Kind: call.KindWrite, Paths: w(wf)},
		NameCopilot:   {Kind: call.KindWrite, Paths: w(wf)},
		NameQwen:      {Kind: call.KindWrite, Paths: w(wf)},
		NameOpencode:  {Kind: call.KindWrite, Paths: w(wf)},
		// From documentation, not proven with the real clients.
		NameAntigravity: {Kind: call.KindWrite, Paths: w(wf)},
		NameKiro:        {Kind: call.KindWrite, Paths: w(wf)},
		NameWindsurf:    {Kind: call.KindWrite, Paths: w(wf)},
	}
	mcp := map[string]shape{
		NameClaude:    {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
		NameCodeBuddy: {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
		NameCodex:     {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
		NameGemini:    {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
		NameCursor:    {Kind: call.KindMCP, MCPServer: "npx -y @modelcontextprotocol/server-github", MCPTool: "create_issue"},
		NameCopilot:   {Kind: call.KindMCP, MCPServer: "github-mcp-server", MCPTool: "create_issue"},
		NameQwen:      {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
		// opencode names an MCP tool <server>_<tool>, which no rule can tell from a
		// built-in's name: an unknown tool (docs/agents.md)
		NameOpencode:    {Kind: call.KindOther},
		NameAntigravity: {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
		NameKiro:        {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
		NameWindsurf:    {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
		NameDevin:       {Kind: call.KindMCP, MCPServer: "github", MCPTool: "create_issue"},
	}
	for _, agent := range Names() {
		want := map[string]shape{"write-workflow.json": write[agent], "mcp.json": mcp[agent]}
		for k, v := range common {
			want[k] = v
		}
		if agent == NameCodex {
			want["read.json"] = shellOf("cat README.md")
		}
		for file, ws := range want {
			t.Run(agent+"/"+file, func(t *testing.T) {
				t.Parallel()
				b, err := os.ReadFile(filepath.Join(payloadDir, agent, file))
				if agent == NameDevin && os.IsNotExist(err) {
					t.Skip("Devin's file tools' input keys are not documented")
				}
				if err != nil {
					t.Fatal(err)
				}
				got, err := DecodeWith(mustLookup(t, agent), b, DecodeOptions{Home: testHome})
				if err != nil {
					t.Fatal(err)
				}
				if g := shapeOf(got); !reflect.DeepEqual(g, ws) {
					t.Errorf("got  %+v\nwant %+v", g, ws)
				}
				// Cascade sends a cwd with pre_run_command only; Devin's
				// documented payload has none.
				if agent == NameWindsurf && ws.Kind != call.KindShell || agent == NameDevin {
					return
				}
				if got.Cwd != testCwd {
					t.Errorf("cwd %q, want %q", got.Cwd, testCwd)
				}
			})
		}
	}
}

// TestDetectSharedPayloads runs Detect over the upstream samples the
// project was specified against (shared/payloads), by their upstream names:
// the agents' inputs are verbatim in testdata/payloads/<agent>/ (its README
// says which is which), the rest in testdata/upstream/payloads.
func TestDetectSharedPayloads(t *testing.T) {
	t.Parallel()
	const upstream = "../../testdata/upstream/payloads/"
	cases := map[string]string{
		payloadDir + "/claude-code/docs-bash.json":           NameClaude,    // claude-pretooluse-input-bash.json
		payloadDir + "/claude-code/docs-write-legacy.json":   NameClaude,    // claude-pretooluse-input-write-legacy.json
		payloadDir + "/claude-code/docs-write-windows.json":  NameClaude,    // claude-pretooluse-input-write-windows.json
		payloadDir + "/claude-code/real-push-force.json":     NameClaude,    // real-claude-deny-bash.json
		payloadDir + "/claude-code/real-write-workflow.json": NameClaude,    // real-claude-deny-write.json
		payloadDir + "/codebuddy/docs-write.json":            NameCodeBuddy, // codebuddy-pretooluse-input-write.json
		payloadDir + "/codebuddy/real-push-force.json":       NameCodeBuddy, // real-codebuddy-deny-bash.json
		payloadDir + "/codebuddy/real-write-workflow.json":   NameCodeBuddy, // real-codebuddy-deny-write.json
		payloadDir + "/codex/schema-bash.json":               NameCodex,     // codex-pretooluse-input-bash.CONSTRUCTED.json
		upstream + "codex-permissionrequest-input-bash.json": NameCodex,
		payloadDir + "/codex/real-push-force.json":           NameCodex,   // real-codex-deny-bash.json
		payloadDir + "/codex/real-write-workflow.json":       NameCodex,   // real-codex-deny-write.json
		payloadDir + "/gemini/schema-shell.json":             NameGemini,  // gemini-beforetool-input-shell.CONSTRUCTED.json
		payloadDir + "/gemini/real-push-force.json":          NameGemini,  // real-gemini-deny-bash.json
		payloadDir + "/gemini/real-write-workflow.json":      NameGemini,  // real-gemini-deny-write.json
		payloadDir + "/cursor/docs-shell.json":               NameCursor,  // cursor-beforeshellexecution-input.json
		payloadDir + "/cursor/docs-mcp.json":                 NameCursor,  // cursor-beforemcpexecution-input.json
		payloadDir + "/copilot/docs-toolargs-string.json":    NameCopilot, // copilot-pretooluse-input-camelcase-docs.json
		payloadDir + "/copilot/capture-powershell.json":      NameCopilot, // copilot-pretooluse-input-camelcase-live-capture.normalized.json
		upstream + "cline-pretooluse-input-schema.json":      NameUniversal,
		upstream + "claude-pretooluse-output-deny.json":      NameUniversal, // a reply fed as an input
	}
	for file, want := range cases {
		t.Run(file, func(t *testing.T) {
			t.Parallel()
			b, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got := Detect(b).Name(); got != want {
				t.Errorf("Detect = %s, want %s", got, want)
			}
		})
	}
}

func TestDetectShapes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, payload, want string
	}{
		{"claude plain", `{"session_id":"s","cwd":"/p","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{},"tool_use_id":"t"}`, NameClaude},
		{"claude without event", `{"tool_name":"Bash","tool_input":{},"tool_use_id":"t"}`, NameClaude},
		{"claude other event", `{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_use_id":"t"}`, NameClaude},
		{"claude missing tool_name", `{"hook_event_name":"PreToolUse"}`, NameClaude},
		{"codex turn_id", `{"turn_id":"t","model":"m","hook_event_name":"PreToolUse","tool_name":"Bash","tool_use_id":"u"}`, NameCodex},
		{"gemini event", `{"hook_event_name":"BeforeTool","tool_name":"x"}`, NameGemini},
		{"gemini mcp_context", `{"tool_name":"mcp_a_b","mcp_context":{}}`, NameGemini},
		{"copilot camel", `{"toolName":"bash","toolArgs":"{}"}`, NameCopilot},
		{"copilot pascal", `{"hook_event_name":"PreToolUse","timestamp":"2026-01-01T00:00:00Z","tool_name":"Bash","tool_input":{}}`, NameCopilot},
		{"pascal with numeric timestamp is claude", `{"hook_event_name":"PreToolUse","timestamp":1,"tool_name":"Bash"}`, NameClaude},
		{"cursor event", `{"hook_event_name":"beforeReadFile","file_path":"/a"}`, NameCursor},
		{"cursor preToolUse", `{"hook_event_name":"preToolUse","tool_name":"Shell","tool_input":{}}`, NameCursor},
		{"cursor conversation", `{"conversation_id":"c","tool_name":"x"}`, NameCursor},
		{"cursor workspace_roots", `{"workspace_roots":[],"tool_name":"x"}`, NameCursor},
		{"codebuddy call_id", `{"hook_event_name":"PreToolUse","tool_name":"Bash","call_id":"c","tool_use_id":"c","generation_id":"g"}`, NameCodeBuddy},
		{"codebuddy transcript", `{"hook_event_name":"PreToolUse","tool_name":"Bash","transcript_path":"/home/u/.codebuddy/projects/x.jsonl"}`, NameCodeBuddy},
		{"codebuddy windows transcript", `{"hook_event_name":"PreToolUse","tool_name":"Bash","transcript_path":"C:\\Users\\u\\.codebuddy\\p.jsonl"}`, NameCodeBuddy},
		{"unknown shape", `{"tool_name":"Bash","tool_input":{}}`, NameUniversal},
		{"cline", `{"hookName":"PreToolUse","preToolUse":{"toolName":"execute_command","parameters":{}}}`, NameUniversal},
		{"not json", `hello`, NameUniversal},
		{"empty", ``, NameUniversal},
		{"array", `[{"hook_event_name":"PreToolUse"}]`, NameUniversal},
		{"truncated", `{"hook_event_name":"PreToolUse","tool_na`, NameUniversal},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Detect([]byte(tc.payload)).Name(); got != tc.want {
				t.Errorf("Detect = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestDetectDecodesOwnShape checks that every codec Detect returns for a
// well-formed payload also decodes it.
func TestDetectDecodesOwnShape(t *testing.T) {
	t.Parallel()
	for _, p := range []string{
		hookJSON("Bash", `{"command":"ls"}`),
		geminiJSON("read_file", `{"file_path":"a"}`, ""),
		cursorJSON("beforeShellExecution", `,"command":"ls"`),
		copilotCamel("bash", `{"command":"ls"}`),
		copilotPascal("Bash", `{"command":"ls"}`),
	} {
		c := Detect([]byte(p))
		if _, err := c.Decode([]byte(p)); err != nil {
			t.Errorf("%s: %v (%s)", c.Name(), err, strings.TrimSpace(p))
		}
	}
}
