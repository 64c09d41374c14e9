package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// Scopes accepted by Options.Scope and SettingsPath.
const (
	ScopeProject = "project"
	ScopeUser    = "user"
)

// HookTimeout is the timeout Install pins on every hook entry whose agent
// has a timeout field (all six): three times the hook's own deadline of
// 10 s (cmd/toolguard, docs/limits.md), so that toolguard answers — with
// on_error at worst — before the agent gives up on it, which most agents
// treat as an allow; and no longer than the shortest agent default
// (Copilot 30 s).
const HookTimeout = 30 * time.Second

// The timeout in each agent's unit.
const (
	timeoutSeconds = int(HookTimeout / time.Second)
	timeoutMillis  = int(HookTimeout / time.Millisecond)
)

// agent describes where and how one provider's hook is configured.
type agent struct {
	name    string   // canonical provider name
	project string   // settings file, relative to the project directory
	user    string   // settings file, relative to the home directory
	events  []string // events Install writes toolguard's handler into
	// extra are the prompt, session and post-tool events (docs/agents.md)
	// Install adds the same command to, so that decisions on approval
	// requests reach the model and approved calls' results are recorded.
	extra []extraEvent
	// flat files list handlers directly under the event (Cursor, Copilot,
	// with "version": 1); the others nest them in matcher groups.
	flat bool
	// unversioned flat files have no "version" key (Windsurf).
	unversioned bool
	matcher     string // matcher of a new group; "" = no matcher key
	handler     func(cmd string) *object
	owned       bool // the file is toolguard's own (Copilot's toolguard.json)
	// failClosed is the handler key and value that make the agent block
	// the call when the hook cannot answer (crash, timeout, bad output).
	// Install sets it where the per-agent table says so
	// (internal/protocol/conformance.go, FailClosedInstall): Cursor's
	// failClosed (documented); Claude Code's onFailure, which blocks from
	// 2.1.295 (measured on 2.1.332) and is ignored, the hook still running,
	// by the pinned 2.1.197.
	failClosed []any
	notes      func(scope string) []string
}

// extraEvent is one of an agent's non-pre-tool events and the matcher of
// a new group for it ("" = no matcher key).
type extraEvent struct{ name, matcher string }

func num(n int) json.Number { return json.Number(fmt.Sprint(n)) }

func claudeHandler(cmd string) *object {
	return obj("type", "command", "command", cmd, "timeout", num(timeoutSeconds))
}

