package main

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
)

// eventApprovalDecision is the audit event of a human's decision on an
// approval request, made with the CLI or through serve.
const eventApprovalDecision = "approval.decision"

// decisionRecord is the approval.decision audit line for request r after
// action ("approve" or "reject") by who, through via ("cli", "token",
// "web"), in mode ("cli", "serve"). Audit summaries count policy.decision
// records only.
func decisionRecord(now time.Time, r approval.Request, action string, who approval.Approver, via, mode, policyHash string) audit.Record {
	by := fmt.Sprintf("%s (%s) via %s", who.User, who.Fingerprint, via)
	rec := audit.Record{Time: now, Event: eventApprovalDecision, Provider: r.Provider, Session: r.Session,
		Tool: r.Tool, Kind: r.Kind, Summary: r.Summary, Cwd: r.Cwd, ApprovalID: r.ID, PolicyHash: policyHash, Mode: mode}
	switch action {
	case "approve":
		rec.Decision = "allow"
		if g := r.Grant; g != nil {
			rec.Reason = fmt.Sprintf("approved by %s: %d use(s) until %s", by, g.Uses, g.Expires.UTC().Format(time.RFC3339))
		}
	default:
		rec.Decision = "deny"
		rec.Reason = fmt.Sprintf("rejected by %s: %s", by, r.RejectReason)
	}
	return rec
}

// signerApprover names the human behind signer in an audit line.
func signerApprover(s approval.Signer) approval.Approver {
	who := approval.Approver{User: s.User}
	if len(s.Key) == ed25519.PrivateKeySize {
		pub := s.Key.Public().(ed25519.PublicKey)
		who.Key, who.Fingerprint = approval.PublicText(pub), approval.Fingerprint(pub)
	}
	return who
}

// auditCLIDecision appends the approval.decision line of a decision made
// with `toolguard approvals approve|reject`. The decision stands either
// way; a failing append is reported on stderr (the store already holds
// the decision).
func auditCLIDecision(sys *system, o *approvalsOptions, r approval.Request, action string, who approval.Approver) {
	ps, err := o.load(sys, projectDir(sys))
	hash := ""
	f := &decideFlags{stateDir: o.stateDir}
	var path string
	if err == nil {
		path, hash = auditPath(sys, f, ps.pol), ps.pol.Hash()
	} else {
		path = auditPath(sys, f, nil)
	}
	if path == "" {
		return
	}
	if err := audit.Append(path, decisionRecord(sys.now(), r, action, who, "cli", "cli", hash)); err != nil {
		fmt.Fprintf(sys.stderr, "toolguard: warning: the decision on %s is recorded, but its audit line is not: %v\n", r.ID, err)
	}
}
