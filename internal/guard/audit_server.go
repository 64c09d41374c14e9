package guard

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// AppendAudit appends rec to the audit log at path, or sends it to the
// approval server when the policy says audit_log = "server"
// (workspace.AuditServer; system mode: the hook, which runs as the
// agent's user, does not write the log, the server's own account does).
// The caller reports an error on stderr; it never changes a decision.
func AppendAudit(ctx context.Context, sys System, pol *policy.Policy, path string, rec audit.Record) error {
	if pol == nil || pol.Settings.AuditLog != workspace.AuditServer {
		return sys.Append(ctx, path, rec)
	}
	if pol.Settings.ApprovalURL == "" {
		return errors.New(`audit_log = "server" wants settings.approval_url (the toolguard serve socket)`)
	}
	c, err := remoteClient(sys.Env, pol)
	if err == nil {
		err = c.Audit(ctx, rec)
	}
	if err != nil {
		return fmt.Errorf("the approval service did not take the audit line: %w", err)
	}
	return nil
}
