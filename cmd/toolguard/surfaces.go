package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/policy"
)

// agentFiles are the hook settings files toolguard knows beyond the ones
// install writes (install.SettingsPath): the files doctor reads
// (internal/install/doctor.go Inspect), relative to the project directory
// (project) or the home directory (user), and whether each is a directory
// of hook files. Kept in step with Inspect by TestSurfacesCoverDoctor.
var agentFiles = []struct {
	rel     string
	project bool
	tree    bool
}{
	{".claude/settings.json", true, false}, {".claude/settings.local.json", true, false},
	{".claude/settings.json", false, false}, {".claude/settings.local.json", false, false},
	{".codebuddy/settings.json", true, false}, {".codebuddy/settings.local.json", true, false},
	{".codebuddy/settings.json", false, false}, {".codebuddy/settings.local.json", false, false},
	{".codex/hooks.json", true, false}, {".codex/config.toml", true, false},
	{".codex/hooks.json", false, false}, {".codex/config.toml", false, false},
	{".gemini/settings.json", true, false}, {".gemini/settings.json", false, false},
	{".cursor/hooks.json", true, false}, {".cursor/hooks.json", false, false},
	{".github/hooks", true, true}, {".github/copilot/settings.json", true, false}, {".github/copilot/settings.local.json", true, false},
	{".copilot/hooks", false, true}, {".copilot/settings.json", false, false}, {".copilot/config.json", false, false},
	{".qwen/settings.json", true, false}, {".qwen/settings.json", false, false},
	// opencode: any plugin there runs before or instead of toolguard's, and the config can
	// list more (its "plugin" key)
	{".opencode/plugins", true, true}, {".opencode/plugin", true, true},
	{"opencode.json", true, false}, {"opencode.jsonc", true, false}, {".opencode/opencode.json", true, false}, {".opencode/opencode.jsonc", true, false},
	{".config/opencode/plugins", false, true}, {".config/opencode/plugin", false, true},
	{".config/opencode/opencode.json", false, false}, {".config/opencode/opencode.jsonc", false, false},
	// the agents whose codecs come from their documentation (docs/agents.md): the
	// files and directories it names for their hooks
	{".windsurf/hooks.json", true, false}, {".codeium/windsurf/hooks.json", false, false}, {".codeium/hooks.json", false, false},
	{".agents/hooks.json", true, false}, {".gemini/config/hooks.json", false, false},
	{".kiro/agents", true, true}, {".kiro/agents", false, true}, {".kiro/hooks", true, true}, {".kiro/hooks", false, true},
	{".devin/hooks.v1.json", true, false},
}

// managedDirs hold the agents' managed (system-wide) settings, which can
// switch hooks off for every user of the machine.
var managedDirs = []string{
	"/etc/claude-code", "/Library/Application Support/ClaudeCode",
	"/etc/codex",
	"/etc/gemini-cli", "/Library/Application Support/GeminiCli",
	"/etc/cursor", "/Library/Application Support/Cursor",
	"/etc/windsurf",
}

// hookProviders are the providers whose settings files install knows.
var hookProviders = []string{"claude-code", "codebuddy", "codex", "gemini", "cursor", "copilot", "qwen", "opencode", "windsurf"}

