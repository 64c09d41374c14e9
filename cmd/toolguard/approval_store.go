package main

import "github.com/toolguard/toolguard/internal/approval"

// approvalStore opens the approval store of the state directory dir: the
// directory itself, or what sys.openApprovals says (serve --database:
// PostgreSQL, for every replica the same store).
func (s *system) approvalStore(dir string) (*approval.Store, error) {
	if s.openApprovals != nil {
		return s.openApprovals(dir)
	}
	return approval.Open(dir)
}
