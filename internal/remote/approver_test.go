package remote_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/remote"
)

// TestApproverClient: the approver's client against internal/serve's
// real handler on loopback: list with filters, show, approve (the grant
// signed by the server's key), a second decision is a 409 naming the
// winner, reject with a reason and stop; the hook token gets 403, a wrong
// token 401, an id that is not one never reaches the server.
func TestApproverClient(t *testing.T) {
	s := newServer(t)
	ts := httptest.NewServer(s.srv)
	t.Cleanup(ts.Close)
	hook, err := remote.New(ts.URL, hookTok)
	if err != nil {
		t.Fatal(err)
	}
	c, err := remote.NewApprover(ts.URL, approverTok)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	record := func(session, cmd string) string {
		cl := call.Call{Provider: "codex", SessionID: session, Cwd: "/box", Tool: "Bash", Kind: call.KindShell, Command: cmd, Shell: "bash"}
		cr, err := hook.Create(ctx, remote.CreateRequest{Call: cl, Key: approval.Key(cl), Reason: "ask"})
		if err != nil {
			t.Fatal(err)
		}
		return cr.ID
	}
	id1, id2 := record("s1", "git tag v1"), record("s2", "git tag v2")

	all, err := c.List(ctx, remote.ListFilter{})
	if err != nil || len(all) != 2 {
		t.Fatalf("list: %d %v", len(all), err)
	}
	if got, err := c.List(ctx, remote.ListFilter{Session: "s2", Status: "pending", Provider: "codex"}); err != nil || len(got) != 1 || got[0].ID != id2 {
		t.Fatalf("list s2: %+v %v", got, err)
	}
	if got, err := c.List(ctx, remote.ListFilter{Session: "s&status=approved"}); err != nil || len(got) != 0 {
		t.Fatalf("a filter with query syntax in it: %+v %v", got, err)
	}
	if r, err := c.Get(ctx, id1); err != nil || r.Summary != "git tag v1" || r.Status != approval.StatusPending {
		t.Fatalf("get: %+v %v", r, err)
	}

	r, err := c.Approve(ctx, id1, remote.ApproveRequest{Uses: 2, TTL: (10 * time.Minute).String()})
	if err != nil || r.Grant == nil || r.Grant.Uses != 2 {
		t.Fatalf("approve: %+v %v", r, err)
	}
	if r.Grant.Approver.Key != approval.PublicText(s.pub) {
		t.Errorf("grant signed by %s, want the server's key", r.Grant.Approver.Key)
	}
	if exp := time.Until(r.Grant.Expires); exp < 9*time.Minute || exp > 11*time.Minute {
		t.Errorf("grant expires in %v, want 10m", exp)
	}
	var se *remote.StatusError
	_, err = c.Reject(ctx, id1, remote.RejectRequest{Reason: "too late"})
	if !errors.As(err, &se) || se.Code != 409 || !strings.Contains(se.Msg, "already approved") {
		t.Fatalf("reject after approve: %v", err)
	}
	if r, err := c.Reject(ctx, id2, remote.RejectRequest{Reason: "not now", Stop: true}); err != nil || r.RejectReason != "not now" || !r.Stop {
		t.Fatalf("reject: %+v %v", r, err)
	}
	_, err = c.Approve(ctx, id2, remote.ApproveRequest{})
	if !errors.As(err, &se) || se.Code != 409 || !strings.Contains(se.Msg, "already rejected") {
		t.Fatalf("approve after reject: %v", err)
	}
	if _, err := c.Get(ctx, "req_nonesuch0"); !errors.As(err, &se) || se.Code != 404 {
		t.Fatalf("no such request: %v", err)
	}

	// The hook's token is not an approver's; a wrong token is no one's.
	asHook, _ := remote.NewApprover(ts.URL, hookTok)
	if _, err := asHook.List(ctx, remote.ListFilter{}); !errors.As(err, &se) || se.Code != 403 {
		t.Fatalf("list as hook: %v", err)
	}
	if _, err := asHook.Approve(ctx, record("s3", "git tag v3"), remote.ApproveRequest{}); !errors.As(err, &se) || se.Code != 403 {
		t.Fatalf("approve as hook: %v", err)
	}
	wrong, _ := remote.NewApprover(ts.URL, "wrong-token-wrong-token")
	if _, err := wrong.List(ctx, remote.ListFilter{}); !errors.As(err, &se) || se.Code != 401 {
		t.Fatalf("wrong token: %v", err)
	}
	for _, id := range []string{"../healthz", "req x", "", strings.Repeat("a", 65), "req_1?x=1"} {
		if _, err := c.Get(ctx, id); err == nil || !strings.Contains(err.Error(), "invalid approval request id") {
			t.Errorf("Get(%q): %v", id, err)
		}
		if _, err := c.Approve(ctx, id, remote.ApproveRequest{}); err == nil || !strings.Contains(err.Error(), "invalid approval request id") {
			t.Errorf("Approve(%q): %v", id, err)
		}
	}
}

// TestApproverClientBadAnswers: an answer about another request, or an
// approve answered without a grant, is an error, never a decision.
func TestApproverClientBadAnswers(t *testing.T) {
	resp := func(body string) string {
		return "HTTP/1.1 200 OK\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
	}
	for _, tc := range []struct{ name, reply, want string }{
		{"other id", resp(`{"id":"req_other","status":"approved","grant":{"uses":1}}`), "answered about"},
		{"no grant", resp(`{"id":"req_a","status":"approved"}`), "holds no grant"},
		{"not json", resp(`<html>`), "not the JSON wanted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := remote.NewApprover(fake(t, tc.reply, 0), approverTok)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Approve(context.Background(), "req_a", remote.ApproveRequest{}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("approve: %v, want %q", err, tc.want)
			}
		})
	}
	c, _ := remote.NewApprover(fake(t, resp(`{"id":"req_a","status":"pending"}`), 0), approverTok)
	if _, err := c.Reject(context.Background(), "req_a", remote.RejectRequest{Reason: "x"}); err == nil || !strings.Contains(err.Error(), "not rejected") {
		t.Fatalf("reject answered pending: %v", err)
	}
}

func TestNewApprover(t *testing.T) {
	for _, tc := range []struct{ url, token, want string }{
		{"https://guard.example:8787", approverTok, "https is not supported"},
		{"http://127.0.0.1:8787", "", "no approver token"},
		{"http://10.0.0.5:8787", approverTok, "not loopback"},
		{"http://guard.example:8787", approverTok, "not loopback"},
		{"http://127.0.0.1:8787", "a\r\nX-Evil: 1", "line break"},
		{"unix://rel.sock", "", "unix:///absolute"},
		{"ftp://x:1", approverTok, "want unix:///path"},
	} {
		_, err := remote.NewApprover(tc.url, tc.token)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewApprover(%q): %v, want %q", tc.url, err, tc.want)
		}
		if err != nil && tc.token != "" && strings.Contains(err.Error(), tc.token) {
			t.Errorf("NewApprover(%q): the error names the token: %v", tc.url, err)
		}
	}
	for _, tc := range []struct{ url, token string }{
		{"unix:///run/toolguard/serve.sock", ""}, {"unix:///run/toolguard/serve.sock", approverTok},
		{"http://127.0.0.1:8787", approverTok}, {"http://[::1]:8787/", approverTok}, {"http://localhost:8787", approverTok},
	} {
		if _, err := remote.NewApprover(tc.url, tc.token); err != nil {
			t.Errorf("NewApprover(%q, %q): %v", tc.url, tc.token, err)
		}
	}
}
