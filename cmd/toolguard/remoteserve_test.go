package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
)

// syncBuffer is a bytes.Buffer safe for a server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestRemoteServeCommand: the real `toolguard serve --socket` with
// settings.notify in its policy, and a sandboxed hook with approval_url:
// the request the hook records shows what the served policy says of the
// call (the rule and its justification), the webhook of settings.notify
// is posted the request, and the approver's decision through the API
// allows the hook's identical retry. Skipped in a build without serve.
func TestRemoteServeCommand(t *testing.T) {
	outside := t.TempDir() // the platform: serve's config, key, store
	env := map[string]string{"HOME": outside, "XDG_CONFIG_HOME": filepath.Join(outside, ".config"),
		"XDG_STATE_HOME": filepath.Join(outside, ".local", "state"), "USER": "alice"}
	osys := func(stderr io.Writer) *system {
		return &system{stdin: bytes.NewReader(nil), stdout: io.Discard, stderr: stderr,
			getenv: func(k string) string { return env[k] }, now: time.Now,
			getwd:      func() (string, error) { return outside, nil },
			executable: func() (string, error) { return "/usr/local/bin/toolguard", nil },
			etc:        filepath.Join(outside, "etc"), isTerminal: func() bool { return false }, serve: inProcessServe}
	}
	var probe bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--help"}, osys(&probe)); code != 0 {
		t.Skipf("this build has no serve command: %s", probe.String())
	}

	got := make(chan string, 8)
	webhook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
	}))
	defer webhook.Close()
	cfg := filepath.Join(outside, ".config", "toolguard")
	if err := os.MkdirAll(cfg, 0o700); err != nil {
		t.Fatal(err)
	}
	approverTok, hookTok := "approver-"+strings.Repeat("a", 24), "hook-"+strings.Repeat("b", 24)
	if err := os.WriteFile(filepath.Join(cfg, "serve.tokens"), []byte("approver "+approverTok+"\nhook "+hookTok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "policy.toml"), []byte(fmt.Sprintf(
		"version = 1\n[[settings.notify]]\nurl = %q\nevents = [\"approval.request\"]\n", webhook.URL)), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := remoteSocket(t)
	ctx, cancel := context.WithCancel(context.Background())
	var errb syncBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--socket", sock}, osys(&errb)) }()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, errb.String())
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errb.String(), "listening on unix:"); {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	key, err := approval.LoadKey(filepath.Join(cfg, "approver.key"))
	if err != nil {
		t.Fatal(err)
	}
	approverAPI := func(method, path, body string) (int, string) {
		c := &http.Client{Transport: &http.Transport{DialContext: unixDial(sock)}}
		req, _ := http.NewRequest(method, "http://toolguard"+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+approverTok)
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}

	for _, agent := range remoteAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t) // the sandbox: no key, no store
			tok := e.write(filepath.Join(e.home, "run", "hook.token"), hookTok+"\n")
			e.write(filepath.Join(e.home, ".config", "toolguard", "policy.toml"), fmt.Sprintf(
				"version = 1\n[settings]\nmode = \"headless\"\napproval_url = %q\napproval_token_file = %q\napprovers = [%q]\n",
				"unix://"+sock, tok, approval.PublicText(key.Public().(ed25519.PublicKey))))
			r := e.hook(agent, e.project, remoteAsk1)
			wantDecision(t, "ask", r, "deny")
			id := approvalID.FindString(r.stdout)
			if id == "" {
				t.Fatalf("no request: %s", r.stdout)
			}
			code, body := approverAPI("GET", "/v1/approvals/"+id, "")
			var req approval.Request
			if code != 200 || json.Unmarshal([]byte(body), &req) != nil {
				t.Fatalf("get: %d %s", code, body)
			}
			if req.Summary != remoteAsk1 || req.Preview == nil || req.Preview.Command != remoteAsk1 ||
				len(req.Preview.Rules) == 0 || req.Preview.Rules[0].ID != "package-publish" || req.Preview.Rules[0].Justification == "" {
				t.Errorf("request as the human sees it: %s", body)
			}
			select {
			case b := <-got:
				if !strings.Contains(b, `"event":"approval.request"`) || !strings.Contains(b, id) {
					t.Errorf("notification %s", b)
				}
			case <-time.After(5 * time.Second):
				t.Errorf("settings.notify: no notification; serve said:\n%s", errb.String())
			}
			if code, body := approverAPI("POST", "/v1/approvals/"+id+"/approve", `{}`); code != 200 {
				t.Fatalf("approve: %d %s", code, body)
			}
			wantDecision(t, "retry", e.hook(agent, e.project, remoteAsk1), "allow")
			r = e.hook(agent, e.project, remoteAsk1)
			wantDecision(t, "again", r, "deny")
			// The sessions of both agents are "s1" on one server: leave none pending.
			if id := approvalID.FindString(r.stdout); id != "" {
				approverAPI("POST", "/v1/approvals/"+id+"/reject", `{"reason":"done"}`)
			}
		})
	}
}
