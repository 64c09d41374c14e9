package serve

import (
	"crypto/ed25519"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/remote"
)

func remoteCall(cmd, session string) call.Call {
	return call.Call{Provider: "claude-code", SessionID: session, Cwd: "/box", Tool: "Bash", Kind: call.KindShell,
		Command: cmd, Shell: "bash"}
}

func createBody(t *testing.T, c call.Call, key string) string {
	t.Helper()
	if key == "" {
		key = approval.Key(c)
	}
	b, err := json.Marshal(remote.CreateRequest{Call: c, Key: key, Reason: "ask", Rules: []string{"git-tag"}})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func useBody(c call.Call) string {
	b, _ := json.Marshal(remote.UseRequest{Key: approval.Key(c), Session: c.SessionID})
	return string(b)
}

// TestRemoteRoles: the hook token records a request (what the human sees
// derived from the call), spends and reads its outcome, and never
// approves or rejects; the grant it gets verifies against the approver's
// key.
func TestRemoteRoles(t *testing.T) {
	f := newFixture(t)
	c := remoteCall("git tag v9", "box-1")
	w := f.do(t, "POST", "/v1/approvals", hookTok, createBody(t, c, ""))
	if w.Code != 201 {
		t.Fatalf("create: %d %s", w.Code, w.Body)
	}
	var req approval.Request
	if err := json.Unmarshal(w.Body.Bytes(), &req); err != nil {
		t.Fatal(err)
	}
	if req.Status != approval.StatusPending || req.Summary != "git tag v9" || req.Session != "box-1" || req.Key != approval.Key(c) {
		t.Fatalf("created %+v", req)
	}
	if w := f.do(t, "POST", "/v1/approvals", hookTok, createBody(t, c, "")); w.Code != 201 || !strings.Contains(w.Body.String(), req.ID) {
		t.Fatalf("create again: %d %s (want the pending %s)", w.Code, w.Body, req.ID)
	}
	use := func(want string) remote.UseAnswer {
		t.Helper()
		w := f.do(t, "POST", "/v1/grants/use", hookTok, useBody(c))
		var a remote.UseAnswer
		if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &a) != nil || a.Outcome != want {
			t.Fatalf("use: %d %s, want outcome %s", w.Code, w.Body, want)
		}
		return a
	}
	use("pending")
	for _, p := range []string{"/approve", "/reject"} {
		if w := f.do(t, "POST", "/v1/approvals/"+req.ID+p, hookTok, `{"reason":"x"}`); w.Code != 403 || !strings.Contains(errorOf(t, w), "hook role may not") {
			t.Fatalf("hook %s: %d %s", p, w.Code, w.Body)
		}
	}
	for _, p := range []string{"/v1/events", "/v1/audit/summary", "/v1/approvals"} {
		if w := f.do(t, "GET", p, hookTok, ``); w.Code != 403 {
			t.Fatalf("hook GET %s: %d", p, w.Code)
		}
	}
	if got, _ := f.st.Get(req.ID); got.Status != approval.StatusPending {
		t.Fatalf("after the hook's attempts: %s", got.Status)
	}
	if w := f.do(t, "POST", "/v1/approvals/"+req.ID+"/approve", approverTok, `{}`); w.Code != 200 {
		t.Fatalf("approve: %d %s", w.Code, w.Body)
	}
	a := use("granted")
	pub := f.srv.cfg.Signer.Key.Public().(ed25519.PublicKey)
	if a.Grant == nil {
		t.Fatal("granted without the grant")
	}
	if err := (approval.Keyring{pub}).VerifyGrant(*a.Grant, approval.Key(c), time.Now()); err != nil {
		t.Fatalf("the grant does not verify: %v", err)
	}
	other, _, _ := ed25519.GenerateKey(nil)
	if err := (approval.Keyring{other}).VerifyGrant(*a.Grant, approval.Key(c), time.Now()); err == nil {
		t.Fatal("the grant verifies against a foreign key")
	}
	if err := (approval.Keyring{pub}).VerifyGrant(*a.Grant, approval.Key(remoteCall("git tag v10", "box-1")), time.Now()); err == nil {
		t.Fatal("the grant verifies for another call")
	}
	use("none")

	// A rejection with stop: the next use says rejected and the hold
	// delivers the stop once.
	w = f.do(t, "POST", "/v1/approvals", hookTok, createBody(t, c, ""))
	_ = json.Unmarshal(w.Body.Bytes(), &req)
	if w := f.do(t, "GET", "/v1/approvals/"+req.ID+"?session=box-1", hookTok, ``); w.Code != 200 {
		t.Fatalf("hook get own: %d", w.Code)
	}
	if w := f.do(t, "GET", "/v1/approvals/"+req.ID+"?session=s1", hookTok, ``); w.Code != 404 {
		t.Fatalf("hook get of another session: %d", w.Code)
	}
	hold := func(want string) {
		t.Helper()
		w := f.do(t, "POST", "/v1/sessions/hold", hookTok, `{"session":"box-1"}`)
		var h remote.Hold
		if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &h) != nil || h.Kind != want {
			t.Fatalf("hold: %d %s, want %s", w.Code, w.Body, want)
		}
	}
	hold("pending")
	if _, err := f.st.RejectStop(req.ID, "tags are cut by CI", time.Now()); err != nil {
		t.Fatal(err)
	}
	a = use("rejected")
	if a.Reason != "tags are cut by CI" || a.Hold == nil || a.Hold.Kind != "stop" {
		t.Fatalf("rejected: %+v %+v", a, a.Hold)
	}
	hold("none") // delivered once
}

