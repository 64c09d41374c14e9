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

func TestDecodeToolOutcome(t *testing.T) {
	post := TurnEvent{Name: EventPostToolUse}
	for _, c := range []struct {
		ev      TurnEvent
		payload string
		outcome string
		exit    int // -1: none
	}{
		{post, `{"tool_response":{"stdout":"ok","stderr":"","interrupted":false}}`, "success", -1},
		{post, `{"tool_response":{"stdout":"","interrupted":true}}`, "failure", -1},
		{post, `{"tool_response":{"exit_code":2}}`, "failure", 2},
		{post, `{"tool_response":{"exitCode":0}}`, "success", 0},
		{post, `{"tool_response":"Exit code: 0\nWall time: 1s\nOutput:\nok"}`, "success", 0},
		{post, `{"tool_response":"Exit code: 17"}`, "failure", 17},
		{post, `{"tool_response":"Exit code: x"}`, "ran", -1},
		{post, `{"tool_response":"done"}`, "ran", -1},
		{post, `{"tool_response":{"filePath":"/a","success":true}}`, "success", -1},
		{TurnEvent{Name: EventAfterTool}, `{"tool_response":{"llmContent":"x","error":"boom"}}`, "failure", -1},
		{TurnEvent{Name: EventAfterTool}, `{"tool_response":{"llmContent":"x","returnDisplay":"x"}}`, "ran", -1},
		{TurnEvent{Name: EventPostToolUseFailure}, `{"error":"x"}`, "failure", -1},
		{post, `not json`, "ran", -1},
	} {
		o := DecodeToolOutcome(c.ev, []byte(c.payload))
		exit := -1
		if o.ExitCode != nil {
			exit = *o.ExitCode
		}
		if o.Outcome != c.outcome || exit != c.exit {
			t.Errorf("%s: %s %d, want %s %d", c.payload, o.Outcome, exit, c.outcome, c.exit)
		}
	}
}
