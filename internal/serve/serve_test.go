package serve

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
)

const (
	approverTok = "approver-token-0123456789"
	hookTok     = "hook-token-0123456789abc"
)

type fixture struct {
	srv     *Server
	st      *approval.Store
	id      string // a pending request
	mu      sync.Mutex
	checks  []CheckRequest
	audited []DecisionEvent
}

// newFixture is a server over a fresh store with one pending request;
// each opt changes its Config first.
func newFixture(t *testing.T, opts ...func(*Config)) *fixture {
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
	st.Trust(approval.Keyring{key.Public().(ed25519.PublicKey)})
	req, err := st.Create(approval.Request{Key: "key-1", Summary: "git tag v1", Tool: "Bash", Kind: "shell",
		Cwd: "/p", Session: "s1", Provider: "claude-code", Reason: "ask",
		Preview: &approval.Preview{Command: "git tag v1"}}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, id: req.ID}
	cfg := Config{
		Check: func(_ context.Context, r CheckRequest) (*guard.Report, error) {
			f.mu.Lock()
			f.checks = append(f.checks, r)
			f.mu.Unlock()
			if r.Command == "usage" {
				return nil, errors.New("a usage problem")
			}
			return &guard.Report{Decision: call.Allow, Reason: r.Command}, nil
		},
		Validate: func(r ValidateRequest) ([]Problem, error) {
			if strings.Contains(r.Policy, "bad") {
				return []Problem{{File: "policy.toml", Line: 1, Col: 2, Message: "bad"}}, nil
			}
			return nil, nil
		},
		AuditSummary: func(since time.Time) (*audit.Summary, error) { s := audit.Aggregate(nil, since); return &s, nil },
		Audit: func(ev DecisionEvent) error {
			f.mu.Lock()
			f.audited = append(f.audited, ev)
			f.mu.Unlock()
			return nil
		},
		Store:      st,
		Signer:     approval.Signer{Key: key, User: "alice"},
		Tokens:     map[string]Role{approverTok: RoleApprover, hookTok: RoleHook},
		LoginToken: "login-once",
		Poll:       20 * time.Millisecond,
	}
	for _, o := range opts {
		o(&cfg)
	}
	f.srv = New(cfg)
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) do(t *testing.T, method, path, token, body string, hdr ...string) *httptest.ResponseRecorder {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	r := httptest.NewRequest(method, path, rd)
	if token != "" {
		r.Header.Set("Authorization", "Bearer "+token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Set(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, r)
	return w
}

func errorOf(t *testing.T, w *httptest.ResponseRecorder) string {
	t.Helper()
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &e); err != nil {
		t.Fatalf("body is not JSON: %v\n%s", err, w.Body)
	}
	return e.Error
}

// TestEndpoints is every endpoint with both roles and the bad input: the
// status, the error's words, and (for bad input) an untouched store.
func TestEndpoints(t *testing.T) {
	big := `{"command": "` + strings.Repeat("a", MaxBody) + `"}`
	cases := []struct {
		name, method, path, token, body string
		status                          int
		want                            string // in the error, or in the body for 2xx
		changes                         bool   // the request may change
	}{
		{"healthz without token", "GET", "/healthz", "", "", 200, `"ok"`, false},
		{"check approver", "POST", "/v1/check", approverTok, `{"command":"git status"}`, 200, `"allow"`, false},
		{"check hook", "POST", "/v1/check", hookTok, `{"command":"git status"}`, 200, `"allow"`, false},
		{"check argv", "POST", "/v1/check", hookTok, `{"argv":["ls","-l"]}`, 200, `"allow"`, false},
		{"check no token", "POST", "/v1/check", "", `{"command":"x"}`, 401, "no token", false},
		{"check wrong token", "POST", "/v1/check", "nope-nope-nope-nope", `{"command":"x"}`, 401, "unknown token", false},
		{"check malformed json", "POST", "/v1/check", hookTok, `{"command":`, 400, "malformed JSON", false},
		{"check not an object", "POST", "/v1/check", hookTok, `["x"]`, 400, "the body is JSON array: want a JSON object", false},
		{"check unknown field", "POST", "/v1/check", hookTok, `{"command":"x","comand":"y"}`, 400, `unknown field "comand"`, false},
		{"check wrong type", "POST", "/v1/check", hookTok, `{"command":1}`, 400, `field "command"`, false},
		{"check trailing data", "POST", "/v1/check", hookTok, `{"command":"x"} {}`, 400, "data after the object", false},
		{"check empty body", "POST", "/v1/check", hookTok, ``, 400, "empty request body", false},
		{"check oversized", "POST", "/v1/check", hookTok, big, 413, "larger than", false},
		{"check usage error", "POST", "/v1/check", hookTok, `{"command":"usage"}`, 400, "a usage problem", false},
		{"check wrong method", "GET", "/v1/check", hookTok, ``, 405, "method GET not allowed", false},
		{"validate ok", "POST", "/v1/validate", hookTok, `{"policy":"[settings]\n"}`, 200, `"ok": true`, false},
		{"validate problems", "POST", "/v1/validate", approverTok, `{"policy":"bad"}`, 200, `"line": 1`, false},
		{"validate no policy", "POST", "/v1/validate", approverTok, `{}`, 400, `"policy" is required`, false},
		{"validate wrong method", "DELETE", "/v1/validate", approverTok, ``, 405, "not allowed", false},
		{"list approver", "GET", "/v1/approvals", approverTok, ``, 200, "git tag v1", false},
		{"list filter", "GET", "/v1/approvals?status=pending&provider=claude-code&session=s1", approverTok, ``, 200, "git tag v1", false},
		{"list hook without session", "GET", "/v1/approvals", hookTok, ``, 403, "one session", false},
		{"list hook own session", "GET", "/v1/approvals?session=s1", hookTok, ``, 200, "git tag v1", false},
		{"list bad status", "GET", "/v1/approvals?status=maybe", approverTok, ``, 400, "unknown status", false},
		{"list unknown param", "GET", "/v1/approvals?sesion=s1", approverTok, ``, 400, "unknown query parameter", false},
		{"list no token", "GET", "/v1/approvals", "", ``, 401, "no token", false},
		{"get", "GET", "/v1/approvals/{id}", approverTok, ``, 200, `"command": "git tag v1"`, false},
		{"get hook own session", "GET", "/v1/approvals/{id}?session=s1", hookTok, ``, 200, `"command": "git tag v1"`, false},
		{"get hook without session", "GET", "/v1/approvals/{id}", hookTok, ``, 403, "one session", false},
		{"get hook other session", "GET", "/v1/approvals/{id}?session=s2", hookTok, ``, 404, "no approval request", false},
		{"get unknown param", "GET", "/v1/approvals/{id}?x=1", approverTok, ``, 400, "unknown query parameter", false},
		{"get missing", "GET", "/v1/approvals/req_aaaaaaaaaa", approverTok, ``, 404, "no approval request", false},
		{"get invalid id", "GET", "/v1/approvals/req.bad", approverTok, ``, 400, "invalid approval request id", false},
		{"get dot dot", "GET", "/v1/approvals/..%2Fx", approverTok, ``, 400, "invalid", false},
		{"approve hook refused", "POST", "/v1/approvals/{id}/approve", hookTok, `{}`, 403, "hook role may not", false},
		{"approve no token", "POST", "/v1/approvals/{id}/approve", "", `{}`, 401, "no token", false},
		{"approve bad uses", "POST", "/v1/approvals/{id}/approve", approverTok, `{"uses":-1}`, 400, "uses must be", false},
		{"approve bad ttl", "POST", "/v1/approvals/{id}/approve", approverTok, `{"ttl":"forever"}`, 400, "ttl", false},
		{"approve huge ttl", "POST", "/v1/approvals/{id}/approve", approverTok, `{"ttl":"9000h"}`, 400, "at most", false},
		{"approve unknown field", "POST", "/v1/approvals/{id}/approve", approverTok, `{"use":2}`, 400, "unknown field", false},
		{"approve other session", "POST", "/v1/approvals/{id}/approve", approverTok, `{"session":"s2"}`, 409, "session", false},
		{"approve missing", "POST", "/v1/approvals/req_aaaaaaaaaa/approve", approverTok, `{}`, 404, "no approval request", false},
		{"approve invalid id", "POST", "/v1/approvals/r%20x/approve", approverTok, `{}`, 400, "invalid", false},
		{"approve wrong method", "GET", "/v1/approvals/{id}/approve", approverTok, ``, 405, "not allowed", false},
		{"reject without reason", "POST", "/v1/approvals/{id}/reject", approverTok, `{}`, 400, `"reason" is required`, false},
		{"reject blank reason", "POST", "/v1/approvals/{id}/reject", approverTok, `{"reason":"  "}`, 400, `"reason" is required`, false},
		{"reject hook refused", "POST", "/v1/approvals/{id}/reject", hookTok, `{"reason":"no"}`, 403, "may not", false},
		{"reject unknown field", "POST", "/v1/approvals/{id}/reject", approverTok, `{"reason":"no","halt":true}`, 400, "unknown field", false},
		{"reject stop not a bool", "POST", "/v1/approvals/{id}/reject", approverTok, `{"reason":"no","stop":"yes"}`, 400, "stop", false},
		{"reject stop hook refused", "POST", "/v1/approvals/{id}/reject", hookTok, `{"reason":"no","stop":true}`, 403, "may not", false},
		{"events hook refused", "GET", "/v1/events", hookTok, ``, 403, "may not", false},
		{"audit summary", "GET", "/v1/audit/summary?since=24h", approverTok, ``, 200, `"total"`, false},
		{"audit summary time", "GET", "/v1/audit/summary?since=2026-01-02T00:00:00Z", approverTok, ``, 200, `2026-01-02`, false},
		{"audit summary bad since", "GET", "/v1/audit/summary?since=yesterday", approverTok, ``, 400, "since", false},
		{"audit summary hook refused", "GET", "/v1/audit/summary", hookTok, ``, 403, "may not", false},
		{"unknown endpoint", "GET", "/v1/nothing", approverTok, ``, 404, "no endpoint", false},
		{"unknown endpoint no token", "GET", "/v1/nothing", "", ``, 401, "no token", false},
		{"bad auth scheme", "GET", "/v1/approvals", "", ``, 401, "Bearer", false},
		{"approve", "POST", "/v1/approvals/{id}/approve", approverTok, `{"uses":2,"ttl":"30m","session":"s1"}`, 200, `"uses": 2`, true},
		{"approve empty body", "POST", "/v1/approvals/{id}/approve", approverTok, ``, 200, `"uses": 1`, true},
		{"approve null", "POST", "/v1/approvals/{id}/approve", approverTok, `null`, 200, `"uses": 1`, true},
		{"approve array", "POST", "/v1/approvals/{id}/approve", approverTok, `[1]`, 400, "want a JSON object", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			before, err := os.ReadFile(filepath.Join(f.st.Dir(), "requests", f.id+".json"))
			if err != nil {
				t.Fatal(err)
			}
			path := strings.ReplaceAll(tc.path, "{id}", f.id)
			var hdr []string
			if tc.name == "bad auth scheme" {
				hdr = []string{"Authorization", "Basic eDp5"}
			}
			w := f.do(t, tc.method, path, tc.token, tc.body, hdr...)
			if w.Code != tc.status {
				t.Fatalf("%s %s: status %d, want %d\n%s", tc.method, path, w.Code, tc.status, w.Body)
			}
			if ct := w.Header().Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type %q", ct)
			}
			if tc.status >= 400 {
				if e := errorOf(t, w); !strings.Contains(e, tc.want) {
					t.Errorf("error %q, want it to contain %q", e, tc.want)
				}
			} else if !strings.Contains(w.Body.String(), tc.want) {
				t.Errorf("body lacks %q:\n%s", tc.want, w.Body)
			}
			after, _ := os.ReadFile(filepath.Join(f.st.Dir(), "requests", f.id+".json"))
			if !tc.changes && string(after) != string(before) {
				t.Errorf("the request changed:\n%s", after)
			}
			if tc.status >= 400 && len(f.audited) > 0 {
				t.Errorf("a refused request was audited: %+v", f.audited)
			}
		})
	}
}

