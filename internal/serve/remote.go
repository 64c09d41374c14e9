package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
)

// The server half of remote approvals (issue 18 item 3): a hook that
// cannot reach the state directory — an agent in a sandbox — records its
// request with the server (POST /v1/approvals) and asks for a grant there
// (POST /v1/grants/use). Both take the hook role. The hook side (a
// settings.approval_url that headlessAsk uses instead of the local store)
// is not wired yet; Client is what it would call.

// Bounds of a request recorded through the API.
const (
	maxSummary = 4096
	maxField   = 4096
	maxRules   = 64
)

// createBody is the body of POST /v1/approvals: what the hook records.
type createBody struct {
	Key      string            `json:"key"` // approval.Key of the call: 64 hex digits
	Summary  string            `json:"summary"`
	Tool     string            `json:"tool"`
	Kind     string            `json:"kind"`
	Cwd      string            `json:"cwd"`
	Session  string            `json:"session"`
	Provider string            `json:"provider"`
	Rules    []string          `json:"rules,omitempty"`
	Reason   string            `json:"reason"`
	Preview  *approval.Preview `json:"preview,omitempty"`
}

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

func (s *Server) create(w http.ResponseWriter, r *http.Request, _ Role) error {
	if _, err := query(r); err != nil {
		return err
	}
	var b createBody
	if err := decode(w, r, &b); err != nil {
		return err
	}
	if !validKey(b.Key) {
		return Errorf(http.StatusBadRequest, "field \"key\": want the call key, 64 lower-case hex digits")
	}
	if strings.TrimSpace(b.Summary) == "" {
		return Errorf(http.StatusBadRequest, "field \"summary\" is required")
	}
	for name, v := range map[string]string{"summary": b.Summary, "tool": b.Tool, "kind": b.Kind, "cwd": b.Cwd,
		"session": b.Session, "provider": b.Provider, "reason": b.Reason} {
		if len(v) > maxField {
			return Errorf(http.StatusBadRequest, "field %q longer than %d bytes", name, maxField)
		}
	}
	if len(b.Rules) > maxRules {
		return Errorf(http.StatusBadRequest, "more than %d rules", maxRules)
	}
	req, err := s.cfg.Store.Create(approval.Request{Key: b.Key, Summary: b.Summary, Tool: b.Tool, Kind: b.Kind,
		Cwd: b.Cwd, Session: b.Session, Provider: b.Provider, Rules: b.Rules, Reason: b.Reason, Preview: b.Preview}, s.cfg.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, req)
	return nil
}

// UseResult is the answer of POST /v1/grants/use.
type UseResult struct {
	Outcome  string `json:"outcome"` // none, granted, rejected, pending
	ID       string `json:"id,omitempty"`
	Reason   string `json:"reason,omitempty"`
	UsesLeft int    `json:"uses_left,omitempty"`
}

// use answers for a call key as the hook's Store.Check does, in one step:
// a usable grant (signed by a key the server trusts) is consumed.
func (s *Server) use(w http.ResponseWriter, r *http.Request, _ Role) error {
	if _, err := query(r); err != nil {
		return err
	}
	var b struct {
		Key string `json:"key"`
	}
	if err := decode(w, r, &b); err != nil {
		return err
	}
	if !validKey(b.Key) {
		return Errorf(http.StatusBadRequest, "field \"key\": want the call key, 64 lower-case hex digits")
	}
	out, err := s.cfg.Store.Check(r.Context(), b.Key, s.cfg.Now())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, UseResult{Outcome: out.Kind.String(), ID: out.ID, Reason: out.Reason, UsesLeft: out.UsesLeft})
	return nil
}

// Client is the hook's side of remote approvals.
type Client struct {
	BaseURL string // http://127.0.0.1:8787
	Token   string // a hook token
	HTTP    *http.Client
}

func (c *Client) do(ctx context.Context, path string, in, out any) error {
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, "POST", strings.TrimSuffix(c.BaseURL, "/")+path, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Content-Type", "application/json")
	hc := c.HTTP
	if hc == nil {
		hc = &http.Client{Timeout: 5 * time.Second}
	}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, MaxBody))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		return fmt.Errorf("approval server: %d %s", res.StatusCode, e.Error)
	}
	return json.Unmarshal(data, out)
}

// Use asks the server for the call key's outcome, consuming a grant.
func (c *Client) Use(ctx context.Context, key string) (approval.Outcome, error) {
	var r UseResult
	if err := c.do(ctx, "/v1/grants/use", map[string]string{"key": key}, &r); err != nil {
		return approval.Outcome{}, err
	}
	kinds := map[string]approval.OutcomeKind{"none": approval.None, "granted": approval.Granted,
		"rejected": approval.Rejected, "pending": approval.Pending}
	k, ok := kinds[r.Outcome]
	if !ok {
		return approval.Outcome{}, fmt.Errorf("approval server: unknown outcome %q", r.Outcome)
	}
	return approval.Outcome{Kind: k, ID: r.ID, Reason: r.Reason, UsesLeft: r.UsesLeft}, nil
}

// Create records a request with the server (or returns the pending one
// for the same key).
func (c *Client) Create(ctx context.Context, r approval.Request) (approval.Request, error) {
	b := createBody{Key: r.Key, Summary: r.Summary, Tool: r.Tool, Kind: r.Kind, Cwd: r.Cwd, Session: r.Session,
		Provider: r.Provider, Rules: r.Rules, Reason: r.Reason, Preview: r.Preview}
	var out approval.Request
	err := c.do(ctx, "/v1/approvals", b, &out)
	return out, err
}
