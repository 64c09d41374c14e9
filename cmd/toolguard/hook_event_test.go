package main

import (
	"os"
	"strings"
	"testing"
	"time"
)

// turnEvent is one dialect's prompt event payload for session s1.
type turnEventCase struct {
	d       approvalDialect
	event   string // hook_event_name the reply must carry
	payload string
}

func turnEvents() []turnEventCase {
	return []turnEventCase{
		{approvalDialects[0], "UserPromptSubmit", `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp/proj","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"go on"}`},
		{approvalDialects[0], "SessionStart", `{"session_id":"s1","transcript_path":"/tmp/t.jsonl","cwd":"/tmp/proj","hook_event_name":"SessionStart","source":"resume"}`},
		{approvalDialects[1], "UserPromptSubmit", `{"session_id":"s1","turn_id":"u2","transcript_path":null,"cwd":"/tmp/proj","hook_event_name":"UserPromptSubmit","model":"gpt-5.5","permission_mode":"default","prompt":"go on"}`},
		{approvalDialects[2], "BeforeAgent", `{"session_id":"s1","transcript_path":"/tmp/t.json","cwd":"/tmp/proj","hook_event_name":"BeforeAgent","timestamp":"2026-11-29T10:00:00.000Z","prompt":"go on"}`},
	}
}

// TestTurnEventTellsDecisions: a prompt or session event of a session gets
// additionalContext naming each request of the session decided since the
// last turn — approved (retry exactly), rejected (the human's reason),
// expired — once; the reply bytes are exact; another session, and a second
// event, get nothing; the approve command never appears.
func TestTurnEventTellsDecisions(t *testing.T) {
	for _, tc := range turnEvents() {
		t.Run(tc.d.provider+"/"+tc.event, func(t *testing.T) {
			d := tc.d
			e := newApprovalEnv(t, `pending_ttl = "2h"`)
			e.genKey(e.defaultKey())
			a := e.expectDeny(d, d.shell("git tag v1"))
			e.approve(a, e.defaultKey())
			b := e.expectDeny(d, d.shell("git tag v2"))
			if code, out, errOut := e.approvals("reject", b, "--reason", "tag v2 comes from CI", "--key", e.defaultKey()); code != 0 {
				t.Fatalf("reject: %d %s%s", code, out, errOut)
			}
			c := e.expectDeny(d, d.shell("git tag v3"))

			// nothing for another session
			code, out, errOut := e.run(otherSession(tc.payload), "hook", "--provider", d.provider, "--policy", e.policy)
			if code != 0 || out != "" {
				t.Fatalf("other session: exit %d %q %s", code, out, errOut)
			}

			code, out, errOut = e.run(tc.payload, "hook", "--provider", d.provider, "--policy", e.policy)
			approved := "- " + a + ": a human approved this call; you may now retry exactly the same call (same tool, input and working directory) once, until 2026-11-29T13:00:00Z: git tag v1\n"
			rejected := "- " + b + ": a human rejected git tag v2 because: tag v2 comes from CI Do not retry it; choose another approach.\n"
			if b < a { // decided at the same (fake) instant: in id order
				approved, rejected = rejected, approved
			}
			text := "toolguard: decisions on approval requests of this session:\n" + approved + rejected +
				"- " + c + ": still waiting for a human: git tag v3. Do not retry it, or work around it, until it is decided.\n"
			want := turnReply(tc.event, text)
			if code != 0 || out != want {
				t.Fatalf("exit %d\ngot  %s\nwant %s\n%s", code, out, want, errOut)
			}
			if strings.Contains(out, "approvals approve") {
				t.Errorf("the context names the approve command")
			}

			// told once: the next turn hears only what is still pending
			_, out, _ = e.run(tc.payload, "hook", "--provider", d.provider, "--policy", e.policy)
			if strings.Contains(out, a) || strings.Contains(out, b) || !strings.Contains(out, c) {
				t.Errorf("second turn: %s", out)
			}
			// the pending request expires: told once as expired, then nothing
			later := time.Date(2026, 11, 29, 14, 0, 1, 0, time.UTC)
			_, out, _ = e.runAt(later, tc.payload, "hook", "--provider", d.provider, "--policy", e.policy)
			if !strings.Contains(out, c+": no human decided git tag v3 in time; the request expired") {
				t.Errorf("expiry: %s", out)
			}
			_, out, _ = e.runAt(later, tc.payload, "hook", "--provider", d.provider, "--policy", e.policy)
			if out != "" {
				t.Errorf("after everything was told: %q", out)
			}
			// the identical retry after a rejection still gets the human's reason
			_, out, _ = e.hook(d, d.shell("git tag v2"))
			if !strings.Contains(out, "tag v2 comes from CI") {
				t.Errorf("retry after rejection: %s", out)
			}
		})
	}
}

func turnReply(event, text string) string {
	return `{"hookSpecificOutput":{"hookEventName":"` + event + `","additionalContext":` + jsonString(text) + "}}\n"
}

// TestTurnEventNoState: no state directory, no session id, a policy that
// does not load: an empty reply, exit 0, and no state directory is made.
func TestTurnEventNoState(t *testing.T) {
	tc := turnEvents()[0]
	e := newApprovalEnv(t, "")
	code, out, _ := e.run(tc.payload, "hook", "--provider", "claude-code", "--policy", e.policy)
	if code != 0 || out != "" {
		t.Errorf("no state: exit %d %q", code, out)
	}
	if _, err := osStat(e.state); err == nil {
		t.Errorf("the event made the state directory")
	}
	code, out, _ = e.run(noSession(tc.payload), "hook", "--provider", "claude-code", "--policy", e.policy)
	if code != 0 || out != "" {
		t.Errorf("no session: exit %d %q", code, out)
	}
	e.write(e.policy, "version = 1\n[settings]\nmode = \"sideways\"\n", 0o600)
	code, out, errOut := e.run(tc.payload, "hook", "--provider", "claude-code", "--policy", e.policy)
	if code != 0 || out != "" || !strings.Contains(errOut, "policy does not load") {
		t.Errorf("broken policy: exit %d %q %s", code, out, errOut)
	}
}

var osStat = os.Stat

// TestTurnEventLookalike: a tool call whose input names a turn event is
// still decided as a tool call.
func TestTurnEventLookalike(t *testing.T) {
	for _, d := range approvalDialects[:2] {
		e := newApprovalEnv(t, "")
		code, out, _ := e.hook(d, d.shell(`git tag "UserPromptSubmit SessionStart BeforeAgent"`))
		if code != 0 || !strings.Contains(out, d.deny) || !approvalID.MatchString(out) {
			t.Errorf("%s: a tool call naming an event: exit %d %s", d.provider, code, out)
		}
	}
}
