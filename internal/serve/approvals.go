package serve

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/guard"
)

// Bounds of an approval made through the server.
const (
	maxUses   = 1000
	maxTTL    = 30 * 24 * time.Hour
	maxReason = 2000
)

var statuses = []approval.Status{approval.StatusPending, approval.StatusApproved, approval.StatusRejected,
	approval.StatusConsumed, approval.StatusExpired, approval.StatusTampered, approval.StatusLeftover}

// query returns the values of r's query, refusing unknown or repeated keys.
func query(r *http.Request, known ...string) (map[string]string, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, Errorf(http.StatusBadRequest, "malformed query: %v", err)
	}
	out := map[string]string{}
	for k, v := range q {
		if !slices.Contains(known, k) {
			return nil, Errorf(http.StatusBadRequest, "unknown query parameter %q (known: %s)", k, strings.Join(known, ", "))
		}
		if len(v) != 1 {
			return nil, Errorf(http.StatusBadRequest, "query parameter %q given %d times", k, len(v))
		}
		out[k] = v[0]
	}
	return out, nil
}

func (s *Server) list(w http.ResponseWriter, r *http.Request, role Role) error {
	q, err := query(r, "status", "session", "provider")
	if err != nil {
		return err
	}
	if st := q["status"]; st != "" && !slices.Contains(statuses, approval.Status(st)) {
		return Errorf(http.StatusBadRequest, "unknown status %q (want pending, approved, rejected, consumed, expired, tampered or leftover)", st)
	}
	if role < RoleApprover && q["session"] == "" {
		return Errorf(http.StatusForbidden, "the hook role lists one session's requests only: give ?session=")
	}
	reqs, err := s.cfg.Store.List(s.cfg.Now())
	if err != nil {
		return err
	}
	reqs = slices.DeleteFunc(reqs, func(x approval.Request) bool {
		return q["status"] != "" && string(x.Status) != q["status"] ||
			q["session"] != "" && x.Session != q["session"] ||
			q["provider"] != "" && x.Provider != q["provider"]
	})
	// Newest first.
	slices.SortStableFunc(reqs, func(a, b approval.Request) int { return b.Created.Compare(a.Created) })
	if reqs == nil {
		reqs = []approval.Request{}
	}
	writeJSON(w, http.StatusOK, reqs)
	return nil
}

// request reads the request named by the path's {id}: 400 for an id that
// is not well formed, 404 for one that does not exist.
func (s *Server) request(r *http.Request) (approval.Request, error) {
	id := r.PathValue("id")
	if !approval.ValidID(id) {
		return approval.Request{}, Errorf(http.StatusBadRequest, "invalid approval request id %q (want 1 to 64 letters, digits, _ or -)", id)
	}
	req, err := s.cfg.Store.Get(id)
	switch {
	case errors.Is(err, approval.ErrNotFound), errors.Is(err, fs.ErrNotExist):
		return req, Errorf(http.StatusNotFound, "no approval request %s", id)
	case err != nil:
		return req, err
	}
	if req.Problem != "" {
		req.Status = approval.StatusTampered
	}
	return req, nil
}

// get answers GET /v1/approvals/{id}. The hook role names the session
// (?session=) and reads only that session's requests: another session's
// is a 404, so an id is no oracle.
func (s *Server) get(w http.ResponseWriter, r *http.Request, role Role) error {
	q, err := query(r, "session")
	if err != nil {
		return err
	}
	if role < RoleApprover && q["session"] == "" {
		return Errorf(http.StatusForbidden, "the hook role reads one session's requests only: give ?session=")
	}
	req, err := s.request(r)
	if err != nil {
		return err
	}
	if sess, ok := q["session"]; ok && sess != req.Session {
		return Errorf(http.StatusNotFound, "no approval request %s in session %q", req.ID, sess)
	}
	writeJSON(w, http.StatusOK, req)
	return nil
}

