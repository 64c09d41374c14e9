package serve

import (
	"errors"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/audit"
)

// TestAppendAudit: the hook role appends decision and approval.result
// lines; it cannot write an approval.decision (a forged approval in the
// log), approver fields, or anything when the server keeps no log; a
// failed write is a 503, never a success.
func TestAppendAudit(t *testing.T) {
	var got []audit.Record
	fail := false
	f := newFixture(t)
	f.srv.cfg.AppendAudit = func(r audit.Record) error {
		if fail {
			return errors.New("disk full")
		}
		got = append(got, r)
		return nil
	}
	cases := []struct {
		name, tok, body string
		status          int
		want            string
	}{
		{"decision", hookTok, `{"event":"policy.decision","tool":"Bash","decision":"deny","summary":"rm -rf ~","prev":"forged"}`, 200, ""},
		{"empty event", hookTok, `{"tool":"Bash","decision":"allow"}`, 200, ""},
		{"result", hookTok, `{"event":"approval.result","decision":"success"}`, 200, ""},
		{"approval decision", hookTok, `{"event":"approval.decision","decision":"approve"}`, 403, "decision and approval.result lines only"},
		{"approver fields", hookTok, `{"decision":"allow","approver":"root"}`, 400, "approver fields"},
		{"unknown field", hookTok, `{"decision":"allow","admin":true}`, 400, "unknown field"},
		{"no token", "", `{"decision":"allow"}`, 401, "no token"},
	}
	for _, c := range cases {
		w := f.do(t, "POST", "/v1/audit", c.tok, c.body)
		if w.Code != c.status || c.want != "" && !strings.Contains(errorOf(t, w), c.want) {
			t.Errorf("%s: %d %s, want %d %q", c.name, w.Code, w.Body, c.status, c.want)
		}
	}
	if len(got) != 3 || got[0].Prev != "" || got[0].Summary != "rm -rf ~" || got[1].Event != audit.EventDecision || got[0].Time.IsZero() {
		t.Errorf("appended = %+v", got)
	}
	fail = true
	if w := f.do(t, "POST", "/v1/audit", hookTok, `{"decision":"deny"}`); w.Code != 503 {
		t.Errorf("failed append: %d %s", w.Code, w.Body)
	}
	f.srv.cfg.AppendAudit = nil
	if w := f.do(t, "POST", "/v1/audit", hookTok, `{"decision":"deny"}`); w.Code != 404 {
		t.Errorf("no log: %d %s", w.Code, w.Body)
	}
}
