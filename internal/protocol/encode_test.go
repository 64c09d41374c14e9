package protocol

import (
	"os"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

var (
	vPass  = call.Verdict{Decision: call.Pass}
	vAllow = call.Verdict{Decision: call.Allow}
	vAsk   = call.Verdict{Decision: call.Ask, Reason: "R"}
	vDeny  = call.Verdict{Decision: call.Deny, Reason: "R"}
	vStop  = call.Verdict{Decision: call.Deny, Reason: "R", StopTurn: true, StopReason: "S"}
	// vStopNoReason stops with no StopReason: the deny reason is shown.
	vStopNoReason = call.Verdict{Decision: call.Deny, Reason: "R", StopTurn: true}
	vAskStop      = call.Verdict{Decision: call.Ask, Reason: "R", StopTurn: true, StopReason: "S"}
	vDenyEmpty    = call.Verdict{Decision: call.Deny}
	vAskEmpty     = call.Verdict{Decision: call.Ask, Reason: "  "}
	vAllowReason  = call.Verdict{Decision: call.Allow, Reason: "A"}
	vBogus        = call.Verdict{Decision: call.Decision(9), Reason: "R"}
	vHTML         = call.Verdict{Decision: call.Deny, Reason: `a && b <c> "q" é`}
)

const (
	claudeDeny  = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}` + "\n"
	claudeAsk   = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"R"}}` + "\n"
	claudeAllow = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}` + "\n"
	claudeStop  = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"},"continue":false,"stopReason":"S"}` + "\n"
	claudeStopR = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"},"continue":false,"stopReason":"R"}` + "\n"
	claudeDenyD = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"toolguard: blocked by policy"}}` + "\n"
	claudeAskD  = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"toolguard: this call needs the user's approval"}}` + "\n"
	claudeAllwR = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"A"}}` + "\n"
	claudeHTML  = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"a && b <c> \"q\" é"}}` + "\n"
	codexAskD   = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"toolguard: this call needs the user's approval"}}` + "\n"
	universal   = `{"decision":"block","reason":"R","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}` + "\n"
	universalD  = `{"decision":"block","reason":"toolguard: blocked by policy","hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"toolguard: blocked by policy"}}` + "\n"
	geminiDeny  = `{"decision":"deny","reason":"R"}` + "\n"
	geminiAsk   = `{"decision":"ask","reason":"R","systemMessage":"R"}` + "\n"
	geminiAllow = `{"decision":"allow"}` + "\n"
	geminiStop  = `{"decision":"deny","reason":"R","continue":false,"stopReason":"S"}` + "\n"
	geminiStopR = `{"decision":"deny","reason":"R","continue":false,"stopReason":"R"}` + "\n"
	geminiDenyD = `{"decision":"deny","reason":"toolguard: blocked by policy"}` + "\n"
	cursorDeny  = `{"permission":"deny","user_message":"R","agent_message":"R"}` + "\n"
	cursorAsk   = `{"permission":"ask","user_message":"R","agent_message":"R"}` + "\n"
	cursorAllow = `{"permission":"allow"}` + "\n"
	cursorAllwR = `{"permission":"allow","user_message":"A","agent_message":"A"}` + "\n"
	cursorDenyD = `{"permission":"deny","user_message":"toolguard: blocked by policy","agent_message":"toolguard: blocked by policy"}` + "\n"
	copilotDeny = `{"permissionDecision":"deny","permissionDecisionReason":"R"}` + "\n"
	copilotAsk  = `{"permissionDecision":"ask","permissionDecisionReason":"R"}` + "\n"
	copilotAllw = `{"permissionDecision":"allow"}` + "\n"
	copilotAlwR = `{"permissionDecision":"allow","permissionDecisionReason":"A"}` + "\n"
	copilotDnyD = `{"permissionDecision":"deny","permissionDecisionReason":"toolguard: blocked by policy"}` + "\n"
)

