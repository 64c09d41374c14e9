package protocol

import "testing"

func TestDecodeTurnEvent(t *testing.T) {
	for _, c := range []struct {
		payload string
		name    string
		ok      bool
	}{
		{`{"session_id":"s","cwd":"/p","hook_event_name":"UserPromptSubmit","prompt":"x"}`, EventUserPromptSubmit, true},
		{`{"session_id":"s","hook_event_name":"SessionStart","source":"resume"}`, EventSessionStart, true},
		{`{"session_id":"s","hook_event_name":"BeforeAgent","prompt":"x"}`, EventBeforeAgent, true},
		{`{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo UserPromptSubmit"}}`, "", false},
		{`{"hook_event_name":["UserPromptSubmit"]}`, "", false},
		{`{"hook_event_name":"UserPromptSubmit"`, "", false},
		{``, "", false},
	} {
		ev, ok := DecodeTurnEvent([]byte(c.payload))
		if ok != c.ok || ev.Name != c.name {
			t.Errorf("%s: %v %q, want %v %q", c.payload, ok, ev.Name, c.ok, c.name)
		}
	}
	if r := EncodeTurnContext(TurnEvent{Name: EventSessionStart}, ""); len(r.Stdout) != 0 || r.ExitCode != 0 {
		t.Errorf("nothing to say: %q", r.Stdout)
	}
	r := EncodeTurnContext(TurnEvent{Name: EventSessionStart}, "a\nb")
	if got, want := string(r.Stdout), `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"a\nb"}}`+"\n"; got != want {
		t.Errorf("got %s want %s", got, want)
	}
}
