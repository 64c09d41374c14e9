package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolguard/toolguard/internal/serve"
)

// lockedBuffer is a bytes.Buffer safe for a server goroutine and a test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveEnv is a home, config and state directory for one test.
type serveEnv struct {
	home string
	env  map[string]string
}

func newServeEnv(t *testing.T) *serveEnv {
	t.Helper()
	home := t.TempDir()
	return &serveEnv{home: home, env: map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
		"USER":            "alice",
	}}
}

// sys is a system with the real clock, for a server and the hooks that
// talk to its store.
func (e *serveEnv) sys(stdin []byte, stdout, stderr io.Writer) *system {
	return &system{
		stdin:      bytes.NewReader(stdin),
		stdout:     stdout,
		stderr:     stderr,
		getenv:     func(k string) string { return e.env[k] },
		now:        time.Now,
		getwd:      func() (string, error) { return e.home, nil },
		executable: func() (string, error) { return "/usr/local/bin/toolguard", nil },
		etc:        filepath.Join(e.home, "etc"),
		isTerminal: func() bool { return false },
		serve:      inProcessServe,
	}
}

// inProcessServe is the serve command of toolguard-serve, run in the test
// process with sys's environment.
func inProcessServe(sys *system) *cobra.Command { return serve.NewCommand(sys.guardSys()) }

// runTool runs one toolguard command line in-process.
func (e *serveEnv) runTool(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, e.sys(stdin, &out, &errb))
	return code, out.String(), errb.String()
}

// served is a running in-process `toolguard serve`.
type served struct {
	base, approver, hook, login string
	stderr                      *lockedBuffer
}

var listenLine = regexp.MustCompile(`listening on (https?://127\.0\.0\.1:\d+)`)
var loginLine = regexp.MustCompile(`sign in once at (\S+/login\?t=\S+)`)

// tokensFor writes a token file with an approver and a hook token at the
// default place, as a platform that decides through the API would.
func (e *serveEnv) tokensFor(t *testing.T) {
	t.Helper()
	p := filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "serve.tokens")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	data := "# test tokens\napprover approver-" + strings.Repeat("a", 20) + "\nhook hook-" + strings.Repeat("b", 20) + "\n"
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// start runs `toolguard serve --addr 127.0.0.1:0 ARGS` until the test ends.
func (e *serveEnv) start(t *testing.T, args ...string) *served {
	t.Helper()
	e.tokensFor(t)
	ctx, cancel := context.WithCancel(context.Background())
	s := &served{stderr: &lockedBuffer{}}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), e.sys(nil, io.Discard, s.stderr))
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case code := <-done:
			if code != 0 {
				t.Errorf("serve exited %d:\n%s", code, s.stderr)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("serve did not shut down")
		}
	})
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenLine.FindStringSubmatch(s.stderr.String()); m != nil {
			s.base = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d:\n%s", code, s.stderr)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if s.base == "" {
		t.Fatalf("serve did not start:\n%s", s.stderr)
	}
	if m := loginLine.FindStringSubmatch(s.stderr.String()); m != nil {
		s.login = m[1]
	}
	s.approver, s.hook = readTokens(t, filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "serve.tokens"))
	return s
}

func readTokens(t *testing.T, path string) (approver, hook string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			switch f[0] {
			case "approver":
				approver = f[1]
			case "hook":
				hook = f[1]
			}
		}
	}
	if approver == "" || hook == "" {
		t.Fatalf("token file %s:\n%s", path, data)
	}
	return approver, hook
}

