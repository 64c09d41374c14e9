package e2e

// One driver per agent CLI (ports of the reference run_claude.sh, run_codex.sh,
// run_gemini.sh, run_codebuddy.sh): the environment and flags that make each CLI run
// headless against the fake model, in its most permissive mode, so that only the hook can
// stop a tool call.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

type agent struct {
	name     string // subtest name
	provider string // toolguard --provider
	// prepare writes the CLI's own (non-hook) configuration into the case's HOME etc.
	prepare func(c *caseEnv) error
	// standinHooks writes a hand-made hook config that runs hookCmd (harness self-test only).
	standinHooks func(c *caseEnv, hookCmd string) error
	// command returns argv and env of one headless run; resume is a session id or "".
	command func(c *caseEnv, prompt, resume string) (argv, env []string)
	// sessionID extracts the session id from the CLI's stdout ("" if none).
	sessionID func(stdout []byte) string
	// hookFiles are the files where the hook config is expected (shown on failure).
	hookFiles func(c *caseEnv) []string
	// noEvents, when set, says why the prompt/session-event scenarios are skipped for this
	// agent (toolguard does not answer its events).
	noEvents string
	// eventsByInstall: `toolguard install` writes the prompt/session events for this agent,
	// so they are not added by hand (hitl_test.go addEventHooks).
	eventsByInstall bool
}

func baseEnv(c *caseEnv) []string {
	return []string{"PATH=" + c.s.path, "HOME=" + c.Home, "TERM=dumb", "LANG=C.UTF-8"}
}

func writeFile(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), 0o644)
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// claudeStyleHooks is the {"hooks":{"PreToolUse":[...]}} object of Claude Code / CodeBuddy /
// Codex hooks.json.
func claudeStyleHooks(event, matcher, cmd string) string {
	return fmt.Sprintf(`{"hooks":{%q:[{"matcher":%q,"hooks":[{"type":"command","command":%s}]}]}}`, event, matcher, jsonString(cmd))
}

