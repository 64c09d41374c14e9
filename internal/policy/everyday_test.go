package policy

import (
	"bufio"
	"github.com/rogpeppe/go-internal/txtar"
	"os"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// TestEverydayQuiet runs the everyday commands of testdata/everyday.txt
// (issue 33: builds, tests, git daily work, declared installs, cleanups)
// through the default policy and fails when more than 2 % of them ask or
// deny, listing them.
func TestEverydayQuiet(t *testing.T) {
	p := loadDefaults(t)
	f, err := os.Open("testdata/everyday.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// The project declares and installs its tools, as an everyday
	// project does (npx tsc runs node_modules/.bin/tsc; uvx ruff is in
	// pyproject.toml): testdata/everyday-project.txtar.
	ar, err := txtar.ParseFile("testdata/everyday-project.txtar")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for _, af := range ar.Files {
		files["/home/user/project/"+af.Name] = string(af.Data)
	}
	env := Env{Home: "/home/user", Workspace: "/home/user/project", ReadScript: func(p string) (string, error) {
		if s, ok := files[p]; ok {
			return s, nil
		}
		return "", shellparse.ErrNoScript
	}}
	var cmds, flagged []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmds = append(cmds, line)
		res := p.Evaluate(call.Call{Kind: call.KindShell, Tool: "Bash", Command: line, Cwd: "/home/user/project"}, env)
		if res.Decision >= call.Ask {
			flagged = append(flagged, res.Decision.String()+": "+line+" ("+ruleReason(res.Rule)+res.Cause+")")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cmds) < 200 {
		t.Fatalf("only %d everyday commands; the set shrank", len(cmds))
	}
	limit := len(cmds) * 2 / 100
	t.Logf("%d of %d everyday commands ask or deny (limit %d):\n%s", len(flagged), len(cmds), limit, strings.Join(flagged, "\n"))
	if len(flagged) > limit {
		t.Errorf("%d of %d everyday commands ask or deny, more than 2 %% (%d)", len(flagged), len(cmds), limit)
	}
}
