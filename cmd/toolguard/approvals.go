package main

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// Defaults of `approvals approve`.
const (
	defaultGrantTTL  = time.Hour
	defaultGrantUses = 1
)

// usesText describes a grant of uses for a human.
func usesText(uses int, session string) string {
	if uses == approval.SessionUses {
		return "every identical call of session " + session
	}
	return fmt.Sprintf("%d use(s)", uses)
}

type approvalsOptions struct {
	policyFlags
	StateDir  string
	json      bool
	ttl       time.Duration
	uses      int
	reason    string
	stop      bool   // reject --stop
	session   bool   // approve --session
	amend     bool   // approve --amend
	edit      bool   // approve --edit
	amendFile string // approve --amend-file
	yes       bool   // approve --amend --yes
	key       string
	generate  bool
	GrantsDir string
	server    string // --server: the approval server (approvals_remote.go)
	tokenFile string // --token-file: its approver token
	// list filters
	status, sessionID, provider string
	timeout                     time.Duration
}

// Exit codes of `approvals wait`.
const (
	waitApproved = 0
	waitRejected = 3
	waitExpired  = 4
	waitTimedOut = 5
)

// waitPoll is how often `approvals wait` looks at the request.
const waitPoll = 100 * time.Millisecond

// errNeedsHuman is why approve and reject refuse to run unattended.
var errNeedsHuman = errors.New("approvals approve and reject want a human: stdin is not a terminal and no --key was given.\n" +
	"If you are the user, run the command yourself in a terminal. A platform or script that decides for a\n" +
	"human passes its approver key explicitly with --key FILE (kept where the agent cannot read it).\n" +
	"An agent must not approve its own requests: wait for the human, or go on with other work")

