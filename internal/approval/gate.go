package approval

import (
	"context"
	"time"
)

// Gate is where a hook's approvals are kept: the local Store (LocalGate),
// or an approval server outside the sandbox (internal/guard's remote gate,
// settings.approval_url). Both are opened one way, by guard.OpenGate,
// which makes the local store trust the hook's keys.
type Gate interface {
	// Told returns the session's requests decided since it was last told,
	// and those still pending.
	Told(ctx context.Context, session string, now time.Time) (decided, pending []Request, err error)
	// RecordResult records the outcome of a call a grant allowed on the
	// request whose grant allowed it; ok is false when no grant did.
	RecordResult(ctx context.Context, key string, res Result) (r Request, ok bool, err error)
	// SessionHold says what holds the session: a stop a human asked for,
	// or a pending request.
	SessionHold(ctx context.Context, session string, now time.Time) (Hold, error)
}

// LocalGate is a Store as a Gate.
type LocalGate struct{ *Store }

func (g LocalGate) Told(_ context.Context, session string, now time.Time) ([]Request, []Request, error) {
	return g.Store.Told(session, now)
}

func (g LocalGate) RecordResult(_ context.Context, key string, res Result) (Request, bool, error) {
	return g.Store.RecordResult(key, res)
}

func (g LocalGate) SessionHold(_ context.Context, session string, now time.Time) (Hold, error) {
	return g.Store.SessionHold(session, now)
}
