// Package policygen generates the inputs of toolguard's benchmarks: a
// large, realistic policy layer, a large shell command and the hook
// payloads that are timed. The policy and
// hook benchmarks and tools/hookbench share it, so that every figure in
// docs/performance.md is measured on the same policy.
package policygen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
)

// Payload is one Claude Code hook payload that the benchmarks time.
type Payload struct {
	Name string // shell-git-status, shell-push-force, write, mcp, shell-1MiB
	Data []byte
}

// Payloads are the hook inputs every benchmark times, for a project at
// proj: a shell pass, a shell denial, a file write, an MCP call and a
// 1 MiB command.
func Payloads(proj string) []Payload {
	mk := func(tool string, input any) []byte {
		b, err := json.Marshal(map[string]any{
			"session_id": "bench", "transcript_path": "/dev/null", "cwd": proj,
			"permission_mode": "default", "hook_event_name": "PreToolUse",
			"tool_name": tool, "tool_input": input, "tool_use_id": "toolu_bench",
		})
		if err != nil {
			panic(err) // maps of strings always marshal
		}
		return b
	}
	return []Payload{
		{"shell-git-status", mk("Bash", map[string]string{"command": "git status"})},
		{"shell-push-force", mk("Bash", map[string]string{"command": "git push --force origin main"})},
		{"write", mk("Write", map[string]string{"file_path": proj + "/src/main.go", "content": "package main\n"})},
		{"mcp", mk("mcp__github__create_issue", map[string]string{"owner": "acme", "repo": "widgets", "title": "Flaky test"})},
		{"shell-1MiB", mk("Bash", map[string]string{"command": LargeCommand(1 << 20)})},
	}
}

// LargeCommand returns a shell command of about n bytes: a chain of short,
// ordinary commands.
func LargeCommand(n int) string {
	var sb strings.Builder
	for i := 0; sb.Len() < n; i++ {
		if i > 0 {
			sb.WriteString(" && ")
		}
		fmt.Fprintf(&sb, "echo line-%d >> out/log-%d.txt", i, i%97)
	}
	return sb.String()
}

