package install

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/policy"
)

// TestClaudeNative: doctor's reading of Claude Code's own rules — a
// written rule the user removed, an agent allow toolguard denies (exact,
// prefix and whole-tool), look-alikes that are no conflict, and the HTTP
// hook.
func TestClaudeNative(t *testing.T) {
	t.Parallel()
	proj := t.TempDir()
	o := Options{Provider: "claude-code", Scope: ScopeProject, Dir: proj}
	if _, err := InstallNative(o, []NativeRule{{Text: "Bash(rm *)", From: "a"}, {Text: "Bash(git status)", From: "b", List: "allow"}}); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(proj, ".claude", "settings.json")
	// The user edits: drops toolguard's deny, adds allows of their own.
	writeFile(t, file, []byte(`{"permissions":{"allow":["Bash(git status)","Bash(terraform destroy)","Bash(terraform:*)","Bash(npm test)","Bash(terraformx:*)","Read(src/**)"]},
 "hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"http","url":"http://127.0.0.1:9/v1/hooks/claude-code","onFailure":"block"}]}]}}`))
	toml := "[[rule]]\nid = \"no-destroy\"\ndecision = \"deny\"\ncommand = [\"terraform destroy\"]\n"
	p, err := policy.Load([]policy.Source{{Layer: "test", Path: "t.toml", Data: []byte(toml)}}, policy.LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := ClaudeNative("", proj, p, policy.CheckEnv())
	if len(rep.Missing) != 1 || !strings.Contains(rep.Missing[0].Text, "permissions.deny Bash(rm *)") {
		t.Errorf("missing = %+v", rep.Missing)
	}
	var conf []string
	for _, c := range rep.Conflicts {
		conf = append(conf, c.Text)
	}
	all := strings.Join(conf, "\n")
	for _, want := range []string{"Bash(terraform destroy): toolguard denies", "Bash(terraform:*) covers \"terraform destroy\""} {
		if !strings.Contains(all, want) {
			t.Errorf("conflicts lack %q:\n%s", want, all)
		}
	}
	for _, not := range []string{"npm test", "terraformx", "git status", "Read("} {
		if strings.Contains(all, not) {
			t.Errorf("a look-alike reported as a conflict (%s):\n%s", not, all)
		}
	}
	if len(rep.HTTP) != 1 || !rep.HTTP[0].Toolguard || rep.HTTP[0].OnFailure != "block" || rep.HTTP[0].File != file {
		t.Errorf("http = %+v", rep.HTTP)
	}
}
