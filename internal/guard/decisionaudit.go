package guard

import (
	"crypto/ed25519"
	"fmt"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
)

// DecisionRecord is the approval.decision audit line for request r after
// action ("approve" or "reject") by who, through via ("cli", "token",
// "web"), in mode ("cli", "serve"). Audit summaries count policy.decision
// records only.
func DecisionRecord(now time.Time, r approval.Request, action string, who approval.Approver, via, mode, policyHash string) audit.Record {
	by := fmt.Sprintf("%s (%s) via %s", who.User, who.Fingerprint, via)
	rec := audit.Record{Time: now, Event: audit.EventApproval, Provider: r.Provider, Session: r.Session,
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

// SignerApprover names the human behind signer in an audit line.
func SignerApprover(s approval.Signer) approval.Approver {
	who := approval.Approver{User: s.User}
	if len(s.Key) == ed25519.PrivateKeySize {
		pub := s.Key.Public().(ed25519.PublicKey)
		who.Key, who.Fingerprint = approval.PublicText(pub), approval.Fingerprint(pub)
	}
	return who
}
