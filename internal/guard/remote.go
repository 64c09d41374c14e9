package guard

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/remote"
	"github.com/toolguard/toolguard/internal/workspace"
)

// Remote approvals (docs/approvals.md, "Remote approvals"): with
// settings.approval_url, a headless ask is recorded with a toolguard serve
// outside the sandbox, and the grant is asked for there, instead of in the
// local state directory. The server holds the store and the approver key;
// the hook holds only a hook token, which can record and spend, never
// approve. The hook trusts the server for nothing but transport: a grant
// it answers with allows the call only if its Ed25519 signature verifies
// against the keys the hook trusts for local grants (trustedKeys: the
// user's own approver key, if this machine has it, and settings.approvers)
// and it is for this call's key and not expired, and the answer carries a
// receipt signed by such a key over the grant and the nonce the hook sent
// for this request (so a grant seen once, by a proxy between the hook and
// the server, cannot be answered again). Anything else — no
// answer within remote.DefaultTimeout, a bad status, a bad answer — is
// the on_error decision (deny unless a trusted layer says otherwise).

// ApprovalTokenEnv holds the hook token when settings.approval_token_file
// is not set.
const ApprovalTokenEnv = "TOOLGUARD_APPROVAL_TOKEN"

// maxTokenFile bounds the token file.
const maxTokenFile = 4 << 10

// remoteClient is the approval server client of the policy in effect.
func remoteClient(sys workspace.Env, pol *policy.Policy) (*remote.Client, error) {
	tok := ""
	if p := pol.Settings.ApprovalTokenFile; p != "" {
		path := sys.Path(p)
		data, err := readTokenFile(path)
		if err != nil {
			return nil, fmt.Errorf("settings.approval_token_file %s: %v", path, err)
		}
		tok = strings.TrimSpace(string(data))
		if tok == "" {
			return nil, fmt.Errorf("settings.approval_token_file %s is empty", path)
		}
	} else {
		tok = strings.TrimSpace(sys.Var(ApprovalTokenEnv))
	}
	return remote.New(pol.Settings.ApprovalURL, tok)
}

// readTokenFile reads a regular file of at most maxTokenFile bytes,
// opened without blocking (a FIFO in its place cannot hold the hook).
func readTokenFile(path string) ([]byte, error) {
	data, _, err := workspace.ReadSmall(path, maxTokenFile, false)
	if err != nil && int64(len(data)) > maxTokenFile {
		err = fmt.Errorf("%v: not a token file", err)
	}
	return data, err
}

// remoteFailed gives o the on_error decision for a call whose approval
// server could not answer (an ask, in an unattended agent, stays a deny).
func remoteFailed(o *Outcome, ask, what string, err error) {
	d := o.Set.Pol.Settings.OnError
	if d == call.Ask {
		d = call.Deny // no human can answer here
	}
	o.Err = fmt.Errorf("approval server: %s: %w", what, err)
	o.Verdict = call.Verdict{Decision: d}
	if d > call.Allow {
		o.Verdict = call.Verdict{Decision: d, StopTurn: true,
			Reason: fmt.Sprintf("%s No human can answer here, and the approval server did not answer as it should "+
				"(%s: %v; on_error = %s), so the call was stopped.", ask, what, err, d),
			StopReason: "toolguard: the approval server is unavailable"}
	}
}

// remoteAsk is headlessAskWithin (headless.go) with the approval server
// as the store.
func remoteAsk(ctx context.Context, sys System, o *Outcome) {
	ask := o.Verdict.Reason
	deny := func(reason string) { stopForApproval(o, reason) }
	c, err := remoteClient(sys.Env, o.Set.Pol)
	if err != nil {
		remoteFailed(o, ask, "no client", err)
		return
	}
	key := approval.Key(o.Call)
	nonce := rand.Text()
	a, err := c.Use(ctx, remote.UseRequest{Key: key, Session: o.Call.SessionID, Nonce: nonce})
	if err != nil {
		remoteFailed(o, ask, "asking for a grant", err)
		return
	}
	if a.Outcome != "none" && !approval.ValidID(a.ID) {
		remoteFailed(o, ask, "asking for a grant", fmt.Errorf("outcome %q names no valid request id", cut(a.Outcome)))
		return
	}
	switch a.Outcome {
	case "granted":
		trusted := serverKeys(sys.Env, o.Set.Pol)
		err := errors.New("no grant in the answer")
		if a.Grant != nil {
			err = trusted.VerifyGrant(*a.Grant, key, sys.Now())
		}
		if err == nil {
			err = trusted.VerifyUse(*a.Grant, nonce, a.Receipt) // not an answer played again
		}
		if err != nil {
			// A server that says "granted" without a grant the hook can
			// verify is not trusted for it: a fake server, a foreign key.
			deny(fmt.Sprintf("%s The approval server answered that this call is approved, but its grant does not verify "+
				"here (%v), so the call was stopped.", ask, err))
			o.Err = fmt.Errorf("approval server: unverified grant for request %s: %v", a.ID, err)
			return
		}
		if err := ctx.Err(); err != nil {
			deny(fmt.Sprintf("toolguard: %v", context.Cause(ctx)))
			return
		}
		o.Approval = a.Grant.ID
		o.Verdict = call.Verdict{Decision: call.Allow, Reason: fmt.Sprintf("toolguard: allowed once by approval %s", a.Grant.ID)}
		if a.Grant.Grant.Uses >= approval.SessionUses/2 {
			o.Verdict.Reason = fmt.Sprintf("toolguard: allowed by approval %s (every identical call of this session until it expires)", a.Grant.ID)
		}
		return
	case "rejected":
		o.Approval = a.ID
		o.Verdict = call.Verdict{Decision: call.Deny,
			Reason: fmt.Sprintf("toolguard: a human rejected this call (request %s): %s Do not retry it; choose another approach.", a.ID, cut(a.Reason))}
		if a.Hold != nil && a.Hold.Kind == "stop" {
			applyHold(o, holdOf(*a.Hold), false)
		}
		return
	case "pending":
		o.Approval = a.ID
	case "none":
		if o.Call.SessionID != "" && a.Hold != nil && applyHold(o, holdOf(*a.Hold), false) {
			return
		}
		if p := editProblem(o.Call, readableBy(o)); p != "" {
			o.Verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("%s This call would need a human's approval, "+
				"but it cannot apply as written: %s Fix the call and retry it; no approval request was recorded.", ask, p)}
			return
		}
		var rules []string
		if o.Res != nil && o.Res.Rule != nil {
			rules = append(rules, o.Res.Rule.ID)
		}
		cr, err := c.Create(ctx, remote.CreateRequest{Call: o.Call, Key: key, Reason: ask, Rules: rules})
		if err != nil {
			remoteFailed(o, ask, "recording the approval request", err)
			return
		}
		o.Approval = cr.ID
	default:
		remoteFailed(o, ask, "asking for a grant", fmt.Errorf("unknown outcome %q", cut(a.Outcome)))
		return
	}
	holdPending(o, ask)
}

