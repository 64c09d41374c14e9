package serve

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/protocol"
)

const nodeTok = "node-token-0123456789abcdef"

func TestParseNodeTokens(t *testing.T) {
	got, err := ParseNodeTokens([]byte("# nodes\nrunner-1:" + nodeTok + "\n\n  " + strings.Repeat("x", 16) + "  \n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != (NodeToken{"runner-1", nodeTok}) || got[1] != (NodeToken{"node-4", strings.Repeat("x", 16)}) {
		t.Fatalf("ParseNodeTokens = %+v", got)
	}
	for _, bad := range []string{
		"short",                   // too short
		"a:short",                 // too short
		":" + nodeTok,             // no name
		"a b:" + nodeTok,          // name with a space
		"a:" + nodeTok + " extra", // token with a space
		"a:" + nodeTok + "\nb:" + nodeTok,
		"a:" + nodeTok + "\na:" + nodeTok + "x",
	} {
		if _, err := ParseNodeTokens([]byte(bad)); err == nil {
			t.Errorf("ParseNodeTokens(%q) accepted", bad)
		}
	}
}

// hookFixture is a server whose Hook records its calls and answers what
// answer says.
func hookFixture(t *testing.T, hook func(context.Context, HookCall) HookAnswer) *fixture {
	t.Helper()
	f := newFixture(t)
	f.srv.Close()
	cfg := f.srv.cfg
	cfg.Hook = hook
	cfg.NodeTokens = []NodeToken{{"runner-1", nodeTok}, {"runner-2", nodeTok + "2"}}
	cfg.HookTimeout = 300 * time.Millisecond
	f.srv = New(cfg)
	t.Cleanup(f.srv.Close)
	return f
}

func TestHookEndpointAuth(t *testing.T) {
	var calls atomic.Int32
	f := hookFixture(t, func(_ context.Context, hc HookCall) HookAnswer {
		calls.Add(1)
		return HookAnswer{Reply: protocol.Reply{Stdout: []byte(`{"node":"` + hc.Node + `"}`)}}
	})
	// Every failure is the same 401, whatever was wrong.
	for _, tc := range []struct{ name, auth string }{
		{"no header", ""},
		{"basic", "Basic " + base64.StdEncoding.EncodeToString([]byte("a:"+nodeTok))},
		{"empty bearer", "Bearer "},
		{"wrong token", "Bearer " + nodeTok + "x"},
		{"prefix of a token", "Bearer " + nodeTok[:20]},
		{"lower-case scheme", "bearer " + nodeTok},
		{"approver token", "Bearer " + approverTok},
		{"hook role token", "Bearer " + hookTok},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/v1/hooks/claude-code", strings.NewReader(`{}`))
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			f.srv.ServeHTTP(w, r)
			if w.Code != 401 || strings.TrimSpace(w.Body.String()) != "{\n  \"error\": \"unauthorized\"\n}" ||
				w.Header().Get("WWW-Authenticate") != `Bearer realm="toolguard"` {
				t.Errorf("%d %q %v", w.Code, w.Body, w.Header())
			}
		})
	}
	// The inbox's session cookie does not open it either.
	r := httptest.NewRequest("POST", "/v1/hooks/claude-code", strings.NewReader(`{}`))
	r.AddCookie(&http.Cookie{Name: sessionCookie, Value: "whatever"})
	w := httptest.NewRecorder()
	f.srv.ServeHTTP(w, r)
	if w.Code != 401 {
		t.Errorf("cookie: %d", w.Code)
	}
	if calls.Load() != 0 {
		t.Fatalf("the decider ran %d times for unauthenticated calls", calls.Load())
	}
	// A node token opens the hook endpoint only, and names its node.
	w = f.do(t, "POST", "/v1/hooks/claude-code", nodeTok+"2", `{}`)
	if w.Code != 200 || w.Body.String() != `{"node":"runner-2"}` {
		t.Errorf("node token: %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "GET", "/v1/approvals", nodeTok, ``); w.Code != 401 {
		t.Errorf("a node token listed approvals: %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "POST", "/v1/hooks/no-such-agent", nodeTok, `{}`); w.Code != 404 || !strings.Contains(errorOf(t, w), "no-such-agent") {
		t.Errorf("unknown agent: %d %s", w.Code, w.Body)
	}
	if w := f.do(t, "GET", "/v1/hooks/claude-code", nodeTok, ``); w.Code != 405 {
		t.Errorf("GET: %d %s", w.Code, w.Body)
	}
}

func TestHookEndpointFailsClosed(t *testing.T) {
	var audited atomic.Int32
	f := hookFixture(t, func(ctx context.Context, hc HookCall) HookAnswer {
		switch {
		case hc.ReadErr != nil:
			return HookAnswer{Reply: protocol.Reply{Stdout: []byte("read error: " + hc.ReadErr.Error()), ExitCode: 2, Stderr: []byte("line 1\nline 2")}}
		case strings.Contains(string(hc.Payload), "panic"):
			panic("boom")
		case strings.Contains(string(hc.Payload), "slow"):
			<-ctx.Done()
			time.Sleep(50 * time.Millisecond)
			return HookAnswer{Reply: protocol.Reply{Stdout: []byte(`{"late":"allow"}`)}}
		}
		return HookAnswer{Reply: protocol.Reply{Stdout: []byte(`{"ok":1}`)}, Audit: func(context.Context) { audited.Add(1) }}
	})
	for _, tc := range []struct{ name, body, want string }{
		{"panic", `{"panic":1}`, `"permissionDecision":"deny"`},
		{"deadline", `{"slow":1}`, "hook deadline"},
	} {
		w := f.do(t, "POST", "/v1/hooks/claude-code", nodeTok, tc.body)
		if w.Code != 200 || !strings.Contains(w.Body.String(), `"permissionDecision":"deny"`) || !strings.Contains(w.Body.String(), strings.Trim(tc.want, `"`)) {
			t.Errorf("%s: %d %s", tc.name, w.Code, w.Body)
		}
	}
	// Gemini's dialect for the same failure.
	if w := f.do(t, "POST", "/v1/hooks/gemini", nodeTok, `{"panic":1}`); !strings.Contains(w.Body.String(), `"decision":"deny"`) {
		t.Errorf("gemini panic: %s", w.Body)
	}
	big := `{"x":"` + strings.Repeat("a", MaxHookPayload) + `"}`
	w := f.do(t, "POST", "/v1/hooks/codex", nodeTok, big)
	if w.Code != 200 || !strings.HasPrefix(w.Body.String(), "read error: payload larger than 16 MiB") || w.Header().Get(HeaderExitCode) != "2" {
		t.Errorf("too large: %d %.100s %v", w.Code, w.Body, w.Header())
	}
	if got, _ := base64.StdEncoding.DecodeString(w.Header().Get(HeaderStderr)); string(got) != "line 1\nline 2" {
		t.Errorf("stderr header %q", got)
	}
	w = f.do(t, "POST", "/v1/hooks/claude", nodeTok, `{}`) // an alias
	if w.Code != 200 || w.Body.String() != `{"ok":1}` || w.Header().Get("Content-Type") != "application/json" ||
		w.Header().Get(HeaderExitCode) != "0" || audited.Load() != 1 {
		t.Errorf("plain: %d %s %v audited %d", w.Code, w.Body, w.Header(), audited.Load())
	}
}
