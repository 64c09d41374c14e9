package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/remote"
	"github.com/toolguard/toolguard/internal/workspace"
)

// `toolguard approvals --server URL` (docs/approvals.md, "Deciding through
// the server"): list, show, wait, approve and reject through a toolguard
// serve's API instead of the local state directory — the store of serve
// --database, or system mode's server. The server signs every grant with
// its own key and writes the audit line; nothing is signed or stored here.

// approverTokenEnv holds the approver token when --token-file is not given.
const approverTokenEnv = "TOOLGUARD_APPROVER_TOKEN"

// remoteWaitPoll is how often `approvals wait` asks the server.
const remoteWaitPoll = 500 * time.Millisecond

// maxApproverTokenFile bounds the token file read.
const maxApproverTokenFile = 64 << 10

// errNeedsHumanRemote is errNeedsHuman for the server.
var errNeedsHumanRemote = errors.New("approvals approve and reject want a human: stdin is not a terminal and no approver token was given.\n" +
	"If you are the approver, run the command yourself in a terminal. A platform or script that decides for a\n" +
	"human passes an approver token explicitly (--token-file FILE or $TOOLGUARD_APPROVER_TOKEN), kept where the agent cannot read it.\n" +
	"An agent must not approve its own requests: wait for the human, or go on with other work")

// viaServer runs cmd through the approval server when there is one
// (--server, else settings.approval_url of the policy in effect unless
// --state-dir names a local store) and says whether it did.
func (o *approvalsOptions) viaServer(cmd *cobra.Command, sys *system, args []string) (bool, error) {
	name := cmd.Name()
	if name == "prune" || name == "key" {
		if o.server != "" || o.tokenFile != "" {
			return true, usagef("approvals %s works on this machine only: drop --server and --token-file", name)
		}
		return false, nil
	}
	url := o.server
	var pol *policy.Policy
	switch {
	case url != "" && o.StateDir != "":
		return true, usagef("--server and --state-dir exclude each other: the server keeps its own store")
	case url != "":
		if name == "approve" {
			pol = o.policy(sys) // for the trust warning only
		}
	case o.StateDir == "":
		// The server the hook records its asks with, if the policy in
		// effect names one.
		if pol = o.policy(sys); pol != nil {
			url = pol.Settings.ApprovalURL
		}
	}
	if url == "" {
		if o.tokenFile != "" {
			return true, usagef("--token-file goes with --server (or a policy's settings.approval_url)")
		}
		return false, nil
	}
	tok, explicit, err := approverToken(sys, o.tokenFile)
	if err != nil {
		return true, err
	}
	if err := o.serverFlags(cmd, url); err != nil {
		return true, err
	}
	if (name == "approve" || name == "reject") && !explicit && !sys.isTerminal() {
		return true, errNeedsHumanRemote
	}
	c, err := remote.NewApprover(url, tok)
	if err != nil {
		return true, err
	}
	ctx := cmd.Context()
	if ctx == nil {
		ctx = context.Background()
	}
	s := &remoteApprovals{c: c, url: url}
	switch name {
	case "list":
		reqs, err := c.List(ctx, remote.ListFilter{Status: o.status, Session: o.sessionID, Provider: o.provider})
		if err != nil {
			return true, s.fail(err)
		}
		return true, printRequests(sys, reqs, o.json)
	case "show":
		r, err := c.Get(ctx, args[0])
		if err != nil {
			return true, s.fail(err)
		}
		return true, printRequest(sys, r, o.json)
	case "wait":
		if o.timeout < 0 {
			return true, usagef("--timeout must not be negative")
		}
		get := func(id string) (approval.Request, error) {
			r, err := c.Get(ctx, id)
			return r, s.fail(err)
		}
		return true, waitDecision(ctx, sys, get, args[0], o.timeout, remoteWaitPoll)
	case "approve":
		return true, s.approve(ctx, sys, args[0], o, pol)
	case "reject":
		return true, s.reject(ctx, sys, args[0], o)
	}
	return true, usagef("approvals %s does not work with --server", name)
}

// serverFlags refuses the flags of approve and reject that have no
// meaning through the server.
func (o *approvalsOptions) serverFlags(cmd *cobra.Command, url string) error {
	if cmd.Name() != "approve" && cmd.Name() != "reject" {
		return nil
	}
	why := map[string]string{
		"key":        "the server signs the grant with its own key (serve --key); this command signs nothing with --server",
		"session":    "the server grants uses (--uses), not a session",
		"edit":       "edit the call in the inbox page, or approve on the machine that holds the store",
		"amend":      "a rule is written into a policy file on this machine, not through the server",
		"amend-file": "a rule is written into a policy file on this machine, not through the server",
		"yes":        "it goes with --amend",
		"grants-dir": "the server keeps the grant in its store",
	}
	for _, f := range []string{"key", "session", "edit", "amend", "amend-file", "yes", "grants-dir"} {
		if fl := cmd.Flags().Lookup(f); fl != nil && fl.Changed {
			where := "--server"
			if o.server == "" {
				where = fmt.Sprintf("the approval server of settings.approval_url (%s; --state-dir DIR decides on a local store instead)", url)
			}
			return usagef("%s --%s does not work with %s: %s", cmd.Name(), f, where, why[f])
		}
	}
	if cmd.Name() == "reject" {
		if o.reason == "" {
			return usagef("reject wants --reason: the model reads it")
		}
		return nil
	}
	if o.uses < 1 {
		return usagef("--uses must be at least 1")
	}
	if o.ttl <= 0 {
		return usagef("--ttl must be positive")
	}
	return nil
}

