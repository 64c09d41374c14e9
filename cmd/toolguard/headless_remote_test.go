package main

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/remote"
	"github.com/toolguard/toolguard/internal/serve"
)

// The hook's side of remote approvals (headless_remote.go) through the real
// hook path: the hook's machine (a sandbox) has no approver key and no
// store; an approval server outside holds both.

const (
	remoteHookTok     = "hook-token-for-the-sandbox-0123"
	remoteApproverTok = "approver-token-outside-0123456"
	remoteAsk1        = "npm publish" // package-publish asks
)

var remoteAgents = []string{"claude-code", "gemini"}

// approvalServer is a toolguard serve handler on a Unix socket, with its
// own store and key outside the trustEnv's home.
type approvalServer struct {
	sock string
	st   *approval.Store
	key  ed25519.PrivateKey
	hs   *http.Server
}

// remoteSocket is a socket path short enough for sun_path.
func remoteSocket(t *testing.T) string {
	d, err := os.MkdirTemp("", "tgs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Join(d, "serve.sock")
}

func newApprovalServer(t *testing.T) *approvalServer {
	t.Helper()
	outside := t.TempDir()
	key, err := approval.GenerateKey(filepath.Join(outside, "approver.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := approval.Open(filepath.Join(outside, "state"))
	if err != nil {
		t.Fatal(err)
	}
	st.Trust(approval.Keyring{key.Public().(ed25519.PublicKey)})
	srv := serve.New(serve.Config{Store: st, Signer: approval.Signer{Key: key, User: "alice"},
		Tokens: map[string]serve.Role{remoteHookTok: serve.RoleHook, remoteApproverTok: serve.RoleApprover}})
	a := &approvalServer{sock: remoteSocket(t), st: st, key: key}
	a.serve(t, srv)
	t.Cleanup(srv.Close)
	return a
}

func (a *approvalServer) serve(t *testing.T, h http.Handler) {
	t.Helper()
	ln, err := net.Listen("unix", a.sock)
	if err != nil {
		t.Fatal(err)
	}
	a.hs = &http.Server{Handler: h}
	go a.hs.Serve(ln)
	t.Cleanup(func() { a.hs.Close() })
}

func (a *approvalServer) pub() string {
	return approval.PublicText(a.key.Public().(ed25519.PublicKey))
}

// api calls the server as the approver does (curl --unix-socket).
func (a *approvalServer) api(t *testing.T, method, path, body string) (int, string) {
	t.Helper()
	c := &http.Client{Transport: &http.Transport{DialContext: unixDial(a.sock)}}
	req, _ := http.NewRequest(method, "http://toolguard"+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+remoteApproverTok)
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// unixDial dials sock whatever the address.
func unixDial(sock string) func(ctx context.Context, _, _ string) (net.Conn, error) {
	return func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}
}

// sandboxPolicy is the user's policy in the sandbox: headless, the
// server's socket, a token file, and the server's key as the approver.
func sandboxPolicy(e *trustEnv, url, approver string, extra string) {
	tok := e.write(filepath.Join(e.home, "run", "hook.token"), remoteHookTok+"\n")
	e.write(filepath.Join(e.home, ".config", "toolguard", "policy.toml"), fmt.Sprintf(`version = 1
[settings]
mode = "headless"
approval_url = %q
approval_token_file = %q
approvers = [%q]
%s`, url, tok, approver, extra))
}

func localRequests(e *trustEnv) bool {
	_, err := os.Stat(filepath.Join(e.home, ".local", "state", "toolguard", "requests"))
	return !errors.Is(err, fs.ErrNotExist)
}

// TestRemoteApprovalHook: headless ask -> a request on the server ->
// the session's other calls held -> approved through the approver API ->
// the identical retry allowed once -> a new request; a rejection reaches
// the next identical call with its reason. Nothing is stored in the
// sandbox.
func TestRemoteApprovalHook(t *testing.T) {
	for _, agent := range remoteAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			a := newApprovalServer(t)
			sandboxPolicy(e, "unix://"+a.sock, a.pub(), "")

			r := e.hook(agent, e.project, remoteAsk1)
			wantDecision(t, "ask", r, "deny")
			id := approvalID.FindString(r.stdout)
			if id == "" || !strings.Contains(r.stdout, "approval request "+id+" was recorded") {
				t.Fatalf("no request id in the reply: %s", r.stdout)
			}
			if strings.Contains(r.stdout, "approvals approve") || strings.Contains(r.stderr, "approvals approve") {
				t.Errorf("the reply or stderr names an approve command:\n%s\n%s", r.stdout, r.stderr)
			}
			req, err := a.st.Get(id)
			if err != nil || req.Status != approval.StatusPending || req.Summary != remoteAsk1 || req.Provider != agent || req.Session != "s1" {
				t.Fatalf("server request %+v %v", req, err)
			}
			if localRequests(e) {
				t.Error("a request was stored in the sandbox's state directory")
			}
			// The retry finds the same pending request; another call of
			// the session is held.
			if r := e.hook(agent, e.project, remoteAsk1); !strings.Contains(r.stdout, id) {
				t.Errorf("retry: %s, want the pending %s", r.stdout, id)
			}
			r = e.hook(agent, e.project, "ls")
			wantDecision(t, "held", r, "deny")
			if !strings.Contains(r.stdout, "waiting for a human to decide approval request "+id) {
				t.Errorf("held: %s", r.stdout)
			}

			if code, body := a.api(t, "POST", "/v1/approvals/"+id+"/approve", `{"uses":1,"ttl":"10m"}`); code != 200 {
				t.Fatalf("approve: %d %s", code, body)
			}
			r = e.hook(agent, e.project, remoteAsk1)
			wantDecision(t, "approved retry", r, "allow")
			if r.decision == "allow" && !strings.Contains(r.stdout, "allowed once by approval "+id) && agent != "gemini" {
				t.Errorf("allow reason: %s", r.stdout)
			}
			if got, _ := a.st.Get(id); got.Status != approval.StatusConsumed {
				t.Errorf("after the use: %s, want consumed", got.Status)
			}
			wantDecision(t, "ls after the decision", e.hook(agent, e.project, "ls"), "")

			r = e.hook(agent, e.project, remoteAsk1)
			wantDecision(t, "after the one use", r, "deny")
			id2 := approvalID.FindString(r.stdout)
			if id2 == "" || id2 == id {
				t.Fatalf("second request %q (first %s): %s", id2, id, r.stdout)
			}
			if code, body := a.api(t, "POST", "/v1/approvals/"+id2+"/reject", `{"reason":"releases go through CI"}`); code != 200 {
				t.Fatalf("reject: %d %s", code, body)
			}
			r = e.hook(agent, e.project, remoteAsk1)
			wantDecision(t, "rejected", r, "deny")
			if !strings.Contains(r.stdout, "a human rejected this call (request "+id2+"): releases go through CI") {
				t.Errorf("rejected: %s", r.stdout)
			}
			if localRequests(e) {
				t.Error("a request was stored in the sandbox's state directory")
			}
		})
	}
}

