package e2e

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
)

// TestRemote: remote approvals (issue 18 item 3, docs/approvals.md "Remote approvals") under
// a real CLI. `toolguard serve --socket` runs outside the CLI's namespace with its own HOME
// (the platform: store, approver key, tokens); the CLI runs under `unshare -n -m` as ever,
// and its hook reaches the server only through the socket's path. Run 1: `git tag v1` is
// an ask in headless mode: denied with a request id recorded on the server, no tag, nothing
// in the sandbox's own state dir. The approver approves through the API with the approver
// token; run 2 resumes the session, the identical call runs, the tag exists, the audit log
// has an allow by that id and the server's request is consumed.
func TestRemote(t *testing.T) {
	start := time.Now()
	if os.Getenv("TOOLGUARD_E2E") != "1" {
		t.Skip(gateHelp)
	}
	s := setupSuite(t)
	if s.standin || s.nohook {
		t.Skip("remote approvals need the real toolguard hook")
	}
	var a *agent
	for _, x := range agents {
		if x.name == "claude" {
			a = x
		}
	}
	t.Run(a.name+"/remote-approve", func(t *testing.T) {
		count(t, start)
		c := newCase(t, s, a, a.name+"/remote-approve")
		srv := startServe(t, c)
		tok := filepath.Join(c.W, "hook.token")
		writeFile(tok, srv.hookTok+"\n")
		p := fmt.Sprintf(`version = 1

[settings]
mode = "headless"
audit_log = %q
state_dir = %q
approval_url = %q
approval_token_file = %q
approvers = [%q]

[[rule]]
id = "e2e-ask-tag"
decision = "ask"
justification = "Tags need a human."
command = ["git tag"]
`, c.Audit, c.StateDir, "unix://"+srv.sock, tok, srv.pub)
		if err := os.WriteFile(c.Policy, []byte(p), 0o644); err != nil {
			t.Fatal(err)
		}
		c.install(t)
		script := fakeScript{Shell: gitTag, Cwd: c.Proj}

		r1 := c.run(t, "1", script, "do it", "")
		if c.tagExists(t) {
			t.Fatal("tag v1 exists although the call should have been held for approval")
		}
		id := c.heldRequest(t, r1, "e2e-ask-tag")
		if _, err := os.Stat(filepath.Join(c.StateDir, "requests")); err == nil {
			t.Errorf("the hook stored a request in the sandbox's state dir %s", c.StateDir)
		}
		code, body := srv.api(t, "GET", "/v1/approvals/"+id, "")
		var req approval.Request
		if code != 200 || json.Unmarshal([]byte(body), &req) != nil || req.Status != approval.StatusPending || req.Summary != gitTag {
			t.Fatalf("the server's request %s: %d %s", id, code, truncate(body, 800))
		}
		t.Logf("the server holds %s: %s, session %s, provider %s", id, req.Summary, req.Session, req.Provider)
		// The hook token cannot approve.
		if code, _ := srv.call(t, srv.hookTok, "POST", "/v1/approvals/"+id+"/approve", `{}`); code != 403 {
			t.Errorf("the hook token approved: %d", code)
		}
		if code, body := srv.api(t, "POST", "/v1/approvals/"+id+"/approve", `{"uses":1,"ttl":"10m"}`); code != 200 {
			t.Fatalf("approve through the API: %d %s", code, body)
		}

		r2 := c.resume(t, r1, script)
		res2 := requireResult(t, c, r2)
		if !c.tagExists(t) {
			t.Errorf("after approving %s the resumed session's `git tag v1` did not create the tag; tool result: %q", id, truncate(res2, 600))
		}
		if len(r2.toolResults) > 1 {
			t.Errorf("the resumed session made %d tool calls, want 1", len(r2.toolResults))
		}
		used := false
		for _, l := range c.auditLines() {
			if l.Decision == "allow" && l.Approval == id {
				used = true
			}
		}
		if !used {
			t.Errorf("the audit log has no allow by approval %s", id)
		}
		if code, body := srv.api(t, "GET", "/v1/approvals/"+id, ""); code != 200 || !strings.Contains(body, `"status": "consumed"`) {
			t.Errorf("the server's request after the use: %d %s", code, truncate(body, 600))
		}
	})
}

// remoteServer is a `toolguard serve --socket` process outside the CLI's namespace.
type remoteServer struct {
	sock, pub, approverTok, hookTok string
}

func startServe(t *testing.T, c *caseEnv) *remoteServer {
	t.Helper()
	outside := filepath.Join(c.W, "platform")
	cfg := filepath.Join(outside, ".config", "toolguard")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	srv := &remoteServer{approverTok: "approver-e2e-" + strings.Repeat("a", 24), hookTok: "hook-e2e-" + strings.Repeat("b", 24)}
	if err := os.WriteFile(filepath.Join(cfg, "serve.tokens"), []byte("approver "+srv.approverTok+"\nhook "+srv.hookTok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "tge2e") // a socket path fits in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	srv.sock = filepath.Join(dir, "serve.sock")
	cmd := exec.Command(c.s.toolguard, "serve", "--socket", srv.sock)
	cmd.Dir = outside
	cmd.Env = append(os.Environ(), "HOME="+outside, "XDG_CONFIG_HOME="+filepath.Join(outside, ".config"),
		"XDG_STATE_HOME="+filepath.Join(outside, ".local", "state"), "USER=approver")
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
		writeFile(filepath.Join(c.W, "serve.stderr"), errb.String())
	})
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if code, _ := srv.call(t, "", "GET", "/healthz", ""); code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("toolguard serve did not start: %s", errb.String())
		}
	}
	key, err := approval.LoadKey(filepath.Join(cfg, "approver.key"))
	if err != nil {
		t.Fatalf("serve's approver key: %v", err)
	}
	srv.pub = approval.PublicText(key.Public().(ed25519.PublicKey))
	t.Logf("toolguard serve on %s, approver key %s", srv.sock, approval.Fingerprint(key.Public().(ed25519.PublicKey)))
	return srv
}

// call sends one request over the socket with token ("" for none); code 0 when the
// server cannot be reached.
func (s *remoteServer) call(t *testing.T, token, method, path, body string) (int, string) {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", s.sock)
	}}}
	req, _ := http.NewRequest(method, "http://toolguard"+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// api calls the server as the approver (a platform's decision, or the inbox page).
func (s *remoteServer) api(t *testing.T, method, path, body string) (int, string) {
	return s.call(t, s.approverTok, method, path, body)
}
