package main

import (
	"strings"
	"testing"
)

// TestDecisionFinalCLI: approve after reject, and reject after approve,
// fail with the decision that won; the hook goes on answering that one.
func TestDecisionFinalCLI(t *testing.T) {
	for _, d := range approvalDialects[:2] {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			e.genKey(e.defaultKey())

			tag := d.shell("git tag v1")
			id := e.expectDeny(d, tag)
			if code, out, errOut := e.approvals("reject", id, "--reason", "tags come from CI", "--key", e.defaultKey()); code != 0 {
				t.Fatalf("reject: exit %d %s%s", code, out, errOut)
			}
			for _, args := range [][]string{{"approve", id}, {"approve", id, "--amend", "--yes"}, {"reject", id, "--reason", "again"}} {
				code, out, errOut := e.approvals(append(args, "--key", e.defaultKey())...)
				if code != 1 || out != "" || !strings.Contains(errOut, "cannot "+args[0]+" "+id+": it was already rejected") {
					t.Errorf("%v after reject: exit %d %q %q", args, code, out, errOut)
				}
			}
			if code, out, _ := e.hook(d, tag); code != 0 || !strings.Contains(out, d.deny) || !strings.Contains(out, "tags come from CI") {
				t.Errorf("after the refused approve the hook answered: exit %d %s", code, out)
			}

			push := d.shell("git tag v2")
			id2 := e.expectDeny(d, push)
			e.approve(id2, e.defaultKey())
			code, out, errOut := e.approvals("reject", id2, "--reason", "changed my mind", "--key", e.defaultKey())
			if code != 1 || out != "" || !strings.Contains(errOut, "cannot reject "+id2+": it was already approved") {
				t.Errorf("reject after approve: exit %d %q %q", code, out, errOut)
			}
			e.expectAllow(d, push)
		})
	}
}
