package e2e

// Qwen Code (@qwen-code/qwen-code) headless against the fake model. Facts used (its bundled
// docs, bundled/qc-helper/docs/, 0.24.4: configuration/auth.md, features/hooks.md,
// configuration/settings.md, configuration/trusted-folders.md):
//   - OpenAI-compatible auth from OPENAI_API_KEY, OPENAI_BASE_URL, OPENAI_MODEL with
//     --auth-type openai (chat completions at <base>/chat/completions);
//   - hooks are on by default, in Claude Code's format, in .qwen/settings.json; project hooks
//     load only in a trusted folder, and folder trust is off by default (every folder trusted);
//   - --approval-mode yolo approves every tool, so only the hook can stop a call;
//   - -o json prints the session's messages with session_id; --resume <id> resumes it.

import (
	"path/filepath"
	"regexp"
)

var qwenAgent = &agent{
	name: "qwen", provider: "qwen",
	prepare: func(c *caseEnv) error {
		return writeFile(filepath.Join(c.Home, ".qwen", "settings.json"), `{
  "general": {"enableAutoUpdate": false},
  "privacy": {"usageStatisticsEnabled": false},
  "telemetry": {"enabled": false},
  "security": {"auth": {"selectedType": "openai"}}
}
`)
	},
	standinHooks: func(c *caseEnv, hookCmd string) error {
		return writeFile(filepath.Join(c.Proj, ".qwen", "settings.json"), claudeStyleHooks("PreToolUse", "*", hookCmd))
	},
	command: func(c *caseEnv, prompt, resume string) ([]string, []string) {
		argv := []string{"qwen", "-p", prompt, "-o", "json", "--approval-mode", "yolo", "--auth-type", "openai"}
		if resume != "" {
			argv = append(argv, "--resume", resume)
		}
		env := append(baseEnv(c),
			"OPENAI_BASE_URL="+fakeBaseURL+"/v1", "OPENAI_API_KEY=sk-fake", "OPENAI_MODEL=qwen3-coder-plus",
			"QWEN_USAGE_STATISTICS_ENABLED=0")
		return argv, env
	},
	sessionID: func(out []byte) string {
		if m := regexp.MustCompile(`"(?:session_id|sessionId)"\s*:\s*"([^"]+)"`).FindSubmatch(out); m != nil {
			return string(m[1])
		}
		return ""
	},
	hookFiles: func(c *caseEnv) []string {
		return []string{filepath.Join(c.Proj, ".qwen", "settings.json"), filepath.Join(c.Home, ".qwen", "settings.json")}
	},
	eventsByInstall: true, // PreToolUse, PostToolUse, UserPromptSubmit, SessionStart
}
