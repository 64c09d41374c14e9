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
	// documented keys are written, and a Pass is always no output and exit 0.
	Encode(v call.Verdict) Reply
	// SupportsAsk reports whether the agent has a usable "ask" reply. When it
	// has not, the caller turns ask into a headless deny (SPEC §6).
	SupportsAsk() bool
}

// Reply is what the hook process writes and how it exits.
type Reply struct {
	Stdout   []byte
	Stderr   []byte
	ExitCode int
}