// surfaces derives the guard's own surfaces from the configuration in
// effect (docs/surfaces.md): every agent hook-settings file toolguard
// knows (user, project at the workspace root, managed), every policy file
// in effect and every place a policy is discovered, the config and state
// directories (policies, approver key, requests, grants, trust records,
// lock, audit log), the running binary and the toolguard binary each
// installed hook command names. Reading the hook commands costs a read of each
// settings file that exists; see docs/surfaces.md for the figure.
func surfaces(sys *system, f *decideFlags, ps *policySet, workspace, project string) []policy.Surface {
	home := sys.home()
	cleanHome, cleanWS := cleanAbs(home), cleanAbs(workspace) // for the Tree test below
	out := make([]policy.Surface, 0, 128)
	seen := make(map[string]bool, 128)
	addSurface := func(s policy.Surface) {
		if s.Path == "" || !filepath.IsAbs(s.Path) {
			return
		}
		s.Path = filepath.Clean(s.Path)
		if s.Tree && (s.Path == "/" || holds(s.Path, cleanHome) || holds(s.Path, cleanWS)) {
			// A state_dir of "/" or "~" would make every write a locked
			// deny: a directory that holds the home or the project is
			// protected as itself, not as everything below it.
			s.Tree = false
		}
		key := s.Path
		if s.Tree {
			key += "/"
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, s)
		}
	}
	add := func(p string, tree, secret bool) { addSurface(policy.Surface{Path: p, Tree: tree, Secret: secret}) }
	addBinary := func(p string) { addSurface(policy.Surface{Path: p, Binary: true}) }
	bases := map[bool][]string{false: {home}, true: {workspace}}
	if project != workspace {
		bases[true] = append(bases[true], project)
	}
	if d := sys.getenv("CLAUDE_CONFIG_DIR"); d != "" {
		add(filepath.Join(d, "settings.json"), false, false)
		add(filepath.Join(d, "settings.local.json"), false, false)
	}
	if d := sys.getenv("CODEX_HOME"); d != "" {
		add(filepath.Join(d, "hooks.json"), false, false)
		add(filepath.Join(d, "config.toml"), false, false)
	}
	// The files install writes the hook into are read for the binary the
	// hook command names (below); the others doctor reads are protected
	// but not read: an open per file is most of what this costs.
	var hookFiles []string
	for _, pr := range hookProviders {
		for _, dir := range bases[true] {
			if p, err := install.SettingsPath(pr, install.ScopeProject, dir, home); err == nil {
				add(p, false, false)
				hookFiles = append(hookFiles, p)
			}
		}
		if p, err := install.SettingsPath(pr, install.ScopeUser, "", home); err == nil {
			add(p, false, false)
			hookFiles = append(hookFiles, p)
		}
	}
	for _, a := range agentFiles {
		for _, dir := range bases[a.project] {
			if dir != "" {
				add(filepath.Join(dir, filepath.FromSlash(a.rel)), a.tree, false)
			}
		}
	}
	for _, d := range managedDirs {
		add(d, true, false)
	}

	// Policies: the files in effect and every discovery location.
	for _, p := range ps.files {
		add(p, false, false)
	}
	for _, dir := range bases[true] {
		for _, p := range discoveryPaths(sys, dir) {
			add(filepath.Dir(p.path), true, false) // .toolguard/, ~/.config/toolguard/, /etc/toolguard/
		}
	}
	if home != "" {
		add(filepath.Join(home, ".config", "toolguard"), true, false)
	}
	cfg := sys.getenv("XDG_CONFIG_HOME")
	if cfg == "" && home != "" {
		cfg = filepath.Join(home, ".config")
	}
	if cfg != "" {
		add(filepath.Join(cfg, "toolguard", "approver.key"), false, true)
		// serve's bearer tokens: a hook token read by the agent is no
		// approval, but an approver line added by hand would be.
		add(filepath.Join(cfg, "toolguard", "serve.tokens"), false, true)
		// serve's one-time sign-in link when its stderr is not a terminal
		// (serve_system.go): an approver's session for whoever reads it.
		add(filepath.Join(cfg, "toolguard", "serve.login"), false, true)
	}
	// State: requests, grants, trust records, lock, audit log — where the
	// flags or settings put them (stateDir, auditPath; they look up the
	// working directory, so only when they are set) and where they are by
	// default.
	if x := sys.getenv("XDG_STATE_HOME"); x != "" {
		add(filepath.Join(x, "toolguard"), true, false)
	}
	if home != "" {
		add(filepath.Join(home, ".local", "state", "toolguard"), true, false)
	}
	if f.stateDir != "" || ps.pol != nil && ps.pol.Settings.StateDir != "" {
		add(stateDir(sys, f.stateDir, ps.pol), true, false)
	}
	if f.auditLog != "" || ps.pol != nil && ps.pol.Settings.AuditLog != "" {
		add(auditPath(sys, f, ps.pol), false, false)
	}
	// Remote approvals (headless_remote.go): the server's socket — moved aside,
	// with the agent listening in its place, the agent would sit between
	// the hook and the server — and the hook's token file.
	if ps.pol != nil {
		if p, ok := strings.CutPrefix(ps.pol.Settings.ApprovalURL, "unix://"); ok {
			add(p, false, false)
		}
		if p := ps.pol.Settings.ApprovalTokenFile; p != "" {
			cwd, _ := sys.getwd()
			add(absFrom(cwd, expandTilde(p, home)), false, false)
		}
	}

	// Binaries: the running one (and its target), and the one each
	// installed hook command names.
	if exe, err := sys.executable(); err == nil && exe != "" {
		addBinary(exe)
		addBinary(filepath.Join(filepath.Dir(exe), serveBinary+filepath.Ext(exe)))
		if r, err := filepath.EvalSymlinks(exe); err == nil && r != exe {
			addBinary(r)
			addBinary(filepath.Join(filepath.Dir(r), serveBinary+filepath.Ext(r)))
		}
	}
	for _, file := range hookFiles {
		bins, exists := hookBinaries(file, workspace)
		for _, bin := range bins {
			addBinary(bin)
		}
		// A settings file reached through a symbolic link (a dotfiles
		// checkout linked into ~/.claude) is also protected where the link
		// points: a write there names no link. Only the files that exist
		// are looked at, one Lstat for the file and one for its directory.
		if exists && linked(file) {
			if r := resolveExisting(file); r != file {
				add(r, false, false)
			}
		}
	}
	return out
}

