package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/audit"
)

// TestCLIDecisionsAudited: `approvals approve` and `approvals reject`
// write their approval.decision audit line, as serve's decisions do, and
// the chain still verifies. Before, only serve's decisions were audited.
func TestCLIDecisionsAudited(t *testing.T) {
	for _, d := range approvalDialects[:2] {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			log := filepath.Join(e.home, "audit.jsonl")
			// The env's policy turns auditing off; turn it on, at a known path.
			b, err := os.ReadFile(e.policy)
			if err != nil {
				t.Fatal(err)
			}
			e.write(e.policy, strings.Replace(string(b), `audit = "off"`, `audit_log = "`+log+`"`, 1), 0o600)
			key := filepath.Join(e.home, "k", "approver.key")
			e.genKey(key)

			id := e.expectDeny(d, d.shell("git tag v1"))
			e.approve(id, key)
			id2 := e.expectDeny(d, d.shell("git tag v2"))
			if code, out, errOut := e.approvals("reject", id2, "--reason", "not now", "--key", key); code != 0 {
				t.Fatalf("reject: exit %d %s%s", code, out, errOut)
			}

			data, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				if strings.Contains(l, `"event":"approval.decision"`) {
					got = append(got, l)
				}
			}
			if len(got) != 2 || !strings.Contains(got[0], id) || !strings.Contains(got[0], `"decision":"allow"`) ||
				!strings.Contains(got[1], id2) || !strings.Contains(got[1], `"decision":"deny"`) || !strings.Contains(got[1], "not now") {
				t.Fatalf("approval.decision lines:\n%s\nlog:\n%s", strings.Join(got, "\n"), data)
			}
			if rep, err := audit.Verify(strings.NewReader(string(data))); err != nil || rep.Problem != nil {
				t.Fatalf("audit verify: %v %+v", err, rep.Problem)
			}
		})
	}
}