// call sends one request and returns the status and body.
func (s *served) call(t *testing.T, method, path, token, body string) (int, string) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// TestServeCheckMatchesCLI: POST /v1/check answers exactly what
// `check --json` prints, for every form of call, and records no approval
// request even in headless mode.
func TestServeCheckMatchesCLI(t *testing.T) {
	e := newServeEnv(t)
	s := e.start(t)
	payload := `{"session_id":"s1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git push --force origin main"},"cwd":"/tmp"}`
	cases := []struct {
		name string
		body string
		args []string
	}{
		{"command", `{"command":"git push --force origin main","cwd":"/tmp"}`, []string{"-c", "git push --force origin main", "--cwd", "/tmp"}},
		{"argv", `{"argv":["rm","-rf","/"],"cwd":"/tmp"}`, []string{"--cwd", "/tmp", "--", "rm", "-rf", "/"}},
		{"look-alike", `{"command":"git push origin feature","cwd":"/tmp"}`, []string{"-c", "git push origin feature", "--cwd", "/tmp"}},
		{"write", `{"tool":"write","path":"/tmp/p/.github/workflows/ci.yml","cwd":"/tmp/p"}`, []string{"--tool", "write", "--path", "/tmp/p/.github/workflows/ci.yml", "--cwd", "/tmp/p"}},
		{"mcp", `{"mcp":"github/delete_repository","input":{"repo":"x"},"cwd":"/tmp"}`, []string{"--mcp", "github/delete_repository", "--input", `{"repo":"x"}`, "--cwd", "/tmp"}},
		{"url", `{"url":"https://example.com/x","cwd":"/tmp"}`, []string{"--url", "https://example.com/x", "--cwd", "/tmp"}},
		{"headless ask", `{"command":"git reset --hard HEAD~1","cwd":"/tmp","mode":"headless"}`, []string{"-c", "git reset --hard HEAD~1", "--cwd", "/tmp", "--mode", "headless"}},
		{"workspace", `{"command":"rm -rf /w/build","cwd":"/w","workspace":"/w"}`, []string{"-c", "rm -rf /w/build", "--cwd", "/w", "--workspace", "/w"}},
	}
	payloadFile := filepath.Join(e.home, "payload.json")
	if err := os.WriteFile(payloadFile, []byte(payload), 0o600); err != nil {
		t.Fatal(err)
	}
	cases = append(cases, struct {
		name string
		body string
		args []string
	}{"payload", `{"payload":` + payload + `,"provider":"claude-code"}`, []string{"--payload", payloadFile, "--provider", "claude-code"}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := s.call(t, "POST", "/v1/check", s.hook, tc.body)
			if code != 200 {
				t.Fatalf("status %d: %s", code, body)
			}
			cliCode, cli, stderr := e.runTool(t, nil, append([]string{"check", "--json"}, tc.args...)...)
			if cliCode != 0 {
				t.Fatalf("check exited %d: %s", cliCode, stderr)
			}
			var a, b any
			if err := json.Unmarshal([]byte(body), &a); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(cli), &b); err != nil {
				t.Fatal(err)
			}
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			if string(ja) != string(jb) {
				t.Errorf("endpoint and CLI differ:\nendpoint %s\ncli      %s", ja, jb)
			}
		})
	}
	// The headless ask is a deny that says a request would be recorded; none was.
	code, body := s.call(t, "POST", "/v1/check", s.hook, `{"command":"git reset --hard HEAD~1","cwd":"/tmp","mode":"headless"}`)
	if code != 200 || !strings.Contains(body, `"decision": "deny"`) || !strings.Contains(body, "check records none") {
		t.Errorf("headless ask: %d %s", code, body)
	}
	code, body = s.call(t, "GET", "/v1/approvals", s.approver, "")
	if code != 200 || strings.TrimSpace(body) != "[]" {
		t.Errorf("check recorded approval requests: %s", body)
	}
	// A policy of the request's own, instead of the served one.
	code, body = s.call(t, "POST", "/v1/check", s.hook, `{"command":"make deploy","cwd":"/tmp","policy":"[[rule]]\nid = \"no-deploy\"\ndecision = \"deny\"\ncommand = [\"make deploy\"]\njustification = \"not from an agent\"\n"}`)
	if code != 200 || !strings.Contains(body, `"rule": "no-deploy"`) {
		t.Errorf("request policy: %d %s", code, body)
	}
	code, body = s.call(t, "POST", "/v1/check", s.hook, `{"command":"ls","policy":"[[rule]\n"}`)
	if code != 422 || !strings.Contains(body, "does not load") {
		t.Errorf("broken request policy: %d %s", code, body)
	}
	for _, bad := range []struct{ body, want string }{
		{`{"command":"ls","argv":["ls"]}`, "exactly one of"},
		{`{}`, "exactly one of"},
		{`{"argv":[]}`, `"argv" is empty`},
		{`{"command":"ls","cwd":"rel"}`, "absolute path"},
		{`{"command":"ls","mode":"sleepy"}`, "unknown --mode"},
		{`{"command":"ls","input":{}}`, `"input" goes with "mcp"`},
		{`{"mcp":"nosep"}`, "server/tool"},
		{`{"command":"ls","provider":"codex"}`, `"provider" goes with "payload"`},
		{`{"payload":{"x":1},"provider":"nonesuch"}`, "nonesuch"},
	} {
		code, body := s.call(t, "POST", "/v1/check", s.hook, bad.body)
		var e struct{ Error string }
		_ = json.Unmarshal([]byte(body), &e)
		if code != 400 || !strings.Contains(e.Error, bad.want) {
			t.Errorf("%s: %d %s (want 400 with %q)", bad.body, code, body, bad.want)
		}
	}
	// validate: every problem with line and column.
	code, body = s.call(t, "POST", "/v1/validate", s.hook, `{"policy":"[[rule]]\nid = \"x\"\ndecision = \"maybe\"\ncommand = [\"ls\"]\n\n[[rule]]\nid = \"x\"\ndecision = \"deny\"\ncommand = [\"ls\"]\n"}`)
	if code != 200 || !strings.Contains(body, `"ok": false`) || !strings.Contains(body, `"line": 3`) {
		t.Errorf("validate: %d %s", code, body)
	}
	code, body = s.call(t, "POST", "/v1/validate", s.hook, `{"policy":"[[rule]]\nid = \"ok-rule\"\ndecision = \"deny\"\ncommand = [\"make deploy\"]\njustification = \"no\"\n"}`)
	if code != 200 || !strings.Contains(body, `"ok": true`) {
		t.Errorf("validate ok: %d %s", code, body)
	}
}