// selfNames are the names a command runs toolguard under besides
// "toolguard": toolguard-serve, the same program with serve built in
// (serve.go), which runs every subcommand — the one beside this binary,
// which `toolguard serve` runs, is a binary surface like this one — and
// the running binary's own name when it was renamed.
func selfNames(sys *system) []string {
	names := []string{serveBinary}
	if exe, err := sys.executable(); err == nil && exe != "" {
		if n := programName(exe); n != "toolguard" && n != "" && n != serveBinary {
			names = append(names, n)
		}
	}
	return names
}

// cleanAbs is p cleaned when it is absolute, else "".
func cleanAbs(p string) string {
	if !filepath.IsAbs(p) {
		return ""
	}
	return filepath.Clean(p)
}

// holds is above for clean absolute paths (p may be ""): a string
// comparison, where above's filepath.Rel was a tenth of what surfaces
// cost a call.
func holds(dir, p string) bool {
	if p == "" {
		return false
	}
	if runtime.GOOS == "windows" { // case-insensitive, volume names: Rel knows
		return above(dir, p)
	}
	return p == dir || dir == "/" || strings.HasPrefix(p, dir) && p[len(dir)] == '/'
}

// above reports whether dir is p or a directory above it.
func above(dir, p string) bool {
	if p == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// linked reports whether p or its directory is a symbolic link.
func linked(p string) bool {
	for _, q := range []string{p, filepath.Dir(p)} {
		if st, err := os.Lstat(q); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return true
		}
	}
	return false
}

// programName is the name a shell command running the file at p has:
// its base name, lower case, without .exe.
func programName(p string) string {
	return strings.TrimSuffix(strings.ToLower(filepath.Base(p)), ".exe")
}

