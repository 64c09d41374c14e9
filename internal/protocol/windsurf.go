package protocol

import (
	"github.com/toolguard/toolguard/internal/call"
)

// NameWindsurf is Windsurf's Cascade agent (also Devin Desktop's). Lookup
// also accepts "cascade".
const NameWindsurf = "windsurf"

// Cascade's pre-hook actions, in agent_action_name.
const (
	windsurfRunCommand = "pre_run_command"
	windsurfWriteCode  = "pre_write_code"
	windsurfReadCode   = "pre_read_code"
	windsurfMCPToolUse = "pre_mcp_tool_use"
)

// windsurfCodec speaks Cascade Hooks FROM THEIR DOCUMENTATION, NOT PROVEN WITH
// THE REAL CLIENT (docs.windsurf.com/windsurf/cascade/hooks;
// testdata/payloads/windsurf/). Cascade has one action per kind of tool
// call, each payload {agent_action_name, trajectory_id, execution_id,
// timestamp, tool_info: {…}}: pre_run_command {command_line, cwd},
// pre_write_code {file_path, edits}, pre_read_code {file_path},
// pre_mcp_tool_use {mcp_server_name, mcp_tool_name, mcp_tool_arguments}. The
// reply is the exit code: 2 blocks a pre-hook's action, 0 lets it run, 1 is
// a hook error and the action runs. There is no JSON decision and no ask.
//
// Only pre_run_command carries a cwd. For the other actions the cwd is the
// hook process's working directory (DecodeOptions.Dir) — where Cascade
// starts hooks is not documented — so that project-relative rules
// (.github/workflows/**) see a workspace; without one they cannot match.
type windsurfCodec struct{}

func (windsurfCodec) Name() string { return NameWindsurf }

// SupportsAsk is false: a Cascade pre-hook can only let the action run or
// block it.
func (windsurfCodec) SupportsAsk() bool { return false }

func (k windsurfCodec) Decode(payload []byte) (call.Call, error) {
	return k.decode(payload, DecodeOptions{})
}

// decode reads the four pre-hook actions; any other action (a prompt or a
// post-hook) is not a tool call and is an error, so a hook wired to one by
// mistake blocks instead of passing unseen.
func (windsurfCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	obj, err := parseObject(payload)
	if err != nil {
		return call.Call{}, err
	}
	action, err := obj.requireString("agent_action_name")
	if err != nil {
		return call.Call{}, err
	}
	info, err := obj.input("tool_info", inputObject)
	if err != nil {
		return call.Call{}, err
	}
	c := call.Call{
		Provider:  NameWindsurf,
		Event:     action,
		SessionID: obj.str("trajectory_id"),
		Cwd:       cleanCwd(firstNonEmpty(info.str("cwd"), o.Dir)),
		Tool:      action,
		Input:     info.raw,
	}
	pt := pather{cwd: c.Cwd, home: o.Home}
	switch action {
	case windsurfRunCommand:
		cmd, err := (object{fields: info.fields}).requireString("command_line")
		if err != nil {
			return call.Call{}, decodeErr(-1, "tool_info: %v", err)
		}
		c.Kind, c.Command, c.Shell = call.KindShell, cmd, "bash"
	case windsurfWriteCode, windsurfReadCode:
		p, err := (object{fields: info.fields}).requireString("file_path")
		if err != nil {
			return call.Call{}, decodeErr(-1, "tool_info: %v", err)
		}
		kind, op := call.KindWrite, call.OpWrite
		if action == windsurfReadCode {
			kind, op = call.KindRead, call.OpRead
		}
		c.Kind, c.Paths = kind, []call.Path{{Path: pt.abs(p), Op: op}}
	case windsurfMCPToolUse:
		io := object{fields: info.fields}
		server, err := io.requireString("mcp_server_name")
		if err != nil {
			return call.Call{}, decodeErr(-1, "tool_info: %v", err)
		}
		tool, err := io.requireString("mcp_tool_name")
		if err != nil {
			return call.Call{}, decodeErr(-1, "tool_info: %v", err)
		}
		args, err := io.input("mcp_tool_arguments", inputObjectOrJSONString)
		if err != nil {
			return call.Call{}, decodeErr(-1, "tool_info: %v", err)
		}
		c.Kind, c.MCPServer, c.MCPTool, c.Input = call.KindMCP, server, tool, args.raw
		otherPaths(&c, args, pt)
	default:
		return call.Call{}, decodeErr(-1, "agent_action_name %q is not a pre-tool action (want %s, %s, %s or %s)",
			action, windsurfRunCommand, windsurfWriteCode, windsurfReadCode, windsurfMCPToolUse)
	}
	return c, nil
}

// Encode: pass and allow → nothing, exit 0; deny, and ask (Cascade has
// none), → exit 2 with the reason on stderr (shown when the hook entry
// has show_output).
func (windsurfCodec) Encode(v call.Verdict) Reply { return exitCodeReply(v) }
