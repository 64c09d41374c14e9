// Package call holds the provider-neutral types that every part of toolguard
// shares: the normalized tool Call a codec decodes from an agent's hook
// payload, the Decision a policy reaches, and the Verdict a codec encodes
// back into the agent's dialect.
//
// It depends on nothing but the standard library so that the protocol codecs
// stay free of policy and shell-parsing code.
package call

import (
	"encoding/json"
	"fmt"
)

// Kind is the provider-neutral class of a tool call.
type Kind int

const (
	KindOther Kind = iota
	KindShell
	KindWrite
	KindEdit
	KindRead
	KindSearch
	KindWeb
	KindMCP
	KindAgent
)

var kindNames = [...]string{
	KindOther:  "other",
	KindShell:  "shell",
	KindWrite:  "write",
	KindEdit:   "edit",
	KindRead:   "read",
	KindSearch: "search",
	KindWeb:    "web",
	KindMCP:    "mcp",
	KindAgent:  "agent",
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind returns the Kind named s.
func ParseKind(s string) (Kind, bool) {
	for i, n := range kindNames {
		if n == s {
			return Kind(i), true
		}
	}
	return KindOther, false
}

// Kinds lists every kind name, in declaration order.
func Kinds() []string { return kindNames[:] }

// Decision is the outcome for a call or one of its targets. The numeric order
// is the order of strictness: Pass < Allow < Ask < Deny.
type Decision int

const (
	Pass Decision = iota // no opinion: print nothing, the agent's own flow decides
	Allow
	Ask
	Deny
)

var decisionNames = [...]string{Pass: "pass", Allow: "allow", Ask: "ask", Deny: "deny"}

func (d Decision) String() string {
	if d >= 0 && int(d) < len(decisionNames) {
		return decisionNames[d]
	}
	return fmt.Sprintf("Decision(%d)", int(d))
}

// ParseDecision returns the Decision named s ("pass", "allow", "ask", "deny").
func ParseDecision(s string) (Decision, bool) {
	for i, n := range decisionNames {
		if n == s {
			return Decision(i), true
		}
	}
	return Pass, false
}

func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

func (d *Decision) UnmarshalText(b []byte) error {
	v, ok := ParseDecision(string(b))
	if !ok {
		return fmt.Errorf("unknown decision %q (want pass, allow, ask or deny)", b)
	}
	*d = v
	return nil
}

func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a Kind as MarshalText writes it (the call a remote
// approval request carries, internal/remote).
func (k *Kind) UnmarshalText(b []byte) error {
	v, ok := ParseKind(string(b))
	if !ok {
		return fmt.Errorf("unknown call kind %q", b)
	}
	*k = v
	return nil
}

// Op is what a call does to a path.
type Op int

const (
	OpWrite Op = iota // create or modify
	OpDelete
	OpRead
	// OpCreate is a write that cannot change what an existing file holds:
	// it makes a file that is not there, or changes only its times (touch,
	// cp -n, a cp run only when the target is absent: [ -f .env ] || cp
	// .env.example .env). A rule's op "write" matches it as well; "modify"
	// matches OpWrite alone, for rules about a file's content (secrets).
	OpCreate
)

var opNames = [...]string{OpWrite: "write", OpDelete: "delete", OpRead: "read", OpCreate: "create"}

// Writes reports an op that writes: OpWrite or OpCreate.
func (o Op) Writes() bool { return o == OpWrite || o == OpCreate }

func (o Op) String() string {
	if o >= 0 && int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

// ParseOp returns the Op named s ("write", "delete", "read", "create").
func ParseOp(s string) (Op, bool) {
	for i, n := range opNames {
		if n == s {
			return Op(i), true
		}
	}
	return OpWrite, false
}

func (o Op) MarshalText() ([]byte, error) { return []byte(o.String()), nil }

// UnmarshalText reads an Op as MarshalText writes it.
func (o *Op) UnmarshalText(b []byte) error {
	v, ok := ParseOp(string(b))
	if !ok {
		return fmt.Errorf("unknown path op %q (want write, delete or read)", b)
	}
	*o = v
	return nil
}

// Path is one path a file tool names, with what the tool does to it.
type Path struct {
	Path string `json:"path"` // absolute and cleaned when the call's cwd is known
	Op   Op     `json:"op"`
}

// Call is one tool call, normalized from any agent's hook payload.
type Call struct {
	Provider  string `json:"provider"`   // codec name: claude-code, codebuddy, codex, gemini, cursor, copilot
	Event     string `json:"event"`      // the hook event as the agent named it (PreToolUse, BeforeTool, …)
	SessionID string `json:"session_id"` // empty when the agent gives none
	Cwd       string `json:"cwd"`
	Tool      string `json:"tool"` // the tool name as the agent sent it
	Kind      Kind   `json:"kind"`

	// PermissionMode is the agent's permission mode as the payload reports it
	// (default, plan, acceptEdits, auto, dontAsk, bypassPermissions); empty if none.
	PermissionMode string `json:"permission_mode,omitempty"`
	// ProjectDir is the agent's project directory where the payload names one
	// (Cursor's first workspace root); empty otherwise.
	ProjectDir string `json:"project_dir,omitempty"`

	Command string `json:"command,omitempty"` // KindShell: the shell string
	Shell   string `json:"shell,omitempty"`   // KindShell: "bash" or "powershell"

	Paths []Path `json:"paths,omitempty"` // file kinds: every path the call names

	// Patterns holds glob patterns of search tools (Glob, Grep include), as given.
	Patterns []string `json:"patterns,omitempty"`

	MCPServer string `json:"mcp_server,omitempty"` // KindMCP
	MCPTool   string `json:"mcp_tool,omitempty"`   // KindMCP

	URL string `json:"url,omitempty"` // KindWeb: the URL fetched, if any

	// Input is the tool's raw JSON input object, kept for argument matchers.
	Input json.RawMessage `json:"input,omitempty"`
}

// Verdict is what toolguard answers for one call. A codec turns it into the
// reply bytes and exit code of its agent.
type Verdict struct {
	Decision Decision
	// Reason is addressed to the model: which rule, and what to do instead.
	// Empty for Pass and Allow.
	Reason string
	// StopTurn asks the agent, where it supports it, to end the turn after
	// this call (headless mode: a human must act before the agent goes on).
	StopTurn bool
	// StopReason is shown to the user when the turn is stopped.
	StopReason string
	// UpdatedInput, on an Allow, is the complete tool input the agent must
	// run instead of the one it sent (approvals approve --edit). Only a
	// codec that can carry it (protocol.Rewrites) writes it; every other
	// codec turns such an allow into a deny, so the unedited call never
	// runs by mistake.
	UpdatedInput json.RawMessage
	// Defer, on a Deny that holds the call for a human, asks an agent that
	// can park a call (Claude Code's permissionDecision "defer", -p only)
	// to do so instead; every other codec sends the deny.
	Defer bool
}
