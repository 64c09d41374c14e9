// Package serve is the HTTP side of toolguard: the check endpoint, policy
// validation, the approval inbox (JSON API, Server-Sent Events and a web
// page) and the audit summary. The command (cmd/toolguard serve) loads
// the policy and the keys and hands them in as a Config; this package
// holds no policy logic of its own.
//
// Every endpoint but /healthz, /login and the page's static files wants a
// bearer token (Tokens) or the session cookie the one-time login link
// sets; a request with the cookie that changes anything also wants the
// session's CSRF token in the X-CSRF-Token header. See docs/api.md.
package serve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
)

// MaxBody is the largest request body any endpoint reads.
const MaxBody = 1 << 20

// Role is what a token may do.
type Role int

const (
	RoleNone     Role = iota
	RoleHook          // check, validate; record a request, use a grant, read one session's requests and hold
	RoleApprover      // everything
)

func (r Role) String() string {
	switch r {
	case RoleHook:
		return "hook"
	case RoleApprover:
		return "approver"
	}
	return "none"
}

// CheckRequest is the body of POST /v1/check: exactly one of Command,
// Argv, Tool/Path(s), MCP, URL or Payload.
type CheckRequest struct {
	Command   string          `json:"command,omitempty"`
	Argv      []string        `json:"argv,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Path      string          `json:"path,omitempty"`
	Paths     []string        `json:"paths,omitempty"`
	MCP       string          `json:"mcp,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	URL       string          `json:"url,omitempty"`
	Payload   json.RawMessage `json:"payload,omitempty"`
	Provider  string          `json:"provider,omitempty"`
	Cwd       string          `json:"cwd,omitempty"`
	Workspace string          `json:"workspace,omitempty"`
	Mode      string          `json:"mode,omitempty"`
	// Policy is a policy's text (TOML, or JSON when it starts with "{") to
	// decide by instead of the served one; the embedded defaults stay.
	Policy string `json:"policy,omitempty"`
}

// ValidateRequest is the body of POST /v1/validate.
type ValidateRequest struct {
	Policy string `json:"policy"`
	// Name is the file name problems are reported against (default
	// policy.toml, or policy.json for JSON text).
	Name      string `json:"name,omitempty"`
	NoBuiltin bool   `json:"no_builtin,omitempty"`
}

