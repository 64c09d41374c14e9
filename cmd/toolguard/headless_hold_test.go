package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// runAt is approvalEnv.run with the clock at now.
func (e *approvalEnv) runAt(now time.Time, stdin string, args ...string) (int, string, string) {
	e.t.Helper()
	f, sys := newFake(e.t, []byte(stdin), e.env)
	sys.getwd = func() (string, error) { return e.home, nil }
	sys.now = func() time.Time { return now }
	code := run(context.Background(), args, sys)
	return code, f.stdout.String(), f.stderr.String()
}

func otherSession(payload string) string {
	return strings.Replace(payload, `"session_id":"s1"`, `"session_id":"s2"`, 1)
}

func noSession(payload string) string {
	return strings.Replace(payload, `"session_id":"s1",`, ``, 1)
}

// expectPass: the hook lets the call through (no deny in the reply).
func (e *approvalEnv) expectPass(d approvalDialect, payload string) {
	e.t.Helper()
	code, out, errOut := e.hook(d, payload)
	if code != 0 || strings.Contains(out, "deny") {
		e.t.Fatalf("want the call through: exit %d\n%s%s", code, out, errOut)
	}
}

// TestPendingHoldsSession: while a session has a pending request, its
// other calls are denied naming the request; the identical call keeps its
// own request; other sessions, calls without a session id, and the
// setting off are not held; an approval or the pending TTL lifts it.
func TestPendingHoldsSession(t *testing.T) {
	for _, d := range approvalDialects {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			e.genKey(e.defaultKey())
			tag := d.shell("git tag v1")
			id := e.expectDeny(d, tag)

			code, out, _ := e.hook(d, d.shell("ls -la"))
			if code != 0 || !strings.Contains(out, d.deny) || !strings.Contains(out, "waiting for a human to decide approval request "+id) {
				t.Fatalf("unrelated call of the held session: exit %d\n%s", code, out)
			}
			if strings.Contains(out, "toolguard approvals approve") {
				t.Errorf("the hold names the approve command: %s", out)
			}
			// another asking call is held too, and records no request of its own
			code, out, _ = e.hook(d, d.shell("git tag v2"))
			if code != 0 || !strings.Contains(out, "approval request "+id) {
				t.Fatalf("second asking call: exit %d\n%s", code, out)
			}
			if n := strings.Count(e.listAll(), "pending"); n != 1 {
				t.Errorf("%d pending requests, want 1 (the held ask recorded one)", n)
			}
			// the identical call keeps its own request
			if again := e.expectDeny(d, tag); again != id {
				t.Errorf("identical call got %s, want %s", again, id)
			}
			code, out, _ = e.hook(d, tag)
			if strings.Contains(out, "waiting for a human to decide") {
				t.Errorf("the identical call got the hold reason, want its own: %s", out)
			}
			e.expectPass(d, otherSession(d.shell("ls -la")))
			e.expectPass(d, noSession(d.shell("ls -la")))

			e.approve(id, e.defaultKey())
			e.expectAllow(d, tag)
			e.expectPass(d, d.shell("ls -la"))
		})
	}
}

func (e *approvalEnv) listAll() string {
	e.t.Helper()
	_, out, _ := e.approvals("list")
	return out
}

func TestPendingHoldSettingOff(t *testing.T) {
	for _, d := range approvalDialects {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "hold_session_on_pending = false")
			id := e.expectDeny(d, d.shell("git tag v1"))
			e.expectPass(d, d.shell("ls -la"))
			if next := e.expectDeny(d, d.shell("git tag v2")); next == id || next == "" {
				t.Errorf("another ask got %q, want a request of its own (not %s)", next, id)
			}
		})
	}
}

// TestPendingTTL: a pending request older than pending_ttl expires, holds
// nothing, and the identical call makes a new request.
func TestPendingTTL(t *testing.T) {
	for _, d := range approvalDialects {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, `pending_ttl = "1h"`)
			id := e.expectDeny(d, d.shell("git tag v1"))
			later := time.Date(2026, 11, 29, 13, 0, 1, 0, time.UTC)
			code, out, errOut := e.runAt(later, d.shell("ls -la"), "hook", "--provider", d.provider, "--policy", e.policy)
			if code != 0 || strings.Contains(out, "deny") {
				t.Fatalf("after the pending TTL the session is still held: exit %d %s%s", code, out, errOut)
			}
			_, out, _ = e.runAt(later, "", "approvals", "list", "--policy", e.policy)
			if !strings.Contains(out, id+"  expired") {
				t.Errorf("list after the TTL:\n%s", out)
			}
			_, out, _ = e.runAt(later, d.shell("git tag v1"), "hook", "--provider", d.provider, "--policy", e.policy)
			if next := approvalID.FindString(out); next == "" || next == id {
				t.Errorf("the identical call after expiry got %q, want a new request", next)
			}
			_, out, _ = e.runAt(later.Add(8*24*time.Hour), "", "approvals", "prune", "--policy", e.policy)
			if !strings.Contains(out, "pruned 2 finished") {
				t.Errorf("prune: %s", out)
			}
		})
	}
}

// TestPendingHoldRead: Claude's Read tool is not held (it changes nothing);
// Bash is, even a read-only command.
func TestPendingHoldRead(t *testing.T) {
	d := approvalDialects[0]
	e := newApprovalEnv(t, "")
	e.expectDeny(d, d.shell("git tag v1"))
	e.expectPass(d, `{"session_id":"s1","cwd":"/tmp/proj","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/tmp/proj/README.md"},"tool_use_id":"t3"}`)
	e.expectDeny(d, d.shell("cat README.md"))
}
