package protocol

import (
	"encoding/json"

	"github.com/toolguard/toolguard/internal/call"
)

// Cursor's permission-hook events.
const (
	cursorPreToolUse     = "preToolUse"
	cursorBeforeShell    = "beforeShellExecution"
	cursorBeforeMCP      = "beforeMCPExecution"
	cursorBeforeReadFile = "beforeReadFile"
)

// cursorCodec speaks Cursor's agent-hook dialect (testdata/payloads/cursor/). Unlike
// the other agents Cursor has one event per kind of action; each carries
// the action's own fields.
type cursorCodec struct{}

func (cursorCodec) Name() string { return NameCursor }

// SupportsAsk is true: permission "ask" is documented for shell and MCP
// hooks. beforeReadFile has no ask; EncodeFor turns it into deny.
func (cursorCodec) SupportsAsk() bool { return true }

func (k cursorCodec) Decode(payload []byte) (call.Call, error) {
	return DecodeWith(k, payload, DecodeOptions{})
}

func (cursorCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	obj, err := parseObject(payload)
	if err != nil {
		return call.Call{}, err
	}
	event := obj.str("hook_event_name")
	var root string
	if roots := obj.strings("workspace_roots"); len(roots) > 0 {
		root = cleanCwd(roots[0])
	}
	c := call.Call{
		Provider:   NameCursor,
		Event:      event,
		SessionID:  firstNonEmpty(obj.str("conversation_id"), obj.str("session_id")),
		Cwd:        cleanCwd(firstNonEmpty(obj.str("cwd"), root)),
		ProjectDir: root,
	}
	pt := pather{cwd: c.Cwd, home: o.Home}
	switch event {
	case cursorBeforeShell:
		cmd, err := obj.requireString("command")
		if err != nil {
			return call.Call{}, err
		}
		c.Tool, c.Kind, c.Command, c.Shell = event, call.KindShell, cmd, "bash"
		c.Input = mustObject(map[string]string{"command": cmd})
		return c, nil
	case cursorBeforeReadFile:
		p, err := obj.requireString("file_path")
		if err != nil {
			return call.Call{}, err
		}
		c.Tool, c.Kind = event, call.KindRead
		c.Paths = []call.Path{{Path: pt.abs(p), Op: call.OpRead}}
		c.Input = mustObject(map[string]string{"file_path": p})
		return c, nil
	}
	tool, err := obj.requireString("tool_name")
	if err != nil {
		return call.Call{}, err
	}
	in, err := obj.input("tool_input", inputObjectOrJSONString)
	if err != nil {
		return call.Call{}, err
	}
	c.Tool, c.Input = tool, in.raw
	if event == cursorBeforeMCP {
		// The server is identified by its url or launch command; "server"
		// (seen in some captures) names it when present.
		c.Kind, c.MCPTool = call.KindMCP, tool
		c.MCPServer = firstNonEmpty(obj.str("server"), obj.str("url"), obj.str("command"))
		otherPaths(&c, in, pt)
		return c, nil
	}
	classify(&c, in, pt)
	return c, nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// mustObject marshals a map of strings, which cannot fail.
func mustObject(m map[string]string) json.RawMessage {
	b, err := json.Marshal(m)
	if err != nil {
		return nil
	}
	return b
}

// cursorReply is Cursor's permission reply, snake_case only (a
// schema mismatch blocks, and current Cursor reads snake_case).
type cursorReply struct {
	Permission   string `json:"permission"`
	UserMessage  string `json:"user_message,omitempty"`
	AgentMessage string `json:"agent_message,omitempty"`
}

// Encode: pass and allow → {"permission":"allow"} (allow with the reason
// as messages); ask and deny → permission, user_message and agent_message
// (both the reason). Exit 0. A pass is printed, not left empty: install
// sets "failClosed": true, and Cursor then blocks on empty output
// (conformance.go), so every call toolguard lets through is an explicit
// allow.
func (cursorCodec) Encode(v call.Verdict) Reply {
	if v.Decision == call.Allow && len(v.UpdatedInput) > 0 {
		v = rewriteRefused(v) // no rewrite field here: never run the unedited call
	}
	d := decision(v.Decision)
	switch d {
	case call.Pass:
		return cursorAllowReply()
	case call.Allow:
		return jsonReply(cursorReply{Permission: "allow", UserMessage: v.Reason, AgentMessage: v.Reason})
	}
	r := reasonOr(v.Reason, d)
	return jsonReply(cursorReply{Permission: d.String(), UserMessage: r, AgentMessage: r})
}

// encodeCall narrows the reply for beforeReadFile, which honours only
// permission allow|deny: an ask becomes a deny, and no messages are sent.
func (k cursorCodec) encodeCall(cl call.Call, v call.Verdict) Reply {
	if cl.Event != cursorBeforeReadFile {
		return k.Encode(v)
	}
	switch decision(v.Decision) {
	case call.Pass, call.Allow:
		return cursorAllowReply()
	}
	return jsonReply(cursorReply{Permission: "deny"})
}

// cursorAllowReply is the bare allow: {"permission":"allow"}.
func cursorAllowReply() Reply { return jsonReply(cursorReply{Permission: "allow"}) }
