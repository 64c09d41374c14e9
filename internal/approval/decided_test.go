package approval

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// helperDecide is the child side of TestDecisionFinalAcrossProcesses:
// one approve or reject, printing "ok" or "decided WON".
func helperDecide(s *Store, action, id string, now time.Time) int {
	var err error
	switch action {
	case "approve":
		_, err = s.Approve(id, time.Hour, 1, now, testSigner)
	case "reject":
		_, err = s.Reject(id, "no", now)
	default:
		fmt.Fprintln(os.Stderr, "helper: unknown action", action)
		return 2
	}
	var de *DecidedError
	switch {
	case errors.As(err, &de):
		fmt.Printf("decided %s\n", de.Won)
	case err != nil:
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	default:
		fmt.Println("ok")
	}
	return 0
}

// TestDecisionFinal: once a request is approved or rejected, every other
// decision is an error naming the one that won, and changes nothing.
func TestDecisionFinal(t *testing.T) {
	t.Parallel()
	approve := func(s *Store, id string) error {
		_, err := s.Approve(id, time.Hour, 1, t0.Add(time.Minute), testSigner)
		return err
	}
	reject := func(s *Store, id string) error {
		_, err := s.Reject(id, "no", t0.Add(time.Minute))
		return err
	}
	stop := func(s *Store, id string) error {
		_, err := s.RejectStop(id, "no", t0.Add(time.Minute))
		return err
	}
	type step func(*Store, string) error
	cases := []struct {
		name   string
		first  step
		use    bool // consume the grant before the second decision
		second step
		won    Status
		status Status // after both
		msg    string
	}{
		{"reject after approve", approve, false, reject, StatusApproved, StatusApproved, "cannot reject req_"},
		{"reject after the grant was used", approve, true, reject, StatusApproved, StatusConsumed, ", now consumed"},
		{"stop after approve", approve, false, stop, StatusApproved, StatusApproved, "cannot reject"},
		{"approve after reject", reject, false, approve, StatusRejected, StatusRejected, "already rejected at 2026-03-01T12:01:00Z"},
		{"approve after stop", stop, false, approve, StatusRejected, StatusRejected, "already rejected"},
		{"approve twice", approve, false, approve, StatusApproved, StatusApproved, "cannot approve"},
		{"approve after the grant was used", approve, true, approve, StatusApproved, StatusConsumed, "already approved"},
		{"reject twice", reject, false, reject, StatusRejected, StatusRejected, "cannot reject"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			r, err := s.Create(Request{Key: "k", Session: "s1", Summary: "git push", Tool: "Bash"}, t0)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.first(s, r.ID); err != nil {
				t.Fatal(err)
			}
			if tc.use {
				mustCheck(t, s, "k", t0.Add(2*time.Minute), Granted, r.ID)
			}
			before, _ := s.Get(r.ID)
			err = tc.second(s, r.ID)
			var de *DecidedError
			if !errors.As(err, &de) || !errors.Is(err, ErrDecided) || de.Won != tc.won || de.ID != r.ID {
				t.Fatalf("second decision: %v, want a DecidedError naming %s", err, tc.won)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "already "+string(tc.won)) {
				t.Errorf("error %q lacks %q", err, tc.msg)
			}
			after, _ := s.Get(r.ID)
			if after.Status != tc.status || after.RejectReason != before.RejectReason || !after.Decided.Equal(before.Decided) ||
				(after.Grant == nil) != (before.Grant == nil) || after.Grant != nil && after.Grant.Signature != before.Grant.Signature {
				t.Errorf("the refused decision changed the request: %+v -> %+v", before, after)
			}
		})
	}

	// An undecided request that expired pending may still be decided.
	s := newStore(t)
	s.ExpirePending(time.Minute)
	r := mustCreate(t, s, "k", t0)
	if _, err := s.List(t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Get(r.ID); got.Status != StatusExpired {
		t.Fatalf("status %s, want expired", got.Status)
	}
	if _, err := s.Approve(r.ID, time.Hour, 1, t0.Add(time.Hour), testSigner); err != nil {
		t.Errorf("approve of a request that expired pending: %v", err)
	}
}

