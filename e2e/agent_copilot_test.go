package e2e

// GitHub Copilot CLI (@github/copilot) headless against the fake model, through its BYOK
// provider settings (`copilot help providers`, `copilot help environment`, 1.0.102):
//   - COPILOT_PROVIDER_BASE_URL + COPILOT_MODEL switch it to a custom OpenAI-compatible
//     provider (chat completions at <base>/chat/completions); no GitHub login is needed;
//   - COPILOT_OFFLINE=true: no GitHub authentication, telemetry, web tools, GitHub MCP
//     server or auto-update;
//   - COPILOT_ALLOW_ALL=true (exactly "true"): every tool runs without confirmation AND the
//     working directory is trusted, which is what loads its .github/hooks/*.json in -p mode.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

var copilotAgent = &agent{
	name: "copilot", provider: "copilot",
	prepare: func(c *caseEnv) error { return os.MkdirAll(filepath.Join(c.Home, ".copilot"), 0o755) },
	standinHooks: func(c *caseEnv, hookCmd string) error {
		// Copilot reads a flat permissionDecision: the stand-in's reply gets one, with its reason.
		// pipefail (the field is run by bash): the conformance probes measure the hook's own
		// exit status, not sed's.
		cmd := "set -o pipefail; " + hookCmd + ` | sed 's/"reason":/"permissionDecision":"deny","permissionDecisionReason":/'`
		return writeFile(filepath.Join(c.Proj, ".github", "hooks", "toolguard.json"),
			`{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":`+jsonString(cmd)+`,"timeoutSec":30}]}}`)
	},
	command: func(c *caseEnv, prompt, resume string) ([]string, []string) {
		argv := []string{"copilot", "-p", prompt, "--output-format", "json", "--allow-all-tools",
			"--disable-builtin-mcps", "--no-auto-update", "--disable-client-telemetry"}
		if resume != "" {
			argv = append(argv, "--resume", resume)
		}
		env := append(baseEnv(c),
			"COPILOT_PROVIDER_BASE_URL="+fakeBaseURL+"/v1", "COPILOT_PROVIDER_API_KEY=sk-fake",
			"COPILOT_MODEL=gpt-4.1", "COPILOT_OFFLINE=true", "COPILOT_ALLOW_ALL=true",
			"COPILOT_AUTO_UPDATE=false", "NO_COLOR=1")
		return argv, env
	},
	sessionID: func(out []byte) string {
		for _, l := range strings.Split(string(out), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) != nil {
				continue
			}
			for _, k := range []string{"sessionId", "session_id"} {
				if s := asString(m[k]); s != "" {
					return s
				}
				if s := asString(asMap(m["data"])[k]); s != "" {
					return s
				}
			}
		}
		return ""
	},
	hookFiles: func(c *caseEnv) []string {
		return []string{filepath.Join(c.Proj, ".github", "hooks", "toolguard.json"), filepath.Join(c.Home, ".copilot", "config.json")}
	},
	noEvents: "toolguard does not answer Copilot's prompt/session events (docs/agents.md); the deny reason still reaches the model",
}
