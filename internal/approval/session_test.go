package approval

import (
	"context"
	"testing"
	"time"
)

func TestSessionHold(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s.Trust(testKeyring)
	s.ExpirePending(time.Hour)
	a, _ := s.Create(Request{Key: "ka", Session: "s1", Summary: "a"}, t0)
	b, _ := s.Create(Request{Key: "kb", Session: "s1", Summary: "b"}, t0.Add(time.Minute))
	s.Create(Request{Key: "kc", Session: "s2"}, t0)

	h, err := s.SessionHold("s1", t0.Add(2*time.Minute))
	if err != nil || h.Kind != HoldPending || h.Request.ID != a.ID {
		t.Fatalf("hold = %v %s %v, want pending %s (the oldest)", h.Kind, h.Request.ID, err, a.ID)
	}
	if h, _ := s.SessionHold("", t0); h.Kind != NoHold {
		t.Errorf("empty session held: %v", h.Kind)
	}
	if h, _ := s.SessionHold("s3", t0); h.Kind != NoHold {
		t.Errorf("other session held: %v", h.Kind)
	}

	// reject --stop: the next call of the session is stopped, once
	if _, err := s.RejectStop(a.ID, "wrong branch", t0.Add(3*time.Minute)); err != nil {
		t.Fatal(err)
	}
	h, _ = s.SessionHold("s1", t0.Add(4*time.Minute))
	if h.Kind != HoldStop || h.Request.ID != a.ID || h.Request.RejectReason != "wrong branch" {
		t.Fatalf("after reject --stop: %v %s", h.Kind, h.Request.ID)
	}
	h, _ = s.SessionHold("s1", t0.Add(5*time.Minute))
	if h.Kind != HoldPending || h.Request.ID != b.ID {
		t.Fatalf("the stop was given twice, or b lost: %v %s", h.Kind, h.Request.ID)
	}
	if out, _ := s.Check(context.Background(), "ka", t0.Add(6*time.Minute)); out.Kind != Rejected {
		t.Errorf("the identical call after reject --stop: %v, want rejected", out.Kind)
	}

	// past the pending TTL, b expires and holds nothing; a new request for kb
	h, _ = s.SessionHold("s1", t0.Add(time.Minute+time.Hour))
	if h.Kind != NoHold {
		t.Fatalf("after the pending TTL: %v %s", h.Kind, h.Request.ID)
	}
	if r, _ := s.Get(b.ID); r.Status != StatusExpired {
		t.Errorf("b is %s, want expired", r.Status)
	}
	if n, _ := s.Create(Request{Key: "kb", Session: "s1"}, t0.Add(2*time.Hour)); n.ID == b.ID {
		t.Errorf("Create returned the expired pending request")
	}
	if _, err := s.RejectStop(func() string { r, _ := s.Create(Request{Key: "kn"}, t0); return r.ID }(), "x", t0); err == nil {
		t.Errorf("RejectStop of a request without a session succeeded")
	}
}
