package policy_test

import (
	"fmt"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
)

// Load merges the embedded defaults with the layers given, in order; a
// project layer here adds one rule.
func ExampleLoad() {
	project := policy.Source{Path: "/w/.toolguard/policy.toml", Data: []byte(`version = 1

[[rule]]
id = "proj-deploy"
description = "Deploys go through CI."
decision = "ask"
justification = "Deploys run in CI; ask the user before deploying by hand."
command = ["make deploy"]
`)}
	p, err := policy.Load([]policy.Source{project}, policy.LoadOptions{Home: "/home/u"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	for _, l := range p.Layers {
		fmt.Println("layer", l.Name, l.File)
	}
	res := p.Evaluate(call.Call{Kind: call.KindShell, Shell: "bash", Cwd: "/w", Command: "make deploy"}, policy.Env{Home: "/home/u", Workspace: "/w"})
	fmt.Println("make deploy:", res.Decision, res.Rule.ID, res.Rule.Layer)
	// Output:
	// layer builtin internal/policy/defaults.toml
	// layer policy /w/.toolguard/policy.toml
	// make deploy: ask proj-deploy policy
}

// Evaluate decides one normalized call: the decision, the rule behind it
// and each target.
func ExamplePolicy_Evaluate() {
	p, err := policy.Load(nil, policy.LoadOptions{Home: "/home/u"})
	if err != nil {
		fmt.Println("error:", err)
		return
	}
	env := policy.Env{Home: "/home/u", Workspace: "/w"}
	for _, cmd := range []string{"git status", "cd sub && git push --force origin main"} {
		res := p.Evaluate(call.Call{Provider: "claude-code", Tool: "Bash", Kind: call.KindShell, Shell: "bash", Cwd: "/w", Command: cmd}, env)
		rule := "-"
		if res.Rule != nil {
			rule = res.Rule.ID
		}
		fmt.Printf("%s: %s (%s)\n", cmd, res.Decision, rule)
	}
	res := p.Evaluate(call.Call{Provider: "claude-code", Tool: "Write", Kind: call.KindWrite, Cwd: "/w",
		Paths: []call.Path{{Path: "/w/.github/workflows/ci.yml", Op: call.OpWrite}}}, env)
	fmt.Printf("write .github/workflows/ci.yml: %s (%s)\n", res.Decision, res.Rule.ID)
	// Output:
	// git status: pass (-)
	// cd sub && git push --force origin main: deny (git-push-force)
	// write .github/workflows/ci.yml: ask (ci-workflow-write)
}