func newApprovalsCmd(sys *system) *cobra.Command {
	var o approvalsOptions
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List, show, approve or reject pending approval requests (headless mode)",
		Long: `In headless mode an ask becomes a deny with an approval request id. A human
resolves the request here; the identical call (same command, or same paths and content,
cwd and session) is then allowed once per use, or denied with the human's reason.

approve signs the grant with the approver key (Ed25519): --key FILE, else
$XDG_CONFIG_HOME/toolguard/approver.key (else ~/.config/toolguard/approver.key), created on
first use. The hook honours only grants signed by that key or by one of settings.approvers.
approve and reject want stdin to be a terminal unless --key is given.
approve --edit opens $VISUAL/$EDITOR (else vi) on the command, the written content or the
edit's new text; the grant then allows only the edited call, judged by the policy first.

The state directory is --state-dir, else settings.state_dir of the policy in effect
(--policy), else $XDG_STATE_HOME/toolguard, else ~/.local/state/toolguard.

With --server URL (unix:///path/to/socket or http://127.0.0.1:PORT), or when the policy in
effect sets settings.approval_url and --state-dir is not given, list, show, wait, approve and
reject go to that toolguard serve's API instead: its store (serve --database, system mode),
its key signing the grant. The approver token is --token-file FILE, else
$TOOLGUARD_APPROVER_TOKEN; over a Unix socket without one, serve --peer-credentials knows
the caller by its uid.`,
	}
	cmd.PersistentFlags().StringVar(&o.StateDir, "state-dir", "", "approval state directory")
	cmd.PersistentFlags().StringArrayVar(&o.Files, "policy", nil, "policy file whose settings (state_dir, approvers) to use (repeatable)")
	cmd.PersistentFlags().StringArrayVar(&o.Layers, "layer", nil, "named policy layer `NAME=FILE`")
	cmd.PersistentFlags().StringVar(&o.server, "server", "", "decide through the toolguard serve at `URL` (unix:///path or http://127.0.0.1:PORT) instead of the local store")
	cmd.PersistentFlags().StringVar(&o.tokenFile, "token-file", "", "with --server: `FILE` holding an approver token (else $TOOLGUARD_APPROVER_TOKEN)")

	list := &cobra.Command{
		Use:   "list",
		Short: "List approval requests; tampered and leftover files are reported with the reason",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if handled, err := o.viaServer(cmd, sys, nil); handled {
				return err
			}
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			reqs, err := st.List(sys.now())
			if err != nil {
				return err
			}
			reqs = slices.DeleteFunc(reqs, func(r approval.Request) bool {
				return o.status != "" && string(r.Status) != o.status ||
					o.sessionID != "" && r.Session != o.sessionID ||
					o.provider != "" && r.Provider != o.provider
			})
			return printRequests(sys, reqs, o.json)
		},
	}
	list.Flags().BoolVar(&o.json, "json", false, "print JSON")
	list.Flags().StringVar(&o.status, "status", "", "only requests with this status: pending, approved, rejected, consumed, expired, tampered or leftover")
	list.Flags().StringVar(&o.sessionID, "session", "", "only requests of this agent session")
	list.Flags().StringVar(&o.provider, "provider", "", "only requests of this provider (claude-code, codex, …)")

	wait := &cobra.Command{
		Use:   "wait ID [--timeout D]",
		Short: "Wait until a request is decided; exit 0 approved, 3 rejected, 4 expired, 5 timed out",
		Long: `wait blocks until the request ID is decided and prints the decision as JSON:
{"id":…,"decision":"approved"|"rejected"|"expired"|"timeout","reason":…,"uses":…,"expires":…,"approver":…}.
Exit codes: 0 approved (a grant that verifies, or one already used), 3 rejected, 4 expired,
5 timed out (--timeout; 0 waits for ever). A grant that does not verify (tampered) is not a
decision: wait warns once and goes on waiting.`,
		Args: exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if handled, err := o.viaServer(cmd, sys, args); handled {
				return err
			}
			if o.timeout < 0 {
				return usagef("--timeout must not be negative")
			}
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			return waitDecision(cmd.Context(), sys, st.Get, args[0], o.timeout, waitPoll)
		},
	}
	wait.Flags().Var(durationVar(&o.timeout, 0), "timeout", "give up after D (exit 5); 0 waits for ever")

	show := &cobra.Command{
		Use:   "show ID [--json]",
		Short: "Show one approval request: what the call would run or write, and why it was asked",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if handled, err := o.viaServer(cmd, sys, args); handled {
				return err
			}
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			r, err := st.Get(args[0])
			if err != nil {
				return err
			}
			return printRequest(sys, r, o.json)
		},
	}
	show.Flags().BoolVar(&o.json, "json", false, "print JSON")

	approve := &cobra.Command{
		Use:   "approve ID",
		Short: "Allow the identical call, once per use, until the grant expires (signed with the approver key)",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if handled, err := o.viaServer(cmd, sys, args); handled {
				return err
			}
			if o.uses < 1 {
				return usagef("--uses must be at least 1")
			}
			if o.session {
				if cmd.Flags().Changed("uses") {
					return usagef("--session and --uses exclude each other: --session allows every identical call of the session until the grant expires")
				}
				o.uses = approval.SessionUses
			}
			if o.ttl <= 0 {
				return usagef("--ttl must be positive")
			}
			if o.key == "" && !sys.isTerminal() {
				return errNeedsHuman
			}
			if o.edit && o.amend {
				return usagef("--edit and --amend exclude each other: a rule cannot say what the human edited")
			}
			signer, path, err := guard.SignerFor(sys.guardSys(), o.key, true)
			if err != nil {
				return err
			}
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			if r, err := st.Get(args[0]); err == nil {
				// A decision is final once: fail before --amend writes a rule.
				if err := approval.Undecided(&r, "approve"); err != nil {
					return err
				}
			}
			if o.session {
				r, err := st.Get(args[0])
				if err != nil {
					return err
				}
				if r.Session == "" {
					return fmt.Errorf("approve --session %s: the request has no session id (the agent sent none); approve it with --uses instead", r.ID)
				}
			}
			if o.amend {
				if err := amendFor(sys, st, args[0], &o); err != nil {
					return err
				}
			}
			var edit *approval.Edit
			if o.edit {
				if edit, err = editRequest(sys, st, args[0], &o); err != nil {
					return err
				}
			}
			if o.GrantsDir != "" {
				return exportGrant(sys, st, args[0], &o, signer, edit)
			}
			r, err := st.ApproveEdited(args[0], o.ttl, o.uses, sys.now(), signer, edit)
			if err != nil {
				return err
			}
			auditCLIDecision(sys, &o, r, "approve", guard.SignerApprover(signer))
			as := ""
			if edit != nil {
				as = " as edited"
			}
			fmt.Fprintf(sys.stdout, "approved %s%s: %s (%s, until %s, signed by %s)\n", r.ID, as, r.Summary, usesText(o.uses, r.Session),
				r.Grant.Expires.UTC().Format(time.RFC3339), r.Grant.Approver.Fingerprint)
			guard.WarnUntrusted(sys.guardSys(), st, signer, path)
			return nil
		},
	}
	approve.Flags().Var(durationVar(&o.ttl, defaultGrantTTL), "ttl", "how long the grant is valid")
	approve.Flags().IntVar(&o.uses, "uses", defaultGrantUses, "how many identical calls the grant allows")
	approve.Flags().BoolVar(&o.amend, "amend", false, "also add the smallest allow rule for this call (and a [[test]]) to a policy file, after showing the diff and asking")
	approve.Flags().StringVar(&o.amendFile, "amend-file", "", "the policy `FILE` --amend writes (default: the user policy, $XDG_CONFIG_HOME/toolguard/policy.toml)")
	approve.Flags().BoolVar(&o.edit, "edit", false, "edit the command (shell), the content (Write) or the new text (Edit) in $VISUAL/$EDITOR (else vi) first; the grant allows only the edited call")
	approve.Flags().BoolVar(&o.yes, "yes", false, "with --amend: write without asking")
	approve.Flags().BoolVar(&o.session, "session", false, "allow every identical call of the request's session until the grant expires (--ttl)")
	approve.Flags().StringVar(&o.GrantsDir, "grants-dir", "", "write the signed grant as a file into `DIR` (for a hook run with --grants-dir) instead of into the state directory")
	approve.Flags().StringVar(&o.key, "key", "", "approver private key `FILE` (default: the user's approver.key; needed without a terminal)")

	reject := &cobra.Command{
		Use:   "reject ID --reason R",
		Short: "Deny the identical call with the human's reason, as feedback to the model",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if handled, err := o.viaServer(cmd, sys, args); handled {
				return err
			}
			if o.reason == "" {
				return usagef("reject wants --reason: the model reads it")
			}
			if o.key == "" && !sys.isTerminal() {
				return errNeedsHuman
			}
			var who approval.Approver
			if o.key != "" {
				signer, _, err := guard.SignerFor(sys.guardSys(), o.key, false)
				if err != nil {
					return err
				}
				who = guard.SignerApprover(signer)
			} else {
				who.User = guard.ApproverName(sys.env())
			}
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			reject := st.Reject
			if o.stop {
				reject = st.RejectStop
			}
			r, err := reject(args[0], o.reason, sys.now())
			if err != nil {
				return err
			}
			auditCLIDecision(sys, &o, r, "reject", who)
			if o.stop {
				fmt.Fprintf(sys.stdout, "rejected %s: %s (the next call of session %s ends the turn)\n", r.ID, r.Summary, r.Session)
			} else {
				fmt.Fprintf(sys.stdout, "rejected %s: %s\n", r.ID, r.Summary)
			}
			return nil
		},
	}
	reject.Flags().StringVar(&o.reason, "reason", "", "why, in words the model can act on")
	reject.Flags().BoolVar(&o.stop, "stop", false, "also end the session's turn at its next call (continue:false where the agent supports it)")
	reject.Flags().StringVar(&o.key, "key", "", "approver private key `FILE` (needed without a terminal)")

	var olderThan time.Duration
	prune := &cobra.Command{
		Use:   "prune [--older-than D]",
		Short: "Delete finished requests older than D, and unusable request and temporary files a day old",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if handled, err := o.viaServer(cmd, sys, nil); handled {
				return err
			}
			if olderThan < 0 {
				return usagef("--older-than must not be negative")
			}
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			now := sys.now()
			n, err := st.Prune(now.Add(-olderThan), now)
			if err != nil {
				return err
			}
			fmt.Fprintf(sys.stdout, "pruned %d finished request(s), %d unusable request file(s), %d temporary file(s)\n",
				n.Finished, n.Damaged, n.Temp)
			return nil
		},
	}
	prune.Flags().Var(durationVar(&olderThan, 7*24*time.Hour), "older-than", "keep finished requests younger than this")

	keyCmd := &cobra.Command{
		Use:   "key [--key FILE] [--generate]",
		Short: "Print the approver public key (ed25519:…) for settings.approvers; --generate creates the key",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if handled, err := o.viaServer(cmd, sys, nil); handled {
				return err
			}
			path := o.key
			if o.generate {
				if path == "" {
					path = sys.env().KeyPath()
				}
				if path == "" {
					return errors.New("no approver key path: set --key, XDG_CONFIG_HOME or HOME")
				}
				cwd, _ := sys.getwd()
				path = workspace.ArgPath(path, cwd, sys.home())
				if _, err := approval.GenerateKey(path); err != nil && !errors.Is(err, os.ErrExist) {
					return fmt.Errorf("approver key: %v", err)
				}
			}
			signer, path, err := guard.SignerFor(sys.guardSys(), path, false)
			if err != nil {
				return err
			}
			pub := signer.Key.Public().(ed25519.PublicKey)
			fmt.Fprintf(sys.stdout, "%s %s %s\n", approval.PublicText(pub), approval.Fingerprint(pub), path)
			return nil
		},
	}
	keyCmd.Flags().StringVar(&o.key, "key", "", "approver private key `FILE` (default: the user's approver.key)")
	keyCmd.Flags().BoolVar(&o.generate, "generate", false, "create the key file if it does not exist (mode 0600)")

	cmd.AddCommand(list, show, wait, approve, reject, prune, keyCmd)
	return cmd
}

