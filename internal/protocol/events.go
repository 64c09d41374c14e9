package protocol

import (
	"bytes"
	"encoding/json"
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

// DecodeTurnEvent reports whether payload is a turn event and decodes it.
// A payload that does not name one of the turn events in hook_event_name
// (every tool call) gives false; the check is a byte search before any
// decoding, so a tool call's payload is not decoded twice.
func DecodeTurnEvent(payload []byte) (TurnEvent, bool) {
	if !bytes.Contains(payload, []byte(EventUserPromptSubmit)) && !bytes.Contains(payload, []byte(EventSessionStart)) &&
		!bytes.Contains(payload, []byte(EventBeforeAgent)) {
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
	case EventUserPromptSubmit, EventSessionStart, EventBeforeAgent:
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
