package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromiumPath finds Debian's chromium. Outside CI a missing browser skips
// the test (with the reason); in CI (CI=true, where .ci/run installs it)
// it fails.
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is not installed, and CI=true: .ci/run should have installed it (apt-get install chromium)")
	}
	t.Skip("SKIPPED: no chromium on PATH; the browser test of the inbox needs it (apt-get install chromium)")
	return ""
}

// TestServeInboxBrowser drives the inbox page in headless Chromium: a real
// hook call in headless mode records a request, the page (signed in with
// the one-time link) shows it, Approve allows the hook's identical retry,
// and a rejection's reason, typed into the page, reaches the next call.
func TestServeInboxBrowser(t *testing.T) {
	chromium := chromiumPath(t)
	if testing.Short() {
		t.Skip("starts a browser")
	}
	e := newServeEnv(t)
	s := e.start(t)
	if s.login == "" {
		t.Fatalf("no login link printed:\n%s", s.stderr)
	}
	payload := func(cmd string) []byte {
		return []byte(`{"session_id":"sess-web","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` +
			quoteJSON(cmd) + `,"description":"Drop the last commit"},"cwd":"/tmp/proj"}`)
	}
	hook := func(cmd string) string {
		code, out, errs := e.runTool(t, payload(cmd), "hook", "--provider", "claude-code", "--mode", "headless")
		if code != 0 {
			t.Fatalf("hook exit %d: %s %s", code, out, errs)
		}
		return out
	}
	out := hook("git reset --hard HEAD~1")
	id := reqID.FindString(out)
	if id == "" || !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("first hook call: %s", out)
	}

	ctx := browser(t, chromium)
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	card := `#pending article[data-id="` + id + `"]`
	if err := chromedp.Do(ctx, chromedp.Navigate(s.login), chromedp.WaitVisible(css(card))); err != nil {
		t.Fatalf("open the inbox: %v\n%s", err, s.stderr)
	}
	// The card is drawn before its fields are filled in: on a loaded
	// machine the first read can see an empty <pre>.
	var what string
	for deadline := time.Now().Add(10 * time.Second); ; {
		w, err := chromedp.Run(ctx, chromedp.Text(css(card+" pre.what")))
		if err != nil {
			t.Fatal(err)
		}
		if what = w; what != "" || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	facts, err := chromedp.Run(ctx, chromedp.Text(css(card+" dl.facts")))
	if err != nil {
		t.Fatal(err)
	}
	if what != "git reset --hard HEAD~1" {
		t.Errorf("card shows %q", what)
	}
	for _, want := range []string{"/tmp/proj", "sess-web", "claude-code"} {
		if !strings.Contains(facts, want) {
			t.Errorf("card facts %q lack %q", facts, want)
		}
	}
	screenshot(t, ctx, "inbox-pending.png")

	// Approve by keyboard: focus the button and press Enter.
	if err := chromedp.Do(ctx,
		chromedp.Focus(css(card+" form.approve button")),
		chromedp.KeyEvent("\r"),
		chromedp.WaitVisible(css(`#decided article[data-id="`+id+`"]`)),
		chromedp.WaitNotPresent(css(card)),
	); err != nil {
		t.Fatalf("approve: %v", err)
	}
	out = hook("git reset --hard HEAD~1")
	if !strings.Contains(out, `"permissionDecision":"allow"`) || !strings.Contains(out, id) {
		t.Fatalf("the retry after Approve: %s", out)
	}

	// The use is gone: the next identical call is a new request, which the
	// page shows through /v1/events without a reload.
	out = hook("git reset --hard HEAD~1")
	id2 := reqID.FindString(out)
	if id2 == "" || id2 == id {
		t.Fatalf("third call: %s", out)
	}
	card2 := `#pending article[data-id="` + id2 + `"]`
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(card2))); err != nil {
		t.Fatalf("the new request did not appear live: %v", err)
	}
	// Reject without a reason: the page refuses, the request stays pending.
	if err := chromedp.Do(ctx, chromedp.Click(css(card2+" form.reject button")), chromedp.Sleep(300*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	code, body := s.call(t, "GET", "/v1/approvals/"+id2, s.approver, "")
	if code != 200 || !strings.Contains(body, `"status": "pending"`) {
		t.Fatalf("a reject without reason went through: %d %s", code, body)
	}
	if err := chromedp.Do(ctx,
		chromedp.SendKeys(css(card2+" form.reject textarea"), "Use git stash; keep the commit."),
		chromedp.Click(css(card2+" form.reject button")),
		chromedp.WaitVisible(css(`#decided article[data-id="`+id2+`"]`)),
		chromedp.WaitNotPresent(css(card2)),
	); err != nil {
		t.Fatalf("reject: %v", err)
	}
	decided, err := chromedp.Run(ctx, chromedp.Text(css(`#decided article[data-id="`+id2+`"] .decision`)))
	if err != nil || !strings.Contains(decided, "Use git stash; keep the commit.") {
		t.Errorf("the decided card says %q (%v)", decided, err)
	}
	screenshot(t, ctx, "inbox-decided.png")
	out = hook("git reset --hard HEAD~1")
	if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "Use git stash; keep the commit.") {
		t.Fatalf("the rejection's reason did not reach the hook: %s", out)
	}
}