// TestRemoteApprovalDown: no server, a server that answers badly, a
// wrong token, a token file that is missing: the on_error decision
// (deny), within the hook's deadline; no local request is made instead.
func TestRemoteApprovalDown(t *testing.T) {
	cases := []struct {
		name    string
		setup   func(t *testing.T, e *trustEnv) string // returns approval_url
		extra   string
		want    string // in the deny reason
		allowed bool   // on_error = allow
	}{
		{"no listener", func(t *testing.T, e *trustEnv) string { return "unix://" + remoteSocket(t) }, "", "asking for a grant", false},
		{"closed port", func(t *testing.T, e *trustEnv) string {
			ln, _ := net.Listen("tcp", "127.0.0.1:0")
			ln.Close()
			return "http://" + ln.Addr().String()
		}, "", "connection refused", false},
		{"500", func(t *testing.T, e *trustEnv) string {
			a := &approvalServer{sock: remoteSocket(t)}
			a.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", 500) }))
			return "unix://" + a.sock
		}, "", "status 500", false},
		{"garbage", func(t *testing.T, e *trustEnv) string {
			a := &approvalServer{sock: remoteSocket(t)}
			a.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Length", "6")
				w.Write([]byte("<html>"))
			}))
			return "unix://" + a.sock
		}, "", "not the JSON wanted", false},
		{"slow", func(t *testing.T, e *trustEnv) string {
			a := &approvalServer{sock: remoteSocket(t)}
			a.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				select {
				case <-time.After(5 * time.Second):
				case <-r.Context().Done():
				}
			}))
			return "unix://" + a.sock
		}, "", "no answer within 2s", false},
		{"wrong token", func(t *testing.T, e *trustEnv) string {
			a := newApprovalServer(t)
			e.write(filepath.Join(e.home, "run", "hook.token"), "not-a-token\n")
			return "unix://" + a.sock
		}, "", "status 401", false},
		{"on_error allow", func(t *testing.T, e *trustEnv) string { return "unix://" + remoteSocket(t) }, `on_error = "allow"`, "", true},
	}
	for _, agent := range remoteAgents {
		for _, c := range cases {
			t.Run(agent+"/"+c.name, func(t *testing.T) {
				e := newTrustEnv(t)
				url := "unix:///nonexistent"
				sandboxPolicy(e, url, approval.PublicText(make([]byte, 32)), c.extra)
				url = c.setup(t, e)
				// rewrite the policy with the real URL, keeping the token file as set up
				tok, _ := os.ReadFile(filepath.Join(e.home, "run", "hook.token"))
				sandboxPolicy(e, url, approval.PublicText(make([]byte, 32)), c.extra)
				e.write(filepath.Join(e.home, "run", "hook.token"), string(tok))
				start := time.Now()
				r := e.hook(agent, e.project, remoteAsk1)
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("the hook took %v", d)
				}
				if c.allowed {
					wantDecision(t, "on_error allow", r, "allow")
					return
				}
				wantDecision(t, c.name, r, "deny")
				if !strings.Contains(r.stdout, "approval server did not answer as it should") || !strings.Contains(r.stdout, c.want) ||
					!strings.Contains(r.stdout, "on_error = deny") {
					t.Errorf("reason: %s\nwant %q", r.stdout, c.want)
				}
				if localRequests(e) {
					t.Error("fell back to the local store")
				}
			})
		}
	}
}