// approveBody is the body of POST /v1/approvals/{id}/approve.
type approveBody struct {
	Uses int    `json:"uses,omitempty"` // default 1
	TTL  string `json:"ttl,omitempty"`  // Go duration, default 1h
	// Session, when given, must be the request's session: a guard that the
	// grant is for the session the human meant. A grant is always for one
	// session: the call key holds the session id.
	Session string `json:"session,omitempty"`
	// Edit approves the call as the human edited it (approvals approve
	// --edit): the grant allows only the edited call, which the served
	// policy judges first.
	Edit *editBody `json:"edit,omitempty"`
	// Amend also adds the allow rule GET /v1/approvals/{id}/amend showed
	// to the policy file of serve --amend-file (approvals approve --amend).
	Amend *amendBody `json:"amend,omitempty"`
}

type editBody struct {
	// Text replaces the editable field (GET /v1/approvals/{id}/edit).
	Text *string `json:"text"`
	// Field, when given, must be the field GET .../edit named.
	Field string `json:"field,omitempty"`
}

type amendBody struct {
	// Snippet is the rule as GET /v1/approvals/{id}/amend showed it: the
	// server writes only that (the request file is agent-writable, and the
	// rule is derived from it).
	Snippet string `json:"snippet"`
}

type rejectBody struct {
	Reason string `json:"reason"`
	// Stop also cancels the turn: the next hook call of the request's
	// session, whatever it is, is denied with the agent's stop reply
	// (Store.RejectStop, the CLI's `approvals reject --stop`).
	Stop bool `json:"stop,omitempty"`
}

func (s *Server) approve(w http.ResponseWriter, r *http.Request, _ Role) error {
	var b approveBody
	if err := decodeBody(w, r, &b, true); err != nil {
		return err
	}
	uses, ttl := b.Uses, time.Hour
	if uses == 0 {
		uses = 1
	}
	if uses < 1 || uses > maxUses {
		return Errorf(http.StatusBadRequest, "uses must be 1 to %d, got %d", maxUses, b.Uses)
	}
	if b.TTL != "" {
		d, err := time.ParseDuration(b.TTL)
		if err != nil {
			return Errorf(http.StatusBadRequest, "ttl: %v (want a duration such as 30m or 8h)", err)
		}
		ttl = d
	}
	if ttl <= 0 || ttl > maxTTL {
		return Errorf(http.StatusBadRequest, "ttl must be positive and at most %v, got %v", maxTTL, ttl)
	}
	if b.Edit != nil && b.Amend != nil {
		return Errorf(http.StatusBadRequest, "\"edit\" and \"amend\" exclude each other: a rule cannot say what the human edited")
	}
	if b.Edit != nil && b.Edit.Text == nil {
		return Errorf(http.StatusBadRequest, "field \"edit.text\" is required: the edited text")
	}
	if b.Amend != nil && b.Amend.Snippet == "" {
		return Errorf(http.StatusBadRequest, "field \"amend.snippet\" is required: the rule GET /v1/approvals/{id}/amend showed")
	}
	req, err := s.request(r)
	if err != nil {
		return err
	}
	if b.Session != "" && b.Session != req.Session {
		return Errorf(http.StatusConflict, "request %s is of session %q, not %q", req.ID, req.Session, b.Session)
	}
	if req.Status == approval.StatusLeftover {
		return Errorf(http.StatusConflict, "request %s cannot be read, so it cannot be approved", req.ID)
	}
	// A decision is final once: fail before an edit is judged or a rule written.
	if err := approval.Undecided(&req, "approve"); err != nil {
		return decidedConflict(err)
	}
	var edit *approval.Edit
	if b.Edit != nil {
		if edit, err = s.judgeEdit(r, req, b.Edit); err != nil {
			return err
		}
	}
	if b.Amend != nil {
		if err := s.amend(req, b.Amend.Snippet); err != nil {
			return err
		}
	}
	out, err := s.cfg.Store.ApproveEdited(req.ID, ttl, uses, s.cfg.Now(), s.cfg.Signer, edit)
	if err != nil {
		return decidedConflict(err)
	}
	s.audit(r, out, "approve")
	writeJSON(w, http.StatusOK, out)
	return nil
}

