package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/policy"
)

type validateOptions struct {
	noBuiltin bool
	layers    []string
}

func newValidateCmd(sys *system) *cobra.Command {
	var o validateOptions
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check policy files: syntax, keys, globs, regexes, examples and [[test]]s",
		Long: `validate loads the given files as layers, in order, on top of the embedded
defaults, and reports every problem at once as file:line:col: syntax errors, unknown
keys, bad decisions, globs and regexes, duplicate ids, rule examples that do not hold,
[[test]] expectations the merged policy does not meet, and later layers that try to
replace, disable or loosen what an earlier layer locked. Exit status 1 on any problem.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runValidate(sys, &o, args) },
	}
	cmd.Flags().BoolVar(&o.noBuiltin, "no-builtin", false, "leave out the embedded default rules")
	cmd.Flags().StringArrayVar(&o.layers, "layer", nil, "named layer `NAME=FILE` (repeatable, after the FILE arguments)")
	return cmd
}

func runValidate(sys *system, o *validateOptions, args []string) error {
	pf := policyFlags{files: args, layers: o.layers, noBuiltin: o.noBuiltin}
	if len(args) == 0 && len(o.layers) == 0 {
		return usagef("validate wants at least one policy file")
	}
	srcs, err := pf.sources(sys, "")
	if err != nil {
		return err
	}
	pol, err := policy.Load(srcs, policy.LoadOptions{NoBuiltin: o.noBuiltin})
	var perr *policy.Error
	if errors.As(err, &perr) {
		for _, p := range perr.Problems {
			fmt.Fprintln(sys.stdout, p.String())
		}
		return &exitError{code: exitFailure, msg: fmt.Sprintf("%d problem(s)", len(perr.Problems))}
	}
	if err != nil {
		return err
	}
	probs := pol.Check()
	for _, p := range probs {
		fmt.Fprintln(sys.stdout, p.String())
	}
	if len(probs) > 0 {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("%d problem(s)", len(probs))}
	}
	fmt.Fprintf(sys.stdout, "ok: %d rules, %d examples, %d tests, %d layers (%s)\n",
		len(pol.Rules()), pol.Examples(), pol.TestCount(), len(pol.Layers), pol.Hash())
	return nil
}
