package main

import (
	"context"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
)

// approvalStore opens the approval store of the state directory dir: the
// directory itself, or what sys.openApprovals says (serve --database:
// PostgreSQL, for every replica the same store).
func (s *system) approvalStore(dir string) (*approval.Store, error) {
	if s.openApprovals != nil {
		return s.openApprovals(dir)
	}
	return approval.Open(dir)
}

// auditAppend appends rec to the audit log at path, or where
// sys.appendAudit says (serve --database: PostgreSQL's chain).
func (s *system) auditAppend(ctx context.Context, path string, rec audit.Record) error {
	if s.appendAudit != nil {
		return s.appendAudit(ctx, path, rec)
	}
	return audit.AppendContext(ctx, path, rec)
}
