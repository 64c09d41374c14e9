package protocol

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Turn events: the agents' prompt and session events, which carry no tool
// call. toolguard answers them with context for the model (decisions of
// approval requests made since the last turn). Names as each agent sends
// them in hook_event_name:
//
//   - UserPromptSubmit: Claude Code, CodeBuddy, Codex (a new turn starts);
//   - SessionStart: Claude Code, CodeBuddy, Codex, Gemini CLI (startup,
//     resume, clear);
//   - BeforeAgent: Gemini CLI (after the prompt, before planning).
//
// All of them take {"hookSpecificOutput":{"hookEventName":E,
// "additionalContext":T}} on stdout with exit 0 (Claude Code: hookEventName
// is required and must equal the event; Codex: the schemas of both events
// allow exactly these keys; Gemini CLI: additionalContext is appended to
// the prompt, or for SessionStart put first in the history).
const (
	EventUserPromptSubmit = "UserPromptSubmit"
	EventSessionStart     = "SessionStart"
	EventBeforeAgent      = "BeforeAgent"
)

// TurnEvent is a decoded prompt or session event.
type TurnEvent struct {
	Name      string // hook_event_name: one of the Event constants
	SessionID string
	Cwd       string
	Source    string // SessionStart: startup, resume, clear, compact
}

// DecodeTurnEvent reports whether payload is a turn event, or a tool
// result event (IsResultEvent), and decodes its common fields.
// A payload that does not name one of the turn events in hook_event_name
// (every tool call) gives false; the check is a byte search before any
// decoding, so a tool call's payload is not decoded twice.
func DecodeTurnEvent(payload []byte) (TurnEvent, bool) {
	if !bytes.Contains(payload, []byte(EventUserPromptSubmit)) && !bytes.Contains(payload, []byte(EventSessionStart)) &&
		!bytes.Contains(payload, []byte(EventBeforeAgent)) && !bytes.Contains(payload, []byte(EventPostToolUse)) &&
		!bytes.Contains(payload, []byte(EventAfterTool)) {
		return TurnEvent{}, false
	}
	var p struct {
		Event     any `json:"hook_event_name"`
		SessionID any `json:"session_id"`
		Cwd       any `json:"cwd"`
		Source    any `json:"source"`
	}
	if json.Unmarshal(payload, &p) != nil {
		return TurnEvent{}, false
	}
	s := func(v any) string { t, _ := v.(string); return t }
	ev := TurnEvent{Name: s(p.Event), SessionID: s(p.SessionID), Cwd: s(p.Cwd), Source: s(p.Source)}
	switch ev.Name {
	case EventUserPromptSubmit, EventSessionStart, EventBeforeAgent,
		EventPostToolUse, EventPostToolUseFailure, EventAfterTool:
		return ev, true
	}
	return TurnEvent{}, false
}

// EncodeTurnContext is the reply to ev that adds text to the model's
// context: empty stdout when there is nothing to add (every agent reads
// that as no change), exit 0 either way.
func EncodeTurnContext(ev TurnEvent, text string) Reply {
	if text == "" {
		return Reply{}
	}
	type specific struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	}
	b, err := json.Marshal(struct {
		HookSpecificOutput specific `json:"hookSpecificOutput"`
	}{specific{ev.Name, text}})
	if err != nil {
		return Reply{}
	}
	return Reply{Stdout: append(b, '\n')}
}

// Tool result events: after a tool ran. toolguard records the outcome on
// the approval request whose grant allowed the call (issue 17 item 9).
const (
	EventPostToolUse        = "PostToolUse"        // Claude Code, CodeBuddy, Codex
	EventPostToolUseFailure = "PostToolUseFailure" // Claude Code: the tool failed
	EventAfterTool          = "AfterTool"          // Gemini CLI
)

// IsResultEvent reports whether name is a tool result event.
func IsResultEvent(name string) bool {
	return name == EventPostToolUse || name == EventPostToolUseFailure || name == EventAfterTool
}

// ToolOutcome is what a tool result event says of the run.
type ToolOutcome struct {
	Outcome  string // "success", "failure", or "ran" when the payload does not say
	ExitCode *int   // when the payload gives one
}

// DecodeToolOutcome reads the outcome of a tool result event: the
// Failure event is a failure; a tool_response object's exit_code or
// exitCode (0 is success), success (bool), a non-empty error, or
// interrupted: true; a string response that starts "Exit code: N" (Codex's
// shell output). Anything else ran with an unknown outcome.
func DecodeToolOutcome(ev TurnEvent, payload []byte) ToolOutcome {
	out := ToolOutcome{Outcome: "ran"}
	if ev.Name == EventPostToolUseFailure {
		out.Outcome = "failure"
	}
	var p struct {
		Response json.RawMessage `json:"tool_response"`
	}
	if json.Unmarshal(payload, &p) != nil || len(p.Response) == 0 {
		return out
	}
	exit := func(n float64) {
		if n == float64(int(n)) {
			c := int(n)
			out.ExitCode = &c
			if c == 0 {
				out.Outcome = "success"
			} else {
				out.Outcome = "failure"
			}
		}
	}
	var s string
	if json.Unmarshal(p.Response, &s) == nil {
		if rest, ok := strings.CutPrefix(s, "Exit code: "); ok {
			end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
			if end < 0 {
				end = len(rest)
			}
			if n, err := strconv.Atoi(rest[:end]); err == nil && end > 0 {
				exit(float64(n))
			}
		}
		return out
	}
	var m map[string]any
	if json.Unmarshal(p.Response, &m) != nil {
		return out
	}
	for _, k := range []string{"exit_code", "exitCode"} {
		if n, ok := m[k].(float64); ok {
			exit(n)
			return out
		}
	}
	if b, ok := m["success"].(bool); ok {
		out.Outcome = map[bool]string{true: "success", false: "failure"}[b]
	}
	if e, ok := m["error"]; ok && e != nil && e != "" {
		out.Outcome = "failure"
	}
	if b, _ := m["interrupted"].(bool); b {
		out.Outcome = "failure"
	}
	if out.Outcome == "ran" && ev.Name != EventPostToolUseFailure {
		if _, ok := m["stdout"]; ok {
			out.Outcome = "success" // Claude's Bash result without an error
		}
	}
	return out
}
