package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
)

// Defaults of `approvals approve`.
const (
	defaultGrantTTL  = time.Hour
	defaultGrantUses = 1
)

// headlessAsk turns an ask into what an unattended agent needs: the
// identical call already approved is allowed (the grant consumed once), one
// rejected is denied with the human's reason, and anything else is denied
// with the id of a pending request a human can resolve.
func headlessAsk(sys *system, f *decideFlags, o *outcome) {
	ask := o.verdict.Reason
	dir := stateDir(sys, f.stateDir, o.ps.pol)
	deny := func(reason string) {
		o.verdict = call.Verdict{Decision: call.Deny, Reason: reason, StopTurn: true,
			StopReason: "toolguard: a tool call is waiting for human approval"}
	}
	if dir == "" {
		deny(ask + " No human can answer here and no state directory is set, so the call was stopped.")
		return
	}
	st, err := approval.Open(dir)
	if err != nil {
		deny(fmt.Sprintf("%s No human can answer here, and the approval store is unavailable (%v), so the call was stopped.", ask, err))
		return
	}
	now := sys.now()
	key := approval.Key(o.call)
	res, err := st.Check(key, now)
	if err != nil {
		deny(fmt.Sprintf("%s The approval store could not be read (%v), so the call was stopped.", ask, err))
		return
	}
	switch res.Kind {
	case approval.Granted:
		o.approval = res.ID
		o.verdict = call.Verdict{Decision: call.Allow, Reason: fmt.Sprintf("toolguard: allowed once by approval %s", res.ID)}
		return
	case approval.Rejected:
		o.approval = res.ID
		o.verdict = call.Verdict{Decision: call.Deny,
			Reason: fmt.Sprintf("toolguard: a human rejected this call (request %s): %s Do not retry it; choose another approach.", res.ID, res.Reason)}
		return
	case approval.Pending:
		o.approval = res.ID
	default:
		rules := []string{}
		if o.res != nil && o.res.Rule != nil {
			rules = append(rules, o.res.Rule.ID)
		}
		req, err := st.Create(approval.Request{
			Key:      key,
			Summary:  audit.CallSummary(o.call, summaryMax),
			Tool:     o.call.Tool,
			Kind:     o.call.Kind.String(),
			Cwd:      o.call.Cwd,
			Session:  o.call.SessionID,
			Provider: o.call.Provider,
			Rules:    rules,
			Reason:   ask,
		}, now)
		if err != nil {
			deny(fmt.Sprintf("%s The approval request could not be recorded (%v), so the call was stopped.", ask, err))
			return
		}
		o.approval = req.ID
	}
	deny(fmt.Sprintf("%s No human can answer here, so the call was stopped and approval request %s was recorded. "+
		"Do not retry it until a human has run `toolguard approvals approve %s`; go on with other work or end the turn.",
		ask, o.approval, o.approval))
	o.verdict.StopReason = fmt.Sprintf("toolguard: waiting for approval %s (toolguard approvals approve %s)", o.approval, o.approval)
}

type approvalsOptions struct {
	policyFlags
	stateDir string
	json     bool
	ttl      time.Duration
	uses     int
	reason   string
}

