package e2e

// Claude Code's permissionDecision "defer" (issue 17 item 4): in -p, with a single tool call,
// the process ends with the call parked (stop_reason "tool_deferred"), and `claude -p
// --resume <session>` re-runs the hook on it. Two probes measure the mechanism with a raw
// hook (defer on the first call, allow on the second) under the suite's bypassPermissions and
// under the default permission mode; a third runs the round trip through toolguard:
// settings.ask_fallback_for = {claude-code = "defer"}, headless, default permission mode →
// the call is parked and a request recorded → approve → --resume → the call runs.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/protocol"
)

type deferProbe struct {
	name string
	run  func(t *testing.T, s *suite, a *agent)
}

var deferProbes = []deferProbe{
	{"defer-bypass", func(t *testing.T, s *suite, a *agent) { rawDefer(t, s, a, "bypassPermissions") }},
	{"defer-default", func(t *testing.T, s *suite, a *agent) { rawDefer(t, s, a, "default") }},
	{"defer-roundtrip", deferRoundTrip},
}

// withPermissionMode replaces the value of --permission-mode in argv.
func withPermissionMode(mode string) func([]string) []string {
	return func(argv []string) []string {
		out := append([]string{}, argv...)
		for i := range out {
			if out[i] == "--permission-mode" && i+1 < len(out) {
				out[i+1] = mode
			}
		}
		return out
	}
}

const (
	deferReply = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"defer","permissionDecisionReason":"toolguard probe: deferred"}}`
	allowReply = `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","permissionDecisionReason":"toolguard probe: allowed on resume"}}`
)

// rawDefer measures defer itself under a permission mode: "holds" when run 1 parks the call
// (no tool run, tool_deferred reported) and the resumed run re-runs the hook and runs it;
// otherwise what went wrong.
func rawDefer(t *testing.T, s *suite, a *agent, mode string) {
	c := newCase(t, s, a, a.name+"/conformance-defer-"+mode)
	first, second := filepath.Join(c.W, "hook-ran-1"), filepath.Join(c.W, "hook-ran-2")
	body := fmt.Sprintf("if [ -e %s ]; then echo run >> %s; echo '%s'; else echo run >> %s; echo '%s'; fi", first, second, allowReply, first, deferReply)
	cmd, _ := probeHook(c, "defer", body)
	c.installProbeHook(t, cmd, nil)
	script := fakeScript{Shell: probeTool, Cwd: c.Proj}
	ran := filepath.Join(c.Proj, "conformance-ran")
	r1 := c.probeRun(t, "1", script, "do it", "", withPermissionMode(mode))
	deferred := strings.Contains(string(r1.stdout), "tool_deferred")
	t.Logf("run 1 (--permission-mode %s): hook ran %v, tool ran %v, tool_deferred reported %v, stdout tail %s",
		mode, exists(first), exists(ran), deferred, tail(r1.stdout, 600))
	got := ""
	switch {
	case !exists(first):
		t.Fatalf("the probe's hook never ran: nothing measured")
	case exists(ran):
		got = "ignored: the tool ran"
	case !deferred:
		got = "no tool_deferred: the call died"
	}
	if got == "" {
		sid := c.a.sessionID(r1.stdout)
		if sid == "" {
			t.Fatalf("no session id in run 1's output")
		}
		r2 := c.probeRun(t, "2-resumed", script, "continue", sid, withPermissionMode(mode))
		t.Logf("run 2 (--resume): hook re-ran %v, tool ran %v, stdout tail %s", exists(second), exists(ran), tail(r2.stdout, 600))
		switch {
		case exists(second) && exists(ran):
			got = "holds"
		case exists(second):
			got = "resume re-runs the hook, the tool does not run"
		default:
			got = "resume does not re-run the hook"
		}
	}
	row, _ := protocol.ConformanceFor(a.provider)
	fact := row.DeferDefault
	if mode == "bypassPermissions" {
		fact = row.DeferBypass
	}
	compare(t, a, "defer-"+map[string]string{"bypassPermissions": "bypass", "default": "default"}[mode], fact, got)
}

// deferRoundTrip: toolguard with ask_fallback_for claude-code = "defer" parks a headless ask
// under the default permission mode and records a request; approved, the resumed run runs it.
func deferRoundTrip(t *testing.T, s *suite, a *agent) {
	if s.standin || s.nohook {
		t.Skip("needs toolguard")
	}
	c := newCase(t, s, a, a.name+"/conformance-defer-roundtrip")
	c.writePolicy(t, true, false)
	p, _ := os.ReadFile(c.Policy)
	// the [settings] table is first in the suite's policy: put the setting right under it
	p = []byte(strings.Replace(string(p), "[settings]\n", "[settings]\nask_fallback_for = { claude-code = \"defer\" }\n", 1))
	if err := os.WriteFile(c.Policy, p, 0o644); err != nil {
		t.Fatal(err)
	}
	c.install(t)
	script := fakeScript{Shell: gitTag, Cwd: c.Proj}
	r1 := c.probeRun(t, "1", script, "do it", "", withPermissionMode("default"))
	if c.tagExists(t) {
		t.Fatalf("tag v1 exists although the call should have been parked")
	}
	if !strings.Contains(string(r1.stdout), "tool_deferred") {
		t.Errorf("run 1 did not end with the call deferred (no tool_deferred in its output): %s", tail(r1.stdout, 800))
	}
	sid := c.a.sessionID(r1.stdout)
	out, err := c.toolguardCmd("approvals", "list", "--status", "pending", "--session", sid, "--json", "--policy", c.Policy)
	var list []struct{ ID string }
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("approvals list --status pending --session %s: %v\n%s (want exactly one request)", sid, err, out)
	}
	id := list[0].ID
	c.requireAudit(t, "deny", "e2e-ask-tag")
	approve(t, c, id)
	r2 := c.probeRun(t, "2-resumed", script, "continue", sid, withPermissionMode("default"))
	got := "holds"
	if !c.tagExists(t) {
		got = "the approved call did not run on resume"
		t.Errorf("after approving %s the resumed session did not create the tag; stdout %s", id, tail(r2.stdout, 800))
	}
	used := false
	for _, l := range c.auditLines() {
		used = used || (l.Decision == "allow" && l.Approval == id)
	}
	if !used {
		t.Errorf("the audit log has no allow by approval %s", id)
	}
	row, _ := protocol.ConformanceFor(a.provider)
	compare(t, a, "defer-roundtrip", row.DeferRoundTrip, got)
}