// TestRemoteApprovalTokenSources: the token file wins; without it the
// environment's TOOLGUARD_APPROVAL_TOKEN; with neither, on_error. A
// token file that is a FIFO or a directory does not hang the hook.
func TestRemoteApprovalTokenSources(t *testing.T) {
	for _, agent := range remoteAgents {
		t.Run(agent, func(t *testing.T) {
			a := newApprovalServer(t)
			e := newTrustEnv(t)
			policyNoFile := fmt.Sprintf("version = 1\n[settings]\nmode = \"headless\"\napproval_url = %q\napprovers = [%q]\n", "unix://"+a.sock, a.pub())
			e.write(filepath.Join(e.home, ".config", "toolguard", "policy.toml"), policyNoFile)
			r := e.hook(agent, e.project, remoteAsk1)
			if wantDecision(t, "no token", r, "deny"); !strings.Contains(r.stdout, "no approval token") {
				t.Errorf("no token: %s", r.stdout)
			}
			e.env[guard.ApprovalTokenEnv] = remoteHookTok
			r = e.hook(agent, e.project, remoteAsk1)
			if wantDecision(t, "env token", r, "deny"); !strings.Contains(r.stdout, "was recorded") {
				t.Errorf("env token: %s", r.stdout)
			}
			// A token file named by the policy wins over the environment.
			e.env[guard.ApprovalTokenEnv] = "wrong"
			sandboxPolicy(e, "unix://"+a.sock, a.pub(), "")
			if r := e.hook(agent, e.project, remoteAsk1); !strings.Contains(r.stdout, "was recorded") {
				t.Errorf("file token: %s", r.stdout)
			}
			fifo := filepath.Join(e.home, "run", "fifo")
			if err := syscall.Mkfifo(fifo, 0o600); err == nil {
				e.write(filepath.Join(e.home, ".config", "toolguard", "policy.toml"),
					policyNoFile+fmt.Sprintf("approval_token_file = %q\n", fifo))
				start := time.Now()
				r := e.hook(agent, e.project, remoteAsk1)
				if wantDecision(t, "fifo", r, "deny"); !strings.Contains(r.stdout, "not a regular file") || time.Since(start) > 5*time.Second {
					t.Errorf("fifo token file: %s after %v", r.stdout, time.Since(start))
				}
			}
		})
	}
}

