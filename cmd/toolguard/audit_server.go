package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/policy"
)

// auditServer is the settings.audit_log value of system mode: the hook,
// which runs as the agent's user, does not write the audit log; it sends
// each line to the approval server (settings.approval_url, POST
// /v1/audit), whose own account keeps the hash-chained log. For the
// server itself the value means its state directory's audit.jsonl.
const auditServer = "server"

// appendAudit appends rec to the audit log at path, or sends it to the
// approval server when the policy says audit_log = "server". The caller
// reports an error on stderr; it never changes a decision.
func appendAudit(ctx context.Context, sys *system, pol *policy.Policy, path string, rec audit.Record) error {
	if pol == nil || pol.Settings.AuditLog != auditServer {
		return audit.AppendContext(ctx, path, rec)
	}
	if pol.Settings.ApprovalURL == "" {
		return errors.New(`audit_log = "server" wants settings.approval_url (the toolguard serve socket)`)
	}
	c, err := remoteClient(sys, pol)
	if err == nil {
		err = c.Audit(ctx, rec)
	}
	if err != nil {
		return fmt.Errorf("the approval service did not take the audit line: %w", err)
	}
	return nil
}
