package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// AgentStatus is what Inspect found for one agent.
type AgentStatus struct {
	Agent         string   `json:"agent"`          // provider name (claude-code, …) or opencode, cline
	Detected      bool     `json:"detected"`       // a user or project configuration of the agent exists
	SettingsFiles []string `json:"settings_files"` // the settings and hook files that exist and were read
	Guarded       bool     `json:"guarded"`        // a pre-tool hook of the agent runs `toolguard hook`
	Commands      []string `json:"commands"`       // the toolguard command lines found, each once
	// Enforceable is false for agents a command hook cannot guard.
	Enforceable bool   `json:"enforceable"`
	Note        string `json:"note,omitempty"` // caveats, unreadable files, disabled hooks; "" if none
	// Disabled: a settings file switches the agent's hooks off
	// (disableAllHooks, allowManagedHooksOnly, hooksConfig.enabled = false, …).
	Disabled bool `json:"disabled,omitempty"`
	// Hooks are the pre-tool hook entries that run toolguard, or look like
	// they do (`X hook --provider P` with X named otherwise): doctor runs
	// each to find out.
	Hooks []HookRef `json:"hooks,omitempty"`
	// CodexTrust (codex only): "untrusted" when no config.toml holds a hook
	// trust record ([hooks.state."…"] trusted_hash), "unknown" when some do
	// (their keys and hashes are Codex's own and are not matched to the
	// toolguard hook here), "" for other agents.
	CodexTrust string `json:"codex_trust,omitempty"`
}

// HookRef is one pre-tool hook entry: its command line, where and under
// which event it is configured, and whether its program is named toolguard.
type HookRef struct {
	Command string `json:"command"`
	File    string `json:"file"`
	Event   string `json:"event"`
	Named   bool   `json:"named_toolguard"`
}

// LooksLikeHook reports a command line of the shape `X hook --provider …`
// whatever X is called: a renamed toolguard, or something posing as one.
func LooksLikeHook(cmd string) bool {
	words := splitWords(cmd)
	for i := 0; i+2 < len(words); i++ {
		if words[i+1] == "hook" && (words[i+2] == "--provider" || strings.HasPrefix(words[i+2], "--provider=")) {
			return true
		}
	}
	return false
}

// source is one file an agent reads hooks from, in the format of provider.
type source struct {
	path     string
	provider string   // format used to read it
	events   []string // pre-tool events that count as guarding
	via      string   // non-empty: the file belongs to another agent (for notes)
}

type probe struct {
	agent   string
	detect  []string // directories or files whose existence means "detected"
	sources []source
	// thirdParty files count only as a note (Cursor's Claude-hooks switch
	// cannot be seen from here).
	thirdParty []source
}