func TestEncode(t *testing.T) {
	t.Parallel()
	type row struct {
		name string
		v    call.Verdict
		want string // stdout; exit code is always 0 and stderr empty
	}
	claudeRows := []row{
		{"pass", vPass, ""},
		{"allow", vAllow, claudeAllow},
		{"allow with reason", vAllowReason, claudeAllwR},
		{"ask", vAsk, claudeAsk},
		{"deny", vDeny, claudeDeny},
		{"stop turn", vStop, claudeStop},
		{"stop turn without stop reason", vStopNoReason, claudeStopR},
		{"ask ignores stop turn", vAskStop, claudeAsk},
		{"deny without reason", vDenyEmpty, claudeDenyD},
		{"ask with blank reason", vAskEmpty, claudeAskD},
		{"out-of-range decision is deny", vBogus, claudeDeny},
		{"html not escaped", vHTML, claudeHTML},
	}
	table := map[string][]row{
		NameClaude:    claudeRows,
		NameCodeBuddy: claudeRows,
		NameCodex: {
			{"pass", vPass, ""},
			{"allow is silent", vAllow, ""},
			{"allow with reason is silent", vAllowReason, ""},
			{"ask is deny", vAsk, claudeDeny},
			{"deny", vDeny, claudeDeny},
			{"stop turn is a plain deny", vStop, claudeDeny},
			{"deny without reason", vDenyEmpty, claudeDenyD},
			{"ask with blank reason", vAskEmpty, codexAskD},
			{"out-of-range decision is deny", vBogus, claudeDeny},
		},
		NameGemini: {
			{"pass", vPass, ""},
			{"allow", vAllow, geminiAllow},
			{"allow with reason", vAllowReason, geminiAllow},
			{"ask", vAsk, geminiAsk},
			{"deny", vDeny, geminiDeny},
			{"stop turn", vStop, geminiStop},
			{"stop turn without stop reason", vStopNoReason, geminiStopR},
			{"ask ignores stop turn", vAskStop, geminiAsk},
			{"deny without reason", vDenyEmpty, geminiDenyD},
			{"out-of-range decision is deny", vBogus, geminiDeny},
		},
		NameCursor: {
			// failClosed (install) blocks on empty output: a pass is printed as an allow
			{"pass", vPass, cursorAllow},
			{"allow", vAllow, cursorAllow},
			{"allow with reason", vAllowReason, cursorAllwR},
			{"ask", vAsk, cursorAsk},
			{"deny", vDeny, cursorDeny},
			{"stop turn is a plain deny", vStop, cursorDeny},
			{"deny without reason", vDenyEmpty, cursorDenyD},
			{"out-of-range decision is deny", vBogus, cursorDeny},
		},
		NameCopilot: {
			{"pass", vPass, ""},
			{"allow", vAllow, copilotAllw},
			{"allow with reason", vAllowReason, copilotAlwR},
			{"ask", vAsk, copilotAsk},
			{"deny", vDeny, copilotDeny},
			{"stop turn is a plain deny", vStop, copilotDeny},
			{"deny without reason", vDenyEmpty, copilotDnyD},
			{"out-of-range decision is deny", vBogus, copilotDeny},
		},
		NameUniversal: {
			{"pass", vPass, ""},
			{"allow is silent", vAllow, ""},
			{"ask is deny", vAsk, universal},
			{"deny", vDeny, universal},
			{"stop turn is a plain deny", vStop, universal},
			{"deny without reason", vDenyEmpty, universalD},
			{"out-of-range decision is deny", vBogus, universal},
		},
	}
	for codec, rows := range table {
		c := mustLookup(t, codec)
		for _, tc := range rows {
			t.Run(codec+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				got := c.Encode(tc.v)
				if string(got.Stdout) != tc.want {
					t.Errorf("stdout\n got %q\nwant %q", got.Stdout, tc.want)
				}
				if got.ExitCode != 0 || len(got.Stderr) != 0 {
					t.Errorf("exit %d stderr %q, want 0 and none", got.ExitCode, got.Stderr)
				}
				// EncodeFor without a special event is Encode.
				if g := EncodeFor(c, call.Call{Event: "PreToolUse"}, tc.v); string(g.Stdout) != tc.want {
					t.Errorf("EncodeFor stdout %q, want %q", g.Stdout, tc.want)
				}
			})
		}
	}
}