// TOML returns a realistic policy layer of n rules: an
// organisation's command rules over a few hundred programs and their
// subcommands (some with args, argument exclusions or a regex), path rules
// over many service trees, MCP and web rules, and a few glob-named and
// bare-regex rules that every command has to be tested against.
func TOML(n int) string {
	rng := rand.New(rand.NewPCG(9, 9))
	real := []string{"git", "npm", "yarn", "pnpm", "docker", "kubectl", "helm", "terraform", "aws", "gcloud",
		"az", "make", "cargo", "go", "python3", "pip", "psql", "mysql", "redis-cli", "ssh", "scp", "rsync",
		"curl", "wget", "systemctl", "journalctl", "apt-get", "brew", "gh", "jq"}
	programs := append([]string(nil), real...)
	for i := 0; len(programs) < 400; i++ {
		programs = append(programs, fmt.Sprintf("corp-tool-%d", i))
	}
	subs := []string{"deploy", "delete", "apply", "rollback", "publish", "migrate", "drop", "exec", "run",
		"push", "release", "destroy", "scale", "restart", "login", "rotate", "purge", "sync", "import", "export"}
	flags := []string{"--force", "--prod", "--all", "--yes", "-y", "--no-verify", "--recursive", "--purge", "--dry-run=false", "--cascade"}
	decisions := []string{"deny", "ask", "ask", "allow"}
	dec := func() string { return decisions[rng.IntN(len(decisions))] }

	var sb strings.Builder
	sb.WriteString("version = 1\n\n[settings]\nlayer = \"org\"\n")
	rule := func(i int, kind, body string) {
		fmt.Fprintf(&sb, "\n[[rule]]\nid = \"org-%s-%05d\"\ndescription = \"Generated %s rule %d.\"\ndecision = %q\njustification = \"Org policy %d: ask the platform team.\"\n%s",
			kind, i, kind, i, dec(), i, body)
	}
	for i := 0; i < n; i++ {
		switch k := i % 100; {
		case k < 55: // program + subcommand, often with args
			prog := programs[rng.IntN(len(programs))]
			body := fmt.Sprintf("command = [\"%s %s\"]\n", prog, subs[rng.IntN(len(subs))])
			if rng.IntN(3) > 0 {
				body += fmt.Sprintf("args = [%q, %q]\n", flags[rng.IntN(len(flags))], flags[rng.IntN(len(flags))])
			}
			if rng.IntN(10) == 0 {
				body += fmt.Sprintf("args_none = [%q]\n", "--dry-run")
			}
			rule(i, "cmd", body)
		case k < 62: // program + regex on the command line
			prog := programs[rng.IntN(len(programs))]
			rule(i, "re", fmt.Sprintf("command = [%q]\nregex = '(?i)\\b(prod|production)-%d\\b'\n", prog, rng.IntN(1000)))
		case k < 82: // path rules over service trees
			svc := rng.IntN(2000)
			pats := []string{
				fmt.Sprintf("services/svc-%d/secrets/**", svc),
				fmt.Sprintf("services/svc-%d/deploy/*.yaml", svc),
				fmt.Sprintf("/srv/data/svc-%d/**", svc),
			}
			body := fmt.Sprintf("path = [%q, %q]\n", pats[rng.IntN(3)], pats[rng.IntN(3)])
			if rng.IntN(2) == 0 {
				body += "op = [\"write\", \"delete\"]\n"
			}
			rule(i, "path", body)
		case k < 94: // MCP tools
			rule(i, "mcp", fmt.Sprintf("mcp = [\"corp-mcp-%d/%s_*\"]\n", rng.IntN(300), subs[rng.IntN(len(subs))]))
		case k < 98: // web domains
			rule(i, "web", fmt.Sprintf("tool = \"web\"\ndomain = [\"*.internal-%d.example.com\"]\n", rng.IntN(1000)))
		case k < 99: // glob-named programs: tested against every command
			rule(i, "glob", fmt.Sprintf("command = [\"corp-%d-* %s\"]\n", rng.IntN(100), subs[rng.IntN(len(subs))]))
		default: // bare regex: tested against every command
			rule(i, "bare", fmt.Sprintf("regex = 'SECRET_%d_[A-Z0-9]{16}'\n", rng.IntN(100000)))
		}
	}
	return sb.String()
}

// ProjectTOML is a small project policy, as a repository would keep at
// .toolguard/policy.toml (15 lines): two asks, a deny on a path and an
// allow. None of them matches a timed payload, so every configuration
// gives the same decisions as the defaults alone.
const ProjectTOML = `version = 1

[[rule]]
id = "proj-deploy"
description = "Deploying from a laptop goes through the release job."
decision = "ask"
justification = "Deploys run in CI; ask the user before deploying by hand."
command = ["make deploy", "./scripts/deploy.sh"]

[[rule]]
id = "proj-fixtures"
description = "Golden fixtures are regenerated, not edited."
decision = "deny"
path = ["testdata/golden/**"]
op = ["write", "delete"]
`

// PlatformTOML and AgentTOML are the other two layers of a platform +
// project + agent materialized file (with ProjectTOML in the middle).
const PlatformTOML = `version = 1

[settings]
layer = "platform"

[[rule]]
id = "platform-prod-db"
description = "Production databases are reached through the bastion only."
decision = "deny"
justification = "Use the read replica or ask the platform team."
command = ["psql", "mysql"]
regex = '(?i)\bprod(uction)?-db\b'

[[rule]]
id = "platform-terraform-apply"
description = "terraform apply changes shared infrastructure."
decision = "ask"
justification = "Run terraform plan and let the user apply."
command = ["terraform apply", "tofu apply"]
`

const AgentTOML = `version = 1

[settings]
layer = "agent"

[[rule]]
id = "agent-no-npm-publish"
description = "Agents do not publish packages."
decision = "deny"
justification = "Publishing is for the maintainers; ask the user."
command = ["npm publish", "pnpm publish", "yarn publish"]
`