var agents = []*agent{
	{
		name: "claude", provider: "claude-code",
		prepare: func(c *caseEnv) error { return os.MkdirAll(c.Home, 0o755) },
		standinHooks: func(c *caseEnv, hookCmd string) error {
			return writeFile(filepath.Join(c.Proj, ".claude", "settings.json"), claudeStyleHooks("PreToolUse", "Bash|Write|Edit|MultiEdit", hookCmd))
		},
		command: func(c *caseEnv, prompt, resume string) ([]string, []string) {
			argv := []string{"claude", "-p", prompt, "--output-format", "json", "--permission-mode", "bypassPermissions"}
			if resume != "" {
				argv = append(argv, "--resume", resume)
			}
			env := append(baseEnv(c),
				"ANTHROPIC_BASE_URL="+fakeBaseURL, "ANTHROPIC_API_KEY=sk-ant-fake-key",
				"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
				"DISABLE_ERROR_REPORTING=1", "DISABLE_BUG_COMMAND=1", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1",
				"IS_SANDBOX=1") // bypassPermissions is refused as root unless IS_SANDBOX=1
			return argv, env
		},
		sessionID: func(out []byte) string { return jsonField(out, "session_id") },
		hookFiles: func(c *caseEnv) []string {
			return []string{filepath.Join(c.Proj, ".claude", "settings.json"), filepath.Join(c.Proj, ".claude", "settings.local.json")}
		},
	},
	{
		name: "codex", provider: "codex",
		prepare: func(c *caseEnv) error {
			// A model_provider speaking the Responses API at the fake server; a built-in model
			// name (gpt-5.5) or Codex offers no apply_patch tool; the project is trusted so that
			// its .codex/ layer (where `toolguard install --scope project` puts the hook) loads.
			return writeFile(filepath.Join(c.CodexHome, "config.toml"), fmt.Sprintf(`model = "gpt-5.5"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"
check_for_update_on_startup = false

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_OPENAI_KEY"

[analytics]
enabled = false

[features]
plugins = false

[projects.%s]
trust_level = "trusted"
`, fakeBaseURL, jsonString(c.Proj)))
		},
		standinHooks: func(c *caseEnv, hookCmd string) error {
			return writeFile(filepath.Join(c.Proj, ".codex", "hooks.json"), claudeStyleHooks("PreToolUse", "Bash|apply_patch", hookCmd))
		},
		command: func(c *caseEnv, prompt, resume string) ([]string, []string) {
			argv := []string{"codex", "exec", "--json", "--skip-git-repo-check"}
			if c.codexBypassTrust {
				argv = append(argv, "--dangerously-bypass-hook-trust")
			}
			if resume != "" {
				argv = append(argv, "resume", resume)
			}
			argv = append(argv, prompt)
			env := append(baseEnv(c), "CODEX_HOME="+c.CodexHome, "FAKE_OPENAI_KEY=sk-fake", "RUST_LOG=warn")
			return argv, env
		},
		sessionID: func(out []byte) string {
			for _, l := range strings.Split(string(out), "\n") {
				var m map[string]any
				if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "thread.started" {
					return asString(m["thread_id"])
				}
			}
			return ""
		},
		hookFiles: func(c *caseEnv) []string {
			return []string{filepath.Join(c.Proj, ".codex", "hooks.json"), filepath.Join(c.Proj, ".codex", "config.toml"),
				filepath.Join(c.CodexHome, "config.toml"), filepath.Join(c.CodexHome, "hooks.json")}
		},
	},
	{
		name: "gemini", provider: "gemini",
		prepare: func(c *caseEnv) error {
			return writeFile(filepath.Join(c.Home, ".gemini", "settings.json"), `{
  "hooksConfig": {"enabled": true},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
  "security": {"auth": {"selectedType": "gemini-api-key"}}
}
`)
		},
		standinHooks: func(c *caseEnv, hookCmd string) error {
			return writeFile(filepath.Join(c.Proj, ".gemini", "settings.json"), claudeStyleHooks("BeforeTool", "run_shell_command|write_file|replace", hookCmd))
		},
		command: func(c *caseEnv, prompt, resume string) ([]string, []string) {
			argv := []string{"gemini", "-p", prompt, "--output-format", "json", "--approval-mode", "yolo"}
			if resume != "" {
				// --resume takes "latest" or an index; each case has its own HOME, so latest is ours
				argv = append(argv, "--resume", "latest")
			}
			env := append(baseEnv(c),
				"GOOGLE_GEMINI_BASE_URL="+fakeBaseURL, "GEMINI_API_KEY=fake-key",
				"GEMINI_CLI_TRUST_WORKSPACE=true", "GEMINI_CLI_NO_RELAUNCH=true")
			return argv, env
		},
		sessionID: func(out []byte) string { return jsonField(out, "session_id") },
		hookFiles: func(c *caseEnv) []string {
			return []string{filepath.Join(c.Proj, ".gemini", "settings.json"), filepath.Join(c.Home, ".gemini", "settings.json")}
		},
	},
	{
		name: "codebuddy", provider: "codebuddy",
		prepare: func(c *caseEnv) error { return os.MkdirAll(c.Home, 0o755) },
		standinHooks: func(c *caseEnv, hookCmd string) error {
			return writeFile(filepath.Join(c.Proj, ".codebuddy", "settings.json"), claudeStyleHooks("PreToolUse", "Bash|Write|Edit|MultiEdit", hookCmd))
		},
		command: func(c *caseEnv, prompt, resume string) ([]string, []string) {
			// CodeBuddy Code 2.117.0 ships inside @tencent-ai/agent-sdk; it talks OpenAI chat
			// completions to CODEBUDDY_BASE_URL/chat/completions.
			argv := []string{"node", filepath.Join(c.s.nodeDir, "node_modules", "@tencent-ai", "agent-sdk", "cli", "bin", "codebuddy"),
				"-p", prompt, "--output-format", "json", "--permission-mode", "bypassPermissions"}
			if resume != "" {
				argv = append(argv, "--resume", resume)
			}
			env := append(baseEnv(c),
				"CODEBUDDY_BASE_URL="+fakeBaseURL, "CODEBUDDY_API_KEY=fake-key",
				"CODEBUDDY_SKIP_BUILTIN_MARKETPLACE=1", "CODEBUDDY_REMOTE_CONFIG_DISABLED=1",
				"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "DISABLE_ERROR_REPORTING=1")
			return argv, env
		},
		sessionID: func(out []byte) string {
			if m := regexp.MustCompile(`"(?:sessionId|session_id)"\s*:\s*"([^"]+)"`).FindSubmatch(out); m != nil {
				return string(m[1])
			}
			return ""
		},
		hookFiles: func(c *caseEnv) []string {
			return []string{filepath.Join(c.Proj, ".codebuddy", "settings.json"), filepath.Join(c.Proj, ".codebuddy", "settings.local.json")}
		},
	},
	copilotAgent, qwenAgent, opencodeAgent, // agent_<name>_test.go
}

// jsonField returns a top-level string field of a JSON object printed on stdout.
func jsonField(out []byte, key string) string {
	var m map[string]any
	if json.Unmarshal(out, &m) == nil {
		return asString(m[key])
	}
	// tolerate noise around the object
	if i := strings.Index(string(out), "{"); i >= 0 {
		if json.Unmarshal(out[i:], &m) == nil {
			return asString(m[key])
		}
	}
	return ""
}