// browser starts headless Chromium at a phone's width; the context ends
// with the test (90 s at most).
func browser(t *testing.T, chromium string) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium),
		chromedp.Headless,
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-default-apps", true),
		chromedp.Flag("no-proxy-server", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(420, 900), // a phone's width
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancelAlloc)
	ctx, cancelCtx := chromedp.NewContext(actx, chromedp.WithLogf(t.Logf))
	t.Cleanup(cancelCtx)
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(cancel)

	return ctx
}

// TestServeInboxBrowserStop: "Also stop the agent's turn", ticked in the
// page beside a rejection, cancels the turn: the session's next hook call —
// another command, one the policy allows — is answered with the agent's
// stop in its own dialect (Claude Code: continue false; Codex: a deny
// naming the stop), once; the call after it is decided as ever, and a
// session nobody stopped is not held.
func TestServeInboxBrowserStop(t *testing.T) {
	chromium := chromiumPath(t)
	if testing.Short() {
		t.Skip("starts a browser")
	}
	e := newServeEnv(t)
	s := e.start(t)
	if s.login == "" {
		t.Fatalf("no login link printed:\n%s", s.stderr)
	}
	type agent struct {
		provider, session string
		args              []string
		payload           func(session, cmd string) []byte
		stopped           []string // what the stopped call's reply holds
		id                string
	}
	agents := []*agent{
		{provider: "claude-code", session: "sess-stop-cc", args: []string{"--mode", "headless"},
			payload: func(sess, cmd string) []byte {
				return []byte(`{"session_id":` + quoteJSON(sess) + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` +
					quoteJSON(cmd) + `},"cwd":"/tmp/proj"}`)
			},
			stopped: []string{`"continue":false`, `"permissionDecision":"deny"`, "stopped this turn", "Not on main."}},
		{provider: "codex", session: "sess-stop-cx",
			payload: func(sess, cmd string) []byte {
				return []byte(`{"session_id":` + quoteJSON(sess) + `,"turn_id":"turn-1","cwd":"/tmp/proj","hook_event_name":"PreToolUse","model":"gpt-test",` +
					`"permission_mode":"default","tool_name":"Bash","tool_input":{"command":` + quoteJSON(cmd) + `},"tool_use_id":"call-1"}`)
			},
			stopped: []string{`"permissionDecision":"deny"`, "stopped this turn", "Not on main."}},
	}
	hook := func(a *agent, sess, cmd string) string {
		args := append([]string{"hook", "--provider", a.provider}, a.args...)
		code, out, errs := e.runTool(t, a.payload(sess, cmd), args...)
		if code != 0 && code != 2 {
			t.Fatalf("%s hook exit %d: %s %s", a.provider, code, out, errs)
		}
		return out + errs
	}
	for _, a := range agents {
		out := hook(a, a.session, "git reset --hard HEAD~1")
		if a.id = reqID.FindString(out); a.id == "" {
			t.Fatalf("%s: the first call recorded no request: %s", a.provider, out)
		}
		// Before the stop, a harmless call of the session passes or is held
		// only by the pending request; afterwards it is stopped.
	}
	// A Write that replaces a git hook (asked by default) is shown as the
	// diff from the file's current state.
	proj := t.TempDir()
	hookFile := filepath.Join(proj, ".git", "hooks", "pre-commit")
	if err := os.MkdirAll(filepath.Dir(hookFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hookFile, []byte("#!/bin/sh\necho old-hook\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	code, out, errs := e.runTool(t, []byte(`{"session_id":"sess-write","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":`+
		quoteJSON(hookFile)+`,"content":"#!/bin/sh\necho new-hook\nexit 0\n"},"cwd":`+quoteJSON(proj)+`}`),
		"hook", "--provider", "claude-code", "--mode", "headless")
	writeID := reqID.FindString(out)
	if code != 0 || writeID == "" {
		t.Fatalf("the Write recorded no request: %d %s %s", code, out, errs)
	}

	ctx := browser(t, chromium)
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	// A notification's link (/#req_…), followed before signing in, shows
	// the sign-in page; after the one-time link the inbox opens that card.
	linked := agents[1].id
	if err := chromedp.Do(ctx, chromedp.Navigate(s.base+"/#"+linked), chromedp.WaitVisible(css("main.narrow"))); err != nil {
		t.Fatalf("the notification's link before sign-in: %v", err)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(s.login), chromedp.WaitVisible(css(`#pending article[data-id="`+agents[0].id+`"]`))); err != nil {
		t.Fatalf("open the inbox: %v\n%s", err, s.stderr)
	}
	var hash, focused string
	for deadline := time.Now().Add(10 * time.Second); ; {
		var err error
		if hash, err = chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash`)); err != nil {
			t.Fatal(err)
		}
		if focused, err = chromedp.Run(ctx, chromedp.Evaluate[string](`(document.activeElement && document.activeElement.dataset && document.activeElement.dataset.id) || ""`)); err != nil {
			t.Fatal(err)
		}
		if focused == linked || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if hash != "#"+linked || focused != linked {
		t.Errorf("after sign-in the page is at %q with %q focused, want the linked request %s", hash, focused, linked)
	}
	for _, a := range agents {
		card := `#pending article[data-id="` + a.id + `"]`
		done := `#decided article[data-id="` + a.id + `"]`
		if err := chromedp.Do(ctx,
			chromedp.WaitVisible(css(card)),
			chromedp.SendKeys(css(card+" form.reject textarea"), "Not on main."),
			chromedp.Click(css(card+` form.reject input[name="stop"]`)),
			chromedp.Click(css(card+" form.reject button")),
			chromedp.WaitVisible(css(done)),
		); err != nil {
			t.Fatalf("%s: reject and stop: %v", a.provider, err)
		}
		decided, err := chromedp.Run(ctx, chromedp.Text(css(done+" .decision")))
		if err != nil || !strings.Contains(decided, "the turn stops") {
			t.Errorf("%s: the decided card says %q (%v)", a.provider, decided, err)
		}
		code, body := s.call(t, "GET", "/v1/approvals/"+a.id, s.approver, "")
		if code != 200 || !strings.Contains(body, `"stop": true`) || !strings.Contains(body, `"status": "rejected"`) {
			t.Fatalf("%s: after the page's reject with stop: %d %s", a.provider, code, body)
		}
	}
	wcard := `#pending article[data-id="` + writeID + `"] pre.what.diff`
	var del, add string
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(wcard+" span.add"))); err != nil {
		t.Fatalf("the Write's card has no diff: %v", err)
	}
	del, err1 := chromedp.Run(ctx, chromedp.Text(css(wcard+" span.del")))
	add, err2 := chromedp.Run(ctx, chromedp.Text(css(wcard+" span.add")))
	if err1 != nil || err2 != nil || del != "-echo old-hook" || add != "+echo new-hook" {
		t.Errorf("the Write's diff: removed %q, added %q (%v %v)", del, add, err1, err2)
	}
	screenshot(t, ctx, "inbox-stopped.png")
	for _, a := range agents {
		// Another session of the same agent is not stopped.
		if out := hook(a, a.session+"-other", "ls"); strings.Contains(out, "stopped this turn") || strings.Contains(out, `"continue":false`) {
			t.Errorf("%s: a session nobody stopped was stopped: %s", a.provider, out)
		}
		out := hook(a, a.session, "ls")
		t.Logf("%s, the call after the stop: %s", a.provider, out)
		for _, want := range a.stopped {
			if !strings.Contains(out, want) {
				t.Errorf("%s: the call after the stop lacks %q: %s", a.provider, want, out)
			}
		}
		if !strings.Contains(out, a.id) {
			t.Errorf("%s: the stop does not name request %s: %s", a.provider, a.id, out)
		}
		// The stop is given once: the next call is decided as ever.
		if out := hook(a, a.session, "ls"); strings.Contains(out, "stopped this turn") {
			t.Errorf("%s: the stop was given twice: %s", a.provider, out)
		}
	}
}

