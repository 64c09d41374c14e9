// Package cliflags registers the command-line flags that choose a policy
// and shape a decision, shared by the toolguard commands (cmd/toolguard)
// and the server's (internal/serve, run by cmd/toolguard-serve), so both
// spell and explain them alike. The packages that decide (internal/guard,
// internal/workspace) know no command line.
package cliflags

import (
	"github.com/spf13/pflag"

	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/workspace"
)

// Policy registers the flags every command that loads a policy shares:
// --policy, --layer, --no-builtin.
func Policy(fs *pflag.FlagSet, f *workspace.Selection) {
	fs.StringArrayVar(&f.Files, "policy", nil, "policy file (TOML, or materialized JSON); repeat for layers, in order")
	fs.StringArrayVar(&f.Layers, "layer", nil, "named policy layer `NAME=FILE`; repeat, in order (after --policy files)")
	fs.BoolVar(&f.NoBuiltin, "no-builtin", false, "leave out the embedded default rules")
}

// Decide registers the flags that shape a decision, shared by hook, check
// and serve: --mode, --workspace, --state-dir, --audit-log, --grants-dir.
func Decide(fs *pflag.FlagSet, f *guard.Options) {
	fs.StringVar(&f.Mode, "mode", "", "interactive or headless (overrides the policy's mode)")
	fs.StringVar(&f.Workspace, "workspace", "", "workspace root (default: the agent's project dir, else the git top level, else cwd)")
	fs.StringVar(&f.StateDir, "state-dir", "", "directory for pending approvals (default: settings.state_dir, else $XDG_STATE_HOME/toolguard)")
	fs.StringVar(&f.AuditLog, "audit-log", "", "audit log file (default: settings.audit_log, else <state dir>/audit.jsonl)")
	fs.StringVar(&f.GrantsDir, "grants-dir", "", "directory of signed grant files (approvals approve --grants-dir), may be read-only")
}
