package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/audit"
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
			path := o.file
			if path == "" {
				ps, err := o.load(sys, projectDir(sys))
				if err != nil {
					return err
				}
				path = auditPath(sys, &o.decideFlags, ps.pol)
			}
			if path == "" {
				return fmt.Errorf("auditing is off (settings.audit = \"off\") and no --file was given")
			}
			fh, err := os.Open(path)
			if err != nil {
				return err
			}
			defer fh.Close()
			recs, errs := audit.Read(fh)
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
	cmd.Flags().DurationVar(&o.since, "since", 0, "only decisions newer than this (e.g. 24h)")
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.Flags().StringVar(&o.file, "file", "", "audit log to read (default: the policy's audit_log)")
	o.register(cmd)
	cmd.Flags().StringVar(&o.stateDir, "state-dir", "", "state directory (for the default audit log location)")
	cmd.Flags().StringVar(&o.auditLog, "audit-log", "", "audit log file")
	return cmd
}
