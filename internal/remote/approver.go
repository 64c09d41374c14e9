package remote

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
)

// The approver's side of the API (docs/api.md: list, show, approve,
// reject), for `toolguard approvals --server`: a human at a terminal
// deciding through a toolguard serve whose store is not on this machine
// (serve --database) or not theirs to write (system mode's socket). The
// server signs every grant with its own key; this client signs nothing.

// ApproverTimeout bounds one request of an approver client: a human waits,
// not an agent's tool call, and a server on a busy database may be slow.
const ApproverTimeout = 30 * time.Second

// maxApproverBody bounds an approver's answers: a list holds every
// request with its preview.
const maxApproverBody = 64 << 20

// ErrApproverToken is an http:// address without an approver token: the
// server knows a TCP caller only by its token.
var ErrApproverToken = errors.New("no approver token")

// NewApprover returns a client for rawURL (unix:///path or
// http://host:port) that sends token, an approver token of serve's token
// file, as its bearer token. Without a token it works over a Unix socket
// only, where serve --peer-credentials knows the caller by its uid. A
// token goes in clear over http://, so it is refused for a host that is
// not loopback (127.0.0.0/8, ::1, localhost).
func NewApprover(rawURL, token string) (*Client, error) {
	network, addr, host, err := parseAddr(rawURL)
	if errors.Is(err, errHTTPS) {
		return nil, fmt.Errorf("--server %q: https is not supported (this binary has no TLS): use serve's Unix socket "+
			"(unix:///path), or forward the server to a loopback port (ssh -L 8787:127.0.0.1:8787 HOST) and use http://127.0.0.1:8787", rawURL)
	}
	if err != nil {
		return nil, fmt.Errorf("--server %q: %v", rawURL, err)
	}
	if strings.ContainsAny(token, "\r\n \t") {
		return nil, errors.New("the approver token holds white space or a line break")
	}
	if network == "tcp" {
		if token == "" {
			return nil, fmt.Errorf("--server %q: %w: a TCP caller is known by its token only (--token-file or $TOOLGUARD_APPROVER_TOKEN)", rawURL, ErrApproverToken)
		}
		if h, _, _ := net.SplitHostPort(addr); !loopback(h) {
			return nil, fmt.Errorf("--server %q: plain http to a host that is not loopback would send the approver token in clear: "+
				"use serve's Unix socket, or forward the server to a loopback port", rawURL)
		}
	}
	return &Client{network: network, addr: addr, host: host, token: token, agent: "toolguard-approvals",
		noToken: "no approver token (--token-file or $TOOLGUARD_APPROVER_TOKEN), and the server does not take " +
			"this caller by its peer credentials (serve --peer-credentials, as root, serve's account or a member of --approver-group)",
		maxBody: maxApproverBody, Timeout: ApproverTimeout}, nil
}

func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr is the server's address as the client dials it.
func (c *Client) Addr() string { return c.addr }

// ListFilter selects requests (GET /v1/approvals' query); "" is any.
type ListFilter struct {
	Status, Session, Provider string
}

// List returns the server's requests, newest first.
func (c *Client) List(ctx context.Context, f ListFilter) ([]approval.Request, error) {
	q := url.Values{}
	for k, v := range map[string]string{"status": f.Status, "session": f.Session, "provider": f.Provider} {
		if v != "" {
			q.Set(k, v)
		}
	}
	path := "/v1/approvals"
	if len(q) > 0 {
		path += "?" + q.Encode()
	}
	var reqs []approval.Request
	if err := c.Do(ctx, "GET", path, nil, &reqs); err != nil {
		return nil, err
	}
	return reqs, nil
}

// Get returns the request id as the server sees it (a grant that does not
// verify there has status tampered and Problem set).
func (c *Client) Get(ctx context.Context, id string) (approval.Request, error) {
	var r approval.Request
	if err := c.requestPath(id); err != nil {
		return r, err
	}
	err := c.Do(ctx, "GET", "/v1/approvals/"+id, nil, &r)
	return r, c.same(id, r, err)
}

// ApproveRequest is the body of POST /v1/approvals/{id}/approve; zero
// values are the server's defaults (one use, one hour).
type ApproveRequest struct {
	Uses int    `json:"uses,omitempty"`
	TTL  string `json:"ttl,omitempty"` // a Go duration
	// Session, when set, must be the request's session (else 409).
	Session string `json:"session,omitempty"`
}

// RejectRequest is the body of POST /v1/approvals/{id}/reject.
type RejectRequest struct {
	Reason string `json:"reason"`
	Stop   bool   `json:"stop,omitempty"` // also end the session's turn at its next call
}

// Approve asks the server to approve request id; the grant in the answer
// is signed with the server's key. A request already decided is a
// *StatusError with Code 409 naming the decision that won.
func (c *Client) Approve(ctx context.Context, id string, req ApproveRequest) (approval.Request, error) {
	var r approval.Request
	if err := c.requestPath(id); err != nil {
		return r, err
	}
	err := c.Do(ctx, "POST", "/v1/approvals/"+id+"/approve", req, &r)
	if err == nil && r.Grant == nil {
		err = fmt.Errorf("approval server %s: the answer to approve %s holds no grant", c.addr, id)
	}
	return r, c.same(id, r, err)
}

// Reject asks the server to reject request id with reason.
func (c *Client) Reject(ctx context.Context, id string, req RejectRequest) (approval.Request, error) {
	var r approval.Request
	if err := c.requestPath(id); err != nil {
		return r, err
	}
	err := c.Do(ctx, "POST", "/v1/approvals/"+id+"/reject", req, &r)
	if err == nil && r.Status != approval.StatusRejected {
		err = fmt.Errorf("approval server %s: the answer to reject %s says %q, not rejected", c.addr, id, r.Status)
	}
	return r, c.same(id, r, err)
}

// requestPath refuses an id that is not one (it goes into the path).
func (c *Client) requestPath(id string) error {
	if !approval.ValidID(id) {
		return fmt.Errorf("invalid approval request id %q (want 1 to 64 letters, digits, _ or -)", id)
	}
	return nil
}

// same checks that an answer is about the request asked for.
func (c *Client) same(id string, r approval.Request, err error) error {
	if err == nil && r.ID != id {
		err = fmt.Errorf("approval server %s: asked about %s, answered about %q", c.addr, id, r.ID)
	}
	return err
}
