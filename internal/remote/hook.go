package remote

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// Headers of a hook endpoint's answer beyond the body (the reply's
// stdout): the exit code the process hook would end with, its stderr
// (base64), and the decision the reply says. serve writes them
// (internal/serve/hooks.go); a forwarding command hook (toolguard hook
// --server) reads them.
const (
	HeaderExitCode = "Toolguard-Exit-Code"
	HeaderStderr   = "Toolguard-Stderr"
	HeaderDecision = "Toolguard-Decision"
)

// HookReply is a hook endpoint's answer: what the process hook would have
// printed and its exit code.
type HookReply struct {
	Stdout, Stderr []byte
	ExitCode       int
	Decision       call.Decision
}

// NewNode returns a client of serve's hook endpoint (POST
// /v1/hooks/{agent}) at rawURL (unix:///path or http://host:port),
// authenticated by a node token, which the endpoint always requires.
func NewNode(rawURL, token string) (*Client, error) {
	network, addr, host, err := parseAddr(rawURL)
	if errors.Is(err, errHTTPS) {
		return nil, fmt.Errorf("--server %q: https is not supported by the hook; mount the server's Unix socket "+
			"(unix:///path) or use a local TLS-terminating forwarder (http://127.0.0.1:PORT)", rawURL)
	}
	if err != nil {
		return nil, fmt.Errorf("--server %q: %v", rawURL, err)
	}
	if token == "" {
		return nil, errors.New("no node token (--token-file or $TOOLGUARD_NODE_TOKEN)")
	}
	if strings.ContainsAny(token, "\r\n") {
		return nil, errors.New("the node token holds a line break")
	}
	return &Client{network: network, addr: addr, host: host, token: token, agent: "toolguard-hook",
		noToken: "the server refused the node token (serve --node-tokens)"}, nil
}

// Hook sends one hook payload to serve for agent (a codec name) and
// returns the reply the server decided. Any answer but a 200 with a valid
// exit code is an error: the caller decides locally instead.
func (c *Client) Hook(ctx context.Context, agent string, payload []byte) (HookReply, error) {
	status, hdr, body, err := c.roundTrip(ctx, "POST", "/v1/hooks/"+url.PathEscape(agent), "", payload)
	if err != nil {
		return HookReply{}, fmt.Errorf("hook server %s: %w", c.addr, err)
	}
	if status != 200 {
		return HookReply{}, &StatusError{Code: status, Msg: errorOf(body)}
	}
	code, err := strconv.Atoi(hdr.Get(HeaderExitCode))
	if err != nil || code < 0 || code > 255 {
		return HookReply{}, fmt.Errorf("hook server %s: no valid %s header in its answer", c.addr, HeaderExitCode)
	}
	dec, ok := call.ParseDecision(hdr.Get(HeaderDecision))
	if !ok {
		return HookReply{}, fmt.Errorf("hook server %s: no valid %s header in its answer", c.addr, HeaderDecision)
	}
	var stderr []byte
	if s := hdr.Get(HeaderStderr); s != "" {
		if stderr, err = base64.StdEncoding.DecodeString(s); err != nil {
			return HookReply{}, fmt.Errorf("hook server %s: bad %s header: %v", c.addr, HeaderStderr, err)
		}
	}
	return HookReply{Stdout: body, Stderr: stderr, ExitCode: code, Decision: dec}, nil
}
