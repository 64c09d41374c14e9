package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

type rulesOptions struct {
	policyFlags
	json bool
}

func newRulesCmd(sys *system) *cobra.Command {
	var o rulesOptions
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the effective rules with decision, layer and file:line",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ps, err := o.load(sys, sys.env().CurrentProject())
			if err != nil {
				return err
			}
			info := ps.Pol.Info()
			if o.json {
				out := map[string]any{"rules": info, "layers": ps.Pol.Layers, "hash": ps.Pol.Hash()}
				if ig := sys.env().IgnoredParts(ps.Pol); len(ig) > 0 {
					out["ignored"] = ig
				}
				return writeJSON(sys, out)
			}
			tw := tabwriter.NewWriter(sys.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tDECISION\tPRIO\tLAYER\tSOURCE\tDESCRIPTION")
			for _, r := range info {
				d := r.Decision
				if r.Locked {
					d += " (locked)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, d, r.Priority, r.Layer, r.Source, r.Description)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			writeIgnored(sys.stdout, sys.env().IgnoredParts(ps.Pol))
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	o.register(cmd)
	return cmd
}
