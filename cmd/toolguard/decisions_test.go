package main

import (
	"strings"
	"testing"
	"time"
)

// TestApproveUses: --uses 2 allows the identical call exactly twice.
func TestApproveUses(t *testing.T) {
	for _, d := range approvalDialects {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			e.genKey(e.defaultKey())
			tag := d.shell("git tag v1")
			id := e.expectDeny(d, tag)
			if code, out, errOut := e.approvals("approve", id, "--uses", "2", "--key", e.defaultKey()); code != 0 || !strings.Contains(out, "2 use(s)") {
				t.Fatalf("approve --uses 2: exit %d %s%s", code, out, errOut)
			}
			e.expectAllow(d, tag)
			e.expectAllow(d, tag)
			if next := e.expectDeny(d, tag); next == id || next == "" {
				t.Errorf("third call: request %q, want a new one", next)
			}
		})
	}
}

// TestApproveSession: --session allows the identical call of that session
// as often as it comes until the grant expires; not another session's, not
// a different call; after expiry a new request. --session and --uses
// exclude each other; a request without a session cannot be approved so.
func TestApproveSession(t *testing.T) {
	for _, d := range approvalDialects {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			e.genKey(e.defaultKey())
			tag := d.shell("git tag v1")
			id := e.expectDeny(d, tag)
			if code, _, errOut := e.approvals("approve", id, "--session", "--uses", "3", "--key", e.defaultKey()); code != 1 || !strings.Contains(errOut, "exclude each other") {
				t.Errorf("--session --uses: exit %d %s, want 1", code, errOut)
			}
			code, out, errOut := e.approvals("approve", id, "--session", "--ttl", "30m", "--key", e.defaultKey())
			if code != 0 || !strings.Contains(out, "every identical call of session s1") {
				t.Fatalf("approve --session: exit %d %s%s", code, out, errOut)
			}
			for range 5 {
				code, out, _ := e.hook(d, tag)
				if code != 0 || strings.Contains(out, "deny") || d.provider == "claude-code" && !strings.Contains(out, "every identical call of this session") {
					t.Fatalf("session grant: exit %d %s", code, out)
				}
			}
			if next := e.expectDeny(d, otherSession(tag)); next == id {
				t.Errorf("another session used the session grant")
			}
			e.expectDeny(d, d.shell("git tag v2")) // held or a request: not allowed
			later := time.Date(2026, 11, 29, 12, 31, 0, 0, time.UTC)
			_, out, _ = e.runAt(later, tag, "hook", "--provider", d.provider, "--policy", e.policy)
			if !strings.Contains(out, "deny") {
				t.Errorf("after expiry: %s", out)
			}

			nosess := noSession(d.shell("git tag v3"))
			e2 := newApprovalEnv(t, "")
			e2.genKey(e2.defaultKey())
			id3 := e2.expectDeny(d, nosess)
			if code, _, errOut := e2.approvals("approve", id3, "--session", "--key", e2.defaultKey()); code == 0 || !strings.Contains(errOut, "no session id") {
				t.Errorf("--session without a session id: exit %d %s", code, errOut)
			}
		})
	}
}

// TestRejectStop: reject --stop ends the session's next call's turn
// (continue:false where the dialect has it), once; the identical call stays
// rejected with the reason; other sessions are untouched.
func TestRejectStop(t *testing.T) {
	for _, d := range approvalDialects {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			e.genKey(e.defaultKey())
			id := e.expectDeny(d, d.shell("git tag v1"))
			code, out, errOut := e.approvals("reject", id, "--stop", "--reason", "tags come from CI", "--key", e.defaultKey())
			if code != 0 || !strings.Contains(out, "ends the turn") {
				t.Fatalf("reject --stop: exit %d %s%s", code, out, errOut)
			}
			e.expectPass(d, otherSession(d.shell("ls")))
			code, out, _ = e.hook(d, d.shell("ls"))
			if code != 0 || !strings.Contains(out, d.deny) || !strings.Contains(out, "stopped this turn: tags come from CI") {
				t.Fatalf("next call after reject --stop: exit %d %s", code, out)
			}
			if d.provider != "codex" && !strings.Contains(out, `"continue":false`) {
				t.Errorf("no continue:false: %s", out)
			}
			e.expectPass(d, d.shell("ls")) // the stop is given once
			code, out, _ = e.hook(d, d.shell("git tag v1"))
			if !strings.Contains(out, "a human rejected this call") || !strings.Contains(out, "tags come from CI") || strings.Contains(out, "stopped this turn") {
				t.Errorf("identical call after the stop: %s", out)
			}
		})
	}
}

// TestRejectStopIdenticalRetry: when the session's next call is the
// rejected call itself, it carries the stop.
func TestRejectStopIdenticalRetry(t *testing.T) {
	d := approvalDialects[0]
	e := newApprovalEnv(t, "")
	e.genKey(e.defaultKey())
	id := e.expectDeny(d, d.shell("git tag v1"))
	e.approvals("reject", id, "--stop", "--reason", "no", "--key", e.defaultKey())
	_, out, _ := e.hook(d, d.shell("git tag v1"))
	if !strings.Contains(out, `"continue":false`) || !strings.Contains(out, "stopped this turn: no") {
		t.Errorf("identical retry after reject --stop: %s", out)
	}
}