// TestDecisionRace: approvers racing approve against reject on one
// request, 20 goroutines, 20 rounds: exactly one decision succeeds, every
// other gets a DecidedError naming the one that won, and the store holds
// that decision. (Before decisions were final, both succeeded and the
// last one won.)
func TestDecisionRace(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for round := range 20 {
		r := mustCreate(t, s, fmt.Sprintf("k%d", round), t0)
		var (
			wg     sync.WaitGroup
			mu     sync.Mutex
			wins   []string
			named  = map[Status]int{}
			errs   []error
			start  = make(chan struct{})
			nowish = t0.Add(time.Minute)
		)
		for i := range 20 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				var err error
				action := "approve"
				if i%2 == 1 {
					action = "reject"
					_, err = s.Reject(r.ID, "no", nowish)
				} else {
					_, err = s.Approve(r.ID, time.Hour, 1, nowish, testSigner)
				}
				mu.Lock()
				defer mu.Unlock()
				var de *DecidedError
				switch {
				case err == nil:
					wins = append(wins, action)
				case errors.As(err, &de):
					named[de.Won]++
				default:
					errs = append(errs, err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(errs) > 0 || len(wins) != 1 {
			t.Fatalf("round %d: wins %v, errors %v: want exactly one win", round, wins, errs)
		}
		won := StatusApproved
		if wins[0] == "reject" {
			won = StatusRejected
		}
		if len(named) != 1 || named[won] != 19 {
			t.Fatalf("round %d: %s won, the others were told %v", round, wins[0], named)
		}
		if got, _ := s.Get(r.ID); got.Status != won {
			t.Fatalf("round %d: %s won but the store says %s", round, wins[0], got.Status)
		}
	}
}

// TestDecisionFinalAcrossProcesses: the same race between processes (the
// CLI and serve are processes sharing a state directory): 8 children, 4
// approving and 4 rejecting one request, 5 rounds.
func TestDecisionFinalAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	t.Parallel()
	s := newStore(t)
	for round := range 5 {
		r := mustCreate(t, s, fmt.Sprintf("k%d", round), t0)
		start := t.TempDir() + "/start"
		var cmds []*exec.Cmd
		var outs []*strings.Builder
		for i := range 8 {
			action := "approve"
			if i%2 == 1 {
				action = "reject"
			}
			c := exec.Command(os.Args[0])
			c.Env = append(os.Environ(), helperEnv+"=1", "APPROVAL_DIR="+s.Dir(), "APPROVAL_START="+start,
				"APPROVAL_NOW="+t0.Add(time.Minute).Format(time.RFC3339Nano), "APPROVAL_ACTION="+action, "APPROVAL_ID="+r.ID)
			var b strings.Builder
			c.Stdout, c.Stderr = &b, &b
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			cmds, outs = append(cmds, c), append(outs, &b)
		}
		if err := os.WriteFile(start, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		ok, decided := 0, map[string]int{}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				t.Fatalf("child %d: %v: %s", i, err, outs[i])
			}
			switch out := strings.TrimSpace(outs[i].String()); {
			case out == "ok":
				ok++
			case strings.HasPrefix(out, "decided "):
				decided[strings.TrimPrefix(out, "decided ")]++
			default:
				t.Fatalf("child %d: %q", i, out)
			}
		}
		got, _ := s.Get(r.ID)
		if ok != 1 || len(decided) != 1 || decided[string(got.Status)] != 7 {
			t.Fatalf("round %d: %d succeeded, the others were told %v, the store says %s", round, ok, decided, got.Status)
		}
		if _, err := s.Check(context.Background(), r.Key, t0.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
}