// TestRemoteApprovalFakeServer: a server the hook reaches but does not
// trust for grants — one an agent could start, or one whose key the
// policy does not name — says "granted": the call is still denied. Only a
// grant for this call's key, signed by a key of settings.approvers (or
// the user's own approver key), unexpired, allows it.
func TestRemoteApprovalFakeServer(t *testing.T) {
	trusted := approval.Signer{User: "alice"}
	_, trusted.Key, _ = ed25519.GenerateKey(nil)
	foreign := approval.Signer{User: "mallory"}
	_, foreign.Key, _ = ed25519.GenerateKey(nil)
	now := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) // newFake's clock
	grant := func(s approval.Signer, key string, ttl time.Duration, at time.Time) *approval.GrantFile {
		gf, err := approval.NewGrant(approval.Request{ID: "req_fakefakefa", Key: key}, ttl, 1, at, s)
		if err != nil {
			t.Fatal(err)
		}
		return &gf
	}
	receipt := func(s approval.Signer, nonce string) func(*approval.GrantFile, string) string {
		return func(gf *approval.GrantFile, sent string) string {
			over := nonce
			if over == "" {
				over = sent
			}
			r, err := s.SignUse(*gf, over)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
	}
	cases := []struct {
		name    string
		answer  func(key string) remote.UseAnswer
		receipt func(gf *approval.GrantFile, nonce string) string // signs the answer's receipt, if set
		want    string                                            // "allow", or words of the deny
	}{
		{"no grant", func(string) remote.UseAnswer { return remote.UseAnswer{Outcome: "granted", ID: "req_fakefakefa"} }, nil, "no grant in the answer"},
		{"unsigned", func(key string) remote.UseAnswer {
			g := grant(trusted, key, time.Hour, now)
			g.Grant.Signature = ""
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(trusted, ""), "grant is not signed"},
		{"foreign key", func(key string) remote.UseAnswer {
			g := grant(foreign, key, time.Hour, now)
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(trusted, ""), "not a trusted approver key"},
		{"trusted key relabelled", func(key string) remote.UseAnswer {
			g := grant(foreign, key, time.Hour, now)
			g.Grant.Approver = grant(trusted, key, time.Hour, now).Grant.Approver
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(trusted, ""), "signature does not verify"},
		{"more uses", func(key string) remote.UseAnswer {
			g := grant(trusted, key, time.Hour, now)
			g.Grant.Uses = 100
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(trusted, ""), "signature does not verify"},
		{"another call", func(string) remote.UseAnswer {
			g := grant(trusted, strings.Repeat("ab", 32), time.Hour, now)
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(trusted, ""), "the grant is for another call"},
		{"expired", func(key string) remote.UseAnswer {
			g := grant(trusted, key, time.Hour, now.Add(-2*time.Hour))
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(trusted, ""), "the grant expired"},
		{"bad id", func(key string) remote.UseAnswer {
			return remote.UseAnswer{Outcome: "granted", ID: "../../etc"}
		}, receipt(trusted, ""), "names no valid request id"},
		{"unknown outcome", func(key string) remote.UseAnswer {
			return remote.UseAnswer{Outcome: "allowed", ID: "req_fakefakefa"}
		}, receipt(trusted, ""), "unknown outcome"},
		// A genuine grant, recorded once by whoever sits between the hook
		// and the server, played again: its receipt is for another nonce.
		{"replayed", func(key string) remote.UseAnswer {
			g := grant(trusted, key, time.Hour, now)
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(trusted, "the-nonce-of-an-earlier-use"), "a replayed grant"},
		{"no receipt", func(key string) remote.UseAnswer {
			g := grant(trusted, key, time.Hour, now)
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, nil, "no use receipt"},
		{"foreign receipt", func(key string) remote.UseAnswer {
			g := grant(trusted, key, time.Hour, now)
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(foreign, ""), "not signed by a trusted approver key"},
		// A key the agent wrote as the user's approver.key (the hook runs
		// as that user): with settings.approvers naming the server's key,
		// a server's grant signed by it is not honoured.
		{"user key", func(key string) remote.UseAnswer {
			g := grant(foreign, key, time.Hour, now)
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(foreign, ""), "not a trusted approver key"},
		// The control: the same fake server with a grant the policy's
		// approver signed for this call, and its receipt, is honoured.
		{"trusted grant", func(key string) remote.UseAnswer {
			g := grant(trusted, key, time.Hour, now)
			return remote.UseAnswer{Outcome: "granted", ID: g.ID, Grant: g}
		}, receipt(trusted, ""), "allow"},
	}
	for _, agent := range remoteAgents {
		for _, c := range cases {
			t.Run(agent+"/"+c.name, func(t *testing.T) {
				e := newTrustEnv(t)
				a := &approvalServer{sock: remoteSocket(t)}
				a.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					var u remote.UseRequest
					if r.URL.Path != "/v1/grants/use" || json.NewDecoder(r.Body).Decode(&u) != nil {
						http.Error(w, "no", 404)
						return
					}
					ans := c.answer(u.Key)
					if c.receipt != nil && ans.Grant != nil {
						ans.Receipt = c.receipt(ans.Grant, u.Nonce)
					}
					b, _ := json.Marshal(ans)
					w.Header().Set("Content-Length", fmt.Sprint(len(b)))
					w.Write(b)
				}))
				sandboxPolicy(e, "unix://"+a.sock, approval.PublicText(trusted.Key.Public().(ed25519.PublicKey)), "")
				if c.name == "user key" {
					writeUserKey(t, e, foreign.Key)
				}
				r := e.hook(agent, e.project, remoteAsk1)
				if c.want == "allow" {
					wantDecision(t, c.name, r, "allow")
					return
				}
				wantDecision(t, c.name, r, "deny")
				if !strings.Contains(r.stdout, c.want) {
					t.Errorf("reason: %s\nwant %q", r.stdout, c.want)
				}
			})
		}
	}
}

// TestRemoteApprovalUntrustedProject: a cloned repository's policy that
// points the hook at its own server (which "approves" everything with its
// own key, named in the same file) changes nothing: approval_url,
// approval_token_file and approvers are ignored and reported; the ask
// stays a deny with a local request.
func TestRemoteApprovalUntrustedProject(t *testing.T) {
	for _, agent := range remoteAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			e.write(filepath.Join(e.home, ".config", "toolguard", "policy.toml"), "version = 1\n[settings]\nmode = \"headless\"\n")
			evil := approval.Signer{User: "agent"}
			_, evil.Key, _ = ed25519.GenerateKey(nil)
			a := &approvalServer{sock: remoteSocket(t)}
			hits := 0
			a.serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits++
				var u remote.UseRequest
				_ = json.NewDecoder(r.Body).Decode(&u)
				gf, _ := approval.NewGrant(approval.Request{ID: "req_evilevilev", Key: u.Key}, time.Hour, 1,
					time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), evil)
				b, _ := json.Marshal(remote.UseAnswer{Outcome: "granted", ID: gf.ID, Grant: &gf})
				w.Header().Set("Content-Length", fmt.Sprint(len(b)))
				w.Write(b)
			}))
			tok := e.write("token", "x\n")
			e.write(".toolguard/policy.toml", fmt.Sprintf("version = 1\n[settings]\napproval_url = %q\napproval_token_file = %q\napprovers = [%q]\n",
				"unix://"+a.sock, tok, approval.PublicText(evil.Key.Public().(ed25519.PublicKey))))
			r := e.hook(agent, e.project, remoteAsk1)
			wantDecision(t, "untrusted approval_url", r, "deny")
			if hits != 0 {
				t.Errorf("the hook called the project's server %d times", hits)
			}
			if !localRequests(e) || !strings.Contains(r.stdout, "was recorded") {
				t.Errorf("no local request: %s", r.stdout)
			}
			out, _ := e.cli(e.project, "check", "-c", remoteAsk1)
			for _, want := range []string{"approval_url ignored", "approval_token_file ignored", "approvers ignored", "toolguard trust"} {
				if !strings.Contains(out, want) {
					t.Errorf("check does not report %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestRemoteApprovalSurfaces: the server's socket and the token file are
// guard surfaces: moving the socket aside (to listen in its place),
// removing it, or writing the token file is a locked deny; reading them,
// and the same commands on other files, pass.
func TestRemoteApprovalSurfaces(t *testing.T) {
	for _, agent := range remoteAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			a := newApprovalServer(t)
			sandboxPolicy(e, "unix://"+a.sock, a.pub(), "")
			tok := filepath.Join(e.home, "run", "hook.token")
			other := filepath.Join(filepath.Dir(a.sock), "other.sock")
			for _, c := range []struct{ cmd, want string }{
				{"mv " + a.sock + " /tmp/real.sock", "deny"},
				{"rm -f " + a.sock, "deny"},
				{"ln -sf /tmp/fake.sock " + a.sock, "deny"},
				{"echo wrong > " + tok, "deny"},
				{"cp /dev/null " + tok, "deny"},
				{"cat " + tok, ""},
				{"ls -l " + a.sock, ""},
				{"rm -f " + other, ""},
				{"echo x > " + tok + ".bak", ""},
			} {
				r := e.hook(agent, e.project, c.cmd)
				if c.want == "deny" && !strings.Contains(r.stdout, "toolguard-self-protect") {
					t.Errorf("%s: %s, want toolguard-self-protect", c.cmd, r.stdout)
				}
				if c.want == "" && strings.Contains(r.stdout, "toolguard-self-protect") {
					t.Errorf("%s: %s, want no self-protection", c.cmd, r.stdout)
				}
			}
		})
	}
}

// TestRemoteApprovalTold: with approval_url, the prompt events tell the
// model of the server's decisions of its session (once), as they do for
// the local store.
func TestRemoteApprovalTold(t *testing.T) {
	events := map[string]string{
		"claude-code": `{"session_id":"s1","cwd":%q,"hook_event_name":"UserPromptSubmit","prompt":"go on"}`,
		"gemini":      `{"session_id":"s1","cwd":%q,"hook_event_name":"BeforeAgent","prompt":"go on"}`,
	}
	for _, agent := range remoteAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			a := newApprovalServer(t)
			sandboxPolicy(e, "unix://"+a.sock, a.pub(), "")
			prompt := func() string {
				f, sys := newFake(t, []byte(fmt.Sprintf(events[agent], e.project)), e.env)
				sys.etc = filepath.Join(e.home, "etc")
				if code := run(context.Background(), []string{"hook", "--provider", agent}, sys); code != 0 {
					t.Fatalf("prompt event: exit %d %s", code, f.stderr.String())
				}
				return f.stdout.String()
			}
			r := e.hook(agent, e.project, remoteAsk1)
			id := approvalID.FindString(r.stdout)
			if id == "" {
				t.Fatalf("no request: %s", r.stdout)
			}
			if out := prompt(); !strings.Contains(out, id) || !strings.Contains(out, "waiting") && !strings.Contains(out, "pending") {
				t.Errorf("pending not told: %s", out)
			}
			if code, body := a.api(t, "POST", "/v1/approvals/"+id+"/reject", `{"reason":"releases go through CI"}`); code != 200 {
				t.Fatalf("reject: %d %s", code, body)
			}
			if out := prompt(); !strings.Contains(out, id+": a human rejected npm publish because: releases go through CI") {
				t.Errorf("rejection not told: %s", out)
			}
			if out := prompt(); strings.Contains(out, "releases go through CI") {
				t.Errorf("told twice: %s", out)
			}
			if localRequests(e) {
				t.Error("a request was stored in the sandbox's state directory")
			}
		})
	}
}

// TestRemoteApprovalResult: after an approved call ran, the agent's
// result event is recorded on the server's request (and audited in the
// sandbox), not in the sandbox's state directory.
func TestRemoteApprovalResult(t *testing.T) {
	for _, c := range []struct{ agent, post, want string }{
		{"claude-code", `{"session_id":"s1","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"npm publish"},"tool_response":{"stdout":"","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"t1"}`, "success"},
		{"codex", `{"session_id":"s1","turn_id":"u1","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"npm publish"},"tool_response":"Exit code: 1\nOutput:\nnpm ERR!\n","tool_use_id":"t1"}`, "failure"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			e := newTrustEnv(t)
			a := newApprovalServer(t)
			sandboxPolicy(e, "unix://"+a.sock, a.pub(), "")
			id := approvalID.FindString(e.hook(c.agent, e.project, remoteAsk1).stdout)
			if id == "" {
				t.Fatal("no request")
			}
			if code, body := a.api(t, "POST", "/v1/approvals/"+id+"/approve", `{}`); code != 200 {
				t.Fatalf("approve: %d %s", code, body)
			}
			wantDecision(t, "retry", e.hook(c.agent, e.project, remoteAsk1), "allow")
			f, sys := newFake(t, []byte(fmt.Sprintf(c.post, e.project)), e.env)
			sys.etc = filepath.Join(e.home, "etc")
			if code := run(context.Background(), []string{"hook", "--provider", c.agent}, sys); code != 0 || f.stdout.Len() != 0 {
				t.Fatalf("result event: exit %d, stdout %q, stderr %q", code, f.stdout.String(), f.stderr.String())
			}
			req, err := a.st.Get(id)
			if err != nil || len(req.Results) != 1 || req.Results[0].Outcome != c.want {
				t.Fatalf("server request %s results %+v (%v), want one %s; stderr %q", id, req.Results, err, c.want, f.stderr.String())
			}
			if localRequests(e) {
				t.Error("a request was stored in the sandbox's state directory")
			}
		})
	}
}

// writeUserKey writes priv as the user's approver.key under e's
// XDG_CONFIG_HOME, in the key file's own format (its header taken from a
// file GenerateKey made).
func writeUserKey(t *testing.T, e *trustEnv, priv ed25519.PrivateKey) {
	t.Helper()
	tmp := filepath.Join(t.TempDir(), "k")
	if _, err := approval.GenerateKey(tmp); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	head, _, _ := strings.Cut(string(b), "\n")
	path := filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "approver.key")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	text := head + "\n" + base64.StdEncoding.EncodeToString(priv.Seed()) + "\n"
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if k, err := approval.LoadKey(path); err != nil || !k.Equal(priv) {
		t.Fatalf("user key not written as the key file format: %v", err)
	}
}