// TestEncodeMatchesReference checks replies against the ones observed to
// work with the real CLIs (testdata/upstream/e2e-reference/hooks, copied
// from the reference end-to-end runs).
func TestEncodeMatchesReference(t *testing.T) {
	t.Parallel()
	const dir = "../../testdata/upstream/e2e-reference/hooks/"
	cases := []struct {
		file, codec string
		v           call.Verdict
	}{
		{"universal-deny.json", NameUniversal, call.Verdict{Decision: call.Deny, Reason: "blocked by test"}},
		{"claude-deny.json", NameClaude, call.Verdict{Decision: call.Deny, Reason: "blocked by test"}},
		{"claude-ask.json", NameClaude, call.Verdict{Decision: call.Ask, Reason: "asked by test"}},
		{"claude-allow.json", NameClaude, call.Verdict{Decision: call.Allow, Reason: "allowed by test"}},
		{"claude-deny.json", NameCodex, call.Verdict{Decision: call.Deny, Reason: "blocked by test"}},
		{"gemini-deny.json", NameGemini, call.Verdict{Decision: call.Deny, Reason: "blocked by test"}},
	}
	for _, tc := range cases {
		t.Run(tc.codec+"/"+tc.file, func(t *testing.T) {
			t.Parallel()
			want, err := os.ReadFile(dir + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got := mustLookup(t, tc.codec).Encode(tc.v).Stdout
			if strings.TrimSpace(string(got)) != strings.TrimSpace(string(want)) {
				t.Errorf("got  %s\nwant %s", got, want)
			}
		})
	}
}

func TestEncodeCursorBeforeReadFile(t *testing.T) {
	t.Parallel()
	c := mustLookup(t, NameCursor)
	cl := call.Call{Provider: NameCursor, Event: "beforeReadFile"}
	cases := []struct {
		v    call.Verdict
		want string
	}{
		{vPass, `{"permission":"allow"}` + "\n"}, // failClosed: never empty
		{vAllow, `{"permission":"allow"}` + "\n"},
		{vAllowReason, `{"permission":"allow"}` + "\n"},
		{vAsk, `{"permission":"deny"}` + "\n"},
		{vDeny, `{"permission":"deny"}` + "\n"},
		{vStop, `{"permission":"deny"}` + "\n"},
		{vBogus, `{"permission":"deny"}` + "\n"},
	}
	for _, tc := range cases {
		t.Run(tc.v.Decision.String(), func(t *testing.T) {
			t.Parallel()
			got := EncodeFor(c, cl, tc.v)
			if string(got.Stdout) != tc.want || got.ExitCode != 0 {
				t.Errorf("got %q exit %d, want %q exit 0", got.Stdout, got.ExitCode, tc.want)
			}
		})
	}
}

func TestSupportsAsk(t *testing.T) {
	t.Parallel()
	want := map[string]bool{NameClaude: true, NameCodeBuddy: true, NameCodex: false, NameGemini: true,
		NameCursor: true, NameCopilot: true, NameUniversal: false,
		NameAntigravity: true, NameKiro: false, NameWindsurf: false, NameDevin: false}
	for name, w := range want {
		if got := mustLookup(t, name).SupportsAsk(); got != w {
			t.Errorf("%s SupportsAsk = %v, want %v", name, got, w)
		}
	}
}

func TestLookup(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"claude-code": NameClaude, "claude": NameClaude, " Claude ": NameClaude, "codebuddy": NameCodeBuddy,
		"codex": NameCodex, "gemini": NameGemini, "cursor": NameCursor, "copilot": NameCopilot, "universal": NameUniversal,
		"antigravity": NameAntigravity, "agy": NameAntigravity, "kiro": NameKiro, "windsurf": NameWindsurf, "cascade": NameWindsurf, "devin": NameDevin,
	}
	for in, want := range cases {
		c, err := Lookup(in)
		if err != nil || c.Name() != want {
			t.Errorf("Lookup(%q) = %v, %v; want %s", in, c, err, want)
		}
	}
	_, err := Lookup("goose")
	const wantErr = `unknown provider "goose" (want claude-code, codebuddy, codex, gemini, cursor, copilot, qwen, opencode, antigravity, kiro, windsurf, devin, claude, or universal)`
	if err == nil || err.Error() != wantErr {
		t.Errorf("Lookup(goose) err = %v, want %s", err, wantErr)
	}
	if got := strings.Join(Names(), ","); got != "claude-code,codebuddy,codex,gemini,cursor,copilot,qwen,opencode,antigravity,kiro,windsurf,devin" {
		t.Errorf("Names() = %s", got)
	}
}
