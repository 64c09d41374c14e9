package approval

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// BenchmarkCheck is one hook's Check on a store with n finished, signed
// requests of other calls and one pending request of this call: the cost
// of the headless ask path.
func BenchmarkCheck(b *testing.B) {
	for _, n := range []int{10, 200} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, err := Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			s.Trust(testKeyring)
			for i := range n {
				r, err := s.Create(Request{Key: fmt.Sprint("other", i)}, t0)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Approve(r.ID, time.Hour, 1, t0, testSigner); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := s.Create(Request{Key: "k"}, t0); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if out, err := s.Check(context.Background(), "k", t0.Add(time.Second)); err != nil || out.Kind != Pending {
					b.Fatal(out, err)
				}
			}
		})
	}
}

// BenchmarkSessionHold is the pending-decision guard's cost on every
// unattended call of a session: a store with n approved requests of other
// sessions and one pending request of this one.
func BenchmarkSessionHold(b *testing.B) {
	for _, n := range []int{10, 200} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, err := Open(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			s.Trust(testKeyring)
			s.ExpirePending(24 * time.Hour)
			for i := range n {
				r, err := s.Create(Request{Key: fmt.Sprint("other", i), Session: fmt.Sprint("s", i)}, t0)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.Approve(r.ID, time.Hour, 1, t0, testSigner); err != nil {
					b.Fatal(err)
				}
			}
			if _, err := s.Create(Request{Key: "k", Session: "me"}, t0); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if h, err := s.SessionHold("me", t0.Add(time.Second)); err != nil || h.Kind != HoldPending {
					b.Fatal(h, err)
				}
			}
		})
	}
}
