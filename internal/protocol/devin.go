package protocol

import (
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// NameDevin is Devin CLI (Devin for Terminal).
const NameDevin = "devin"

// devinCodec speaks Devin CLI's PreToolUse dialect FROM ITS DOCUMENTATION,
// NOT PROVEN WITH THE REAL CLIENT (docs.devin.ai/cli/extensibility/hooks;
// testdata/payloads/devin/). Devin calls its format "compatible with Claude
// Code hooks"; the documented stdin is {tool_name, tool_input} with tool
// names exec ({command, shell_id}), edit, mcp__<server>__<tool>, and the
// reply is {"decision": approve|block|deny, "reason"} (the reason is shown
// to the agent), or exit 2, which blocks; other non-zero exit codes are
// logged and do not block. There is no ask. Detect never picks it: the
// payload is Claude's shape, so the hook needs --provider devin.
type devinCodec struct{}

func (devinCodec) Name() string { return NameDevin }

// SupportsAsk is false: Devin's PreToolUse reply has no ask.
func (devinCodec) SupportsAsk() bool { return false }

func (k devinCodec) Decode(payload []byte) (call.Call, error) {
	return k.decode(payload, DecodeOptions{})
}

func (devinCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	c, obj, in, err := decodeSnake(NameDevin, payload, inputObjectOrJSONString)
	if err != nil {
		return call.Call{}, err
	}
	if c.Cwd == "" {
		c.Cwd = cleanCwd(o.Dir) // the documented stdin names no cwd
	}
	c.PermissionMode = obj.str("permission_mode")
	pt := pather{cwd: c.Cwd, home: o.Home}
	switch strings.ToLower(c.Tool) {
	case "exec":
		shellTool("bash")(&c, in, pt)
		return c, nil
	case "edit":
		// Its input keys are not documented: the common path keys, or a patch.
		editTool(&c, in, pt)
		if len(c.Paths) == 0 {
			otherPaths(&c, in, pt)
		}
		return c, nil
	}
	classify(&c, in, pt) // mcp__server__tool, Claude's names, unknown tools
	return c, nil
}

// devinReply is Devin's documented hook output.
type devinReply struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// Encode: pass → nothing, exit 0; allow → {"decision":"approve"}, exit 0;
// deny, and ask (Devin has none), → {"decision":"block","reason":R} on
// stdout, R on stderr, exit 2: the exit code blocks in either reading of
// the documentation (JSON read or not on exit 2), and the reason is where
// Devin may read it.
func (devinCodec) Encode(v call.Verdict) Reply {
	d := decision(v.Decision)
	switch d {
	case call.Pass:
		return noReply()
	case call.Allow:
		return jsonReply(devinReply{Decision: "approve", Reason: v.Reason})
	}
	r := reasonOr(v.Reason, d)
	out := jsonReply(devinReply{Decision: "block", Reason: r})
	if out.ExitCode != 0 {
		return out
	}
	out.Stderr, out.ExitCode = []byte(r+"\n"), 2
	return out
}
