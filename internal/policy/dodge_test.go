package policy

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// dodgePolicy denies exactly the two commands the dodge table hides.
const dodgePolicy = `
[[rule]]
id = "git-push-force"
decision = "deny"
command = "git push"
args = ["--force", "-f"]

[[rule]]
id = "rm-rf-root"
decision = "deny"
command = "rm"
args = ["-r", "-R", "--recursive"]
path = "/"
`

// TestDodges evaluates every entry of testdata/dodges.jsonl — shell strings
// that hide `git push --force` or `rm -rf /` behind wrappers, nested
// shells, substitutions, quoting, variables and interpreters, and harmless
// look-alikes that only mention them — against a policy that denies those
// two commands: each dodge must be denied, each look-alike must pass.
func TestDodges(t *testing.T) {
	t.Parallel()
	p, err := Load([]Source{{Path: "dodge.toml", Data: []byte(dodgePolicy)}}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open("testdata/dodges.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	counts := map[call.Decision]int{}
	sc := bufio.NewScanner(fh)
	for n := 1; sc.Scan(); n++ {
		var rec struct{ Cmd, Want string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", n, err)
		}
		want, ok := call.ParseDecision(rec.Want)
		if !ok {
			t.Fatalf("line %d: bad want %q", n, rec.Want)
		}
		counts[want]++
		c := call.Call{Kind: call.KindShell, Tool: "Bash", Command: rec.Cmd, Cwd: "/home/user/project"}
		res := p.Evaluate(c, Env{Home: "/home/user", Workspace: "/home/user/project"})
		if res.Decision != want {
			t.Errorf("line %d: %q: got %v (%s), want %v", n, rec.Cmd, res.Decision, res.Reason, want)
		}
	}
	if counts[call.Deny] < 150 || counts[call.Pass] < 100 {
		t.Errorf("table too small: %d dodges, %d look-alikes", counts[call.Deny], counts[call.Pass])
	}
}