// hookBinaries returns the toolguard binaries the hook commands of a
// settings file name by path (a bare `toolguard` is looked up on PATH by
// the agent, which the running binary stands for), and whether the file
// could be read. A missing or broken file names none.
func hookBinaries(file, workspace string) (bins []string, exists bool) {
	provider := providerOf(file)
	if provider == "" {
		return nil, false
	}
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, false
	}
	cmds, ok := toolguardStrings(provider, data)
	if !ok {
		if cmds, err = install.ExtractCommands(provider, data); err != nil {
			return nil, true
		}
	}
	for _, c := range cmds {
		if !install.IsToolguardCommand(c) {
			continue
		}
		words := strings.Fields(c)
		for i := 0; i+1 < len(words); i++ {
			if words[i+1] != "hook" {
				continue
			}
			w := words[i]
			if strings.ContainsAny(w, `"'`) {
				w = stripQuotes.Replace(w) // "$CLAUDE_PROJECT_DIR"/bin/toolguard
			}
			if strings.Contains(w, "$") {
				for _, v := range []string{"CLAUDE_PROJECT_DIR", "CODEBUDDY_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR"} {
					w = strings.NewReplacer("${"+v+"}", workspace, "$"+v, workspace).Replace(w)
				}
			}
			if programName(w) != "toolguard" || !strings.ContainsAny(w, `/\`) {
				continue
			}
			bins = append(bins, argPath(w, workspace, ""))
		}
	}
	return bins, true
}

// toolguardStrings returns, without parsing the file, every JSON string
// literal of a settings file that holds "toolguard" (in any case): a
// superset of the hook commands install.ExtractCommands finds that can
// run toolguard, whose word naming it holds those letters as they are in
// the file. Not ok — parse the file — when that does not hold: a TOML or
// plugin file, a \u escape (letters written as escapes), or an "args"
// key (an exec-form command is several strings). Parsing is most of what
// a settings file costs a call that tests a path.
func toolguardStrings(provider string, data []byte) (strs []string, ok bool) {
	if provider == "opencode" || provider == "codex" && !bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) ||
		bytes.Contains(data, []byte(`\u`)) || bytes.Contains(data, []byte(`"args"`)) {
		return nil, false
	}
	lower := bytes.Clone(data) // ASCII case only: no other letter lowers to one of toolguard's
	for i, c := range lower {
		if 'A' <= c && c <= 'Z' {
			lower[i] = c + 'a' - 'A'
		}
	}
	for from := 0; ; {
		i := bytes.Index(lower[from:], []byte("toolguard"))
		if i < 0 {
			return strs, true
		}
		i += from
		from = i + len("toolguard")
		start, end := stringAround(data, i)
		if start < 0 {
			continue // not inside a string literal (a comment)
		}
		var s string
		if json.Unmarshal(data[start:end+1], &s) == nil {
			strs = append(strs, s)
		}
		from = end + 1
	}
}

// stringAround returns the quotes of the JSON string literal holding
// data[i], or -1 when no literal on its line holds it.
func stringAround(data []byte, i int) (start, end int) {
	quote := func(j int) bool { // an unescaped quote
		n := 0
		for k := j - 1; k >= 0 && data[k] == '\\'; k-- {
			n++
		}
		return data[j] == '"' && n%2 == 0
	}
	start = -1
	for j := i - 1; j >= 0 && data[j] != '\n'; j-- {
		if quote(j) {
			start = j
			break
		}
	}
	for j := i; start >= 0 && j < len(data) && data[j] != '\n'; j++ {
		if quote(j) {
			return start, j
		}
	}
	return -1, -1
}

// stripQuotes takes the shell quotes out of a hook command's word.
var stripQuotes = strings.NewReplacer(`"`, "", `'`, "")

// providerOf names the provider whose format a settings file is in.
func providerOf(file string) string {
	slash := filepath.ToSlash(file)
	for _, k := range []struct{ part, provider string }{
		{"/.claude/", "claude-code"}, {"/.codebuddy/", "codebuddy"}, {"/.codex/", "codex"},
		{"/.gemini/", "gemini"}, {"/.cursor/", "cursor"}, {"/.copilot/", "copilot"}, {"/.github/copilot/", "copilot"},
		{"/.qwen/", "qwen"}, {"/.opencode/plugins/", "opencode"}, {"/opencode/plugins/", "opencode"},
	} {
		if strings.Contains(slash, k.part) {
			return k.provider
		}
	}
	return ""
}
