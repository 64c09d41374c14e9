package main

import (
	"fmt"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/guard"
)

// auditCLIDecision appends the approval.decision line of a decision made
// with `toolguard approvals approve|reject`. The decision stands either
// way; a failing append is reported on stderr (the store already holds
// the decision).
func auditCLIDecision(sys *system, o *approvalsOptions, r approval.Request, action string, who approval.Approver) {
	ps, err := o.load(sys, sys.env().CurrentProject())
	hash := ""
	path := sys.env().AuditPath("", o.StateDir, nil)
	if err == nil {
		path, hash = sys.env().AuditPath("", o.StateDir, ps.Pol), ps.Pol.Hash()
	}
	if path == "" {
		return
	}
	if err := audit.Append(path, guard.DecisionRecord(sys.now(), r, action, who, "cli", "cli", hash)); err != nil {
		fmt.Fprintf(sys.stderr, "toolguard: warning: the decision on %s is recorded, but its audit line is not: %v\n", r.ID, err)
	}
}
