package approval

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"
)

// SessionUses is the number of uses `approvals approve --session` grants:
// the identical call (the key includes the session id, so only in that
// session) as often as it comes until the grant expires. It is an
// ordinary signed use count, so a hook of any version reads it the same.
const SessionUses = math.MaxInt32

// ExpirePending makes pending requests older than ttl (positive) expire:
// Check, Create, List, Prune and SessionHold mark them StatusExpired (with
// no grant) on the way. With ttl zero pending requests wait for ever.
func (s *Store) ExpirePending(ttl time.Duration) { s.pendingTTL = ttl }

// pendingExpired reports whether the pending request r has waited past the
// store's pending TTL at now.
func (s *Store) pendingExpired(r *Request, now time.Time) bool {
	return r.Status == StatusPending && s.pendingTTL > 0 && !now.Before(r.Created.Add(s.pendingTTL))
}

// HoldKind is what SessionHold found for a session.
type HoldKind int

const (
	NoHold      HoldKind = iota // nothing holds the session
	HoldPending                 // a request of the session waits for a human
	HoldStop                    // a human rejected a request with --stop: end the turn
)

// Hold is the answer of SessionHold.
type Hold struct {
	Kind    HoldKind
	Request Request // the pending request (the oldest), or the stopping one
}

// SessionHold reports, under the store lock, what holds the calls of
// session at now: a request rejected with stop whose stop has not been
// delivered yet (HoldStop; it is marked delivered, so it stops one call),
// else the oldest pending request of the session (HoldPending), else
// NoHold. An empty session is never held. Pending requests past the
// pending TTL are marked expired first and hold nothing.
func (s *Store) SessionHold(session string, now time.Time) (Hold, error) {
	var out Hold
	if session == "" {
		return out, nil
	}
	err := s.locked(func(t Tx) error {
		reqs, _, err := s.load(t, false)
		if err != nil {
			return err
		}
		if err := s.settle(t, reqs, now); err != nil {
			return err
		}
		var stop, pending *Request
		for i := range reqs {
			r := &reqs[i]
			if r.Session != session {
				continue
			}
			switch {
			case r.Status == StatusRejected && r.Stop && r.StopDelivered.IsZero():
				if stop == nil || r.Decided.Before(stop.Decided) {
					stop = r
				}
			case r.Status == StatusPending:
				if pending == nil || r.Created.Before(pending.Created) {
					pending = r
				}
			}
		}
		switch {
		case stop != nil:
			stop.StopDelivered = now
			if err := t.Write(context.Background(), *stop); err != nil {
				return err
			}
			out = Hold{Kind: HoldStop, Request: *stop}
		case pending != nil:
			out = Hold{Kind: HoldPending, Request: *pending}
		}
		return nil
	})
	return out, err
}

// RejectStop is Reject that also ends the session's turn: the next call
// of the request's session (SessionHold) is answered with a stop.
func (s *Store) RejectStop(id, reason string, now time.Time) (Request, error) {
	return s.update(id, func(r *Request) error {
		if err := Undecided(r, "reject"); err != nil {
			return err
		}
		if r.Session == "" {
			return errors.New("the request has no session id, so there is no turn to stop")
		}
		r.Status = StatusRejected
		r.Decided = now
		r.RejectReason = reason
		r.Grant = nil
		r.Stop, r.StopDelivered = true, time.Time{}
		return nil
	})
}

// Told reports the requests of session whose decision the model has not
// been told yet, oldest decision first, and marks them told at now (each
// is told once): approved ones whose grant verifies and has uses left,
// rejected ones, and expired ones (a grant that ran out unused, or a
// pending request past the pending TTL). Consumed requests are marked told
// without being reported: the call ran. The pending requests of the
// session come in pending, unmarked (they are told at every turn until
// decided). Tampered grants are neither reported nor marked. An empty
// session reports nothing.
func (s *Store) Told(session string, now time.Time) (decided, pending []Request, err error) {
	if session == "" {
		return nil, nil, nil
	}
	err = s.locked(func(t Tx) error {
		reqs, _, err := s.load(t, false)
		if err != nil {
			return err
		}
		for i := range reqs {
			if reqs[i].Session == session {
				s.check(&reqs[i])
			}
		}
		if err := s.settle(t, reqs, now); err != nil {
			return err
		}
		for i := range reqs {
			r := &reqs[i]
			if r.Session != session || !r.Told.IsZero() || r.Problem != "" {
				continue
			}
			switch r.Status {
			case StatusPending:
				pending = append(pending, *r)
				continue
			case StatusApproved, StatusRejected, StatusExpired:
				decided = append(decided, *r)
			case StatusConsumed:
			default:
				continue
			}
			r.Told = now
			if err := t.Write(context.Background(), *r); err != nil {
				return err
			}
		}
		return nil
	})
	byTime := func(a, b Request) int {
		ta, tb := a.Decided, b.Decided
		if ta.IsZero() {
			ta = a.Created
		}
		if tb.IsZero() {
			tb = b.Created
		}
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	}
	slices.SortStableFunc(decided, byTime)
	slices.SortStableFunc(pending, byTime)
	return decided, pending, err
}

// Result is what the agent reported after an approved call ran.
type Result struct {
	Time     time.Time `json:"time"`
	Outcome  string    `json:"outcome"` // success, failure, or ran (not said)
	ExitCode *int      `json:"exit_code,omitempty"`
}

// maxResults bounds the results kept on one request (a session grant may
// allow many uses).
const maxResults = 20

// RecordResult records res on the request whose grant allowed the call
// with key most recently, if that use has no result yet, and returns the
// request; ok is false when no use of a grant for key awaits a result (the
// call was not allowed by an approval, or its result is recorded already).
func (s *Store) RecordResult(key string, res Result) (r Request, ok bool, err error) {
	err = s.locked(func(t Tx) error {
		reqs, _, err := s.load(t, false)
		if err != nil {
			return err
		}
		var best *Request
		for i := range reqs {
			q := &reqs[i]
			if q.Key != key || q.Grant == nil || q.Grant.LastUsed.IsZero() {
				continue
			}
			if n := len(q.Results); n > 0 && !q.Results[n-1].Time.Before(q.Grant.LastUsed) {
				continue // this use has its result
			}
			if best == nil || q.Grant.LastUsed.After(best.Grant.LastUsed) {
				best = q
			}
		}
		if best == nil {
			return nil
		}
		if res.Time.Before(best.Grant.LastUsed) {
			res.Time = best.Grant.LastUsed
		}
		best.Results = append(best.Results, res)
		if len(best.Results) > maxResults {
			best.Results = best.Results[len(best.Results)-maxResults:]
		}
		if err := t.Write(context.Background(), *best); err != nil {
			return err
		}
		r, ok = *best, true
		return nil
	})
	return r, ok, err
}
