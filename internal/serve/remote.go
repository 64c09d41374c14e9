package serve

import (
	"context"
	"net/http"
	"strings"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/remote"
)

// The server half of remote approvals (issue 18 item 3; docs/approvals.md,
// "Remote approvals"): a hook that cannot reach the state directory — an
// agent in a sandbox, settings.approval_url — records its request with the
// server (POST /v1/approvals), asks for a grant there (POST
// /v1/grants/use) and asks what holds its session (POST
// /v1/sessions/hold). All three take the hook role; the hook's client is
// internal/remote, which shares these bodies.
//
// A hook token is no secret from the agent in the sandbox (the hook runs
// as the agent's user), so what the role allows is what bounds it: it can
// record a request, but the server derives the call key and everything
// the human sees from the call itself, so a request cannot show one call
// and grant another; it can spend or look at the outcome of a call it can
// name exactly (the key covers the session id); it never approves.

// Bounds of a request recorded through the API.
const (
	maxField = 4096
	maxRules = 64
	maxNonce = 128
)

func validKey(k string) bool {
	if len(k) != 64 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if c := k[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// summaryMax bounds the summary of a request when Config.Describe is not set.
const summaryMax = 200

// describe is what the human sees of c: Config.Describe, or the call's
// summary alone.
func (s *Server) describe(ctx context.Context, c call.Call) (approval.Request, error) {
	if s.cfg.Describe != nil {
		return s.cfg.Describe(ctx, c)
	}
	return approval.Request{Summary: audit.CallSummary(c, summaryMax), Tool: c.Tool, Kind: c.Kind.String(),
		Cwd: c.Cwd, Session: c.SessionID, Provider: c.Provider}, nil
}

func (s *Server) create(w http.ResponseWriter, r *http.Request, _ Role) error {
	var b remote.CreateRequest
	if err := readRemote(w, r, &b); err != nil {
		return err
	}
	if err := checkKey(b.Key); err != nil {
		return err
	}
	if b.Call.Tool == "" {
		return Errorf(http.StatusBadRequest, "field \"call\": want the decoded call (at least its tool)")
	}
	if k := approval.Key(b.Call); k != b.Key {
		// Different versions of toolguard, or a request made up to show
		// one call and grant another: either way nothing is recorded.
		// The error names no key: a call key is what a grant is bound to,
		// and an answer must not hand one to whoever sent a made-up call.
		return Errorf(http.StatusBadRequest, "field \"key\" is not the key of field \"call\" (this toolguard and the server's differ, or the call was changed)")
	}
	for name, v := range map[string]string{"reason": b.Reason, "call.session_id": b.Call.SessionID,
		"call.provider": b.Call.Provider, "call.tool": b.Call.Tool} {
		if len(v) > maxField {
			return Errorf(http.StatusBadRequest, "field %q longer than %d bytes", name, maxField)
		}
	}
	if len(b.Rules) > maxRules {
		return Errorf(http.StatusBadRequest, "more than %d rules", maxRules)
	}
	d, err := s.describe(r.Context(), b.Call)
	if err != nil {
		return Errorf(http.StatusBadRequest, "field \"call\": %v", err)
	}
	rules := d.Rules
	if len(rules) == 0 {
		rules = b.Rules
	}
	req, err := s.cfg.Store.Create(approval.Request{Key: b.Key, Summary: d.Summary, Tool: b.Call.Tool,
		Kind: b.Call.Kind.String(), Cwd: b.Call.Cwd, Session: b.Call.SessionID, Provider: b.Call.Provider,
		Rules: rules, Reason: b.Reason, Preview: d.Preview}, s.cfg.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, req)
	return nil
}

// use answers for a call key as the hook's Store.Check does, in one step:
// a usable grant (signed by a key the server trusts) is consumed and
// returned, signed, for the hook to verify against its own keys. With no
// grant or request of the call (or a rejection), what holds the session
// comes too, as the local hook asks for it.
func (s *Server) use(w http.ResponseWriter, r *http.Request, _ Role) error {
	var b remote.UseRequest
	if err := readRemote(w, r, &b); err != nil {
		return err
	}
	if err := checkKey(b.Key); err != nil {
		return err
	}
	if len(b.Session) > maxField || len(b.Nonce) > maxNonce {
		return Errorf(http.StatusBadRequest, "field \"session\" longer than %d bytes, or \"nonce\" longer than %d", maxField, maxNonce)
	}
	now := s.cfg.Now()
	out, err := s.cfg.Store.Check(r.Context(), b.Key, now)
	if err != nil {
		return err
	}
	a := remote.UseAnswer{Outcome: out.Kind.String(), ID: out.ID, Reason: out.Reason, UsesLeft: out.UsesLeft}
	switch out.Kind {
	case approval.Granted:
		req, err := s.cfg.Store.Get(out.ID)
		if err != nil {
			return err
		}
		gf, ok := approval.GrantFileOf(req)
		if !ok {
			return Errorf(http.StatusInternalServerError, "request %s was granted but holds no grant", out.ID)
		}
		a.Grant = &gf
		if b.Nonce != "" {
			// The use was taken: a receipt the hook can check, or none
			// (and the hook, which wants one, allows nothing).
			if a.Receipt, err = s.cfg.Signer.SignUse(gf, b.Nonce); err != nil {
				s.cfg.Logf("toolguard serve: use of %s: %v", out.ID, err)
			}
		}
	case approval.None, approval.Rejected:
		if b.Session != "" {
			h, err := s.hold(b.Session)
			if err != nil {
				return err
			}
			a.Hold = &h
		}
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

func (s *Server) hold(session string) (remote.Hold, error) {
	h, err := s.cfg.Store.SessionHold(session, s.cfg.Now())
	if err != nil {
		return remote.Hold{}, err
	}
	switch h.Kind {
	case approval.HoldStop:
		return remote.Hold{Kind: "stop", ID: h.Request.ID, Summary: h.Request.Summary, Reason: h.Request.RejectReason}, nil
	case approval.HoldPending:
		return remote.Hold{Kind: "pending", ID: h.Request.ID, Summary: h.Request.Summary}, nil
	}
	return remote.Hold{Kind: "none"}, nil
}

// sessionHold answers POST /v1/sessions/hold: what holds a session's
// calls (a stop is given once: this answer delivers it).
func (s *Server) sessionHold(w http.ResponseWriter, r *http.Request, _ Role) error {
	var b remote.HoldRequest
	if err := readRemote(w, r, &b); err != nil {
		return err
	}
	if strings.TrimSpace(b.Session) == "" {
		return Errorf(http.StatusBadRequest, "field \"session\" is required")
	}
	if len(b.Session) > maxField {
		return Errorf(http.StatusBadRequest, "field \"session\" longer than %d bytes", maxField)
	}
	h, err := s.hold(b.Session)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, h)
	return nil
}

// sessionTold answers POST /v1/sessions/told: the session's decisions the
// model has not been told yet, marked told by this answer, and its
// pending requests — what the hook's prompt and session events add to the
// model's context.
func (s *Server) sessionTold(w http.ResponseWriter, r *http.Request, _ Role) error {
	var b remote.HoldRequest
	if err := readRemote(w, r, &b); err != nil {
		return err
	}
	if strings.TrimSpace(b.Session) == "" {
		return Errorf(http.StatusBadRequest, "field \"session\" is required")
	}
	if len(b.Session) > maxField {
		return Errorf(http.StatusBadRequest, "field \"session\" longer than %d bytes", maxField)
	}
	decided, pending, err := s.cfg.Store.Told(b.Session, s.cfg.Now())
	if err != nil {
		return err
	}
	t := remote.Told{Decided: decided, Pending: pending}
	if t.Decided == nil {
		t.Decided = []approval.Request{}
	}
	if t.Pending == nil {
		t.Pending = []approval.Request{}
	}
	writeJSON(w, http.StatusOK, t)
	return nil
}

// result answers POST /v1/results: the outcome of an approved call that
// ran, recorded on the request whose grant allowed it (the approval.result
// event follows from the store). Information, not a control: the agent
// reports it.
func (s *Server) result(w http.ResponseWriter, r *http.Request, _ Role) error {
	var b remote.ResultRequest
	if err := readRemote(w, r, &b); err != nil {
		return err
	}
	if err := checkKey(b.Key); err != nil {
		return err
	}
	switch b.Outcome {
	case "success", "failure", "ran":
	default:
		return Errorf(http.StatusBadRequest, "field \"outcome\": want success, failure or ran, got %q", b.Outcome)
	}
	req, ok, err := s.cfg.Store.RecordResult(b.Key, approval.Result{Time: s.cfg.Now(), Outcome: b.Outcome, ExitCode: b.ExitCode})
	if err != nil {
		return err
	}
	a := remote.ResultAnswer{Recorded: ok}
	if ok {
		a.Request = req
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// NotifiersOf returns the webhooks of settings.notify (validated by the
// policy loader; checked again here).
func NotifiersOf(ns []policy.Notify) ([]Notifier, error) {
	var out []Notifier
	for _, n := range ns {
		v := Notifier{URL: n.URL, Format: n.Format, Events: n.Events}
		if err := ValidateNotifier(v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// readRemote reads a request of the hook side: no query parameters and
// one JSON body into v.
func readRemote(w http.ResponseWriter, r *http.Request, v any) error {
	if _, err := query(r); err != nil {
		return err
	}
	return decode(w, r, v)
}

// checkKey rejects a field "key" that is not a call key.
func checkKey(key string) error {
	if !validKey(key) {
		return Errorf(http.StatusBadRequest, "field \"key\": want the call key, 64 lower-case hex digits")
	}
	return nil
}
