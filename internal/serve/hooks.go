package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/remote"
)

// The agents' own hooks over HTTP (issue 34 item 1; docs/api.md, "Hook
// endpoints"): POST /v1/hooks/{agent} takes the payload the agent would
// write on a command hook's stdin and answers the bytes that hook would
// print, decided by the process hook's own decision path (Config.Hook,
// which the command gives the server). Claude Code's `type: "http"` hook
// posts here directly; the reply is its JSON, status 200.
//
// A node authenticates with its own bearer token (NodeTokens): a node
// token opens these endpoints and nothing else, and the role tokens of
// the API do not open them. Every authentication failure is the same 401.

// MaxHookPayload is the largest hook payload the endpoint decides: the
// process hook's limit. A larger one is answered as an unreadable payload
// (on_error), as the process hook answers it.
const MaxHookPayload = 16 << 20

// DefaultHookTimeout is how long a decision may take before the server
// answers deny in the agent's dialect (the process hook's deadline).
const DefaultHookTimeout = 10 * time.Second

// HookCall is one agent hook call that came over HTTP.
type HookCall struct {
	Node    string         // the node whose token authenticated the call
	Codec   protocol.Codec // the agent of the path
	Payload []byte
	// ReadErr is why the payload could not be read whole (larger than
	// MaxHookPayload, or cut short): the decision is then on_error's.
	ReadErr error
}

// HookAnswer is the process hook's answer to a HookCall.
type HookAnswer struct {
	Reply protocol.Reply
	// Decision is what the reply says (sent as Toolguard-Decision: a
	// forwarding hook takes the server's reply only when it is stricter
	// than its own decision).
	Decision call.Decision
	// Audit, if set, writes the call's audit line; the server calls it
	// once the reply is sent, with a context that ends at the deadline.
	Audit func(ctx context.Context)
}

// NodeToken is one node's bearer token for the hook endpoints.
type NodeToken struct {
	Name  string
	Token string
}

// ParseNodeTokens reads a node token file: one token a line, either
// NAME:TOKEN or a bare TOKEN (the node is then named node-N, N its line);
// blank lines and lines starting with # are skipped. A token is at least
// 16 characters with no white space; names and tokens are unique.
func ParseNodeTokens(data []byte) ([]NodeToken, error) {
	var out []NodeToken
	names, toks := map[string]bool{}, map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, tok, ok := strings.Cut(line, ":")
		if !ok {
			name, tok = "node-"+strconv.Itoa(n), line
		}
		name, tok = strings.TrimSpace(name), strings.TrimSpace(tok)
		switch {
		case name == "" || strings.ContainsAny(name, " \t"):
			return nil, fmt.Errorf("line %d: want NAME:TOKEN or TOKEN (the name is empty or has white space)", n)
		case len(tok) < 16 || strings.ContainsAny(tok, " \t"):
			return nil, fmt.Errorf("line %d: a token is at least 16 characters with no white space", n)
		case names[name]:
			return nil, fmt.Errorf("line %d: node %q listed twice", n, name)
		case toks[tok]:
			return nil, fmt.Errorf("line %d: token listed twice", n)
		}
		names[name], toks[tok] = true, true
		out = append(out, NodeToken{Name: name, Token: tok})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// nodeTokens is NodeTokens as the server compares them: SHA-256 digests,
// so that every comparison takes the same time whatever the lengths.
type nodeTokens []nodeDigest

type nodeDigest struct {
	name string
	sum  [sha256.Size]byte
}

func digestTokens(ts []NodeToken) nodeTokens {
	out := make(nodeTokens, 0, len(ts))
	for _, t := range ts {
		out = append(out, nodeDigest{name: t.Name, sum: sha256.Sum256([]byte(t.Token))})
	}
	return out
}

// node returns the node whose token tok is, comparing with every token in
// constant time.
func (ts nodeTokens) node(tok string) (string, bool) {
	sum := sha256.Sum256([]byte(tok))
	found := -1
	for i := range ts {
		if subtle.ConstantTimeCompare(sum[:], ts[i].sum[:]) == 1 {
			found = i
		}
	}
	if found < 0 {
		return "", false
	}
	return ts[found].name, true
}

// unauthorized is the one answer to every failed authentication of a hook
// endpoint: it says nothing of why.
func unauthorized(w http.ResponseWriter) {
	w.Header().Set("WWW-Authenticate", `Bearer realm="toolguard"`)
	writeJSON(w, http.StatusUnauthorized, map[string]string{"error": "unauthorized"})
}

func (s *Server) hookRoutes() {
	s.mux.HandleFunc("POST /v1/hooks/{agent}", s.hookCall)
	s.methodNotAllowed("/v1/hooks/{agent}", "POST")
}

// hookCall answers POST /v1/hooks/{agent}.
func (s *Server) hookCall(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" {
		unauthorized(w)
		return
	}
	node, ok := s.nodes.node(tok)
	if !ok {
		unauthorized(w)
		return
	}
	if s.cfg.Hook == nil {
		writeError(w, Errorf(http.StatusNotFound, "this server answers no hook calls"))
		return
	}
	codec, err := protocol.Lookup(r.PathValue("agent"))
	if err != nil {
		writeError(w, Errorf(http.StatusNotFound, "%v", err))
		return
	}
	if _, err := query(r); err != nil {
		writeError(w, err)
		return
	}
	hc := HookCall{Node: node, Codec: codec}
	hc.Payload, hc.ReadErr = io.ReadAll(io.LimitReader(r.Body, MaxHookPayload+1))
	if hc.ReadErr == nil && len(hc.Payload) > MaxHookPayload {
		hc.Payload, hc.ReadErr = nil, fmt.Errorf("payload larger than %d MiB", MaxHookPayload>>20)
	}
	timeout := s.cfg.HookTimeout
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	ctx, cancel := context.WithTimeoutCause(r.Context(), timeout, errHookDeadline)
	defer cancel()
	ans := s.decideHook(ctx, hc)
	w.Header().Set(HeaderDecision, ans.Decision.String())
	writeReply(w, ans.Reply)
	if ans.Audit != nil {
		if f, ok := w.(http.Flusher); ok {
			f.Flush() // the agent has its answer; the audit line follows
		}
		actx, acancel := context.WithTimeout(context.WithoutCancel(r.Context()), timeout)
		ans.Audit(withNode(actx, node)) // the node names the exported line (otel.go)
		acancel()
	}
}