// store opens the state directory and trusts the keys the hook would: the
// user's approver key and settings.approvers of the policy in effect.
// Problems with them go to stderr.
func (o *approvalsOptions) store(sys *system) (*approval.Store, error) {
	ps, err := o.load(sys, sys.env().CurrentProject())
	if err != nil && o.StateDir == "" {
		return nil, err
	}
	var pol *policy.Policy
	if err == nil {
		pol = ps.Pol
	} else {
		fmt.Fprintf(sys.stderr, "toolguard: warning: the policy does not load (%v); settings.approvers are not trusted here\n", err)
	}
	st, problems, err := guard.OpenStore(sys.env(), o.StateDir, pol, false)
	for _, p := range problems {
		fmt.Fprintf(sys.stderr, "toolguard: warning: %s\n", p)
	}
	return st, err
}

// exportGrant signs a grant for request id and writes it as a grant file
// into o.GrantsDir; the state directory is only read.
func exportGrant(sys *system, st *approval.Store, id string, o *approvalsOptions, signer approval.Signer, edit *approval.Edit) error {
	r, err := st.Get(id)
	if err != nil {
		return err
	}
	gf, err := approval.NewEditedGrant(r, o.ttl, o.uses, sys.now(), signer, edit)
	if err != nil {
		return err
	}
	cwd, _ := sys.getwd()
	path, err := approval.WriteGrantFile(workspace.ArgPath(o.GrantsDir, cwd, sys.home()), gf)
	if err != nil {
		return err
	}
	fmt.Fprintf(sys.stdout, "granted %s: %s (%s, until %s, signed by %s) in %s\n", r.ID, r.Summary, usesText(o.uses, r.Session),
		gf.Grant.Expires.UTC().Format(time.RFC3339), gf.Grant.Approver.Fingerprint, path)
	guard.WarnUntrusted(sys.guardSys(), st, signer, o.key)
	return nil
}

