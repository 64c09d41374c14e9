package importer_test

import (
	"fmt"

	"github.com/toolguard/toolguard/internal/importer"
)

func ExampleImport() {
	settings := `{
  "permissions": {
    "allow": ["Bash(git status:*)", "Bash(git push origin main)", "Write(./notes/**)"],
    "ask": ["Bash(git push:*)"],
    "deny": ["Read(./.env)"]
  }
}`
	res, err := importer.Import([]importer.Source{{Agent: importer.Claude, Scope: "project", Path: ".claude/settings.json", Data: []byte(settings)}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res.Rules {
		fmt.Println(r.ID, r.Decision, r.Regex, r.Path)
	}
	for _, n := range res.Findings {
		fmt.Println(n.Origin, n.Kind, n.Text)
	}
	// Output:
	// claude-allow-bash-git-status allow ^git status( |$) []
	// claude-allow-bash-git-push-origin-main allow ^git push origin main$ []
	// claude-ask-bash-git-push ask ^git push( |$) []
	// claude-deny-read-env deny  [./.env ./.env/**]
	// .claude/settings.json:3 compound Bash(git status:*)
	// .claude/settings.json:3 never consulted Write(./notes/**)
	// .claude/settings.json:3 shadowed Bash(git push origin main)
}
