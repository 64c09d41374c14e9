package e2e

// opencode (opencode-ai) headless against the fake model, guarded by toolguard's plugin
// (`toolguard install --provider opencode` writes .opencode/plugins/toolguard.js; opencode
// loads every file of that directory at startup). Facts used (opencode 1.18.33: `opencode run
// --help`, the environment variables its binary reads, opencode.ai/docs/plugins and
// /docs/providers):
//   - a custom provider in the config with npm "@ai-sdk/openai-compatible" (bundled in the
//     binary, nothing is downloaded) and options.baseURL speaks chat completions to the fake;
//   - OPENCODE_DISABLE_MODELS_FETCH (no models.dev), OPENCODE_DISABLE_AUTOUPDATE,
//     OPENCODE_DISABLE_DEFAULT_PLUGINS (no npm plugin installs), OPENCODE_DISABLE_LSP_DOWNLOAD,
//     OPENCODE_DISABLE_SHARE keep it off the network; npm_config_registry points the
//     dependency install it runs in each config dir at startup at the fake (a 404);
//   - `opencode run --format json --auto` runs headless and approves every permission, so only
//     the plugin can stop a call; `--session <id>` continues a session (its id is the
//     sessionID of the JSON events).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var opencodeAgent = &agent{
	name: "opencode", provider: "opencode",
	prepare: func(c *caseEnv) error {
		return writeFile(filepath.Join(c.Home, ".config", "opencode", "opencode.json"), fmt.Sprintf(`{
  "$schema": "https://opencode.ai/config.json",
  "autoupdate": false,
  "share": "disabled",
  "model": "fake/fake-model",
  "provider": {
    "fake": {
      "npm": "@ai-sdk/openai-compatible",
      "name": "fake",
      "options": {"baseURL": "%s/v1", "apiKey": "sk-fake"},
      "models": {"fake-model": {"name": "fake-model", "tool_call": true, "limit": {"context": 128000, "output": 8192}}}
    }
  },
  "permission": {"edit": "allow", "bash": "allow", "webfetch": "allow", "external_directory": "allow"}
}
`, fakeBaseURL))
	},
	standinHooks: func(c *caseEnv, hookCmd string) error {
		src, err := standinPlugin(hookCmd)
		if err != nil {
			return err
		}
		return writeFile(filepath.Join(c.Proj, ".opencode", "plugins", "toolguard.js"), string(src))
	},
	command: func(c *caseEnv, prompt, resume string) ([]string, []string) {
		argv := []string{"opencode", "run", "--format", "json", "--auto"}
		if resume != "" {
			argv = append(argv, "--session", resume)
		}
		argv = append(argv, prompt)
		env := append(baseEnv(c),
			"XDG_CONFIG_HOME="+filepath.Join(c.Home, ".config"), "XDG_DATA_HOME="+filepath.Join(c.Home, ".local", "share"),
			"XDG_CACHE_HOME="+filepath.Join(c.Home, ".cache"), "XDG_STATE_HOME="+filepath.Join(c.Home, ".local", "state"),
			"OPENCODE_DISABLE_MODELS_FETCH=1", "OPENCODE_DISABLE_AUTOUPDATE=1", "OPENCODE_DISABLE_DEFAULT_PLUGINS=1",
			"OPENCODE_DISABLE_LSP_DOWNLOAD=1", "OPENCODE_DISABLE_SHARE=1", "OPENCODE_DISABLE_CLAUDE_CODE=1",
			// opencode installs @opencode-ai/plugin into every config dir at startup and waits
			// for it (about 70 s until the fetch gives up in the namespace); the fake answers 404
			"npm_config_registry="+fakeBaseURL+"/npm/")
		return argv, env
	},
	sessionID: func(out []byte) string {
		if m := regexp.MustCompile(`"sessionI[Dd]"\s*:\s*"([^"]+)"`).FindSubmatch(out); m != nil {
			return string(m[1])
		}
		return ""
	},
	hookFiles: func(c *caseEnv) []string {
		return []string{filepath.Join(c.Proj, ".opencode", "plugins", "toolguard.js"), filepath.Join(c.Home, ".config", "opencode", "opencode.json")}
	},
	noEvents: "opencode has no prompt or session event toolguard answers (its plugin hooks only tool.execute.before)",
}

// standinPlugin is toolguard's own plugin (hooks/opencode/toolguard.js, what install writes)
// running hookCmd instead of toolguard: the probes of e2e/conformance_test.go then measure
// what the plugin does with a hook that exits 1, crashes, prints garbage or runs too long.
func standinPlugin(hookCmd string) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join("..", "hooks", "opencode", "toolguard.js"))
	if err != nil {
		return nil, err
	}
	const line = `const COMMAND = "toolguard hook --provider opencode";`
	if !strings.Contains(string(src), line) {
		return nil, fmt.Errorf("hooks/opencode/toolguard.js has no %s", line)
	}
	return []byte(strings.Replace(string(src), line, "const COMMAND = "+jsonString(hookCmd)+";", 1)), nil
}