// waitResult is what `approvals wait` prints.
type waitResult struct {
	ID       string             `json:"id"`
	Decision string             `json:"decision"` // approved, rejected, expired, timeout
	Reason   string             `json:"reason,omitempty"`
	Uses     int                `json:"uses,omitempty"`
	UsesLeft int                `json:"uses_left,omitempty"`
	Expires  *time.Time         `json:"expires,omitempty"`
	Approver *approval.Approver `json:"approver,omitempty"`
	Decided  *time.Time         `json:"decided,omitempty"`
}

// waitDecision polls the request id (get, every poll) until it is decided
// or timeout (0: no limit) has passed, prints the decision and ends with
// its exit code.
func waitDecision(ctx context.Context, sys *system, get func(string) (approval.Request, error), id string, timeout, poll time.Duration) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	warned := false
	for {
		r, err := get(id)
		if err != nil {
			return err
		}
		res, code, done := decisionOf(r, sys.now())
		if r.Problem != "" && !warned {
			fmt.Fprintf(sys.stderr, "toolguard: %s: the grant does not count (%s); still waiting\n", id, noEscapes(r.Problem))
			warned = true
		}
		if done {
			if err := writeJSON(sys, res); err != nil {
				return err
			}
			if code != 0 {
				return &exitError{code: code}
			}
			return nil
		}
		select {
		case <-ctx.Done():
			if err := writeJSON(sys, waitResult{ID: id, Decision: "timeout"}); err != nil {
				return err
			}
			return &exitError{code: waitTimedOut}
		case <-time.After(poll):
		}
	}
}