// policy is the policy in effect, or nil when it does not load (the local
// commands report that themselves).
func (o *approvalsOptions) policy(sys *system) *policy.Policy {
	ps, err := o.load(sys, sys.env().CurrentProject())
	if err != nil {
		return nil
	}
	return ps.Pol
}

// approverToken is the approver token of --token-file, else of
// $TOOLGUARD_APPROVER_TOKEN, else "" (a Unix socket's peer credentials).
// explicit says one was given.
func approverToken(sys *system, file string) (tok string, explicit bool, err error) {
	if file == "" {
		tok = strings.TrimSpace(sys.getenv(approverTokenEnv))
		return tok, tok != "", nil
	}
	cwd, _ := sys.getwd()
	path := workspace.ArgPath(file, cwd, sys.home())
	data, err := readSecretFile(path)
	if err != nil {
		return "", false, fmt.Errorf("--token-file %s: %v", path, err)
	}
	tok = tokenOf(data)
	if tok == "" {
		return "", false, fmt.Errorf("--token-file %s: no approver token (want the token alone, or serve's token file with an \"approver TOKEN\" line)", path)
	}
	return tok, true, nil
}

// readSecretFile reads a regular file that only its owner can read, of
// at most maxApproverTokenFile bytes, without blocking on a FIFO.
func readSecretFile(path string) ([]byte, error) {
	data, st, err := workspace.ReadSmall(path, maxApproverTokenFile, false)
	if err == nil && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("mode %04o: an approver token file must be readable by its owner only (chmod 600)", st.Mode().Perm())
	}
	if err != nil && int64(len(data)) > maxApproverTokenFile {
		err = fmt.Errorf("%v: not a token file", err)
	}
	return data, err
}

// tokenOf finds the approver token in a token file: the first
// "approver TOKEN" line of serve's token file, else a file holding one
// word. Comments (#) and blank lines are skipped.
func tokenOf(data []byte) string {
	var words []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line, _, _ := strings.Cut(sc.Text(), "#")
		f := strings.Fields(line)
		switch {
		case len(f) == 2 && f[0] == "approver":
			return f[1]
		case len(f) > 0:
			words = append(words, f...)
		}
	}
	if len(words) == 1 {
		return words[0]
	}
	return ""
}

// remoteApprovals is the server an approvals command talks to.
type remoteApprovals struct {
	c   *remote.Client
	url string
}

// fail makes a server's error an approver can act on. The server's own
// words are kept (a 409 names the decision that won).
func (s *remoteApprovals) fail(err error) error {
	var se *remote.StatusError
	if !errors.As(err, &se) {
		return err
	}
	msg := se.Msg
	if msg == "" {
		msg = "no error message"
	}
	switch se.Code {
	case 401:
		return fmt.Errorf("approval server %s refused this caller (401: %s): give an approver token of its token file (--token-file or $%s)",
			s.url, msg, approverTokenEnv)
	case 403:
		return fmt.Errorf("approval server %s: this caller is not an approver (403: %s): use an approver token, or the socket as "+
			"root, serve's account or a member of --approver-group", s.url, msg)
	}
	return fmt.Errorf("approval server %s: %s (status %d)", s.url, msg, se.Code)
}

func (s *remoteApprovals) approve(ctx context.Context, sys *system, id string, o *approvalsOptions, pol *policy.Policy) error {
	r, err := s.c.Approve(ctx, id, remote.ApproveRequest{Uses: o.uses, TTL: o.ttl.String()})
	if err != nil {
		return s.fail(err)
	}
	g := r.Grant
	fmt.Fprintf(sys.stdout, "approved %s: %s (%s, until %s, signed by the server's key %s)\n", r.ID, noEscapes(r.Summary),
		usesText(g.Uses, noEscapes(r.Session)), g.Expires.UTC().Format(time.RFC3339), noEscapes(g.Approver.Fingerprint))
	// A hook whose policy names approvers honours only their grants from
	// a server (docs/api.md, "What the hook trusts").
	if pol != nil && strings.TrimSuffix(pol.Settings.ApprovalURL, "/") == strings.TrimSuffix(s.url, "/") && len(pol.Settings.Approvers) > 0 {
		trusted := false
		for _, a := range pol.Settings.Approvers {
			if pub, err := approval.ParsePublic(a); err == nil && approval.PublicText(pub) == g.Approver.Key {
				trusted = true
			}
		}
		if !trusted {
			fmt.Fprintf(sys.stderr, "toolguard: warning: settings.approvers of the policy here does not name the server's key, "+
				"so a hook with this policy will not honour the grant; add it: approvers = [%q]\n", g.Approver.Key)
		}
	}
	return nil
}

func (s *remoteApprovals) reject(ctx context.Context, sys *system, id string, o *approvalsOptions) error {
	r, err := s.c.Reject(ctx, id, remote.RejectRequest{Reason: o.reason, Stop: o.stop})
	if err != nil {
		return s.fail(err)
	}
	if o.stop {
		fmt.Fprintf(sys.stdout, "rejected %s: %s (the next call of session %s ends the turn)\n", r.ID, noEscapes(r.Summary), noEscapes(r.Session))
	} else {
		fmt.Fprintf(sys.stdout, "rejected %s: %s\n", r.ID, noEscapes(r.Summary))
	}
	return nil
}
