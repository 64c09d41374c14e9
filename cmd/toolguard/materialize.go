package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/toolguard/toolguard/internal/workspace"
)

type materializeOptions struct {
	policyFlags
	out string
}

func newMaterializeCmd(sys *system) *cobra.Command {
	var o materializeOptions
	cmd := &cobra.Command{
		Use:   "materialize --layer NAME=FILE... -o OUT",
		Short: "Merge policy layers into one JSON file for the hook to load",
		Long: `materialize merges the embedded defaults and the given layers into one JSON
document — effective rules with their layer and source, merged settings, [[test]]s and
a content hash — that the hook loads as it is (--policy policy.json), without re-running
examples. The merged policy is checked first: a failing example or [[test]] stops it;
a layer's attempt to replace, disable or loosen what an earlier layer locked is
reported as a warning and left out, as the hook would.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if o.out == "" {
				return usagef("materialize wants -o OUT")
			}
			ps, err := o.load(sys, "")
			if err != nil {
				return err
			}
			for _, w := range ps.Pol.Warnings {
				fmt.Fprintf(sys.stderr, "warning: %s (ignored)\n", w.String())
			}
			if probs := ps.Pol.RunTests(); len(probs) > 0 {
				for _, p := range probs {
					fmt.Fprintln(sys.stderr, p.String())
				}
				return &exitError{code: exitFailure, msg: fmt.Sprintf("%d problem(s); nothing written", len(probs))}
			}
			b, err := ps.Pol.Materialize()
			if err != nil {
				return err
			}
			if o.out == "-" {
				_, err = sys.stdout.Write(b)
				return err
			}
			cwd, _ := sys.getwd()
			if err := workspace.WritePolicyFile(workspace.AbsFrom(cwd, o.out), b, true); err != nil {
				return err
			}
			fmt.Fprintf(sys.stderr, "wrote %s: %d rules, %s\n", o.out, ps.Pol.RuleCount(), ps.Pol.Hash())
			return nil
		},
	}
	cmd.Flags().StringVarP(&o.out, "output", "o", "", "output file (- for stdout)")
	o.register(cmd)
	return cmd
}