var reqID = regexp.MustCompile(`req_[a-z2-7]{10}`)

// TestServeApprovalsThroughHook is the real hook path with the server as
// the human: a headless ask records a request, an approval through the API
// allows the identical call once, a rejection's reason reaches the next
// call; for Claude Code and Codex. A look-alike passes without a request.
func TestServeApprovalsThroughHook(t *testing.T) {
	for _, p := range []struct {
		provider string
		payload  func(cmd string) string
		allow    func(stdout string) bool
	}{
		{"claude-code", func(cmd string) string {
			return `{"session_id":"sess-1","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + quoteJSON(cmd) + `},"cwd":"/tmp/proj"}`
		}, func(out string) bool {
			return strings.Contains(out, `"permissionDecision":"allow"`) && strings.Contains(out, "allowed once by approval")
		}},
		{"codex", func(cmd string) string {
			return `{"session_id":"sess-1","turn_id":"t1","cwd":"/tmp/proj","hook_event_name":"PreToolUse","model":"gpt-5.5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":` + quoteJSON(cmd) + `},"tool_use_id":"c1"}`
		}, func(out string) bool { return out == "" }}, // Codex: an allow is exit 0 with no output
	} {
		t.Run(p.provider, func(t *testing.T) {
			e := newServeEnv(t)
			s := e.start(t)
			hook := func(cmd string) (int, string) {
				code, out, _ := e.runTool(t, []byte(p.payload(cmd)), "hook", "--provider", p.provider, "--mode", "headless")
				return code, out
			}
			code, out := hook("git reset --hard HEAD~1")
			if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) {
				t.Fatalf("first call: exit %d %s", code, out)
			}
			id := reqID.FindString(out)
			if id == "" {
				t.Fatalf("no request id in %s", out)
			}
			st, body := s.call(t, "GET", "/v1/approvals/"+id+"?session=sess-1", s.hook, "")
			if st != 200 || !strings.Contains(body, `"command": "git reset --hard HEAD~1"`) || !strings.Contains(body, `"status": "pending"`) {
				t.Fatalf("GET %s: %d %s", id, st, body)
			}
			st, body = s.call(t, "GET", "/v1/approvals?session=sess-1&provider="+p.provider, s.hook, "")
			if st != 200 || !strings.Contains(body, id) {
				t.Fatalf("list own session: %d %s", st, body)
			}
			// the hook token cannot approve its own request
			if st, _ := s.call(t, "POST", "/v1/approvals/"+id+"/approve", s.hook, `{}`); st != 403 {
				t.Fatalf("hook token approved: %d", st)
			}
			if code, out := hook("git reset --hard HEAD~1"); code != 0 || !strings.Contains(out, "deny") || reqID.FindString(out) != id {
				t.Fatalf("retry before approval: %d %s", code, out)
			}
			st, body = s.call(t, "POST", "/v1/approvals/"+id+"/approve", s.approver, `{"uses":1,"ttl":"10m","session":"sess-1"}`)
			if st != 200 || !strings.Contains(body, `"user": "alice"`) {
				t.Fatalf("approve: %d %s", st, body)
			}
			code, out = hook("git reset --hard HEAD~1")
			if code != 0 || !p.allow(out) {
				t.Fatalf("retry after approval: exit %d %s", code, out)
			}
			// the one use is gone: a new request
			code, out = hook("git reset --hard HEAD~1")
			id2 := reqID.FindString(out)
			if code != 0 || !strings.Contains(out, "deny") || id2 == "" || id2 == id {
				t.Fatalf("third call: %d %s", code, out)
			}
			st, body = s.call(t, "POST", "/v1/approvals/"+id2+"/reject", s.approver, `{"reason":"use git stash instead"}`)
			if st != 200 {
				t.Fatalf("reject: %d %s", st, body)
			}
			code, out = hook("git reset --hard HEAD~1")
			if code != 0 || !strings.Contains(out, "a human rejected this call") || !strings.Contains(out, "use git stash instead") {
				t.Fatalf("after reject: %d %s", code, out)
			}
			// a different command is not covered by either decision
			code, out = hook("git reset --hard HEAD~2")
			id3 := reqID.FindString(out)
			if code != 0 || id3 == "" || id3 == id || id3 == id2 {
				t.Fatalf("another command: %d %s", code, out)
			}
			// while id3 is pending the session is held (headless_hold.go); answer it
			if st, body := s.call(t, "POST", "/v1/approvals/"+id3+"/reject", s.approver, `{"reason":"not now"}`); st != 200 {
				t.Fatalf("reject %s: %d %s", id3, st, body)
			}
			// a look-alike that is no ask passes without a request
			code, out = hook("git reset --soft HEAD~1")
			if code != 0 || strings.Contains(out, "deny") || reqID.MatchString(out) {
				t.Fatalf("look-alike: %d %s", code, out)
			}
			// the decisions are in the audit log with the approver
			log, err := os.ReadFile(filepath.Join(e.env["XDG_STATE_HOME"], "toolguard", "audit.jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), `"event":"approval.decision"`) || !strings.Contains(string(log), "rejected by alice (SHA256:") {
				t.Errorf("audit log lacks the decisions:\n%s", log)
			}
			st, body = s.call(t, "GET", "/v1/audit/summary?since=1h", s.approver, "")
			if st != 200 || !strings.Contains(body, `"total"`) {
				t.Errorf("audit summary: %d %s", st, body)
			}
		})
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestServeRefuses: addresses beyond loopback without TLS, token files
// others can read, malformed token files.
func TestServeRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		setup func(e *serveEnv) error
		want  string
	}{
		{"all interfaces", []string{"--addr", ":8787"}, nil, "not a loopback address"},
		{"public address", []string{"--addr", "192.0.2.1:8787"}, nil, "not a loopback address"},
		{"cert without key", []string{"--tls-cert", "c.pem"}, nil, "go together"},
		{"bad tls files", []string{"--addr", "127.0.0.1:0", "--tls-cert", "nope.pem", "--tls-key", "nope.key"}, nil, "TLS"},
		{"readable token file", []string{"--addr", "127.0.0.1:0"}, func(e *serveEnv) error {
			p := filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "serve.tokens")
			os.MkdirAll(filepath.Dir(p), 0o700)
			return os.WriteFile(p, []byte("approver 0123456789abcdef0123\n"), 0o644)
		}, "lets others read it"},
		{"unknown role", []string{"--addr", "127.0.0.1:0"}, func(e *serveEnv) error {
			p := filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "serve.tokens")
			os.MkdirAll(filepath.Dir(p), 0o700)
			return os.WriteFile(p, []byte("root 0123456789abcdef0123\n"), 0o600)
		}, "unknown role"},
		{"short token", []string{"--addr", "127.0.0.1:0"}, func(e *serveEnv) error {
			p := filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "serve.tokens")
			os.MkdirAll(filepath.Dir(p), 0o700)
			return os.WriteFile(p, []byte("approver short\n"), 0o600)
		}, "shorter than 16"},
		{"bad mode", []string{"--mode", "maybe"}, nil, "unknown --mode"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newServeEnv(t)
			if tc.setup != nil {
				if err := tc.setup(e); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var errb bytes.Buffer
			code := run(ctx, append([]string{"serve"}, tc.args...), e.sys(nil, io.Discard, &errb))
			if code != 1 || !strings.Contains(errb.String(), tc.want) {
				t.Fatalf("exit %d, stderr %q (want 1 and %q)", code, errb.String(), tc.want)
			}
			if strings.Contains(errb.String(), "listening on") {
				t.Fatalf("it listened: %s", errb.String())
			}
		})
	}
}

// TestServeSocket: --socket serves on a Unix socket only its owner can use.
func TestServeSocket(t *testing.T) {
	e := newServeEnv(t)
	sock := filepath.Join(e.home, "tg.sock")
	ctx, cancel := context.WithCancel(context.Background())
	var errb lockedBuffer
	done := make(chan int, 1)
	go func() { done <- run(ctx, []string{"serve", "--socket", sock}, e.sys(nil, io.Discard, &errb)) }()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(errb.String(), "listening on unix:") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket %v %v\n%s", fi, err, errb.String())
	}
	c := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "unix", sock)
	}}}
	res, err := c.Get("http://toolguard/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("healthz over the socket: %d", res.StatusCode)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
}

// TestServeProcess starts `toolguard-serve serve` as a real process on a
// loopback port, calls /healthz and /v1/check, and stops it with SIGTERM.
func TestServeProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "toolguard-serve")
	build := exec.Command("go", "build", "-o", bin, "../toolguard-serve")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	e := newServeEnv(t)
	e.tokensFor(t)
	cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0")
	cmd.Dir = e.home
	cmd.Env = []string{"PATH=" + os.Getenv("PATH")}
	for k, v := range e.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	s := &served{}
	timeout := time.After(20 * time.Second)
	for s.base == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("serve exited before listening")
			}
			if m := listenLine.FindStringSubmatch(l); m != nil {
				s.base = m[1]
			}
		case <-timeout:
			t.Fatal("serve did not start")
		}
	}
	s.approver, s.hook = readTokens(t, filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "serve.tokens"))
	if code, body := s.call(t, "GET", "/healthz", "", ""); code != 200 || !strings.Contains(body, "ok") {
		t.Fatalf("healthz: %d %s", code, body)
	}
	code, body := s.call(t, "POST", "/v1/check", s.hook, `{"command":"git push --force origin main"}`)
	if code != 200 || !strings.Contains(body, `"decision": "deny"`) || !strings.Contains(body, "git-push-force") {
		t.Fatalf("check: %d %s", code, body)
	}
	if code, _ := s.call(t, "POST", "/v1/check", "", `{"command":"ls"}`); code != 401 {
		t.Fatalf("check without a token: %d", code)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var rest []string
	for l := range lines {
		rest = append(rest, l)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v\n%s", err, strings.Join(rest, "\n"))
	}
	if !strings.Contains(strings.Join(rest, "\n"), "shutting down") {
		t.Errorf("no shutdown line: %s", rest)
	}
}

// TestServeConcurrentChecks: many clients at once get the answers one
// client gets (run with -race: the served policy is shared).
func TestServeConcurrentChecks(t *testing.T) {
	e := newServeEnv(t)
	s := e.start(t)
	cases := map[string]string{
		`{"command":"git push --force origin main","cwd":"/tmp/p"}`:                `"decision": "deny"`,
		`{"command":"git status","cwd":"/tmp/p"}`:                                  `"decision": "pass"`,
		`{"tool":"write","path":"/tmp/p/.github/workflows/ci.yml","cwd":"/tmp/p"}`: `"decision": "ask"`,
		`{"command":"git reset --hard","cwd":"/tmp/p","mode":"headless"}`:          `"decision": "deny"`,
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 16; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				for body, want := range cases {
					req, _ := http.NewRequest("POST", s.base+"/v1/check", strings.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+s.hook)
					res, err := http.DefaultClient.Do(req)
					if err != nil {
						errs <- err.Error()
						return
					}
					b, _ := io.ReadAll(res.Body)
					res.Body.Close()
					if res.StatusCode != 200 || !strings.Contains(string(b), want) {
						errs <- fmt.Sprintf("%s: %d %s", body, res.StatusCode, b)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if _, body := s.call(t, "GET", "/v1/approvals", s.approver, ""); strings.TrimSpace(body) != "[]" {
		t.Errorf("checks recorded requests: %s", body)
	}
}

// TestServeTokenFileCreated: the first start writes a token file (0600)
// with a hook token only: the agent runs as the user and may read it, so
// it holds no token that can approve.
func TestServeTokenFileCreated(t *testing.T) {
	e := newServeEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	var errb lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, e.sys(nil, io.Discard, &errb))
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(errb.String(), "listening on") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	p := filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "serve.tokens")
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", fi, err)
	}
	data, _ := os.ReadFile(p)
	var roles []string
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) == 2 && !strings.HasPrefix(l, "#") {
			roles = append(roles, f[0])
		}
	}
	if strings.Join(roles, ",") != "hook" {
		t.Fatalf("roles %v, want only hook:\n%s", roles, data)
	}
	if !strings.Contains(errb.String(), "/login?t=") {
		t.Errorf("no sign-in link printed: %s", errb.String())
	}
}

// TestServeNotify: a request a real hook call records is posted to the
// --notify webhook (on loopback), with a link to its card.
func TestServeNotify(t *testing.T) {
	got := make(chan string, 4)
	hookSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
	}))
	defer hookSrv.Close()
	e := newServeEnv(t)
	s := e.start(t, "--notify", hookSrv.URL, "--notify-events", "approval.request,approval.decision")
	payload := `{"session_id":"sess-n","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git reset --hard HEAD~3"},"cwd":"/tmp/proj"}`
	_, out, _ := e.runTool(t, []byte(payload), "hook", "--provider", "claude-code", "--mode", "headless")
	id := reqID.FindString(out)
	if id == "" {
		t.Fatalf("no request: %s", out)
	}
	select {
	case b := <-got:
		if !strings.Contains(b, `"event":"approval.request"`) || !strings.Contains(b, id) || !strings.Contains(b, s.base+"/#"+id) {
			t.Fatalf("notification %s", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification")
	}
	if code, body := s.call(t, "POST", "/v1/approvals/"+id+"/reject", s.approver, `{"reason":"not now"}`); code != 200 {
		t.Fatalf("reject: %d %s", code, body)
	}
	select {
	case b := <-got:
		if !strings.Contains(b, `"event":"approval.decision"`) || !strings.Contains(b, "not now") {
			t.Fatalf("decision notification %s", b)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no decision notification")
	}
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--notify", "ftp://x"}, e.sys(nil, io.Discard, &errb)); code != 1 || !strings.Contains(errb.String(), "want http") {
		t.Errorf("bad --notify: %d %s", code, errb.String())
	}
}

// TestServeTLS: with --tls-cert/--tls-key serve speaks HTTPS and marks the
// session cookie Secure. (Loopback here: the tests bind nothing else.)
func TestServeTLS(t *testing.T) {
	e := newServeEnv(t)
	certFile, keyFile, pool := selfSigned(t, e.home)
	s := e.start(t, "--tls-cert", certFile, "--tls-key", keyFile)
	base := s.base
	if !strings.HasPrefix(base, "https://") {
		t.Fatalf("not https: %s", s.stderr)
	}
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := c.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("healthz over TLS: %d", res.StatusCode)
	}
	link := loginLine.FindStringSubmatch(s.stderr.String())
	if link == nil {
		t.Fatalf("no link: %s", s.stderr)
	}
	res, err = c.Get(link[1])
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if sc := res.Header.Get("Set-Cookie"); res.StatusCode != 303 || !strings.Contains(sc, "Secure") || !strings.Contains(sc, "HttpOnly") {
		t.Fatalf("login over TLS: %d %q", res.StatusCode, sc)
	}
}

// selfSigned writes a certificate for 127.0.0.1 and its key.
func selfSigned(t *testing.T, dir string) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "toolguard test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}