// Inspect reports, for each supported agent (Windsurf from its documentation;
// opencode through toolguard's plugin, opencode.go) and for Cline, which
// toolguard cannot guard, whether it is set up on this
// machine and whether a pre-tool hook runs toolguard. home or project may be
// "" to skip that side. Inspect never fails: unreadable files are named in
// the Note.
func Inspect(home, project string) []AgentStatus {
	h := func(p string) string { return join(home, p) }
	pr := func(p string) string { return join(project, p) }
	claudeEv := []string{"PreToolUse"}
	claudeFiles := func(provider string) []source {
		return []source{
			{h(".claude/settings.json"), provider, claudeEv, ""},
			{pr(".claude/settings.json"), provider, claudeEv, ""},
			{pr(".claude/settings.local.json"), provider, claudeEv, ""},
		}
	}
	copilotEv := []string{"preToolUse", "PreToolUse"}
	copilot := []source{}
	for _, dir := range []string{pr(".github/hooks"), h(".copilot/hooks")} {
		for _, f := range globJSON(dir) {
			copilot = append(copilot, source{f, "copilot", copilotEv, ""})
		}
	}
	for _, f := range []string{pr(".github/copilot/settings.json"), pr(".github/copilot/settings.local.json"), h(".copilot/settings.json")} {
		copilot = append(copilot, source{f, "copilot", copilotEv, ""})
	}
	for _, s := range claudeFiles("claude-code") {
		if s.path != h(".claude/settings.json") {
			s.events, s.via = copilotEv, "Claude Code settings"
			copilot = append(copilot, s)
		}
	}
	cursorEv := []string{"preToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile"}
	windsurfEv := []string{"pre_run_command", "pre_write_code", "pre_mcp_tool_use", "pre_read_code"}
	probes := []probe{
		{agent: "claude-code", detect: []string{h(".claude"), pr(".claude")}, sources: claudeFiles("claude-code")},
		{agent: "codebuddy", detect: []string{h(".codebuddy"), pr(".codebuddy")}, sources: []source{
			{h(".codebuddy/settings.json"), "codebuddy", claudeEv, ""},
			{pr(".codebuddy/settings.json"), "codebuddy", claudeEv, ""},
			{pr(".codebuddy/settings.local.json"), "codebuddy", claudeEv, ""},
		}},
		{agent: "codex", detect: []string{h(".codex"), pr(".codex")}, sources: []source{
			{h(".codex/hooks.json"), "codex", claudeEv, ""},
			{h(".codex/config.toml"), "codex", claudeEv, ""},
			{pr(".codex/hooks.json"), "codex", claudeEv, ""},
			{pr(".codex/config.toml"), "codex", claudeEv, ""},
		}},
		{agent: "gemini", detect: []string{h(".gemini"), pr(".gemini")}, sources: []source{
			{h(".gemini/settings.json"), "gemini", []string{"BeforeTool"}, ""},
			{pr(".gemini/settings.json"), "gemini", []string{"BeforeTool"}, ""},
		}},
		{agent: "cursor", detect: []string{h(".cursor"), pr(".cursor")}, sources: []source{
			{h(".cursor/hooks.json"), "cursor", cursorEv, ""},
			{pr(".cursor/hooks.json"), "cursor", cursorEv, ""},
		}, thirdParty: claudeFiles("claude-code")},
		{agent: "copilot", detect: []string{h(".copilot"), pr(".github/hooks"), pr(".github/copilot")}, sources: copilot},
		{agent: "qwen", detect: []string{h(".qwen"), pr(".qwen")}, sources: []source{
			{h(".qwen/settings.json"), "qwen", claudeEv, ""},
			{pr(".qwen/settings.json"), "qwen", claudeEv, ""},
		}},
		// Windsurf Cascade, from its documentation; the system-level
		// /etc/windsurf/hooks.json is not read.
		{agent: "windsurf", detect: []string{h(".codeium/windsurf"), pr(".windsurf")}, sources: []source{
			{h(".codeium/windsurf/hooks.json"), "windsurf", windsurfEv, ""},
			{h(".codeium/hooks.json"), "windsurf", windsurfEv, ""}, // JetBrains plugin
			{pr(".windsurf/hooks.json"), "windsurf", windsurfEv, ""},
		}},
	}
	var out []AgentStatus
	for _, p := range probes {
		out = append(out, p.run())
	}
	out = append(out, opencodeStatus(home, project)) // opencode.go: toolguard's plugin
	out = append(out, unguardable("cline",
		[]string{pr(".clinerules"), h("Documents/Cline")},
		"policy not enforced: toolguard does not speak Cline's hook protocol"))
	return out
}

func (p probe) run() AgentStatus {
	st := AgentStatus{Agent: p.agent, Enforceable: true, Detected: anyExists(p.detect)}
	var notes []string
	disabled := false
	for _, s := range p.sources {
		if s.path == "" {
			continue
		}
		data, err := readFileIfExists(s.path)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", s.path, err))
			continue
		}
		if data == nil {
			continue
		}
		st.SettingsFiles = append(st.SettingsFiles, s.path)
		root, err := parseSettings(s.provider, data)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s:%v", s.path, err))
			continue
		}
		if why := hooksDisabled(p.agent, root); why != "" {
			notes = append(notes, fmt.Sprintf("%s: %s", s.path, why))
			disabled = true
		}
		for _, r := range hooksIn(root) {
			if !slices.Contains(s.events, r.event) {
				continue
			}
			named := IsToolguardCommand(r.command)
			if named || LooksLikeHook(r.command) {
				st.Hooks = append(st.Hooks, HookRef{Command: r.command, File: s.path, Event: r.event, Named: named})
			}
			if !named {
				continue
			}
			st.Guarded = true
			if w := PathLookup(r.command); w != "" {
				notes = append(notes, fmt.Sprintf("%s: the hook runs %q, found through PATH (or the agent's cwd): whichever toolguard comes first there runs, or none; use an absolute path (toolguard install writes one)", s.path, w))
			}
			if !slices.Contains(st.Commands, r.command) {
				st.Commands = append(st.Commands, r.command)
			}
			if r.matcher != "" && r.matcher != "*" && r.matcher != ".*" {
				notes = append(notes, fmt.Sprintf("%s: toolguard runs only for tools matching %q", s.path, r.matcher))
			}
			if s.via != "" {
				notes = append(notes, fmt.Sprintf("guarded through %s (%s)", s.via, s.path))
			}
		}
	}
	if disabled {
		st.Guarded = false
		st.Disabled = true
	}
	if p.agent == "codex" {
		var tomls []string
		for _, s := range p.sources {
			if strings.HasSuffix(s.path, "config.toml") {
				tomls = append(tomls, s.path)
			}
		}
		st.CodexTrust = codexTrust(tomls)
		if st.Guarded {
			switch st.CodexTrust {
			case "untrusted":
				notes = append(notes, "Codex trust: no hook trust record in config.toml, so Codex skips the hook: open `codex`, run /hooks and trust it (any edit of the command makes it untrusted again)")
			default:
				notes = append(notes, "Codex trust: unknown (config.toml holds hook trust records, not matched to this hook here); Codex runs the hook only after it is trusted in /hooks")
			}
		}
	}
	if !st.Guarded && st.Detected {
		for _, s := range p.thirdParty {
			data, err := readFileIfExists(s.path)
			if err != nil || data == nil {
				continue
			}
			if cmds, err := ExtractCommands(s.provider, data); err == nil && slices.ContainsFunc(cmds, IsToolguardCommand) {
				notes = append(notes, fmt.Sprintf("%s runs toolguard, but Cursor uses it only when third-party hooks are enabled", s.path))
				break
			}
		}
	}
	return finish(st, notes)
}