var errHookDeadline = errors.New("the decision took longer than the server's hook deadline")

// decideHook runs Config.Hook under ctx's deadline: past it, or if the
// decision panics, the answer is a deny in the agent's dialect (the late
// decision is let go; past the deadline it consumes no approval use).
func (s *Server) decideHook(ctx context.Context, hc HookCall) HookAnswer {
	done := make(chan HookAnswer, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				s.cfg.Logf("toolguard serve: hook call of %s: internal error: %v", hc.Node, p)
				done <- HookAnswer{Reply: denyReply(hc.Codec, fmt.Sprintf("toolguard: internal error: %v", p)), Decision: call.Deny}
			}
		}()
		done <- s.cfg.Hook(ctx, hc)
	}()
	select {
	case a := <-done:
		return a
	case <-ctx.Done():
		return HookAnswer{Reply: denyReply(hc.Codec, "toolguard: "+context.Cause(ctx).Error()), Decision: call.Deny}
	}
}

// denyReply is a deny in codec's dialect, for a call the server could not
// decide (the process hook's watchdog answers the same).
func denyReply(codec protocol.Codec, reason string) protocol.Reply {
	return protocol.EncodeFor(codec, call.Call{}, call.Verdict{Decision: call.Deny, Reason: reason})
}

// Headers of a hook endpoint's answer beyond the body (the reply's
// stdout): the exit code the process hook would end with, and its stderr
// (base64), for a client that forwards a command hook.
const (
	HeaderExitCode = remote.HeaderExitCode
	HeaderStderr   = remote.HeaderStderr
	HeaderDecision = remote.HeaderDecision
)

// writeReply answers with the reply's stdout as the body, status 200.
func writeReply(w http.ResponseWriter, rep protocol.Reply) {
	h := w.Header()
	ct := "text/plain; charset=utf-8"
	if bytes.HasPrefix(bytes.TrimSpace(rep.Stdout), []byte("{")) {
		ct = "application/json"
	}
	h.Set("Content-Type", ct)
	h.Set("Content-Length", strconv.Itoa(len(rep.Stdout)))
	h.Set(HeaderExitCode, strconv.Itoa(rep.ExitCode))
	if len(rep.Stderr) > 0 {
		h.Set(HeaderStderr, base64.StdEncoding.EncodeToString(rep.Stderr))
	}
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(rep.Stdout)
}