// editable is the field of req's call a human may edit, and its text:
// 403 when the server has no editor, 422 when the call cannot be edited.
func (s *Server) editable(req approval.Request) (guard.Editable, error) {
	if s.cfg.EditText == nil || s.cfg.JudgeEdit == nil {
		return guard.Editable{}, Errorf(http.StatusForbidden, "this server does not edit calls")
	}
	ed, err := s.cfg.EditText(req)
	if err != nil {
		return guard.Editable{}, Errorf(http.StatusUnprocessableEntity, "request %s cannot be edited: %v", req.ID, err)
	}
	return ed, nil
}

// judgeEdit is the edit to sign for req: nil when the text is unchanged
// (the call is approved as it is), a 422 with the policy's reason when
// the policy denies the edited call.
func (s *Server) judgeEdit(r *http.Request, req approval.Request, b *editBody) (*approval.Edit, error) {
	ed, err := s.editable(req)
	if err != nil {
		return nil, err
	}
	if b.Field != "" && b.Field != ed.Field {
		return nil, Errorf(http.StatusConflict, "request %s edits %q, not %q", req.ID, ed.Field, b.Field)
	}
	if len(*b.Text) > approval.MaxToolInput {
		return nil, Errorf(http.StatusRequestEntityTooLarge, "the edited text is larger than %d KiB", approval.MaxToolInput>>10)
	}
	res, err := s.cfg.JudgeEdit(r.Context(), req, *b.Text)
	if err != nil {
		return nil, Errorf(http.StatusUnprocessableEntity, "the edit of request %s is refused: %v", req.ID, err)
	}
	return res.Edit, nil
}

// amend writes the rule proposed for req to the policy file, when it is
// still snippet, the rule the human was shown.
func (s *Server) amend(req approval.Request, snippet string) error {
	s.amendMu.Lock()
	defer s.amendMu.Unlock()
	plan, err := s.planAmend(req)
	if err != nil {
		return err
	}
	if plan.Snippet != snippet {
		return Errorf(http.StatusConflict, "the rule proposed for request %s is no longer the one shown; nothing written: get it again (GET /v1/approvals/%s/amend)", req.ID, req.ID)
	}
	if err := plan.Write(); errors.Is(err, guard.ErrAmendRace) {
		return Errorf(http.StatusConflict, "%s: %v", plan.File, err)
	} else if err != nil {
		return fmt.Errorf("amending %s: %v", plan.File, err)
	}
	s.cfg.Logf("toolguard serve: added rule %s to %s", plan.Rule, plan.File)
	return nil
}

// planAmend is the checked amendment for req: 403 when amending is off,
// 422 when no rule can be proposed or the amended policy does not validate.
func (s *Server) planAmend(req approval.Request) (guard.AmendPlan, error) {
	if s.cfg.PlanAmend == nil {
		return guard.AmendPlan{}, Errorf(http.StatusForbidden, "adding rules is off: start serve with --amend-file FILE to let approvers add allow rules to that policy file")
	}
	plan, err := s.cfg.PlanAmend(req)
	if err != nil {
		return guard.AmendPlan{}, Errorf(http.StatusUnprocessableEntity, "no rule for request %s: %v", req.ID, err)
	}
	return plan, nil
}

// pendingRequest is the request of the path's {id} when it can still be
// approved: 409 once decided.
func (s *Server) pendingRequest(r *http.Request) (approval.Request, error) {
	if _, err := query(r); err != nil {
		return approval.Request{}, err
	}
	req, err := s.request(r)
	if err != nil {
		return req, err
	}
	if req.Status == approval.StatusLeftover || req.Status == approval.StatusTampered {
		return req, Errorf(http.StatusConflict, "request %s is %s: %s", req.ID, req.Status, req.Problem)
	}
	if err := approval.Undecided(&req, "approve"); err != nil {
		return req, decidedConflict(err)
	}
	return req, nil
}