// Problem is one problem of a policy, as POST /v1/validate reports it.
type Problem struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Col     int    `json:"col,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Message string `json:"message"`
	Text    string `json:"text"` // file:line:col: message, as `toolguard validate` prints it
}

// ProblemOf converts a policy problem.
func ProblemOf(p policy.Problem) Problem {
	return Problem{File: p.File, Line: p.Line, Col: p.Col, Rule: p.Rule, Message: p.Msg, Text: p.String()}
}

// DecisionEvent is one approval decision made through the server.
type DecisionEvent struct {
	Request  approval.Request // after the decision
	Action   string           // "approve" or "reject"
	Approver approval.Approver
	Via      string // "token" or "web"
}

// Config is what the command hands the server.
type Config struct {
	// Check answers POST /v1/check with check --json's object. An *Error
	// it returns sets the status; any other error is a 400 (bad call).
	Check func(ctx context.Context, req CheckRequest) (*guard.Report, error)
	// Validate returns every problem of a policy's text.
	Validate func(req ValidateRequest) ([]Problem, error)
	// AuditSummary is `toolguard audit --json` since a time (zero: all).
	AuditSummary func(since time.Time) (*audit.Summary, error)
	// Store is the approval state directory, trusting the keys the hook trusts.
	Store *approval.Store
	// Describe returns what a human sees of a call a hook records through
	// POST /v1/approvals: Summary, Preview and Rules (the served policy's
	// view). Nil: the call's summary alone.
	Describe func(ctx context.Context, c call.Call) (approval.Request, error)
	// Signer signs every grant made through the server.
	Signer approval.Signer
	// Tokens maps each bearer token to its role.
	Tokens map[string]Role
	// LoginToken is the one-time token of the sign-in link (/login?t=…).
	LoginToken string
	// Audit, if set, records each decision made through the server.
	Audit func(DecisionEvent) error
	// Secure marks the session cookie Secure (the server runs TLS).
	Secure bool
	// Poll is how often the server looks at the store for events (default
	// 250ms; with Changes, 10s: a safety net).
	Poll time.Duration
	// Changes, if set, signals each change of the store made by anyone
	// (PostgreSQL's LISTEN/NOTIFY, pgstore.DB.Listen): the server looks
	// at the store on each signal instead of polling for events.
	Changes <-chan struct{}
	// Notify are the webhooks events are posted to; BaseURL, if set, is the
	// page's address for the links in them. NotifyBackoff is the first
	// pause before a retry (default 1s; it doubles).
	Notify        []Notifier
	BaseURL       string
	NotifyBackoff time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Logf reports what the server could not tell a client (default: nothing).
	Logf func(format string, args ...any)
	// PeerRole, if set, gives a request with neither token nor cookie the
	// role of its connection's peer credentials (a Unix socket whose
	// http.Server has PeerConnContext; peer.go).
	PeerRole func(Peer) Role
	// AppendAudit, if set, appends an audit line a hook sends (POST
	// /v1/audit; audit.go): the server keeps the hash-chained log.
	AppendAudit func(audit.Record) error

	// Hook decides a hook payload of POST /v1/hooks/{agent} by the
	// process hook's decision path (hooks.go); nil: no hook endpoint.
	Hook func(ctx context.Context, hc HookCall) HookAnswer
	// NodeTokens are the bearer tokens of the nodes that may call it.
	NodeTokens []NodeToken
	// HookTimeout bounds one hook decision (default DefaultHookTimeout).
	HookTimeout time.Duration
	// Bundle is the signed policy bundle GET /v1/policy/bundle serves
	// (bundle.go); nil: none (404).
	Bundle []byte

	// EditText and JudgeEdit let an approver edit a call before approving
	// it (approvals.go; guard.EditableText, guard.JudgeEdit by the served
	// policy); nil: edits are refused.
	EditText  func(r approval.Request) (guard.Editable, error)
	JudgeEdit func(ctx context.Context, r approval.Request, text string) (guard.EditResult, error)
	// PlanAmend proposes the allow rule of "approve and add rule" for a
	// request, checked against the policy file it goes to (serve
	// --amend-file); nil: amending is off.
	PlanAmend func(r approval.Request) (guard.AmendPlan, error)
}

// Server is the toolguard HTTP handler.
type Server struct {
	cfg  Config
	mux  *http.ServeMux
	done chan struct{}
	once sync.Once

	ready     chan struct{}  // closed once the watcher has its first snapshot
	workers   sync.WaitGroup // the watcher and the notifiers
	subMu     sync.Mutex
	subs      map[chan Event]struct{}
	notifiers []*notifier
	nodes     nodeTokens // Config.NodeTokens, digested

	amendMu sync.Mutex // one amendment of the policy file at a time

	mu       sync.Mutex
	logins   map[string]time.Time // unused one-time login tokens -> expiry (zero: none)
	sessions map[string]session   // cookie value -> session
}

type session struct {
	csrf    string
	expires time.Time
}

// sessionCookie is the name of the web page's session cookie.
const sessionCookie = "toolguard_session"

// sessionTTL is how long a web sign-in lasts.
const sessionTTL = 12 * time.Hour

// New returns a server for cfg.
func New(cfg Config) *Server {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 250 * time.Millisecond
		if cfg.Changes != nil {
			cfg.Poll = 10 * time.Second
		}
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	s := &Server{cfg: cfg, mux: http.NewServeMux(), done: make(chan struct{}),
		logins: map[string]time.Time{}, sessions: map[string]session{},
		ready: make(chan struct{}), subs: map[chan Event]struct{}{}, nodes: digestTokens(cfg.NodeTokens)}
	if cfg.LoginToken != "" {
		s.logins[cfg.LoginToken] = time.Time{}
	}
	s.routes()
	s.startNotifiers()
	s.workers.Add(1)
	go func() {
		defer s.workers.Done()
		s.watch()
	}()
	return s
}

// Close stops the watcher and the notifiers and ends the event streams
// (call it when the http.Server shuts down: Shutdown does not wait for
// them otherwise).
func (s *Server) Close() {
	s.once.Do(func() { close(s.done) })
	s.workers.Wait()
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	s.mux.ServeHTTP(w, r)
}

// Error is an HTTP error with a JSON body {"error": Msg}.
type Error struct {
	Status int
	Msg    string
}

func (e *Error) Error() string { return e.Msg }

// Errorf returns an *Error.
func Errorf(status int, format string, args ...any) *Error {
	return &Error{Status: status, Msg: fmt.Sprintf(format, args...)}
}

// writeJSON answers with v and its Content-Length (the hook's client,
// internal/remote, reads no chunked body).
func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		status, b = http.StatusInternalServerError, bytes.Buffer{}
		fmt.Fprintf(&b, "{\"error\": %q}\n", "encoding the answer: "+err.Error())
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}

func writeError(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Status: http.StatusInternalServerError, Msg: err.Error()}
	}
	writeJSON(w, e.Status, map[string]string{"error": e.Msg})
}

// handle wraps h with the role check.
func (s *Server) handle(need Role, mutates bool, h func(http.ResponseWriter, *http.Request, Role) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		role, err := s.authorize(r, need, mutates)
		if err == nil {
			err = h(w, r, role)
		}
		if err != nil {
			writeError(w, err)
		}
	}
}

// route registers h for each method on path, and a handler that answers
// every other method with 405 and a JSON error.
func (s *Server) route(path string, need Role, mutates bool, h func(http.ResponseWriter, *http.Request, Role) error, methods ...string) {
	for _, m := range methods {
		s.mux.HandleFunc(m+" "+path, s.handle(need, mutates, h))
	}
	s.methodNotAllowed(path, methods...)
}

func (s *Server) methodNotAllowed(path string, methods ...string) {
	allow := strings.Join(methods, ", ")
	s.mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Allow", allow)
		writeError(w, Errorf(http.StatusMethodNotAllowed, "method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, allow))
	})
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.route("/v1/check", RoleHook, false, s.check, "POST")
	s.route("/v1/validate", RoleHook, false, s.validate, "POST")
	s.mux.HandleFunc("GET /v1/approvals", s.handle(RoleHook, false, s.list))
	s.mux.HandleFunc("POST /v1/approvals", s.handle(RoleHook, true, s.create))
	s.methodNotAllowed("/v1/approvals", "GET", "POST")
	s.route("/v1/grants/use", RoleHook, true, s.use, "POST")
	s.route("/v1/sessions/hold", RoleHook, true, s.sessionHold, "POST")
	s.route("/v1/sessions/told", RoleHook, true, s.sessionTold, "POST")
	s.route("/v1/results", RoleHook, true, s.result, "POST")
	s.route("/v1/audit", RoleHook, true, s.appendAudit, "POST")
	s.route("/v1/approvals/{id}", RoleHook, false, s.get, "GET")
	s.route("/v1/approvals/{id}/approve", RoleApprover, true, s.approve, "POST")
	s.route("/v1/approvals/{id}/reject", RoleApprover, true, s.reject, "POST")
	s.route("/v1/approvals/{id}/edit", RoleApprover, false, s.editText, "GET")
	s.route("/v1/approvals/{id}/amend", RoleApprover, false, s.amendText, "GET")
	s.route("/v1/events", RoleApprover, false, s.events, "GET")
	s.route("/v1/audit/summary", RoleApprover, false, s.auditSummary, "GET")
	s.route("/v1/login-links", RoleApprover, true, s.newLoginLink, "POST")
	s.hookRoutes()
	s.route("/v1/policy/bundle", RoleHook, false, s.bundle, "GET") // bundle.go
	s.mux.HandleFunc("/v1/", func(w http.ResponseWriter, r *http.Request) {
		if _, err := s.authorize(r, RoleHook, false); err != nil {
			writeError(w, err)
			return
		}
		writeError(w, Errorf(http.StatusNotFound, "no endpoint %s", r.URL.Path))
	})
	s.webRoutes()
}

// authorize finds the caller's role: a bearer token, else the session
// cookie (approver; a mutating request also wants the session's CSRF
// token in X-CSRF-Token).
func (s *Server) authorize(r *http.Request, need Role, mutates bool) (Role, error) {
	role := RoleNone
	if h := r.Header.Get("Authorization"); h != "" {
		tok, ok := strings.CutPrefix(h, "Bearer ")
		if !ok || tok == "" {
			return RoleNone, Errorf(http.StatusUnauthorized, "the Authorization header wants \"Bearer TOKEN\"")
		}
		role = s.tokenRole(tok)
		if role == RoleNone {
			return RoleNone, Errorf(http.StatusUnauthorized, "unknown token")
		}
	} else if c, err := r.Cookie(sessionCookie); err == nil {
		sess, ok := s.session(c.Value)
		if !ok {
			return RoleNone, Errorf(http.StatusUnauthorized, "the session has ended: sign in again with a login link")
		}
		if mutates && !equal(r.Header.Get("X-CSRF-Token"), sess.csrf) {
			return RoleNone, Errorf(http.StatusForbidden, "missing or wrong X-CSRF-Token for this session")
		}
		role = RoleApprover
	} else if pr, err := s.peerRole(r); err != nil || pr != RoleNone {
		if err != nil {
			return RoleNone, err
		}
		role = pr // peer credentials (peer.go); never a cookie's CSRF-less session
	} else {
		return RoleNone, Errorf(http.StatusUnauthorized, "no token: send Authorization: Bearer TOKEN")
	}
	if role < need {
		return role, Errorf(http.StatusForbidden, "the %s role may not use %s %s", role, r.Method, r.URL.Path)
	}
	return role, nil
}

func (s *Server) tokenRole(tok string) Role {
	found := RoleNone
	for t, role := range s.cfg.Tokens {
		if equal(tok, t) {
			found = role
		}
	}
	return found
}

func equal(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// RandomToken returns 32 random bytes in base64url.
func RandomToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// decode reads a JSON body of at most MaxBody bytes into v: unknown
// fields, trailing data and anything but one object are errors.
func decode(w http.ResponseWriter, r *http.Request, v any) error { return decodeBody(w, r, v, false) }

// decodeBody is decode; with optional an empty body leaves v as it is.
func decodeBody(w http.ResponseWriter, r *http.Request, v any, optional bool) error {
	body := http.MaxBytesReader(w, r.Body, MaxBody)
	dec := json.NewDecoder(body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mbe *http.MaxBytesError
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &mbe):
			return Errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", MaxBody)
		case errors.Is(err, io.EOF) && optional:
			return nil
		case errors.Is(err, io.EOF):
			return Errorf(http.StatusBadRequest, "empty request body: want a JSON object")
		case errors.As(err, &se):
			return Errorf(http.StatusBadRequest, "malformed JSON at byte %d: %v", se.Offset, err)
		case errors.As(err, &te) && te.Field == "":
			return Errorf(http.StatusBadRequest, "the body is JSON %s: want a JSON object", te.Value)
		case errors.As(err, &te):
			return Errorf(http.StatusBadRequest, "field %q: want %s, got JSON %s", te.Field, te.Type, te.Value)
		case strings.HasPrefix(err.Error(), "json: unknown field"):
			return Errorf(http.StatusBadRequest, "unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return Errorf(http.StatusBadRequest, "malformed JSON: %v", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return Errorf(http.StatusRequestEntityTooLarge, "request body larger than %d bytes", MaxBody)
		}
		return Errorf(http.StatusBadRequest, "malformed JSON: data after the object")
	}
	return nil
}

func (s *Server) check(w http.ResponseWriter, r *http.Request, _ Role) error {
	var req CheckRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	out, err := s.cfg.Check(r.Context(), req)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		return Errorf(http.StatusBadRequest, "%v", err)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) validate(w http.ResponseWriter, r *http.Request, _ Role) error {
	var req ValidateRequest
	if err := decode(w, r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(req.Policy) == "" {
		return Errorf(http.StatusBadRequest, "field \"policy\" is required: the policy's text")
	}
	probs, err := s.cfg.Validate(req)
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return e
		}
		return Errorf(http.StatusBadRequest, "%v", err)
	}
	if probs == nil {
		probs = []Problem{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"ok": len(probs) == 0, "problems": probs})
	return nil
}