func finish(st AgentStatus, notes []string) AgentStatus {
	var uniq []string
	for _, n := range notes {
		if !slices.Contains(uniq, n) {
			uniq = append(uniq, n)
		}
	}
	st.Note = strings.Join(uniq, "; ")
	return st
}

// hooksDisabled returns why a settings file turns all hooks off, or "".
func hooksDisabled(agent string, root *object) string {
	switch agent {
	case "claude-code", "codebuddy", "copilot", "qwen":
		if v, _ := root.get("disableAllHooks"); v == true {
			return "disableAllHooks is true: no hook runs"
		}
		if v, _ := root.get("allowManagedHooksOnly"); v == true {
			return "allowManagedHooksOnly is true: only hooks from managed settings run, not this user or project hook"
		}
	case "gemini":
		v, _ := root.get("hooksConfig")
		hc, ok := v.(*object)
		if !ok {
			return ""
		}
		if en, _ := hc.get("enabled"); en == false {
			return "hooksConfig.enabled is false: no hook runs"
		}
		if d, _ := hc.get("disabled"); d != nil {
			if arr, ok := d.([]any); ok && slices.Contains(arr, any("toolguard")) {
				return `hooksConfig.disabled lists "toolguard"`
			}
		}
	case "codex":
		v, _ := root.get("features")
		f, ok := v.(*object)
		if !ok {
			return ""
		}
		for _, k := range []string{"hooks", "codex_hooks"} {
			if en, _ := f.get(k); en == false {
				return fmt.Sprintf("[features] %s = false: no hook runs", k)
			}
		}
	}
	return ""
}

// codexTrust reads the hook trust records ([hooks.state."<key>"] with a
// trusted_hash) of Codex's config.toml files: "untrusted" when there are
// none, "unknown" when there are some.
func codexTrust(files []string) string {
	for _, f := range files {
		data, err := readFileIfExists(f)
		if err != nil || data == nil {
			continue
		}
		var m struct {
			Hooks struct {
				State map[string]map[string]any `toml:"state"`
			} `toml:"hooks"`
		}
		if _, err := toml.Decode(string(data), &m); err != nil {
			return "unknown"
		}
		for _, rec := range m.Hooks.State {
			if _, ok := rec["trusted_hash"]; ok {
				return "unknown"
			}
		}
	}
	return "untrusted"
}

func unguardable(agent string, detect []string, note string) AgentStatus {
	st := AgentStatus{Agent: agent, Detected: anyExists(detect)}
	if st.Detected {
		st.Note = note
	}
	return st
}

// join is filepath.Join that keeps "" meaning "no such side".
func join(base, rel string) string {
	if base == "" {
		return ""
	}
	return filepath.Join(base, filepath.FromSlash(rel))
}

func anyExists(paths []string) bool {
	for _, p := range paths {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return true
		}
	}
	return false
}

// globJSON lists dir/*.json, sorted; none when dir is "" or missing. Backups
// and editor leftovers do not end in .json and are skipped.
func globJSON(dir string) []string {
	if dir == "" {
		return nil
	}
	m, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	slices.Sort(m)
	return m
}

// readFileIfExists returns nil, nil for a missing file.
func readFileIfExists(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return nil, pe.Err // the caller names the file
	}
	return data, err
}