// TestRemoteCreateDerived: a request made up with the hook token shows
// the call its key grants: a key that is not the call's is refused, and
// nothing reaches the store.
func TestRemoteCreateDerived(t *testing.T) {
	bad := remoteCall("rm -rf ~", "box-1")
	shown := remoteCall("ls", "box-1")
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"key of another call", createBody(t, shown, approval.Key(bad)), 400, "is not the key of field \"call\""},
		{"no call", `{"key":"` + approval.Key(bad) + `"}`, 400, `field "call"`},
		{"bad key", `{"key":"xyz","call":{"tool":"Bash"}}`, 400, "64 lower-case hex"},
		{"upper key", `{"key":"` + strings.ToUpper(approval.Key(bad)) + `","call":{"tool":"Bash"}}`, 400, "64 lower-case hex"},
		{"summary field", `{"key":"` + approval.Key(bad) + `","summary":"ls"}`, 400, `unknown field "summary"`},
		{"status field", `{"key":"` + approval.Key(bad) + `","status":"approved"}`, 400, `unknown field "status"`},
		{"bad kind", `{"key":"` + approval.Key(bad) + `","call":{"tool":"Bash","kind":"nope"}}`, 400, "unknown call kind"},
		{"long reason", `{"key":"` + approval.Key(shown) + `","reason":"` + strings.Repeat("x", maxField+1) + `","call":` + mustJSON(shown) + `}`, 400, "longer than"},
		{"no token", createBody(t, shown, ""), 401, "no token"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			tok := hookTok
			if tc.name == "no token" {
				tok = ""
			}
			w := f.do(t, "POST", "/v1/approvals", tok, tc.body)
			if w.Code != tc.status || !strings.Contains(errorOf(t, w), tc.want) {
				t.Fatalf("%d %s, want %d %q", w.Code, w.Body, tc.status, tc.want)
			}
			for _, k := range []string{approval.Key(bad), approval.Key(shown)} {
				if strings.Contains(w.Body.String(), k) {
					t.Fatalf("the answer discloses a call key: %s", w.Body)
				}
			}
			if reqs, _ := f.st.List(time.Now()); len(reqs) != 1 {
				t.Fatalf("a refused request reached the store (%d requests)", len(reqs))
			}
		})
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestRemoteBadInput(t *testing.T) {
	key := strings.Repeat("0f", 32)
	for _, tc := range []struct {
		method, path, token, body string
		status                    int
		want                      string
	}{
		{"DELETE", "/v1/approvals", approverTok, ``, 405, "not allowed"},
		{"POST", "/v1/grants/use", hookTok, `{"key":"nope"}`, 400, "64 lower-case hex"},
		{"POST", "/v1/grants/use", hookTok, `{"key":"` + key + `","id":"x"}`, 400, "unknown field"},
		{"POST", "/v1/grants/use", hookTok, `{"key":"` + key + `","session":"` + strings.Repeat("s", maxField+1) + `"}`, 400, "longer than"},
		{"POST", "/v1/grants/use", "", `{"key":"` + key + `"}`, 401, "no token"},
		{"POST", "/v1/grants/use?x=1", hookTok, `{"key":"` + key + `"}`, 400, "unknown query parameter"},
		{"GET", "/v1/grants/use", hookTok, ``, 405, "not allowed"},
		{"POST", "/v1/sessions/hold", hookTok, `{}`, 400, `"session" is required`},
		{"POST", "/v1/sessions/hold", hookTok, `{"session":"s1","x":1}`, 400, "unknown field"},
		{"POST", "/v1/sessions/hold", "", `{"session":"s1"}`, 401, "no token"},
		{"GET", "/v1/sessions/hold", hookTok, ``, 405, "not allowed"},
		{"POST", "/v1/grants/use", hookTok, `{"key":"` + key + `"}`, 200, `"outcome": "none"`},
		{"POST", "/v1/grants/use", hookTok, `{"key":"` + key + `","session":"s1"}`, 200, `"kind": "pending"`},
		{"POST", "/v1/sessions/hold", hookTok, `{"session":"nobody"}`, 200, `"kind": "none"`},
		{"POST", "/v1/sessions/told", hookTok, `{}`, 400, `"session" is required`},
		{"POST", "/v1/sessions/told", hookTok, `{"session":"s1","x":1}`, 400, "unknown field"},
		{"POST", "/v1/sessions/told", "", `{"session":"s1"}`, 401, "no token"},
		{"GET", "/v1/sessions/told", hookTok, ``, 405, "not allowed"},
		{"POST", "/v1/sessions/told", hookTok, `{"session":"s1"}`, 200, `"pending": [`},
		{"POST", "/v1/sessions/told", hookTok, `{"session":"nobody"}`, 200, `"decided": []`},
		{"POST", "/v1/results", hookTok, `{"key":"nope","outcome":"success"}`, 400, "64 lower-case hex"},
		{"POST", "/v1/results", hookTok, `{"key":"` + key + `","outcome":"great"}`, 400, "want success, failure or ran"},
		{"POST", "/v1/results", hookTok, `{"key":"` + key + `","outcome":"ran","x":1}`, 400, "unknown field"},
		{"POST", "/v1/results", "", `{"key":"` + key + `","outcome":"ran"}`, 401, "no token"},
		{"GET", "/v1/results", hookTok, ``, 405, "not allowed"},
		{"POST", "/v1/results", hookTok, `{"key":"` + key + `","outcome":"success"}`, 200, `"recorded": false`},
	} {
		f := newFixture(t)
		w := f.do(t, tc.method, tc.path, tc.token, tc.body)
		if w.Code != tc.status {
			t.Errorf("%s %s %.60s: %d, want %d: %s", tc.method, tc.path, tc.body, w.Code, tc.status, w.Body)
			continue
		}
		if w.Header().Get("Content-Length") == "" {
			t.Errorf("%s %s: no Content-Length", tc.method, tc.path)
		}
		if tc.status >= 400 {
			if e := errorOf(t, w); !strings.Contains(e, tc.want) {
				t.Errorf("%s %s: error %q, want %q", tc.method, tc.path, e, tc.want)
			}
		} else if !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%s %s: body %s lacks %q", tc.method, tc.path, w.Body, tc.want)
		}
		if reqs, _ := f.st.List(time.Now()); len(reqs) != 1 || reqs[0].Status != approval.StatusPending {
			t.Errorf("%s %s: the store changed", tc.method, tc.path)
		}
	}
}
