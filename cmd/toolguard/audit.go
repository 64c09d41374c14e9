package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/cliflags"
	"github.com/toolguard/toolguard/internal/workspace"
)

type auditOptions struct {
	decideFlags
	since time.Duration
	json  bool
	file  string
}

func newAuditCmd(sys *system) *cobra.Command {
	var o auditOptions
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Summarize the audit log: counts by decision, rule and agent; the most-blocked calls",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := o.path(sys)
			if err != nil {
				return err
			}
			var recs []audit.Record
			var errs []error
			fh, err := os.Open(path)
			switch {
			case errors.Is(err, fs.ErrNotExist): // nothing logged yet: an empty summary
			case err != nil:
				return err
			default:
				defer fh.Close()
				recs, errs = audit.Read(fh)
			}
			for _, e := range errs {
				fmt.Fprintf(sys.stderr, "toolguard: %s: %v\n", path, e)
			}
			var since time.Time
			if o.since > 0 {
				since = sys.now().Add(-o.since)
			}
			sum := audit.Aggregate(recs, since)
			if o.json {
				return writeJSON(sys, sum)
			}
			return sum.WriteText(sys.stdout)
		},
	}
	cmd.AddCommand(newAuditVerifyCmd(sys))
	cmd.Flags().Var(durationVar(&o.since, 0), "since", "only decisions newer than this (e.g. 24h, 7d)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	o.registerLog(cmd)
	return cmd
}

// registerLog adds the flags that choose the audit log (path) and the
// policy that names it.
func (o *auditOptions) registerLog(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.file, "file", "", "old spelling of --audit-log")
	_ = cmd.Flags().MarkHidden("file")
	cliflags.Policy(cmd.Flags(), &o.Selection)
	cmd.Flags().StringVar(&o.StateDir, "state-dir", "", "state directory (for the default audit log location)")
	cmd.Flags().StringVar(&o.AuditLog, "audit-log", "", "audit log file (default: the policy's audit_log)")
}

// path is the audit log to read: --audit-log (or its old spelling --file),
// else the policy's.
func (o *auditOptions) path(sys *system) (string, error) {
	if o.AuditLog != "" {
		o.file = o.AuditLog
	}
	path := workspace.AbsFrom(cwdOf(sys), o.file)
	if path == "" {
		ps, err := o.load(sys, sys.env().CurrentProject())
		if err != nil {
			return "", err
		}
		path = sys.env().AuditPath(o.AuditLog, o.StateDir, ps.Pol)
	}
	if path == "" {
		return "", fmt.Errorf("auditing is off (settings.audit = \"off\") and no --audit-log was given")
	}
	return path, nil
}

func cwdOf(sys *system) string {
	cwd, _ := sys.getwd()
	return cwd
}

func newAuditVerifyCmd(sys *system) *cobra.Command {
	var o auditOptions
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Check the audit log's chain: exit 0 if it holds, 1 at the first break, a cut line, or no log",
		Long: `verify checks that each line of the audit log carries the SHA-256 of the line
before it (prev), that the log ends in a newline, and that it exists and is not empty.
It prints the first problem with its line number and exits 1, or prints the number of
lines and exits 0. A line removed, inserted or changed breaks the chain at the line
after it. A rewrite of the whole chain is not detected: the chain has no key.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := o.path(sys)
			if err != nil {
				return err
			}
			fh, err := os.Open(path)
			if errors.Is(err, fs.ErrNotExist) {
				return &exitError{code: exitFailure, msg: fmt.Sprintf("%s: no audit log where one was expected (removed, or nothing logged yet)", path)}
			}
			if err != nil {
				return err
			}
			defer fh.Close()
			rep, err := audit.Verify(fh)
			if err != nil {
				return fmt.Errorf("%s: %v", path, err)
			}
			if o.json {
				if err := writeJSON(sys, rep); err != nil {
					return err
				}
			}
			if rep.Problem != nil {
				return &exitError{code: exitFailure, msg: fmt.Sprintf("%s:%d: %s: %s", path, rep.Problem.Line, rep.Problem.Kind, rep.Problem.Detail)}
			}
			if !o.json {
				fmt.Fprintf(sys.stdout, "%s: %d lines, chain intact", path, rep.Lines)
				if rep.Unchained > 0 {
					fmt.Fprintf(sys.stdout, " (the first %d written before the chain, unchecked)", rep.Unchained)
				}
				fmt.Fprintln(sys.stdout)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print the report as JSON")
	o.registerLog(cmd)
	return cmd
}
