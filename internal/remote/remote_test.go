package remote_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/remote"
	"github.com/toolguard/toolguard/internal/serve"
)

const (
	hookTok     = "hook-token-0123456789abc"
	approverTok = "approver-token-0123456789"
)

type server struct {
	srv *serve.Server
	st  *approval.Store
	pub ed25519.PublicKey
}

func newServer(t *testing.T) *server {
	t.Helper()
	dir := t.TempDir()
	key, err := approval.GenerateKey(filepath.Join(dir, "approver.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := approval.Open(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	st.Trust(approval.Keyring{pub})
	srv := serve.New(serve.Config{Store: st, Signer: approval.Signer{Key: key, User: "alice"},
		Tokens: map[string]serve.Role{hookTok: serve.RoleHook, approverTok: serve.RoleApprover}})
	t.Cleanup(srv.Close)
	return &server{srv: srv, st: st, pub: pub}
}

// approve approves id as the approver would, through the API.
func (s *server) approve(t *testing.T, base, id string) {
	t.Helper()
	w := httptest.NewRecorder()
	r := httptest.NewRequest("POST", "/v1/approvals/"+id+"/approve", strings.NewReader(`{"uses":1}`))
	r.Header.Set("Authorization", "Bearer "+approverTok)
	s.srv.ServeHTTP(w, r)
	if w.Code != 200 {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
}

// TestClientAgainstServer: the hook's client against internal/serve's
// real handler, on loopback TCP and on a Unix socket: record, pending,
// approve (approver), a verifying grant once, then none; the hook token
// cannot approve.
func TestClientAgainstServer(t *testing.T) {
	for _, network := range []string{"tcp", "unix"} {
		t.Run(network, func(t *testing.T) {
			s := newServer(t)
			var url string
			switch network {
			case "tcp":
				ts := httptest.NewServer(s.srv)
				t.Cleanup(ts.Close)
				url = ts.URL
			case "unix":
				sock := filepath.Join(shortTemp(t), "s.sock")
				ln, err := net.Listen("unix", sock)
				if err != nil {
					t.Fatal(err)
				}
				hs := &http.Server{Handler: s.srv}
				go hs.Serve(ln)
				t.Cleanup(func() { hs.Close() })
				url = "unix://" + sock
			}
			c, err := remote.New(url, hookTok)
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			cl := call.Call{Provider: "gemini", SessionID: "box-1", Cwd: "/box", Tool: "run_shell_command",
				Kind: call.KindShell, Command: "git tag v9", Shell: "bash"}
			key := approval.Key(cl)
			a, err := c.Use(ctx, remote.UseRequest{Key: key, Session: cl.SessionID})
			if err != nil || a.Outcome != "none" || a.Hold == nil || a.Hold.Kind != "none" {
				t.Fatalf("first use: %+v %v", a, err)
			}
			cr, err := c.Create(ctx, remote.CreateRequest{Call: cl, Key: key, Reason: "ask"})
			if err != nil || cr.Status != approval.StatusPending {
				t.Fatalf("create: %+v %v", cr, err)
			}
			if h, err := c.SessionHold(ctx, "box-1"); err != nil || h.Kind != "pending" || h.ID != cr.ID || h.Summary != "git tag v9" {
				t.Fatalf("hold: %+v %v", h, err)
			}
			if a, err := c.Use(ctx, remote.UseRequest{Key: key}); err != nil || a.Outcome != "pending" || a.ID != cr.ID {
				t.Fatalf("use pending: %+v %v", a, err)
			}
			err = c.Do(ctx, "POST", "/v1/approvals/"+cr.ID+"/approve", struct{}{}, nil)
			var se *remote.StatusError
			if !errors.As(err, &se) || se.Code != 403 || !strings.Contains(se.Msg, "hook role may not") {
				t.Fatalf("hook approve: %v", err)
			}
			s.approve(t, url, cr.ID)
			a, err = c.Use(ctx, remote.UseRequest{Key: key, Nonce: "nonce-1"})
			if err != nil || a.Outcome != "granted" || a.Grant == nil {
				t.Fatalf("use granted: %+v %v", a, err)
			}
			ring := approval.Keyring{s.pub}
			if err := ring.VerifyGrant(*a.Grant, key, time.Now()); err != nil {
				t.Fatalf("grant: %v", err)
			}
			if err := ring.VerifyUse(*a.Grant, "nonce-1", a.Receipt); err != nil {
				t.Fatalf("receipt: %v", err)
			}
			if err := ring.VerifyUse(*a.Grant, "nonce-2", a.Receipt); err == nil {
				t.Fatal("the receipt verifies for another nonce")
			}
			if a, err := c.Use(ctx, remote.UseRequest{Key: key}); err != nil || a.Outcome != "none" {
				t.Fatalf("second use: %+v %v", a, err)
			}
			wrong, _ := remote.New(url, "wrong-token-wrong-token")
			if _, err := wrong.Use(ctx, remote.UseRequest{Key: key}); !errors.As(err, &se) || se.Code != 401 {
				t.Fatalf("wrong token: %v", err)
			}
			// A body near the cap goes through (the header limit does
			// not apply to it).
			big := cl
			big.Command = "echo " + strings.Repeat("x", 200<<10)
			if _, err := c.Create(ctx, remote.CreateRequest{Call: big, Key: approval.Key(big)}); err != nil {
				t.Fatalf("create with a 200 KiB command: %v", err)
			}
		})
	}
}

// shortTemp is a temporary directory with a path short enough for a
// Unix socket (108 bytes).
func shortTemp(t *testing.T) string {
	d, err := os.MkdirTemp("", "tgr")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// fake answers every connection with reply (after reading the request
// head), or, with delay, after that long.
func fake(t *testing.T, reply string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				br := bufio.NewReader(conn)
				for {
					line, err := br.ReadString('\n')
					if err != nil || line == "\r\n" {
						break
					}
				}
				time.Sleep(delay)
				conn.Write([]byte(reply))
			}()
		}
	}()
	return "http://" + ln.Addr().String()
}

// TestClientBadResponses: what a broken or hostile server can answer is
// an error, never an outcome.
func TestClientBadResponses(t *testing.T) {
	ok := `{"outcome":"granted","id":"req_x"}`
	resp := func(status, hdr, body string) string {
		return "HTTP/1.1 " + status + "\r\n" + hdr + "\r\n" + body
	}
	cl := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n", len(body)) }
	cases := []struct {
		name, reply string
		delay       time.Duration
		want        string
	}{
		{"empty", "", 0, "unexpected EOF"},
		{"garbage", "SSH-2.0-OpenSSH_9.6\r\n\r\n", 0, "not an HTTP/1.x response"},
		{"http2 preface", "PRI * HTTP/2.0\r\n\r\n", 0, "not an HTTP/1.x response"},
		{"bad status", resp("2000 OK", cl(ok), ok), 0, "bad status line"},
		{"status words", resp("OK", cl(ok), ok), 0, "bad status line"},
		{"truncated head", "HTTP/1.1 200 OK\r\nContent-Le", 0, "reading the headers"},
		{"truncated status", "HTTP/1.1 20", 0, "bad status line"},
		{"no blank line", "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n", 0, "unexpected EOF"},
		{"truncated body", resp("200 OK", "Content-Length: 100\r\n", ok), 0, "unexpected EOF"},
		{"no length", resp("200 OK", "", ok), 0, "want one Content-Length header, got 0"},
		{"two lengths", resp("200 OK", cl(ok)+cl(ok), ok), 0, "got 2"},
		{"negative length", resp("200 OK", "Content-Length: -1\r\n", ok), 0, "bad Content-Length"},
		{"chunked", resp("200 OK", "Transfer-Encoding: chunked\r\n", "5\r\nhello\r\n0\r\n\r\n"), 0, "Transfer-Encoding"},
		{"oversized", resp("200 OK", fmt.Sprintf("Content-Length: %d\r\n", remote.MaxBody+1), ok), 0, "larger than"},
		{"huge headers", "HTTP/1.1 200 OK\r\nX: " + strings.Repeat("a", remote.MaxHeader) + "\r\n\r\n", 0, "headers larger than"},
		{"not json", resp("200 OK", cl("<html>"), "<html>"), 0, "not the JSON wanted"},
		{"json array", resp("200 OK", cl("[1]"), "[1]"), 0, "not the JSON wanted"},
		{"trailing data", resp("200 OK", cl(ok+"{}"), ok+"{}"), 0, "not the JSON wanted"},
		{"forbidden", resp("403 Forbidden", cl(`{"error":"no"}`), `{"error":"no"}`), 0, "status 403: no"},
		{"redirect", resp("302 Found", "Location: http://evil/\r\n"+cl(""), ""), 0, "status 302"},
		{"server error", resp("500 Internal Server Error", cl("oops"), "oops"), 0, "status 500"},
		{"slow server", resp("200 OK", cl(ok), ok), 3 * time.Second, "no answer within 500ms"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := remote.New(fake(t, tc.reply, tc.delay), hookTok)
			if err != nil {
				t.Fatal(err)
			}
			c.Timeout = 500 * time.Millisecond
			start := time.Now()
			a, err := c.Use(context.Background(), remote.UseRequest{Key: strings.Repeat("0", 64)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("answer %+v, err %v; want an error with %q", a, err, tc.want)
			}
			if d := time.Since(start); d > 2*time.Second {
				t.Fatalf("took %v with a 500ms timeout", d)
			}
		})
	}
}

// TestClientDeadlines: a server that is not there, or one that never
// answers, ends within the per-request timeout or the caller's context,
// whichever is first.
func TestClientDeadlines(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	c, _ := remote.New("http://"+addr, hookTok)
	if _, err := c.Use(context.Background(), remote.UseRequest{}); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("closed port: %v", err)
	}
	c, _ = remote.New("unix:///nonexistent/toolguard.sock", hookTok)
	if _, err := c.Use(context.Background(), remote.UseRequest{}); err == nil {
		t.Fatal("missing socket: no error")
	}
	// A listener that accepts and never answers.
	silent := fake(t, "", time.Hour)
	c, _ = remote.New(silent, hookTok)
	start := time.Now()
	if _, err := c.Use(context.Background(), remote.UseRequest{}); err == nil || time.Since(start) > remote.DefaultTimeout+time.Second {
		t.Fatalf("silent server: %v after %v (timeout %v)", err, time.Since(start), remote.DefaultTimeout)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	start = time.Now()
	if _, err := c.Use(ctx, remote.UseRequest{}); !errors.Is(err, context.Canceled) || time.Since(start) > time.Second {
		t.Fatalf("cancelled: %v after %v", err, time.Since(start))
	}
}

func TestNew(t *testing.T) {
	for _, tc := range []struct{ url, token, want string }{
		{"https://x:1", hookTok, "https is not supported"},
		{"unix://rel/s.sock", hookTok, "unix:///absolute"},
		{"http://x", hookTok, "want http://host:port"},
		{"http://x:1/v1", hookTok, "want http://host:port"},
		{"http://x:99999", hookTok, "bad port"},
		{"ftp://x:1", hookTok, "want unix:///path"},
		{"http://x:1", "", "no approval token"},
		{"http://x:1", "a\r\nX-Evil: 1", "line break"},
	} {
		if _, err := remote.New(tc.url, tc.token); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%q, %q): %v, want %q", tc.url, tc.token, err, tc.want)
		}
	}
	for _, u := range []string{"unix:///run/s.sock", "http://127.0.0.1:8787", "http://[::1]:8787/", "http://host.docker.internal:8787"} {
		if _, err := remote.New(u, hookTok); err != nil {
			t.Errorf("New(%q): %v", u, err)
		}
	}
}
