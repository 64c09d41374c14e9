package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/policy"
)

type validateOptions struct {
	policyFlags
	json bool
}

func newValidateCmd(sys *system) *cobra.Command {
	var o validateOptions
	cmd := &cobra.Command{
		Use:   "validate [FILE...]",
		Short: "Check policy files: syntax, keys, globs, regexes, examples, [[test]]s and rules that cannot work",
		Long: `validate loads the given files as layers, in order, on top of the embedded
defaults, and reports every problem of every phase at once as file:line:col (JSON
policies too): syntax errors, unknown keys (with a "did you mean"), bad decisions,
globs and regexes, duplicate ids, rules that load but cannot work (no conditions,
options inside a command prefix, tool names no agent sends), rule examples that do
not hold (at the example's own line), [[test]] expectations the merged policy does
not meet, and later layers that try to replace, disable or loosen what an earlier
layer locked. Exit status 1 on any problem.

With no FILE (and no --policy or --layer) it checks the policy in effect here, as
the hook finds it: TOOLGUARD_POLICY, else /etc/toolguard/policy.toml, the user's
policy and the project's .toolguard/policy.toml at the git top level.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runValidate(sys, &o, args) },
	}
	o.register(cmd)
	cmd.Flags().BoolVar(&o.json, "json", false, "print the result as JSON")
	return cmd
}

// validateReport is validate's --json output.
type validateReport struct {
	OK       bool             `json:"ok"`
	Files    []string         `json:"files"`
	Problems []validateProb   `json:"problems"`
	Summary  *validateSummary `json:"summary,omitempty"`
}

type validateProb struct {
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
	Rule string `json:"rule,omitempty"`
	Msg  string `json:"message"`
	// Warning: the policy means something its author may not have meant;
	// it does not fail validation.
	Warning bool `json:"warning,omitempty"`
}

type validateSummary struct {
	Rules    int    `json:"rules"`
	Examples int    `json:"examples"`
	Tests    int    `json:"tests"`
	Layers   int    `json:"layers"`
	Hash     string `json:"hash"`
}

func runValidate(sys *system, o *validateOptions, args []string) error {
	pf := o.policyFlags
	pf.Files = append(append([]string(nil), args...), pf.Files...)
	project := ""
	if len(pf.Files) == 0 && len(pf.Layers) == 0 {
		project = sys.env().CurrentProject()
	}
	rep := validateReport{Files: []string{}, Problems: []validateProb{}}
	srcs, err := sys.env().Sources(pf.Selection, project)
	var ue *usageError
	if err != nil && o.json && !errors.As(err, &ue) {
		// A file that cannot be read is a problem like the others.
		rep.Problems = append(rep.Problems, validateProb{Msg: err.Error()})
		if werr := writeJSON(sys, rep); werr != nil {
			return werr
		}
		return &exitError{code: exitFailure, msg: err.Error()}
	}
	if err != nil {
		return err
	}
	for _, s := range srcs {
		rep.Files = append(rep.Files, s.Path)
	}
	if len(srcs) == 0 && !o.json {
		fmt.Fprintln(sys.stderr, "validate: no policy file in effect (none named, no TOOLGUARD_POLICY, none discovered): checking the embedded defaults")
	}
	pol, probs := policy.Validate(srcs, policy.LoadOptions{NoBuiltin: pf.NoBuiltin})
	errs := 0
	for _, p := range probs {
		rep.Problems = append(rep.Problems, validateProb{File: p.File, Line: p.Line, Col: p.Col, Rule: p.Rule, Msg: p.Msg, Warning: p.Warning})
		if !p.Warning {
			errs++
		}
	}
	rep.OK = errs == 0 && pol != nil
	if rep.OK && pol != nil {
		rep.Summary = &validateSummary{Rules: pol.RuleCount(), Examples: pol.Examples(), Tests: pol.TestCount(),
			Layers: len(pol.Layers), Hash: pol.Hash()}
	}
	if o.json {
		if err := writeJSON(sys, rep); err != nil {
			return err
		}
	} else {
		for _, p := range probs {
			fmt.Fprintln(sys.stdout, p.String())
		}
		if s := rep.Summary; s != nil {
			fmt.Fprintf(sys.stdout, "ok: %d rules, %d examples, %d tests, %d layers (%s)\n",
				s.Rules, s.Examples, s.Tests, s.Layers, s.Hash)
		}
	}
	if !rep.OK {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("%d problem(s)", errs)}
	}
	return nil
}
