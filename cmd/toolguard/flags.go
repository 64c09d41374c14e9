package main

import (
	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/cliflags"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/workspace"
)

// policyFlags are the flags every command that loads a policy shares.
type policyFlags struct{ workspace.Selection }

func (f *policyFlags) register(cmd *cobra.Command) { cliflags.Policy(cmd.Flags(), &f.Selection) }

// load reads and compiles the policy in effect for a project directory.
func (f *policyFlags) load(sys *system, project string) (*workspace.Set, error) {
	return sys.env().Load(f.Selection, project)
}

// decideFlags are the flags that shape a decision, shared by hook and check.
type decideFlags struct{ guard.Options }

func (f *decideFlags) register(cmd *cobra.Command) {
	cliflags.Policy(cmd.Flags(), &f.Selection)
	cliflags.Decide(cmd.Flags(), &f.Options)
}

// load reads and compiles the policy in effect for a project directory.
func (f *decideFlags) load(sys *system, project string) (*workspace.Set, error) {
	return sys.env().Load(f.Selection, project)
}