func newApprovalsCmd(sys *system) *cobra.Command {
	var o approvalsOptions
	cmd := &cobra.Command{
		Use:   "approvals",
		Short: "List, show, approve or reject pending approval requests (headless mode)",
		Long: `In headless mode an ask becomes a deny with an approval request id. A human
resolves the request here; the identical call (same command or paths, cwd and session)
is then allowed once per use, or denied with the human's reason.

The state directory is --state-dir, else settings.state_dir of the policy in effect
(--policy), else $XDG_STATE_HOME/toolguard, else ~/.local/state/toolguard.`,
	}
	cmd.PersistentFlags().StringVar(&o.stateDir, "state-dir", "", "approval state directory")
	cmd.PersistentFlags().StringArrayVar(&o.files, "policy", nil, "policy file whose settings.state_dir to use (repeatable)")
	cmd.PersistentFlags().StringArrayVar(&o.layers, "layer", nil, "named policy layer `NAME=FILE`")

	list := &cobra.Command{
		Use:   "list",
		Short: "List approval requests",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			reqs, err := st.List(sys.now())
			if err != nil && len(reqs) == 0 {
				return err
			}
			if err != nil {
				fmt.Fprintf(sys.stderr, "toolguard: %v\n", err)
			}
			if o.json {
				if reqs == nil {
					reqs = []approval.Request{}
				}
				return writeJSON(sys, reqs)
			}
			tw := tabwriter.NewWriter(sys.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tSTATUS\tCREATED\tPROVIDER\tSUMMARY")
			for _, r := range reqs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Status, r.Created.UTC().Format(time.RFC3339), r.Provider, r.Summary)
			}
			return tw.Flush()
		},
	}
	list.Flags().BoolVar(&o.json, "json", false, "print JSON")

	show := &cobra.Command{
		Use:   "show ID",
		Short: "Show one approval request",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			r, err := st.Get(args[0])
			if err != nil {
				return err
			}
			return writeJSON(sys, r)
		},
	}

	approve := &cobra.Command{
		Use:   "approve ID",
		Short: "Allow the identical call, once per use, until the grant expires",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.uses < 1 {
				return usagef("--uses must be at least 1")
			}
			if o.ttl <= 0 {
				return usagef("--ttl must be positive")
			}
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			r, err := st.Approve(args[0], o.ttl, o.uses, sys.now())
			if err != nil {
				return err
			}
			fmt.Fprintf(sys.stdout, "approved %s: %s (%d use(s), until %s)\n", r.ID, r.Summary, o.uses,
				r.Grant.Expires.UTC().Format(time.RFC3339))
			return nil
		},
	}
	approve.Flags().DurationVar(&o.ttl, "ttl", defaultGrantTTL, "how long the grant is valid")
	approve.Flags().IntVar(&o.uses, "uses", defaultGrantUses, "how many identical calls the grant allows")

	reject := &cobra.Command{
		Use:   "reject ID --reason R",
		Short: "Deny the identical call with the human's reason, as feedback to the model",
		Args:  exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.reason == "" {
				return usagef("reject wants --reason: the model reads it")
			}
			st, err := o.store(sys)
			if err != nil {
				return err
			}
			r, err := st.Reject(args[0], o.reason, sys.now())
			if err != nil {
				return err
			}
			fmt.Fprintf(sys.stdout, "rejected %s: %s\n", r.ID, r.Summary)
			return nil
		},
	}
	reject.Flags().StringVar(&o.reason, "reason", "", "why, in words the model can act on")

	var olderThan time.Duration
	prune := &cobra.Command{
		Use:   "prune [--older-than D]",
		Short: "Delete finished requests (consumed or expired) older than D",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
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
			fmt.Fprintf(sys.stdout, "pruned %d finished request(s)\n", n)
			return nil
		},
	}
	prune.Flags().DurationVar(&olderThan, "older-than", 7*24*time.Hour, "keep finished requests younger than this")

	cmd.AddCommand(list, show, approve, reject, prune)
	return cmd
}

func (o *approvalsOptions) store(sys *system) (*approval.Store, error) {
	dir := o.stateDir
	if dir == "" {
		ps, err := o.load(sys, projectDir(sys))
		if err != nil {
			return nil, err
		}
		dir = stateDir(sys, "", ps.pol)
	} else {
		dir = stateDir(sys, dir, nil)
	}
	if dir == "" {
		return nil, fmt.Errorf("no state directory: set --state-dir, settings.state_dir or HOME")
	}
	return approval.Open(dir)
}

func writeJSON(sys *system, v any) error {
	enc := json.NewEncoder(sys.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s wants %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}
