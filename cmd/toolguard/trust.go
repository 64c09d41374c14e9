package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolguard/toolguard/internal/workspace"
)

type trustOptions struct {
	list   bool
	revoke bool
}

func newTrustCmd(sys *system) *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Trust a project policy, so that it may loosen the policy (list, revoke)",
		Long: `trust records the SHA-256 of a project policy (default: .toolguard/policy.toml at
the top of the current directory's project) in the user's state. Until then the
file is untrusted: its deny and ask rules apply, but nothing that would loosen the
policy (allow rules, builtin = false, disable, a looser default, ...). Editing the
file makes it untrusted again. See docs/trust.md.

  toolguard trust                     trust this project's .toolguard/policy.toml
  toolguard trust --list              the trusted files, and whether each still matches
  toolguard trust --revoke [FILE]     forget every trust record of the file`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("trust takes at most one file (got %q)", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runTrust(sys, &o, args) },
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "list the trusted project policies")
	cmd.Flags().BoolVar(&o.revoke, "revoke", false, "revoke the trust in FILE")
	return cmd
}

func runTrust(sys *system, o *trustOptions, args []string) error {
	dir := sys.env().TrustDir()
	if dir == "" {
		return fmt.Errorf("no state directory: set HOME or XDG_STATE_HOME")
	}
	if o.list {
		if o.revoke || len(args) > 0 {
			return usagef("trust --list takes no file and no --revoke")
		}
		return listTrust(sys, dir)
	}
	cwd, err := sys.getwd()
	if err != nil {
		return err
	}
	file := filepath.Join(sys.env().CurrentProject(), ".toolguard", "policy.toml")
	if len(args) == 1 {
		file = workspace.ArgPath(args[0], cwd, sys.home())
	}
	if o.revoke {
		key := workspace.TrustKey(file)
		n, err := workspace.RevokeTrust(dir, key)
		if err != nil {
			return err
		}
		fmt.Fprintf(sys.stdout, "revoked %d trust record(s) for %s\n", n, key)
		return nil
	}
	rec, err := workspace.Trust(dir, file, sys.now())
	if err != nil {
		return err
	}
	fmt.Fprintf(sys.stdout, "trusted %s (%s)\n", rec.Path, rec.Hash)
	return nil
}

func listTrust(sys *system, dir string) error {
	recs, err := workspace.TrustRecords(dir)
	if err != nil {
		return err
	}
	for _, r := range recs {
		fmt.Fprintf(sys.stdout, "%s\t%s\t%s\t%s\n", r.Path, r.Hash, r.Trusted.Format(time.RFC3339), r.State())
	}
	return nil
}
