package protocol

import (
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// copilotCodec speaks GitHub Copilot CLI's preToolUse dialect (samples in
// testdata/payloads/copilot/). Copilot sends one of two payloads, chosen by
// how the event is spelled in its config: camelCase preToolUse {sessionId, cwd, toolName,
// toolArgs} with runtime tool names (bash, view, create, edit, …), or
// PascalCase PreToolUse {session_id, cwd, tool_name, tool_input} with the
// names mapped to Claude's. Decode accepts both.
type copilotCodec struct{}

func (copilotCodec) Name() string { return NameCopilot }

// SupportsAsk is true: ask opens Copilot's hook permission prompt
// (autopilot and the cloud agent turn it into deny themselves).
func (copilotCodec) SupportsAsk() bool { return true }

func (k copilotCodec) Decode(payload []byte) (call.Call, error) {
	return DecodeWith(k, payload, DecodeOptions{})
}

func (copilotCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	obj, err := parseObject(payload)
	if err != nil {
		return call.Call{}, err
	}
	toolKey, inputKey, event := "tool_name", "tool_input", obj.str("hook_event_name")
	if obj.has("toolName") || obj.has("toolArgs") || !obj.has("tool_name") && obj.has("sessionId") {
		toolKey, inputKey = "toolName", "toolArgs"
		if event == "" {
			event = "preToolUse"
		}
	}
	tool, err := obj.requireString(toolKey)
	if err != nil {
		return call.Call{}, err
	}
	// toolArgs is a JSON-encoded string in older docs and an object in
	// live captures: accept both, in either mode.
	in, err := obj.input(inputKey, inputObjectOrJSONString)
	if err != nil {
		return call.Call{}, err
	}
	c := call.Call{
		Provider:  NameCopilot,
		Event:     event,
		SessionID: firstNonEmpty(obj.str("sessionId"), obj.str("session_id")),
		Cwd:       cleanCwd(obj.str("cwd")),
		Tool:      tool,
		Input:     in.raw,
	}
	if server := obj.str("serverName"); server != "" {
		// preMcpToolCall (1.0.51): {serverName, toolName, arguments}.
		args, err := obj.input("arguments", inputObjectOrJSONString)
		if err != nil {
			return call.Call{}, err
		}
		c.Kind, c.MCPServer, c.MCPTool, c.Input = call.KindMCP, server, tool, args.raw
		otherPaths(&c, args, pather{cwd: c.Cwd, home: o.Home})
		if c.Event == "preToolUse" && obj.str("hook_event_name") == "" {
			c.Event = "preMcpToolCall"
		}
		return c, nil
	}
	classify(&c, in, pather{cwd: c.Cwd, home: o.Home})
	if c.Kind == call.KindOther {
		// Copilot names MCP tools <server>-<tool> (undocumented); no
		// built-in tool has a dash, so a dashed unknown name is taken as
		// MCP, split at the last dash (server names often have dashes).
		if i := strings.LastIndexByte(tool, '-'); i > 0 && i < len(tool)-1 {
			c.Kind, c.MCPServer, c.MCPTool = call.KindMCP, tool[:i], tool[i+1:]
		}
	}
	return c, nil
}

// copilotReply is Copilot's flat preToolUse reply.
type copilotReply struct {
	PermissionDecision       string `json:"permissionDecision"`
	PermissionDecisionReason string `json:"permissionDecisionReason,omitempty"`
}

// Encode: pass → nothing; allow/ask/deny → the flat permissionDecision
// object (a reason is always given for ask and deny). Exit 0.
func (copilotCodec) Encode(v call.Verdict) Reply {
	if v.Decision == call.Allow && len(v.UpdatedInput) > 0 {
		v = rewriteRefused(v) // no rewrite field here: never run the unedited call
	}
	d := decision(v.Decision)
	switch d {
	case call.Pass:
		return noReply()
	case call.Allow:
		return jsonReply(copilotReply{PermissionDecision: "allow", PermissionDecisionReason: v.Reason})
	}
	return jsonReply(copilotReply{PermissionDecision: d.String(), PermissionDecisionReason: reasonOr(v.Reason, d)})
}
