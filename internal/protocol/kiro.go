package protocol

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/call"
)

// NameKiro is Kiro CLI (kiro-cli, the successor of Amazon Q Developer CLI).
const NameKiro = "kiro"

// kiroPreToolUse is Kiro's event name, spelled as Cursor's.
const kiroPreToolUse = "preToolUse"

// kiroCodec speaks Kiro CLI's preToolUse dialect FROM ITS DOCUMENTATION, NOT
// PROVEN WITH THE REAL CLIENT (kiro.dev/docs/cli/hooks, the same text as
// aws/amazon-q-developer-cli docs/hooks.md; testdata/payloads/kiro/). The
// payload is {hook_event_name: "preToolUse", cwd, tool_name, tool_input};
// built-in tools are execute_bash, fs_read, fs_write, glob, grep, use_aws…,
// MCP tools are "@<server>/<tool>". The reply is the exit code: 0 runs the
// tool, 2 blocks it and returns stderr to the model, any other code is a
// warning and the tool runs. There is no JSON decision and no ask.
type kiroCodec struct{}

func (kiroCodec) Name() string { return NameKiro }

// SupportsAsk is false: Kiro's hooks can only let a call run or block it.
func (kiroCodec) SupportsAsk() bool { return false }

func (k kiroCodec) Decode(payload []byte) (call.Call, error) {
	return k.decode(payload, DecodeOptions{})
}

func (kiroCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	c, _, in, err := decodeSnake(NameKiro, payload, inputObjectOrJSONString)
	if err != nil {
		return call.Call{}, err
	}
	pt := pather{cwd: c.Cwd, home: o.Home}
	if fill, ok := kiroTools()[c.Tool]; ok {
		fill(&c, in, pt)
		return c, nil
	}
	if server, mtool, ok := kiroMCP(c.Tool); ok {
		c.Kind, c.MCPServer, c.MCPTool = call.KindMCP, server, mtool
		otherPaths(&c, in, pt)
		return c, nil
	}
	classify(&c, in, pt) // glob, grep and unknown tools
	return c, nil
}

// kiroMCP splits Kiro's "@<server>/<tool>" MCP tool name.
func kiroMCP(tool string) (server, mtool string, ok bool) {
	rest, found := strings.CutPrefix(tool, "@")
	if !found {
		return "", "", false
	}
	server, mtool, ok = strings.Cut(rest, "/")
	if !ok || server == "" || mtool == "" {
		return "", "", false
	}
	return server, mtool, true
}

// isKiroTool reports whether tool is a name only Kiro sends: a built-in
// tool of its own or an "@server/tool" MCP tool (Detect).
func isKiroTool(tool string) bool {
	if _, ok := kiroTools()[tool]; ok {
		return true
	}
	_, _, ok := kiroMCP(tool)
	return ok
}

// kiroTools are Kiro's built-in tools with inputs of their own
// (crates/chat-cli/src/cli/chat/tools/tool_index.json).
var kiroTools = sync.OnceValue(func() map[string]toolFill {
	return map[string]toolFill{
		"execute_bash": kiroShell,
		"fs_read":      kiroRead,
		"fs_write":     kiroWrite,
	}
})

// kiroShell is execute_bash {command, working_dir}: working_dir is where the
// command runs; the session cwd stays the project directory.
func kiroShell(c *call.Call, in input, pt pather) {
	c.Kind, c.Shell = call.KindShell, "bash"
	c.Command = commandString(in.fields["command"])
	if d := in.str("working_dir"); d != "" {
		c.ProjectDir = c.Cwd
		c.Cwd = pt.abs(d)
	}
}

// kiroRead is fs_read {operations: [{mode, path, image_paths}]}: every
// path of every operation is read.
func kiroRead(c *call.Call, in input, pt pather) {
	c.Kind = call.KindRead
	for _, p := range kiroOperationPaths(in) {
		c.Paths = append(c.Paths, call.Path{Path: pt.abs(p), Op: call.OpRead})
	}
}

func kiroOperationPaths(in input) []string {
	raw := in.fields["operations"]
	var ps []string
	ps = append(ps, itemPaths(raw)...)
	// image_paths lists inside each operation.
	if len(raw) > 0 && raw[0] == '[' {
		var ops []map[string]json.RawMessage
		if json.Unmarshal(raw, &ops) == nil {
			for _, op := range ops[:min(len(ops), 256)] {
				ps = append(ps, rawStrings(op["image_paths"])...)
			}
		}
	}
	if p := in.str("path"); p != "" {
		ps = append(ps, p)
	}
	return ps
}

// kiroWrite is fs_write {command, path, …}: create writes the file, the
// other commands (str_replace, insert, append) edit it.
func kiroWrite(c *call.Call, in input, pt pather) {
	c.Kind = call.KindEdit
	if in.str("command") == "create" {
		c.Kind = call.KindWrite
	}
	if p := in.first(pathKeys...); p != "" {
		c.Paths = append(c.Paths, call.Path{Path: pt.abs(p), Op: call.OpWrite})
	}
}

// Encode: pass and allow → nothing, exit 0; deny, and ask (Kiro has
// none), → exit 2 with the reason on stderr, which Kiro returns to the
// model. Kiro reads no JSON from a preToolUse hook.
func (kiroCodec) Encode(v call.Verdict) Reply { return exitCodeReply(v) }

// exitCodeReply is the reply of the agents whose pre-tool hook speaks by
// exit code only (Kiro, Windsurf): 0 runs the tool, 2 blocks it with
// stderr as the message.
func exitCodeReply(v call.Verdict) Reply {
	d := decision(v.Decision)
	if d == call.Pass || d == call.Allow {
		return noReply()
	}
	return Reply{Stderr: []byte(reasonOr(v.Reason, d) + "\n"), ExitCode: 2}
}