// decisionOf says whether r is decided at now, and how.
func decisionOf(r approval.Request, now time.Time) (waitResult, int, bool) {
	res := waitResult{ID: r.ID}
	if !r.Decided.IsZero() {
		d := r.Decided
		res.Decided = &d
	}
	grant := func() {
		g := r.Grant
		exp, who := g.Expires, g.Approver
		res.Uses, res.UsesLeft, res.Expires, res.Approver = g.Uses, g.UsesLeft, &exp, &who
	}
	switch {
	case r.Status == approval.StatusRejected:
		res.Decision, res.Reason = "rejected", r.RejectReason
		return res, waitRejected, true
	case r.Grant != nil && r.Problem != "":
		return res, 0, false // tampered: not a decision
	case r.Status == approval.StatusConsumed && r.Grant != nil:
		res.Decision = "approved"
		grant()
		return res, waitApproved, true
	case r.Status == approval.StatusExpired,
		r.Status == approval.StatusApproved && r.Grant != nil && !now.Before(r.Grant.Expires):
		res.Decision = "expired"
		if r.Grant != nil {
			grant()
		}
		return res, waitExpired, true
	case r.Status == approval.StatusApproved && r.Grant != nil:
		res.Decision = "approved"
		grant()
		return res, waitApproved, true
	}
	return res, 0, false
}

// printRequests prints requests as `approvals list` does: a table, or
// JSON with --json.
func printRequests(sys *system, reqs []approval.Request, asJSON bool) error {
	if asJSON {
		if reqs == nil {
			reqs = []approval.Request{}
		}
		for i := range reqs {
			reqs[i].ToolInput = "" // for approve --edit only
		}
		return writeJSON(sys, reqs)
	}
	tw := tabwriter.NewWriter(sys.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tCREATED\tPROVIDER\tSUMMARY")
	for _, r := range reqs {
		summary := r.Summary
		if r.Problem != "" {
			summary = r.Problem
			if r.Summary != "" {
				summary += " — " + r.Summary
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", noEscapes(r.ID), noEscapes(string(r.Status)), r.Created.UTC().Format(time.RFC3339), noEscapes(r.Provider), noEscapes(summary))
	}
	return tw.Flush()
}

// printRequest prints one request as `approvals show` does.
func printRequest(sys *system, r approval.Request, asJSON bool) error {
	if r.Problem != "" {
		r.Status = approval.StatusTampered
	}
	if asJSON {
		r.ToolInput = "" // for approve --edit only
		return writeJSON(sys, r)
	}
	renderRequest(sys.stdout, r, useColor(sys))
	return nil
}