// TestDecisions: approve signs with the server's key and the grant
// verifies; reject keeps the reason; both are audited with the approver.
func TestDecisions(t *testing.T) {
	f := newFixture(t)
	w := f.do(t, "POST", "/v1/approvals/"+f.id+"/approve", approverTok, `{"uses":3,"ttl":"2h"}`)
	if w.Code != 200 {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	r, err := f.st.Get(f.id)
	if err != nil || r.Problem != "" || r.Status != approval.StatusApproved || r.Grant.Uses != 3 || r.Grant.Approver.User != "alice" {
		t.Fatalf("after approve: %+v %v", r, err)
	}
	out, err := f.st.Check(context.Background(), "key-1", time.Now())
	if err != nil || out.Kind != approval.Granted {
		t.Fatalf("the grant does not allow the call: %+v %v", out, err)
	}
	// A decision is final once: a reject after the approve is a 409 naming
	// the approval, and the grant stands.
	w = f.do(t, "POST", "/v1/approvals/"+f.id+"/reject", approverTok, `{"reason":"use a branch"}`)
	if w.Code != 409 || !strings.Contains(errorOf(t, w), "already approved") {
		t.Fatalf("reject after approve: %d %s", w.Code, w.Body)
	}
	out, _ = f.st.Check(context.Background(), "key-1", time.Now())
	if out.Kind != approval.Granted || out.UsesLeft != 1 {
		t.Fatalf("after the refused reject: %+v", out)
	}

	r2, err := f.st.Create(approval.Request{Key: "key-2", Summary: "git tag v2", Session: "s1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w = f.do(t, "POST", "/v1/approvals/"+r2.ID+"/reject", approverTok, `{"reason":"use a branch"}`)
	if w.Code != 200 {
		t.Fatalf("reject: %d %s", w.Code, w.Body)
	}
	out, _ = f.st.Check(context.Background(), "key-2", time.Now())
	if out.Kind != approval.Rejected || out.Reason != "use a branch" {
		t.Fatalf("after reject: %+v", out)
	}
	for _, body := range []string{`{}`, `{"uses":5}`} {
		w = f.do(t, "POST", "/v1/approvals/"+r2.ID+"/approve", approverTok, body)
		if w.Code != 409 || !strings.Contains(errorOf(t, w), "cannot approve "+r2.ID+": it was already rejected") {
			t.Fatalf("approve after reject: %d %s", w.Code, w.Body)
		}
	}
	if out, _ = f.st.Check(context.Background(), "key-2", time.Now()); out.Kind != approval.Rejected {
		t.Fatalf("after the refused approve: %+v", out)
	}
	if len(f.audited) != 2 || f.audited[0].Action != "approve" || f.audited[1].Action != "reject" ||
		f.audited[1].Approver.Fingerprint == "" || f.audited[1].Approver.User != "alice" || f.audited[0].Via != "token" {
		t.Fatalf("audited (refused decisions are not audited): %+v", f.audited)
	}
}

// TestRejectStop: reject with stop cancels the turn — the session's next
// hold is a stop, given once — and a request without a session cannot be
// stopped (409, the request stays pending).
func TestRejectStop(t *testing.T) {
	f := newFixture(t)
	w := f.do(t, "POST", "/v1/approvals/"+f.id+"/reject", approverTok, `{"reason":"stop here","stop":true}`)
	if w.Code != 200 || !strings.Contains(w.Body.String(), `"stop": true`) {
		t.Fatalf("reject stop: %d %s", w.Code, w.Body)
	}
	h, err := f.st.SessionHold("s1", time.Now())
	if err != nil || h.Kind != approval.HoldStop || h.Request.ID != f.id || h.Request.RejectReason != "stop here" {
		t.Fatalf("first hold after the stop: %+v %v", h, err)
	}
	if h, err = f.st.SessionHold("s1", time.Now()); err != nil || h.Kind == approval.HoldStop {
		t.Fatalf("the stop was given twice: %+v %v", h, err)
	}
	if h, _ = f.st.SessionHold("s2", time.Now()); h.Kind == approval.HoldStop {
		t.Fatalf("another session was stopped: %+v", h)
	}
	r2, err := f.st.Create(approval.Request{Key: "key-2", Summary: "git tag v2"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w = f.do(t, "POST", "/v1/approvals/"+r2.ID+"/reject", approverTok, `{"reason":"no","stop":true}`)
	if w.Code != 409 || !strings.Contains(errorOf(t, w), "no session id") {
		t.Fatalf("stop without a session: %d %s", w.Code, w.Body)
	}
	if r, _ := f.st.Get(r2.ID); r.Status != approval.StatusPending {
		t.Fatalf("the refused stop decided the request: %+v", r)
	}
	if len(f.audited) != 1 || f.audited[0].Action != "reject" || !f.audited[0].Request.Stop {
		t.Fatalf("audited: %+v", f.audited)
	}
}

// TestWebSession: the one-time link works once, sets an HttpOnly,
// SameSite=Strict cookie, and a POST with the cookie wants the CSRF token.
func TestWebSession(t *testing.T) {
	f := newFixture(t)
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}

	res, err := c.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Fatalf("/ without a session: %d", res.StatusCode)
	}
	noFollow := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = noFollow.Get(ts.URL + "/login?t=login-once")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 303 {
		t.Fatalf("login: %d", res.StatusCode)
	}
	sc := res.Header.Get("Set-Cookie")
	for _, want := range []string{sessionCookie + "=", "HttpOnly", "SameSite=Strict", "Path=/"} {
		if !strings.Contains(sc, want) {
			t.Errorf("Set-Cookie %q lacks %q", sc, want)
		}
	}
	// The link is spent.
	res, _ = (&http.Client{}).Get(ts.URL + "/login?t=login-once")
	res.Body.Close()
	if res.StatusCode != 403 {
		t.Errorf("second use of the link: %d, want 403", res.StatusCode)
	}
	res, err = c.Get(ts.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Fatalf("/ signed in: %d %v", res.StatusCode, res.Header)
	}
	m := regexp.MustCompile(`name="csrf-token" content="([^"]+)"`).FindSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF token in the page:\n%s", page)
	}
	csrf := string(m[1])

	res, err = c.Get(ts.URL + "/v1/approvals")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Fatalf("GET with the cookie: %d", res.StatusCode)
	}
	post := func(token string) int {
		req, _ := http.NewRequest("POST", ts.URL+"/v1/approvals/"+f.id+"/reject", strings.NewReader(`{"reason":"no"}`))
		if token != "" {
			req.Header.Set("X-CSRF-Token", token)
		}
		res, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post(""); code != 403 {
		t.Errorf("POST without CSRF token: %d, want 403", code)
	}
	if code := post("wrong"); code != 403 {
		t.Errorf("POST with a wrong CSRF token: %d, want 403", code)
	}
	if r, _ := f.st.Get(f.id); r.Status != approval.StatusPending {
		t.Fatalf("a CSRF failure reached the store: %s", r.Status)
	}
	if code := post(csrf); code != 200 {
		t.Errorf("POST with the CSRF token: %d, want 200", code)
	}
	if len(f.audited) != 1 || f.audited[0].Via != "web" {
		t.Errorf("audited: %+v", f.audited)
	}
	// A forged cookie is no session.
	u, _ := url.Parse(ts.URL)
	jar2, _ := cookiejar.New(nil)
	jar2.SetCookies(u, []*http.Cookie{{Name: sessionCookie, Value: "forged"}})
	res, _ = (&http.Client{Jar: jar2}).Get(ts.URL + "/v1/approvals")
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("forged cookie: %d, want 401", res.StatusCode)
	}
	// Static files are served with their types and no data.
	res, _ = (&http.Client{}).Get(ts.URL + "/static/app.js")
	res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("app.js: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	res, _ = (&http.Client{}).Get(ts.URL + "/static/index.html")
	res.Body.Close()
	if res.StatusCode != 404 {
		t.Errorf("/static/index.html: %d, want 404", res.StatusCode)
	}
}

// TestLoginLinks: an approver mints more one-time links; a hook cannot.
func TestLoginLinks(t *testing.T) {
	f := newFixture(t)
	if w := f.do(t, "POST", "/v1/login-links", hookTok, ""); w.Code != 403 {
		t.Fatalf("hook: %d", w.Code)
	}
	w := f.do(t, "POST", "/v1/login-links", approverTok, "")
	var out struct{ Path string }
	if w.Code != 201 || json.Unmarshal(w.Body.Bytes(), &out) != nil || !strings.HasPrefix(out.Path, "/login?t=") {
		t.Fatalf("mint: %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "GET", out.Path, "", ""); w.Code != 303 {
		t.Fatalf("minted link: %d", w.Code)
	}
	if w := f.do(t, "GET", out.Path, "", ""); w.Code != 403 {
		t.Fatalf("minted link twice: %d", w.Code)
	}
}

// TestEvents: a new request and its decision arrive as events.
func TestEvents(t *testing.T) {
	f := newFixture(t)
	ts := httptest.NewServer(f.srv)
	defer ts.Close()
	req, _ := http.NewRequest("GET", ts.URL+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+approverTok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	next := func(want string) string {
		t.Helper()
		timeout := time.After(5 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stream ended before %q", want)
				}
				if l == "event: "+want {
					return <-lines
				}
			case <-timeout:
				t.Fatalf("no %q event", want)
			}
		}
	}
	next("ready")
	r2, err := f.st.Create(approval.Request{Key: "key-2", Summary: "git tag v2", Session: "s1"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if d := next("approval.request"); !strings.Contains(d, r2.ID) {
		t.Errorf("request event data %q", d)
	}
	if _, err := f.st.Reject(r2.ID, "no tags", time.Now()); err != nil {
		t.Fatal(err)
	}
	if d := next("approval.decision"); !strings.Contains(d, `"reason":"no tags"`) {
		t.Errorf("decision event data %q", d)
	}
	f.srv.Close() // shutdown ends the stream
	for range lines {
	}
}

// TestEventsOutliveReadTimeout: the stream lasts past the http.Server's
// ReadTimeout (which otherwise ends a long response's context).
func TestEventsOutliveReadTimeout(t *testing.T) {
	f := newFixture(t)
	ts := httptest.NewUnstartedServer(f.srv)
	ts.Config.ReadTimeout = 300 * time.Millisecond
	ts.Start()
	defer ts.Close()
	req, _ := http.NewRequest("GET", ts.URL+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+approverTok)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	time.Sleep(800 * time.Millisecond)
	r2, err := f.st.Create(approval.Request{Key: "late", Summary: "late"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	found := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if strings.Contains(sc.Text(), r2.ID) {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		if !ok {
			t.Fatal("the stream ended before the event")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no event")
	}
}
