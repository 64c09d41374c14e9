package protocol

import (
	"encoding/json"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// geminiCodec speaks Gemini CLI's BeforeTool dialect (testdata/payloads/gemini/).
type geminiCodec struct{}

func (geminiCodec) Name() string { return NameGemini }

// SupportsAsk is true: {"decision":"ask"} opens Gemini's confirmation
// dialog (in Gemini's code, undocumented).
func (geminiCodec) SupportsAsk() bool { return true }

func (k geminiCodec) Decode(payload []byte) (call.Call, error) {
	return DecodeWith(k, payload, DecodeOptions{})
}

func (geminiCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	c, obj, in, err := decodeSnake(NameGemini, payload, inputObject)
	if err != nil {
		return call.Call{}, err
	}
	if server, mtool, ok := geminiMCP(obj, c.Tool); ok {
		c.Kind, c.MCPServer, c.MCPTool = call.KindMCP, server, mtool
		otherPaths(&c, in, pather{cwd: c.Cwd, home: o.Home})
		return c, nil
	}
	classify(&c, in, pather{cwd: c.Cwd, home: o.Home})
	return c, nil
}

// geminiMCP finds the MCP server and tool of a Gemini call. mcp_context is
// authoritative (server names may contain underscores); without it the
// name is split: mcp_<server>_<tool> at the first underscore, the older
// <server>__<tool> at the first double underscore.
func geminiMCP(obj object, tool string) (server, mtool string, ok bool) {
	if ctx, found := obj.input("mcp_context", inputObject); found == nil && ctx.fields != nil {
		server, mtool = ctx.str("server_name"), ctx.str("tool_name")
		if server != "" {
			if mtool == "" {
				mtool = strings.TrimPrefix(strings.TrimPrefix(tool, "mcp_"+server+"_"), server+"__")
			}
			return server, mtool, true
		}
	}
	if server, mtool, ok := splitMCP(tool); ok {
		return server, mtool, true
	}
	if rest, found := strings.CutPrefix(tool, "mcp_"); found {
		if server, mtool, ok := strings.Cut(rest, "_"); ok && server != "" && mtool != "" {
			return server, mtool, true
		}
	}
	if _, known := tools[tool]; !known {
		if server, mtool, ok := strings.Cut(tool, "__"); ok && server != "" && mtool != "" {
			return server, mtool, true
		}
	}
	return "", "", false
}

// geminiReply is Gemini's BeforeTool reply.
type geminiReply struct {
	Decision      string `json:"decision"`
	Reason        string `json:"reason,omitempty"`
	SystemMessage string `json:"systemMessage,omitempty"`
	Continue      *bool  `json:"continue,omitempty"`
	StopReason    string `json:"stopReason,omitempty"`
	// HookSpecificOutput.ToolInput replaces the tool's arguments (an allow
	// with call.Verdict.UpdatedInput): Gemini passes it whole to the tool.
	HookSpecificOutput *geminiToolInput `json:"hookSpecificOutput,omitempty"`
}

type geminiToolInput struct {
	ToolInput json.RawMessage `json:"tool_input"`
}

// Encode: pass → nothing; allow → {"decision":"allow"} (it cannot skip
// Gemini's own approval); deny → decision and reason (the reason
// reaches the model as "Tool execution blocked: …"); ask → decision, reason
// and systemMessage (the dialog shows systemMessage). StopTurn on a deny
// adds "continue":false and "stopReason", which Gemini checks before the
// deny: the tool does not run either way and the agent loop stops. Always
// exit 0 — Gemini parses stdout JSON whatever the exit code.
func (geminiCodec) Encode(v call.Verdict) Reply {
	d := decision(v.Decision)
	switch d {
	case call.Pass:
		return noReply()
	case call.Allow:
		r := geminiReply{Decision: "allow"}
		if len(v.UpdatedInput) > 0 {
			r.HookSpecificOutput = &geminiToolInput{ToolInput: v.UpdatedInput}
		}
		return jsonReply(r)
	case call.Ask:
		r := reasonOr(v.Reason, d)
		return jsonReply(geminiReply{Decision: "ask", Reason: r, SystemMessage: r})
	}
	r := geminiReply{Decision: "deny", Reason: reasonOr(v.Reason, d)}
	if v.StopTurn {
		stop := false
		r.Continue, r.StopReason = &stop, stopReason(v)
	}
	return jsonReply(r)
}