// screenshot saves the page to $TOOLGUARD_SCREENSHOTS/name when set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("TOOLGUARD_SCREENSHOTS")
	if dir == "" {
		return
	}
	buf, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot: %v", err)
		return
	}
	_ = os.WriteFile(dir+"/"+name, buf, 0o644)
}

// inboxAgent is one agent's dialect in the browser tests: its hook
// arguments and a shell call's payload.
type inboxAgent struct {
	provider string
	args     []string
	payload  func(session, cmd string) []byte
	allowed  func(reply string) bool // the reply allows the call
}

var inboxAgents = []inboxAgent{
	{provider: "claude-code", args: []string{"--mode", "headless"},
		payload: func(sess, cmd string) []byte {
			return []byte(`{"session_id":` + quoteJSON(sess) + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` +
				quoteJSON(cmd) + `},"cwd":"/tmp/proj"}`)
		},
		allowed: func(out string) bool {
			return strings.Contains(out, `"permissionDecision":"allow"`) && !strings.Contains(out, `"permissionDecision":"deny"`)
		}},
	{provider: "codex",
		payload: func(sess, cmd string) []byte {
			return []byte(`{"session_id":` + quoteJSON(sess) + `,"turn_id":"turn-1","cwd":"/tmp/proj","hook_event_name":"PreToolUse","model":"gpt-test",` +
				`"permission_mode":"default","tool_name":"Bash","tool_input":{"command":` + quoteJSON(cmd) + `},"tool_use_id":"call-1"}`)
		},
		// Codex's hook has no allow: it says nothing (docs/agents)
		allowed: func(out string) bool { return strings.TrimSpace(out) == "" }},
}

// hook runs the agent's hook on a shell call and returns its reply
// (stdout and stderr: a Codex deny may go to either).
func (a inboxAgent) hook(t *testing.T, e *serveEnv, sess, cmd string) string {
	t.Helper()
	args := append([]string{"hook", "--provider", a.provider}, a.args...)
	code, out, errs := e.runTool(t, a.payload(sess, cmd), args...)
	if code != 0 && code != 2 {
		t.Fatalf("%s hook exit %d: %s %s", a.provider, code, out, errs)
	}
	return out + errs
}

// waitText is the text of sel once it is not empty (a card is drawn
// before its fields are filled in), or "" after 10 s.
func waitText(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		if s != "" || time.Now().After(deadline) {
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestServeInboxBrowserEdit: "Edit…" in the page shows the command, and
// approving the edited text allows the edited call only — the agent's
// retry of its original call is denied with the edited command to run
// (Claude Code's Bash, Codex), the edited call is allowed once — and a
// Write's edited content reaches Claude Code as updatedInput on the retry
// of its own call. An edit the policy denies is refused in the page with
// the rule's reason, and the request still waits; "Approve and add rule"
// on a server without --amend-file says how to enable it.
func TestServeInboxBrowserEdit(t *testing.T) {
	chromium := chromiumPath(t)
	if testing.Short() {
		t.Skip("starts a browser")
	}
	e := newServeEnv(t)
	s := e.start(t)
	if s.login == "" {
		t.Fatalf("no login link printed:\n%s", s.stderr)
	}
	const orig, edited = "git reset --hard HEAD~3", "git reset --hard HEAD~1" // both asked by default
	ids := map[string]string{}
	for _, a := range inboxAgents {
		out := a.hook(t, e, "sess-edit-"+a.provider, orig)
		if ids[a.provider] = reqID.FindString(out); ids[a.provider] == "" || a.allowed(out) {
			t.Fatalf("%s: the first call recorded no request: %s", a.provider, out)
		}
	}
	denyID := reqID.FindString(inboxAgents[0].hook(t, e, "sess-edit-denied", orig))
	// A Write that replaces a git hook (asked by default).
	proj := t.TempDir()
	hookFile := filepath.Join(proj, ".git", "hooks", "pre-commit")
	if err := os.MkdirAll(filepath.Dir(hookFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(hookFile, []byte("#!/bin/sh\necho old-hook\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := []byte(`{"session_id":"sess-edit-write","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":` +
		quoteJSON(hookFile) + `,"content":"#!/bin/sh\necho new-hook\n"},"cwd":` + quoteJSON(proj) + `}`)
	writeHook := func() string {
		code, out, errs := e.runTool(t, write, "hook", "--provider", "claude-code", "--mode", "headless")
		if code != 0 {
			t.Fatalf("Write hook exit %d: %s %s", code, out, errs)
		}
		return out
	}
	writeID := reqID.FindString(writeHook())
	if denyID == "" || writeID == "" {
		t.Fatalf("no request for the denied edit (%q) or the Write (%q)", denyID, writeID)
	}

	ctx := browser(t, chromium)
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	if err := chromedp.Do(ctx, chromedp.Navigate(s.login), chromedp.WaitVisible(css(`#pending article[data-id="`+writeID+`"]`))); err != nil {
		t.Fatalf("open the inbox: %v\n%s", err, s.stderr)
	}
	// editIn opens a card's edit form and returns the text it shows.
	editIn := func(id string) string {
		t.Helper()
		card := `#pending article[data-id="` + id + `"]`
		if err := chromedp.Do(ctx, chromedp.WaitVisible(css(card)), chromedp.Click(css(card+" button.edit")),
			chromedp.WaitVisible(css(card+" form.edit textarea"))); err != nil {
			t.Fatalf("open the edit of %s: %v", id, err)
		}
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+quoteJSON(card+" form.edit textarea")+`).value`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, a := range inboxAgents {
		id := ids[a.provider]
		card := `#pending article[data-id="` + id + `"]`
		if got := editIn(id); got != orig {
			t.Errorf("%s: the edit form shows %q, want the command %q", a.provider, got, orig)
		}
		if err := chromedp.Do(ctx,
			chromedp.SetValue(css(card+" form.edit textarea"), edited),
			chromedp.Click(css(card+" form.edit button.ok")),
			chromedp.WaitVisible(css(`#decided article[data-id="`+id+`"]`)),
			chromedp.WaitNotPresent(css(card)),
		); err != nil {
			t.Fatalf("%s: approve edited: %v", a.provider, err)
		}
		if d := waitText(t, ctx, `#decided article[data-id="`+id+`"] .decision`); !strings.Contains(d, "approved as edited: command "+edited) {
			t.Errorf("%s: the decided card says %q", a.provider, d)
		}
	}
	screenshot(t, ctx, "inbox-edited.png")
	for _, a := range inboxAgents {
		id, sess := ids[a.provider], "sess-edit-"+a.provider
		// the agent's retry of its own call is not allowed: it is told the
		// edited command, and nothing is used up
		for range 2 {
			out := a.hook(t, e, sess, orig)
			if a.allowed(out) || !strings.Contains(out, "run exactly this command instead") || !strings.Contains(out, edited) || !strings.Contains(out, id) {
				t.Fatalf("%s: the retry of the original call: %s", a.provider, out)
			}
		}
		// a look-alike of the edit is not allowed by the grant
		if out := a.hook(t, e, sess, "git reset --hard HEAD~2"); a.allowed(out) {
			t.Errorf("%s: a look-alike of the edit was allowed: %s", a.provider, out)
		}
		// the edited call, run as a new call: allowed once by the grant
		out := a.hook(t, e, sess, edited)
		if !a.allowed(out) || a.provider == "claude-code" && !strings.Contains(out, id) {
			t.Fatalf("%s: the edited call: %s", a.provider, out)
		}
		// by the grant: its one use is taken
		if code, body := s.call(t, "GET", "/v1/approvals/"+id, s.approver, ""); code != 200 || !strings.Contains(body, `"status": "consumed"`) {
			t.Errorf("%s: after the edited call the request is %d %s", a.provider, code, body)
		}
		if out := a.hook(t, e, sess, orig); a.allowed(out) {
			t.Errorf("%s: the original call after the use: %s", a.provider, out)
		}
	}

	// The Write: Claude Code is handed the edited content as updatedInput.
	if got := editIn(writeID); got != "#!/bin/sh\necho new-hook\n" {
		t.Errorf("the Write's edit form shows %q", got)
	}
	wcard := `#pending article[data-id="` + writeID + `"]`
	if label := waitText(t, ctx, wcard+" form.edit .edit-label"); !strings.Contains(label, "content of write "+hookFile) {
		t.Errorf("the Write's edit form is labelled %q, want the file it writes", label)
	}
	if err := chromedp.Do(ctx,
		chromedp.SetValue(css(wcard+" form.edit textarea"), "#!/bin/sh\necho reviewed-hook\n"),
		chromedp.Click(css(wcard+" form.edit button.ok")),
		chromedp.WaitVisible(css(`#decided article[data-id="`+writeID+`"]`)),
	); err != nil {
		t.Fatalf("approve the edited Write: %v", err)
	}
	out := writeHook()
	if !inboxAgents[0].allowed(out) || !strings.Contains(out, `"updatedInput":{`) || !strings.Contains(out, `echo reviewed-hook`) || strings.Contains(out, "new-hook") {
		t.Fatalf("the Write's retry after the edit: %s", out)
	}

	// An edit the policy denies: refused in the page with the rule's
	// reason; the request still waits.
	dcard := `#pending article[data-id="` + denyID + `"]`
	editIn(denyID)
	if err := chromedp.Do(ctx,
		chromedp.SetValue(css(dcard+" form.edit textarea"), "git push --force origin main"),
		chromedp.Click(css(dcard+" form.edit button.ok")),
		chromedp.WaitVisible(css(dcard+" .form-error")),
	); err != nil {
		t.Fatalf("the denied edit: %v", err)
	}
	msg := waitText(t, ctx, dcard+" .form-error")
	if !strings.Contains(msg, "the policy denies the edited call") || !strings.Contains(msg, "git-push-force") {
		t.Errorf("the page says %q, want the policy's reason", msg)
	}
	screenshot(t, ctx, "inbox-edit-denied.png")
	if code, body := s.call(t, "GET", "/v1/approvals/"+denyID, s.approver, ""); code != 200 || !strings.Contains(body, `"status": "pending"`) {
		t.Fatalf("after the denied edit: %d %s", code, body)
	}
	// the open form outlives a reload caused by another request's event
	other := reqID.FindString(inboxAgents[1].hook(t, e, "sess-edit-other", orig))
	if err := chromedp.Do(ctx, chromedp.WaitVisible(css(`#pending article[data-id="`+other+`"]`))); err != nil {
		t.Fatalf("the new request did not appear: %v", err)
	}
	if v, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector(`+quoteJSON(dcard+" form.edit textarea")+`).value`)); err != nil || v != "git push --force origin main" {
		t.Errorf("the open edit after a reload holds %q (%v)", v, err)
	}
	// amending is off on this server: the page says how to turn it on
	if err := chromedp.Do(ctx, chromedp.Click(css(dcard+" form.edit button.cancel")), chromedp.Click(css(dcard+" button.amend"))); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(msg, "--amend-file") && time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		msg = waitText(t, ctx, dcard+" .form-error")
	}
	if !strings.Contains(msg, "--amend-file") {
		t.Errorf("amend without --amend-file: the page says %q", msg)
	}
}

// TestServeInboxBrowserAmend: "Approve and add rule…" shows the rule and
// the file (serve --amend-file: here the user's policy, which the hook
// reads); confirming writes exactly that rule, and the next identical
// call of either agent is allowed by the rule — the request's grant is
// left unused — while a longer command is still asked.
func TestServeInboxBrowserAmend(t *testing.T) {
	chromium := chromiumPath(t)
	if testing.Short() {
		t.Skip("starts a browser")
	}
	e := newServeEnv(t)
	policyFile := filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "policy.toml")
	s := e.start(t, "--amend-file", policyFile)
	if s.login == "" {
		t.Fatalf("no login link printed:\n%s", s.stderr)
	}
	cmds := map[string]string{"claude-code": "terraform apply -auto-approve", "codex": "terraform destroy -auto-approve"}
	ids := map[string]string{}
	for _, a := range inboxAgents {
		out := a.hook(t, e, "sess-amend-"+a.provider, cmds[a.provider])
		if ids[a.provider] = reqID.FindString(out); ids[a.provider] == "" || a.allowed(out) {
			t.Fatalf("%s: the first call recorded no request: %s", a.provider, out)
		}
	}
	ctx := browser(t, chromium)
	css := func(sel string) chromedp.CSS { return chromedp.CSS(sel) }
	if err := chromedp.Do(ctx, chromedp.Navigate(s.login), chromedp.WaitVisible(css(`#pending article[data-id="`+ids["codex"]+`"]`))); err != nil {
		t.Fatalf("open the inbox: %v\n%s", err, s.stderr)
	}
	for _, a := range inboxAgents {
		id := ids[a.provider]
		card := `#pending article[data-id="` + id + `"]`
		if err := chromedp.Do(ctx, chromedp.Click(css(card+" button.amend")), chromedp.WaitVisible(css(card+" form.amend pre.snippet"))); err != nil {
			msg, _ := chromedp.Run(ctx, chromedp.Text(css(card+" .form-error")))
			t.Fatalf("%s: open the rule: %v (the page says %q)", a.provider, err, msg)
		}
		snippet := waitText(t, ctx, card+" form.amend pre.snippet")
		file := waitText(t, ctx, card+" form.amend .amend-file")
		wantRegex := "regex = '^" + strings.ReplaceAll(cmds[a.provider], "-", `\-`) + "$'"
		if !strings.Contains(snippet, `id = "amend-`+id+`"`) || !strings.Contains(snippet, `decision = "allow"`) || !strings.Contains(snippet, "[[test]]") ||
			!strings.Contains(file, policyFile) {
			t.Errorf("%s: the page shows %q\n%s", a.provider, file, snippet)
		}
		if _, err := os.Stat(policyFile); a.provider == "claude-code" && err == nil {
			t.Fatalf("the rule was written before it was confirmed")
		}
		screenshot(t, ctx, "inbox-amend-"+a.provider+".png")
		if err := chromedp.Do(ctx,
			chromedp.Click(css(card+" form.amend button.ok")),
			chromedp.WaitVisible(css(`#decided article[data-id="`+id+`"]`)),
			chromedp.WaitNotPresent(css(card)),
		); err != nil {
			t.Fatalf("%s: add rule and approve: %v", a.provider, err)
		}
		data, err := os.ReadFile(policyFile)
		if err != nil || !strings.Contains(string(data), strings.TrimPrefix(snippet, "\n")) {
			t.Fatalf("%s: the policy file (%v) lacks the rule shown:\n%s\n--- shown:\n%s", a.provider, err, data, snippet)
		}
		if !strings.Contains(string(data), wantRegex) && !strings.Contains(string(data), "regex = '^"+cmds[a.provider]+"$'") {
			t.Errorf("%s: the rule is not exact:\n%s", a.provider, data)
		}
	}
	if code, out, errs := e.runTool(t, nil, "validate", "--policy", policyFile); code != 0 {
		t.Fatalf("the amended policy does not validate: %s %s", out, errs)
	}
	for _, a := range inboxAgents {
		id, sess := ids[a.provider], "sess-amend-"+a.provider
		for range 2 { // the rule, not a one-use grant: every identical call
			out := a.hook(t, e, sess, cmds[a.provider])
			if !a.allowed(out) || a.provider == "claude-code" && !strings.Contains(out, "allowed by rule amend-"+id) {
				t.Fatalf("%s: the call after the rule: %s", a.provider, out)
			}
			if strings.Contains(out, "approval "+id) {
				t.Errorf("%s: allowed by the grant, not the rule: %s", a.provider, out)
			}
		}
		code, body := s.call(t, "GET", "/v1/approvals/"+id, s.approver, "")
		if code != 200 || !strings.Contains(body, `"uses_left": 1`) {
			t.Errorf("%s: the request's grant was used: %d %s", a.provider, code, body)
		}
		// a longer command is still asked
		if out := a.hook(t, e, sess+"-2", cmds[a.provider]+" -lock=false"); a.allowed(out) || !reqID.MatchString(out) {
			t.Errorf("%s: a longer command: %s", a.provider, out)
		}
	}
}