var agents = []*agent{
	{
		name:       "claude-code",
		project:    ".claude/settings.json",
		user:       ".claude/settings.json",
		events:     []string{"PreToolUse"},
		extra:      []extraEvent{{"PostToolUse", "*"}, {"PostToolUseFailure", "*"}, {"UserPromptSubmit", ""}, {"SessionStart", ""}},
		matcher:    "*",
		handler:    claudeHandler,
		failClosed: []any{"onFailure", "block"},
		notes: func(string) []string {
			return []string{"Claude Code reads hooks when a session starts: restart running sessions (check with /hooks)."}
		},
	},
	{
		name:    "codebuddy",
		project: ".codebuddy/settings.json",
		user:    ".codebuddy/settings.json",
		events:  []string{"PreToolUse"},
		extra:   []extraEvent{{"PostToolUse", "*"}, {"UserPromptSubmit", ""}, {"SessionStart", ""}},
		matcher: "*",
		handler: claudeHandler,
		notes: func(string) []string {
			return []string{"CodeBuddy snapshots hooks at startup: restart running sessions and review the change in /hooks."}
		},
	},
	{
		// Codex: hooks.json beside config.toml (same layer), so config.toml
		// is never rewritten. No matcher: omitted means every tool in all
		// Codex versions, while "*" relies on newer matcher handling.
		name:    "codex",
		project: ".codex/hooks.json",
		user:    ".codex/hooks.json",
		events:  []string{"PreToolUse"},
		extra:   []extraEvent{{"PostToolUse", ""}, {"UserPromptSubmit", ""}, {"SessionStart", ""}},
		handler: claudeHandler,
		notes: func(string) []string {
			return []string{
				"Codex silently skips hooks it does not trust: open `codex`, run /hooks and trust the toolguard hook " +
					"(or pass --dangerously-bypass-hook-trust for a one-off run). Any edit of the hook command makes it untrusted again.",
				"Codex runs hooks by default from 0.124; older versions need `[features] hooks = true` " +
					"(`codex_hooks` before 0.129) in config.toml.",
			}
		},
	},
	{
		name:    "gemini",
		project: ".gemini/settings.json",
		user:    ".gemini/settings.json",
		events:  []string{"BeforeTool"},
		extra:   []extraEvent{{"AfterTool", ".*"}, {"BeforeAgent", ""}, {"SessionStart", ""}},
		matcher: "*",
		handler: func(cmd string) *object {
			return obj("name", "toolguard", "type", "command", "command", cmd, "timeout", num(timeoutMillis))
		},
		notes: func(scope string) []string {
			n := []string{"Gemini CLI hook timeouts are in milliseconds (30000 = 30 s); hooks run unless hooksConfig.enabled is false."}
			if scope == ScopeProject {
				n = append(n, "Gemini CLI fingerprints project hooks: it warns about the new or changed toolguard hook on the next start; the project folder must be trusted.")
			}
			return n
		},
	},
	{
		// Cursor: preToolUse covers every tool in current Cursor;
		// beforeShellExecution and beforeMCPExecution keep shell and MCP calls
		// guarded in builds that predate preToolUse. When both fire for one
		// call, toolguard decides the same way twice (at worst an ask shows
		// twice). beforeReadFile is left out: it honours only allow/deny and
		// current Cursor sends reads through preToolUse.
		name:       "cursor",
		project:    ".cursor/hooks.json",
		user:       ".cursor/hooks.json",
		events:     []string{"preToolUse", "beforeShellExecution", "beforeMCPExecution"},
		flat:       true,
		handler:    func(cmd string) *object { return obj("command", cmd, "timeout", num(timeoutSeconds)) },
		failClosed: []any{"failClosed", true},
		notes: func(scope string) []string {
			n := []string{"Cursor reloads hooks.json on save; check Settings > Hooks if the hook does not show up."}
			if scope == ScopeProject {
				n = append(n, "Cursor runs project hooks only in trusted workspaces.")
			}
			return n
		},
	},
	{
		name:    "copilot",
		project: ".github/hooks/toolguard.json",
		user:    ".copilot/hooks/toolguard.json",
		events:  []string{"preToolUse"},
		flat:    true,
		owned:   true,
		handler: func(cmd string) *object {
			return obj("type", "command", "bash", cmd, "timeoutSec", num(timeoutSeconds))
		},
		notes: func(scope string) []string {
			if scope == ScopeProject {
				return []string{"Copilot CLI loads repository hooks (.github/hooks) only after you trust the folder; in -p mode only if it was trusted before."}
			}
			return nil
		},
	},
	{
		// Qwen Code took Claude Code's hook protocol (PreToolUse with matcher
		// groups, hookSpecificOutput replies) into Gemini CLI's settings
		// layout; its timeouts are in milliseconds (docs/agents.md).
		name:    "qwen",
		project: ".qwen/settings.json",
		user:    ".qwen/settings.json",
		events:  []string{"PreToolUse"},
		extra:   []extraEvent{{"PostToolUse", "*"}, {"UserPromptSubmit", ""}, {"SessionStart", ""}},
		matcher: "*",
		handler: func(cmd string) *object {
			return obj("type", "command", "command", cmd, "timeout", num(timeoutMillis))
		},
		notes: func(scope string) []string {
			if scope == ScopeProject {
				return []string{"Qwen Code loads project hooks only in a trusted folder (folder trust is off by default); check with /hooks."}
			}
			return nil
		},
	},
	{
		// Windsurf Cascade (also Devin Desktop), FROM ITS DOCUMENTATION, NOT
		// PROVEN WITH THE REAL CLIENT (docs.windsurf.com/windsurf/cascade/hooks):
		// {"hooks": {"<action>": [{"command", "show_output"}]}}, one flat list per
		// pre-hook action. The documentation names no timeout field, so none is
		// written. show_output shows the block reason in Cascade's UI.
		name:        "windsurf",
		project:     ".windsurf/hooks.json",
		user:        ".codeium/windsurf/hooks.json",
		events:      []string{"pre_run_command", "pre_write_code", "pre_read_code", "pre_mcp_tool_use"},
		flat:        true,
		unversioned: true,
		handler:     func(cmd string) *object { return obj("command", cmd, "show_output", true) },
		notes: func(string) []string {
			return []string{
				"Windsurf merges system (/etc/windsurf/hooks.json), user and workspace hooks.json; a pre-hook blocks with exit 2. " +
					"Written from Windsurf's documentation, not proven with the real client (docs/agents.md).",
				"Cascade sends no cwd with file and MCP actions: toolguard takes the workspace from the hook's working directory.",
			}
		},
	},
}

// manualOnly are providers toolguard has a codec for but does not install:
// their hook configuration is not documented clearly enough to edit it
// (hooks/<provider>/README.md has the entry to add by hand).
var manualOnly = map[string]string{
	"antigravity": "Antigravity CLI's hooks.json schema is documented inconsistently",
	"kiro":        "Kiro CLI hooks live in an agent configuration file (or, in Kiro CLI 3, in .kiro/hooks/)",
	"devin":       "Devin CLI's .devin/hooks.v1.json is not proven with the real client",
}

// lookup returns the agent for a provider name or alias.
func lookup(provider string) (*agent, error) {
	switch provider {
	case "claude":
		provider = "claude-code"
	case "qwen-code":
		provider = "qwen"
	}
	for _, a := range agents {
		if a.name == provider {
			return a, nil
		}
	}
	if provider == "agy" {
		provider = "antigravity"
	}
	if why, ok := manualOnly[provider]; ok {
		return nil, fmt.Errorf("toolguard install does not support %s: %s; add the hook by hand as hooks/%s/README.md shows", provider, why, provider)
	}
	return nil, fmt.Errorf("unknown provider %q (want claude-code, codebuddy, codex, gemini, cursor, copilot, qwen, opencode or windsurf)", provider)
}

// SettingsPath returns the file Install edits for provider in scope
// ("project", the default when empty, or "user"): a path under dir for the
// project scope and under home for the user scope.
func SettingsPath(provider, scope, dir, home string) (string, error) {
	if isPlugin(provider) {
		return pluginPath(scope, dir, home) // opencode.go
	}
	a, err := lookup(provider)
	if err != nil {
		return "", err
	}
	return a.path(scope, dir, home)
}

func (a *agent) path(scope, dir, home string) (string, error) {
	switch scope {
	case "", ScopeProject:
		if dir == "" {
			return "", errors.New("project scope needs a project directory")
		}
		return filepath.Join(dir, filepath.FromSlash(a.project)), nil
	case ScopeUser:
		if home == "" {
			return "", errors.New("user scope needs a home directory")
		}
		return filepath.Join(home, filepath.FromSlash(a.user)), nil
	}
	return "", fmt.Errorf("unknown scope %q (want project or user)", scope)
}