// remoteGate is the approval server as an approval.Gate. What it answers
// reaches the model: every request id is checked and every text cut.
type remoteGate struct{ c *remote.Client }

func (g remoteGate) SessionHold(ctx context.Context, session string, _ time.Time) (approval.Hold, error) {
	h, err := g.c.SessionHold(ctx, session)
	if err == nil && h.Kind != "none" && !approval.ValidID(h.ID) {
		err = fmt.Errorf("hold %q names no valid request id", cut(h.Kind))
	}
	return holdOf(h), err
}

// Told has no deadline context of its own (a prompt event); each request
// has the client's timeout.
func (g remoteGate) Told(_ context.Context, session string, _ time.Time) (decided, pending []approval.Request, err error) {
	t, err := g.c.Told(context.Background(), session)
	if err != nil {
		return nil, nil, err
	}
	for _, list := range [][]approval.Request{t.Decided, t.Pending} {
		for i := range list {
			r := &list[i]
			if !approval.ValidID(r.ID) {
				return nil, nil, fmt.Errorf("approval server: a request with a malformed id %q", cut(r.ID))
			}
			r.Summary, r.RejectReason = cut(r.Summary), cut(r.RejectReason)
		}
	}
	return t.Decided, t.Pending, nil
}

func (g remoteGate) RecordResult(_ context.Context, key string, res approval.Result) (approval.Request, bool, error) {
	a, err := g.c.Result(context.Background(), remote.ResultRequest{Key: key, Outcome: res.Outcome, ExitCode: res.ExitCode})
	if err != nil || !a.Recorded {
		return approval.Request{}, false, err
	}
	if !approval.ValidID(a.Request.ID) {
		return approval.Request{}, false, fmt.Errorf("approval server: a request with a malformed id %q", cut(a.Request.ID))
	}
	a.Request.Summary = cut(a.Request.Summary)
	return a.Request, true, nil
}

// holdOf is the approval.Hold of a server's answer.
func holdOf(h remote.Hold) approval.Hold {
	r := approval.Request{ID: h.ID, Summary: cut(h.Summary), RejectReason: cut(h.Reason)}
	switch h.Kind {
	case "stop":
		return approval.Hold{Kind: approval.HoldStop, Request: r}
	case "pending":
		return approval.Hold{Kind: approval.HoldPending, Request: r}
	}
	return approval.Hold{}
}

// cut bounds a text from the server that reaches the model.
func cut(s string) string {
	const max = 2000
	if len(s) > max {
		return s[:max] + "…"
	}
	return s
}

// Describe is serve's Config.Describe: what the human sees of a call
// a hook records through POST /v1/approvals — its summary, and the
// preview and rules as the served policy decides the call — derived from
// the call itself, never from what the hook says of it.
func Describe(ctx context.Context, sys System, f *Options, ps *workspace.Set, c call.Call) (approval.Request, error) {
	df := *f
	df.DryRun = true
	codec, err := protocol.Lookup(c.Provider)
	if err != nil {
		return approval.Request{}, err
	}
	o := Decide(ctx, sys, Request{Options: &df, Set: ps, Codec: codec, Call: c, Project: sys.Project(&c)})
	var rules []string
	if o.Res != nil && o.Res.Rule != nil {
		rules = append(rules, o.Res.Rule.ID)
	}
	return approval.Request{Summary: audit.CallSummary(c, SummaryMax), Preview: approvalPreview(o), Rules: rules}, nil
}

// serverKeys are the keys a server's "granted" answer must be signed by:
// settings.approvers when the policy names any (the server's key: system
// mode's platform policy does), else TrustedKeys. The user's own
// approver.key is left out then because the agent runs as that user: a
// key it managed to write there, and a server it managed to put between
// the hook and the real one, would otherwise grant its own calls.
func serverKeys(sys workspace.Env, pol *policy.Policy) approval.Keyring {
	if pol != nil && len(pol.Settings.Approvers) > 0 {
		var ring approval.Keyring
		for _, s := range pol.Settings.Approvers {
			if pub, err := approval.ParsePublic(s); err == nil {
				ring = append(ring, pub)
			}
		}
		return ring
	}
	trusted, _ := TrustedKeys(sys, pol)
	return trusted
}
