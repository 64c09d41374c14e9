package remote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
)

// DefaultTimeout bounds one request (dial, write, read) when
// Client.Timeout is zero. The hook makes at most two requests per call
// (the grant, whose answer holds the session's hold, then a new request),
// well inside its 10 s deadline.
const DefaultTimeout = 2 * time.Second

// MaxBody is the largest response body read; MaxHeader bounds the status
// line and headers together.
const (
	MaxBody   = 1 << 20
	MaxHeader = 64 << 10
)

// Client talks to one approval server.
type Client struct {
	network, addr, host string
	token               string
	agent               string // User-Agent
	noToken             string // what a 401 to a tokenless request is told (Do)
	maxBody             int64  // MaxBody when zero
	// Timeout bounds each request (DefaultTimeout when zero).
	Timeout time.Duration
}

// errHTTPS is an https:// address: this client has no TLS.
var errHTTPS = errors.New("https is not supported")

// parseAddr splits an address of the server: unix:///path/to/socket or
// http://host:port. Its errors say what was wanted, not which setting.
func parseAddr(rawURL string) (network, addr, host string, err error) {
	switch {
	case strings.HasPrefix(rawURL, "unix://"):
		p := strings.TrimPrefix(rawURL, "unix://")
		if !strings.HasPrefix(p, "/") {
			return "", "", "", errors.New("want unix:///absolute/path/to/socket")
		}
		return "unix", p, "localhost", nil
	case strings.HasPrefix(rawURL, "http://"):
		hp := strings.TrimSuffix(strings.TrimPrefix(rawURL, "http://"), "/")
		host, port, err := net.SplitHostPort(hp)
		if err != nil || host == "" || strings.ContainsAny(hp, "/?#@ ") {
			return "", "", "", errors.New("want http://host:port")
		}
		if _, err := strconv.ParseUint(port, 10, 16); err != nil {
			return "", "", "", errors.New("bad port")
		}
		return "tcp", hp, hp, nil
	case strings.HasPrefix(rawURL, "https://"):
		return "", "", "", errHTTPS
	}
	return "", "", "", errors.New("want unix:///path/to/socket or http://host:port")
}

// New returns a client for rawURL (unix:///path or http://host:port) that
// sends token as its bearer token.
func New(rawURL, token string) (*Client, error) {
	network, addr, host, err := parseAddr(rawURL)
	if errors.Is(err, errHTTPS) {
		return nil, fmt.Errorf("approval_url %q: https is not supported by the hook; mount the server's Unix socket "+
			"into the sandbox (unix:///path) or use a local TLS-terminating forwarder (http://127.0.0.1:PORT)", rawURL)
	}
	if err != nil {
		return nil, fmt.Errorf("approval_url %q: %v", rawURL, err)
	}
	c := &Client{network: network, addr: addr, host: host, token: token, agent: "toolguard-hook",
		noToken: "no approval token (settings.approval_token_file or $TOOLGUARD_APPROVAL_TOKEN), and the server " +
			"does not take this caller by its peer credentials (toolguard serve --peer-credentials)"}
	if token == "" && c.network != "unix" {
		// Over a Unix socket the server may know the caller by its peer
		// credentials (toolguard serve --socket in system mode): no token.
		return nil, errors.New("no approval token (settings.approval_token_file or $TOOLGUARD_APPROVAL_TOKEN)")
	}
	if strings.ContainsAny(token, "\r\n") {
		return nil, errors.New("the approval token holds a line break")
	}
	return c, nil
}

// StatusError is a response with a status other than 2xx.
type StatusError struct {
	Code int
	Msg  string // the server's {"error": …}, if it sent one
}

func (e *StatusError) Error() string {
	if e.Msg == "" {
		return fmt.Sprintf("approval server: status %d", e.Code)
	}
	return fmt.Sprintf("approval server: status %d: %s", e.Code, e.Msg)
}

// Do sends method path with in as its JSON body (none when nil) and
// decodes a 2xx response's JSON body into out (ignored when nil).
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	status, _, data, err := c.roundTrip(ctx, method, path, "", body)
	if err != nil {
		return fmt.Errorf("approval server %s: %w", c.addr, err)
	}
	if status/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		_ = json.Unmarshal(data, &e)
		if len(e.Error) > 500 {
			e.Error = e.Error[:500]
		}
		if status == 401 && c.token == "" {
			// Tokenless over a socket whose server wants a token.
			e.Error = c.noToken + ": " + e.Error
		}
		return &StatusError{Code: status, Msg: e.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("approval server %s: %s %s: the response is not the JSON wanted: %v", c.addr, method, path, err)
	}
	return nil
}

// errorOf is the server's {"error": …} in data, bounded, or "".
func errorOf(data []byte) string {
	var e struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(data, &e)
	if len(e.Error) > 500 {
		e.Error = e.Error[:500]
	}
	return e.Error
}

