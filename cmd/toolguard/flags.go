package main

import (
	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/workspace"
)

// policyFlags are the flags every command that loads a policy shares.
type policyFlags struct{ workspace.Selection }

func (f *policyFlags) register(cmd *cobra.Command) { registerPolicy(cmd, &f.Selection) }

func registerPolicy(cmd *cobra.Command, f *workspace.Selection) {
	cmd.Flags().StringArrayVar(&f.Files, "policy", nil, "policy file (TOML, or materialized JSON); repeat for layers, in order")
	cmd.Flags().StringArrayVar(&f.Layers, "layer", nil, "named policy layer `NAME=FILE`; repeat, in order (after --policy files)")
	cmd.Flags().BoolVar(&f.NoBuiltin, "no-builtin", false, "leave out the embedded default rules")
}

// load reads and compiles the policy in effect for a project directory.
func (f *policyFlags) load(sys *system, project string) (*workspace.Set, error) {
	return sys.env().Load(f.Selection, project)
}

// decideFlags are the flags that shape a decision, shared by hook and check.
type decideFlags struct{ guard.Options }

func (f *decideFlags) register(cmd *cobra.Command) { registerPolicy(cmd, &f.Selection) }

func (f *decideFlags) registerDecide(cmdFlags interface {
	StringVar(p *string, name, value, usage string)
}) {
	cmdFlags.StringVar(&f.Mode, "mode", "", "interactive or headless (overrides the policy's mode)")
	cmdFlags.StringVar(&f.Workspace, "workspace", "", "workspace root (default: the agent's project dir, else the git top level, else cwd)")
	cmdFlags.StringVar(&f.StateDir, "state-dir", "", "directory for pending approvals (default: settings.state_dir, else $XDG_STATE_HOME/toolguard)")
	cmdFlags.StringVar(&f.AuditLog, "audit-log", "", "audit log file (default: settings.audit_log, else <state dir>/audit.jsonl)")
	cmdFlags.StringVar(&f.GrantsDir, "grants-dir", "", "directory of signed grant files (approvals approve --grants-dir), may be read-only")
}

// load reads and compiles the policy in effect for a project directory.
func (f *decideFlags) load(sys *system, project string) (*workspace.Set, error) {
	return sys.env().Load(f.Selection, project)
}