// editText answers GET /v1/approvals/{id}/edit: the field a human may
// edit before approving, its text, and what the call is (its summary,
// from the recorded input checked against the request's key: the
// preview is agent-writable and might name another file).
func (s *Server) editText(w http.ResponseWriter, r *http.Request, _ Role) error {
	req, err := s.pendingRequest(r)
	if err != nil {
		return err
	}
	ed, err := s.editable(req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": req.ID, "kind": req.Kind, "field": ed.Field, "text": ed.Text,
		"call": audit.CallSummary(ed.Call, guard.SummaryMax)})
	return nil
}

// amendText answers GET /v1/approvals/{id}/amend: the allow rule (and its
// [[test]]) "approve and add rule" would append, and the file.
func (s *Server) amendText(w http.ResponseWriter, r *http.Request, _ Role) error {
	req, err := s.pendingRequest(r)
	if err != nil {
		return err
	}
	plan, err := s.planAmend(req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]string{"id": req.ID, "file": plan.File, "rule": plan.Rule, "snippet": plan.Snippet})
	return nil
}

func (s *Server) reject(w http.ResponseWriter, r *http.Request, _ Role) error {
	var b rejectBody
	if err := decode(w, r, &b); err != nil {
		return err
	}
	b.Reason = strings.TrimSpace(b.Reason)
	if b.Reason == "" {
		return Errorf(http.StatusBadRequest, "field \"reason\" is required: the model reads it")
	}
	if len(b.Reason) > maxReason {
		return Errorf(http.StatusBadRequest, "reason longer than %d bytes", maxReason)
	}
	req, err := s.request(r)
	if err != nil {
		return err
	}
	reject, action := s.cfg.Store.Reject, "reject"
	if b.Stop {
		if req.Session == "" {
			return Errorf(http.StatusConflict, "request %s has no session id, so there is no turn to stop: reject it without stop", req.ID)
		}
		reject = s.cfg.Store.RejectStop
	}
	out, err := reject(req.ID, b.Reason, s.cfg.Now())
	if err != nil {
		return decidedConflict(err)
	}
	s.audit(r, out, action)
	writeJSON(w, http.StatusOK, out)
	return nil
}

// audit records a decision; a failing audit is logged, the decision stands.
func (s *Server) audit(r *http.Request, req approval.Request, action string) {
	if s.cfg.Audit == nil {
		return
	}
	via := "token"
	if r.Header.Get("Authorization") == "" {
		via = "web"
	}
	who := approval.Approver{User: s.cfg.Signer.User}
	if len(s.cfg.Signer.Key) == ed25519.PrivateKeySize {
		pub := s.cfg.Signer.Key.Public().(ed25519.PublicKey)
		who.Key, who.Fingerprint = approval.PublicText(pub), approval.Fingerprint(pub)
	}
	if err := s.cfg.Audit(DecisionEvent{Request: req, Action: action, Approver: who, Via: via}); err != nil {
		s.cfg.Logf("toolguard serve: audit of %s %s: %v", action, req.ID, err)
	}
}

func (s *Server) auditSummary(w http.ResponseWriter, r *http.Request, _ Role) error {
	q, err := query(r, "since")
	if err != nil {
		return err
	}
	var since time.Time
	if v := q["since"]; v != "" {
		if d, err := time.ParseDuration(v); err == nil && d > 0 {
			since = s.cfg.Now().Add(-d)
		} else if t, err := time.Parse(time.RFC3339, v); err == nil {
			since = t
		} else {
			return Errorf(http.StatusBadRequest, "since %q: want a positive duration (24h) or an RFC 3339 time", v)
		}
	}
	if s.cfg.AuditSummary == nil {
		return Errorf(http.StatusNotFound, "auditing is off")
	}
	sum, err := s.cfg.AuditSummary(since)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, sum)
	return nil
}

// decidedConflict turns a second decision on a request (a decision is
// final once) into a 409 naming the decision that won.
func decidedConflict(err error) error {
	if errors.Is(err, approval.ErrDecided) {
		return Errorf(http.StatusConflict, "%v", err)
	}
	return err
}