// roundTrip sends one request; hdr is extra header lines, each ending in
// "\r\n".
func (c *Client) roundTrip(ctx context.Context, method, path, hdr string, body []byte) (int, textproto.MIMEHeader, []byte, error) {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	status, rh, data, err := c.exchange(ctx, method, path, hdr, body)
	if err != nil {
		var ne net.Error
		switch {
		case errors.Is(ctx.Err(), context.Canceled):
			err = fmt.Errorf("%w (%v)", ctx.Err(), err)
		case ctx.Err() != nil || errors.As(err, &ne) && ne.Timeout():
			err = fmt.Errorf("no answer within %v (%v)", timeout, err)
		}
	}
	return status, rh, data, err
}

func (c *Client) exchange(ctx context.Context, method, path, hdr string, body []byte) (int, textproto.MIMEHeader, []byte, error) {
	d := net.Dialer{}
	conn, err := d.DialContext(ctx, c.network, c.addr)
	if err != nil {
		return 0, nil, nil, err
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	if err := conn.SetDeadline(deadline); err != nil {
		return 0, nil, nil, err
	}
	// A context cancelled before its deadline (the hook's watchdog) ends
	// the exchange at once.
	stop := context.AfterFunc(ctx, func() { _ = conn.SetDeadline(time.Unix(1, 0)) })
	defer stop()

	var req bytes.Buffer
	fmt.Fprintf(&req, "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: %s\r\n", method, path, c.host, c.agent)
	if c.token != "" {
		fmt.Fprintf(&req, "Authorization: Bearer %s\r\n", c.token)
	}
	fmt.Fprintf(&req, "Accept: application/json\r\nConnection: close\r\n%s", hdr)
	if body != nil {
		fmt.Fprintf(&req, "Content-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	}
	req.WriteString("\r\n")
	req.Write(body)
	if _, err := conn.Write(req.Bytes()); err != nil {
		return 0, nil, nil, err
	}
	max := c.maxBody
	if max <= 0 {
		max = MaxBody
	}
	return readResponse(bufio.NewReader(conn), max)
}

// ReadResponse reads one HTTP/1.x response from r: the status code and
// the Content-Length body (see the package documentation for what is
// refused).
func ReadResponse(r *bufio.Reader) (int, []byte, error) {
	status, _, body, err := readResponse(r, MaxBody)
	return status, body, err
}

// readResponse is ReadResponse with a body of at most max bytes, and the
// response's header.
func readResponse(r *bufio.Reader, max int64) (int, textproto.MIMEHeader, []byte, error) {
	head := &limitedReader{r: r, n: MaxHeader}
	tp := textproto.NewReader(bufio.NewReader(head))
	line, err := tp.ReadLine()
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading the status line: %w", eofIsUnexpected(err, head))
	}
	proto, rest, _ := strings.Cut(line, " ")
	code, _, _ := strings.Cut(rest, " ")
	if proto != "HTTP/1.1" && proto != "HTTP/1.0" {
		return 0, nil, nil, fmt.Errorf("not an HTTP/1.x response: %q", trim(line))
	}
	status, err := strconv.Atoi(code)
	if err != nil || len(code) != 3 || status < 100 {
		return 0, nil, nil, fmt.Errorf("bad status line %q", trim(line))
	}
	hdr, err := tp.ReadMIMEHeader()
	if err != nil {
		return 0, nil, nil, fmt.Errorf("reading the headers: %w", eofIsUnexpected(err, head))
	}
	if status == 304 {
		return status, hdr, nil, nil // Not Modified has no body (RFC 9110, 15.4.5)
	}
	if te := hdr.Get("Transfer-Encoding"); te != "" {
		return 0, nil, nil, fmt.Errorf("Transfer-Encoding %q is not supported (want a Content-Length body)", trim(te))
	}
	cls := hdr.Values("Content-Length")
	if len(cls) != 1 {
		return 0, nil, nil, fmt.Errorf("want one Content-Length header, got %d", len(cls))
	}
	n, err := strconv.ParseInt(strings.TrimSpace(cls[0]), 10, 64)
	if err != nil || n < 0 {
		return 0, nil, nil, fmt.Errorf("bad Content-Length %q", trim(cls[0]))
	}
	if n > max {
		return 0, nil, nil, fmt.Errorf("response body of %d bytes is larger than %d", n, max)
	}
	// What the header reader buffered beyond the headers comes first,
	// then the rest from r (not through the header limit).
	buffered, _ := tp.R.Peek(tp.R.Buffered())
	body := io.MultiReader(bytes.NewReader(buffered), r)
	data := make([]byte, n)
	if _, err := io.ReadFull(body, data); err != nil {
		return 0, nil, nil, fmt.Errorf("reading a %d-byte body: %w", n, eofIsUnexpected(err, nil))
	}
	return status, hdr, data, nil
}

// limitedReader is io.LimitedReader that says why it stopped.
type limitedReader struct {
	r        io.Reader
	n        int64
	exceeded bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		l.exceeded = true
		return 0, errHeaderTooLarge
	}
	if int64(len(p)) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	return n, err
}

// errHeaderTooLarge is a typed zero-size value: no work at package init.
var errHeaderTooLarge error = headerTooLarge{}

type headerTooLarge struct{}

func (headerTooLarge) Error() string {
	return "status line and headers larger than " + strconv.Itoa(MaxHeader) + " bytes"
}

func eofIsUnexpected(err error, head *limitedReader) error {
	if head != nil && head.exceeded {
		return errHeaderTooLarge
	}
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

func trim(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// The API the hook uses (docs/api.md, "Remote approvals").

// CreateRequest is the body of POST /v1/approvals: the call itself, from
// which the server derives the key and everything the human sees (so a
// request cannot show one call and grant another), and the hook's key,
// which must match.
type CreateRequest struct {
	Call   call.Call `json:"call"`
	Key    string    `json:"key"`
	Reason string    `json:"reason,omitempty"` // the ask reason, for the human
	Rules  []string  `json:"rules,omitempty"`  // the hook's rules that asked
}

// Created is what the hook reads of POST /v1/approvals' answer.
type Created struct {
	ID     string          `json:"id"`
	Status approval.Status `json:"status"`
}

// UseRequest is the body of POST /v1/grants/use.
type UseRequest struct {
	Key     string `json:"key"`
	Session string `json:"session,omitempty"` // for the session's hold
	// Nonce is fresh for each request: a granted answer carries a receipt
	// signed over it and the grant (approval.Keyring.VerifyUse), so an
	// answer seen once cannot be played again.
	Nonce string `json:"nonce,omitempty"`
}

// UseAnswer is the answer of POST /v1/grants/use: what Store.Check found,
// with the signed grant when a use was taken, and what holds the session
// when no grant or request of this call applies (or it was rejected).
type UseAnswer struct {
	Outcome  string              `json:"outcome"` // none, granted, rejected, pending
	ID       string              `json:"id,omitempty"`
	Reason   string              `json:"reason,omitempty"`
	UsesLeft int                 `json:"uses_left,omitempty"`
	Grant    *approval.GrantFile `json:"grant,omitempty"`
	Receipt  string              `json:"receipt,omitempty"` // granted: approval.Signer.SignUse(Grant, Nonce)
	Hold     *Hold               `json:"hold,omitempty"`
}

// HoldRequest is the body of POST /v1/sessions/hold.
type HoldRequest struct {
	Session string `json:"session"`
}

// Hold is what holds a session (approval.Store.SessionHold).
type Hold struct {
	Kind    string `json:"kind"` // none, pending, stop
	ID      string `json:"id,omitempty"`
	Summary string `json:"summary,omitempty"`
	Reason  string `json:"reason,omitempty"` // stop: the human's reason
}

// Use asks for the outcome of the call with key, consuming a use of a
// grant if there is one.
func (c *Client) Use(ctx context.Context, req UseRequest) (UseAnswer, error) {
	var a UseAnswer
	err := c.Do(ctx, "POST", "/v1/grants/use", req, &a)
	return a, err
}

// Create records a request (or finds the pending one of the same call).
func (c *Client) Create(ctx context.Context, req CreateRequest) (Created, error) {
	var a Created
	err := c.Do(ctx, "POST", "/v1/approvals", req, &a)
	if err == nil && !approval.ValidID(a.ID) {
		err = fmt.Errorf("approval server %s: the answer names no valid request id", c.addr)
	}
	return a, err
}

// ResultRequest is the body of POST /v1/results: what the agent reported
// after a call an approval allowed ran (approval.Store.RecordResult).
type ResultRequest struct {
	Key      string `json:"key"`
	Outcome  string `json:"outcome"` // success, failure, ran
	ExitCode *int   `json:"exit_code,omitempty"`
}

// ResultAnswer says whether a request took the result, and which.
type ResultAnswer struct {
	Recorded bool             `json:"recorded"`
	Request  approval.Request `json:"request,omitzero"`
}

// Result reports the outcome of an approved call that ran.
func (c *Client) Result(ctx context.Context, req ResultRequest) (ResultAnswer, error) {
	var a ResultAnswer
	err := c.Do(ctx, "POST", "/v1/results", req, &a)
	return a, err
}

// Told is the answer of POST /v1/sessions/told: the session's decisions
// the model has not been told yet (now marked told), and its pending
// requests (approval.Store.Told).
type Told struct {
	Decided []approval.Request `json:"decided"`
	Pending []approval.Request `json:"pending"`
}

// Told asks for the session's decisions to tell the model at the start of
// a turn.
func (c *Client) Told(ctx context.Context, session string) (Told, error) {
	var t Told
	err := c.Do(ctx, "POST", "/v1/sessions/told", HoldRequest{Session: session}, &t)
	return t, err
}

// SessionHold asks what holds session.
func (c *Client) SessionHold(ctx context.Context, session string) (Hold, error) {
	var h Hold
	err := c.Do(ctx, "POST", "/v1/sessions/hold", HoldRequest{Session: session}, &h)
	return h, err
}

// Audit sends one audit line for the server to append to its
// hash-chained log (POST /v1/audit, system mode: the hook cannot write the
// log itself).
func (c *Client) Audit(ctx context.Context, rec audit.Record) error {
	return c.Do(ctx, "POST", "/v1/audit", rec, nil)
}
