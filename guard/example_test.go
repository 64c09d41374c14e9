package guard_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/toolguard/toolguard/guard"
)

// A shell command, decided by the embedded defaults: every command the
// string would run is judged (here the force-push).
func Example_shellCommand() {
	pol, err := guard.Load(guard.Layers{})
	if err != nil {
		panic(err)
	}
	for _, cmd := range []string{"git status", "cd src && git push --force origin main"} {
		v, err := pol.Decide(context.Background(), guard.Shell(cmd, "/work/repo"), guard.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Println(strings.TrimSpace(cmd + ": " + v.Decision + " " + v.Rule))
	}
	// Output:
	// git status: pass
	// cd src && git push --force origin main: deny git-push-force
}

// A file write by an agent's Write tool: a CI workflow asks a human,
// ordinary source passes.
func Example_fileWrite() {
	pol, err := guard.Load(guard.Layers{})
	if err != nil {
		panic(err)
	}
	for _, path := range []string{"/work/repo/main.go", "/work/repo/.github/workflows/ci.yml"} {
		in, _ := json.Marshal(map[string]string{"file_path": path, "content": "x"})
		v, err := pol.Decide(context.Background(), guard.Call{Tool: "Write", Input: in, Cwd: "/work/repo"}, guard.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Println(strings.TrimSpace(path + ": " + v.Decision + " " + v.Rule))
	}
	// Output:
	// /work/repo/main.go: pass
	// /work/repo/.github/workflows/ci.yml: ask ci-workflow-write
}

// An MCP call, judged by a layer of the platform's own over the defaults:
// only sandbox repositories may be deleted.
func Example_mcpCall() {
	pol, err := guard.Load(guard.Layers{Texts: []guard.Text{{Name: "platform.toml", Text: `
version = 1

[[rule]]
id = "mcp-github-delete-repo"
decision = "deny"
justification = "Only repositories under sandbox/ may be deleted by an agent."
mcp = ["github/delete_repository"]
[[rule.input]]
field = "repo"
glob = "sandbox/*"
not = true
`}}})
	if err != nil {
		panic(err)
	}
	for _, repo := range []string{"acme/production", "sandbox/scratch"} {
		in, _ := json.Marshal(map[string]string{"repo": repo})
		v, err := pol.Decide(context.Background(), guard.Call{Tool: "mcp__github__delete_repository", Input: in}, guard.Options{})
		if err != nil {
			panic(err)
		}
		fmt.Println(strings.TrimSpace(repo + ": " + v.Decision + " " + v.Rule))
	}
	// Output:
	// acme/production: deny mcp-github-delete-repo
	// sandbox/scratch: pass
}

// A headless ask: no human can answer here, so the call is denied and an
// approval request is recorded in the state directory; once a human runs
// `toolguard approvals approve ID`, the identical call is allowed once.
func Example_headlessAsk() {
	state, err := os.MkdirTemp("", "toolguard-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(state)
	pol, err := guard.Load(guard.Layers{})
	if err != nil {
		panic(err)
	}
	in, _ := json.Marshal(map[string]string{"file_path": "/work/repo/.github/workflows/ci.yml", "content": "x"})
	c := guard.Call{Tool: "Write", Input: in, Cwd: "/work/repo", Session: "s1"}
	v, err := pol.Decide(context.Background(), c, guard.Options{Headless: true, StateDir: state})
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Decision, v.Rule, v.Approval != "")
	// Output:
	// deny ci-workflow-write true
}
