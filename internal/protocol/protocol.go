package protocol

import "github.com/toolguard/toolguard/internal/call"

// Codec speaks one agent's hook dialect.
type Codec interface {
	// Name is the provider name used with --provider (claude-code, codebuddy, …).
	Name() string
	// Decode turns a hook payload into a normalized Call. It is lenient:
	// unknown fields are ignored. A payload that is not a usable tool call
	// (not JSON, not an object, no tool name) is an error.
	Decode(payload []byte) (call.Call, error)
	// Encode turns a verdict into this agent's reply. It is strict: only
	// documented keys are written, and a Pass is no output and exit 0 —
	// except where the agent reads no output as a deny or blocks on it:
	// Antigravity's pass is {"decision":"ask"} (the agent's own permission
	// flow), Cursor's an explicit allow (failClosed blocks on no output).
	Encode(v call.Verdict) Reply
	// SupportsAsk reports whether the agent has a usable "ask" reply. When it
	// has not, the caller turns ask into a headless deny (docs/approvals.md).
	SupportsAsk() bool

	// decode is Decode with options. Every codec is of this package.
	decode(payload []byte, o DecodeOptions) (call.Call, error)
}

// Reply is what the hook process writes and how it exits.
type Reply struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}

// DecodeOptions carries what a codec needs from the environment to
// normalize a call. The protocol package reads no environment itself: the
// caller (cmd) fills these in.
type DecodeOptions struct {
	// Home is the user's home directory, used to expand "~" and "~/…" in
	// tool paths. Empty leaves such paths unexpanded.
	Home string
	// Dir is the hook process's working directory, the cwd of calls whose
	// payload names none (Windsurf Cascade's file and MCP actions). Empty
	// leaves such calls without a cwd, and so without a workspace.
	Dir string
}

// DecodeWith decodes payload with c, using o to normalize paths.
// c.Decode(payload) is DecodeWith(c, payload, DecodeOptions{}). Every
// decode ends here: an MCP call's input paths are added once the codec
// has classified it (AddMCPPaths), and a tool call lacking what its class
// needs (a command, a path) is a DecodeError (requireInput).
func DecodeWith(c Codec, payload []byte, o DecodeOptions) (call.Call, error) {
	cl, err := c.decode(payload, o)
	if err != nil {
		return cl, err
	}
	if err := requireInput(cl); err != nil {
		return call.Call{}, err
	}
	AddMCPPaths(&cl)
	return cl, nil
}

// EncodeFor encodes v as the reply to the decoded call cl. Prefer it to
// c.Encode when the call is known: a few events take a narrower reply
// (Cursor's). For every other codec and event it is c.Encode(v).
func EncodeFor(c Codec, cl call.Call, v call.Verdict) Reply {
	if v.Decision == call.Allow && len(v.UpdatedInput) > 0 && !carriesRewrite(c) {
		v = rewriteRefused(v) // no rewrite field in this dialect: never run the unedited call
	}
	// Only Cursor's reply depends on the call (beforeReadFile accepts only
	// a bare permission). Checked by concrete type, not by an interface
	// the codec may implement, which the hook process would have to look
	// up (build an itab) at run time.
	if k, ok := c.(cursorCodec); ok {
		return k.encodeCall(cl, v)
	}
	return c.Encode(v)
}

// carriesRewrite reports whether c's Encode writes call.Verdict.UpdatedInput.
func carriesRewrite(c Codec) bool {
	if c == nil {
		return false
	}
	switch c.Name() {
	case NameClaude, NameCodeBuddy, NameGemini:
		return true
	}
	return false
}

// AskReachesHuman reports whether an ask reply for this call would reach a
// human who can answer it: the table's interactive route for the agent is
// a native ask (conformance.go). It is false for agents without ask
// (Codex, the universal reply), and for CodeBuddy running with its own
// prompts off (permission_mode bypassPermissions or dontAsk): CodeBuddy
// 2.117 then runs the tool although the hook said ask (seen by the
// end-to-end suite), and in its default headless mode an ask hangs. The
// caller treats such an ask as headless: a deny with a pending approval.
func AskReachesHuman(c Codec, cl call.Call) bool {
	return DefaultAskRoute(c, cl, false) == AskNative
}
