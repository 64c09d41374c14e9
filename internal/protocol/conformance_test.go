package protocol

import (
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// TestDefaultAskRoute: the table's routes, CodeBuddy's prompts-off modes,
// and codecs without a row (the universal reply).
func TestDefaultAskRoute(t *testing.T) {
	cases := []struct {
		provider, permMode string
		headless           bool
		want               AskRoute
	}{
		{NameClaude, "default", false, AskNative},
		{NameClaude, "bypassPermissions", false, AskNative},
		{NameClaude, "default", true, AskDenyRequest},
		{NameCodeBuddy, "default", false, AskNative},
		{NameCodeBuddy, "bypassPermissions", false, AskDenyRequest},
		{NameCodeBuddy, "dontAsk", false, AskDenyRequest},
		{NameCodex, "default", false, AskDenyRequest},
		{NameCodex, "default", true, AskDenyRequest},
		{NameGemini, "", false, AskNative},
		{NameGemini, "", true, AskDenyEndTurn},
		{NameCursor, "", false, AskNative},
		{NameCopilot, "", true, AskDenyRequest},
		{NameUniversal, "", false, AskDenyRequest},
	}
	for _, tc := range cases {
		c, err := Lookup(tc.provider)
		if err != nil {
			t.Fatal(err)
		}
		if got := DefaultAskRoute(c, call.Call{PermissionMode: tc.permMode}, tc.headless); got != tc.want {
			t.Errorf("%s %q headless=%v: %s, want %s", tc.provider, tc.permMode, tc.headless, got, tc.want)
		}
	}
	if DefaultAskRoute(nil, call.Call{}, false) != AskNative || DefaultAskRoute(nil, call.Call{}, true) != AskDenyRequest {
		t.Errorf("nil codec")
	}
}

// TestConformanceTable: every row names a codec, offers its default route,
// and every measured fact names its probe; defer is offered only for Claude
// Code in headless mode.
func TestConformanceTable(t *testing.T) {
	for _, r := range Table() {
		if _, err := Lookup(r.Provider); err != nil {
			t.Errorf("row %s: %v", r.Provider, err)
		}
		for _, m := range []struct {
			name string
			m    Mode
		}{{"interactive", r.Interactive}, {"headless", r.Headless}} {
			if !m.m.Offers(AskRoute(m.m.Ask.Value)) {
				t.Errorf("%s %s: the default %q is not among the choices %v", r.Provider, m.name, m.m.Ask.Value, m.m.Choices)
			}
			if m.m.Offers(AskDefer) && (r.Provider != NameClaude || m.name != "headless") {
				t.Errorf("%s %s offers defer", r.Provider, m.name)
			}
		}
		if r.Headless.Ask.Value == string(AskNative) {
			t.Errorf("%s: a native ask in headless mode reaches no one", r.Provider)
		}
		if len(r.Measured) == 0 {
			for _, f := range []Fact{r.Exit1, r.Crash, r.Timeout, r.Headless.Ask} {
				if f.Measured() {
					t.Errorf("%s: a measured fact (%s) but no measured versions", r.Provider, f.Source)
				}
			}
		}
	}
	if !TurnEnds(NameGemini) || TurnEnds(NameClaude) || SessionStartReachesModel(NameCodeBuddy) || !SessionStartReachesModel(NameClaude) {
		t.Errorf("TurnEnds / SessionStartReachesModel disagree with the table")
	}
}

// TestEncodeDefer: a held deny marked Defer is Claude Code's defer, with
// the reason and without continue:false; every other dialect sends the
// deny (CodeBuddy shares Claude's codec and has no defer).
func TestEncodeDefer(t *testing.T) {
	v := call.Verdict{Decision: call.Deny, Reason: "R", Defer: true}
	cases := map[string]string{
		NameClaude:    `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"R"}}` + "\n",
		NameCodeBuddy: `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}` + "\n",
		NameGemini:    `{"decision":"deny","reason":"R"}` + "\n",
	}
	for name, want := range cases {
		c, _ := Lookup(name)
		if got := c.Encode(v); string(got.Stdout) != want || got.ExitCode != 0 {
			t.Errorf("%s: %q exit %d, want %q", name, got.Stdout, got.ExitCode, want)
		}
	}
	// Defer on anything but a deny changes nothing
	c, _ := Lookup(NameClaude)
	if got := c.Encode(call.Verdict{Decision: call.Allow, Defer: true}); string(got.Stdout) != `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}`+"\n" {
		t.Errorf("allow with Defer: %q", got.Stdout)
	}
}
