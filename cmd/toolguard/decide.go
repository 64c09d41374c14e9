package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
)

// decideFlags are the flags that shape a decision, shared by hook and check.
type decideFlags struct {
	policyFlags
	mode      string // --mode interactive|headless
	workspace string // --workspace DIR
	stateDir  string // --state-dir DIR
	auditLog  string // --audit-log FILE
	grantsDir string // --grants-dir DIR: signed grant files handed in (approvals.go)
	// dryRun (check, serve) says what headless mode would do with an ask
	// without touching the approval store: no request recorded, no grant used.
	dryRun bool
}

func (f *decideFlags) registerDecide(cmdFlags interface {
	StringVar(p *string, name, value, usage string)
}) {
	cmdFlags.StringVar(&f.mode, "mode", "", "interactive or headless (overrides the policy's mode)")
	cmdFlags.StringVar(&f.workspace, "workspace", "", "workspace root (default: the agent's project dir, else the git top level, else cwd)")
	cmdFlags.StringVar(&f.stateDir, "state-dir", "", "directory for pending approvals (default: settings.state_dir, else $XDG_STATE_HOME/toolguard)")
	cmdFlags.StringVar(&f.auditLog, "audit-log", "", "audit log file (default: settings.audit_log, else <state dir>/audit.jsonl)")
	cmdFlags.StringVar(&f.grantsDir, "grants-dir", "", "directory of signed grant files (approvals approve --grants-dir), may be read-only")
}

// outcome is one decided call, with everything the audit log records.
type outcome struct {
	call      call.Call
	codec     protocol.Codec
	res       *policy.Result
	verdict   call.Verdict
	ps        *policySet
	workspace string
	mode      policy.Mode
	approval  string // approval request id, if any
	held      bool   // the call waits for a human on its own pending request (headlessAskWithin)
	err       error  // why toolguard could not decide normally (on_error)
	started   time.Time
	env       policy.Env // what the call was evaluated with (pre-validation reads by it)
}

// decideCall evaluates a decoded call against the policy in effect and
// applies the mode: in headless mode (or for an agent without ask) an ask
// becomes a deny with a pending approval. project is callProject(c). ctx
// is the hook's deadline (cancelled when the watchdog has answered): past
// it nothing may be consumed.
func decideCall(ctx context.Context, sys *system, f *decideFlags, ps *policySet, codec protocol.Codec, c call.Call, project string) *outcome {
	o := &outcome{call: c, codec: codec, ps: ps, started: sys.now()}
	pol := ps.pol
	o.workspace = workspaceRoot(sys, f.workspace, pol.Settings.Workspace, &c, project)
	o.mode = pol.Settings.Mode
	if f.mode != "" {
		o.mode, _ = policy.ParseMode(f.mode) // validated by the command
	}
	env := policy.Env{
		Home:      sys.home(),
		Workspace: o.workspace,
		Resolve:   resolveExisting,
		Glob:      expandGlob,
		FoldCase:  foldCase(ps.pol),
	}
	env.Protected, env.SelfNames = surfaces(sys, f, ps, o.workspace, project)
	o.env = env // without ReadScript: what pre-validation and the script reader evaluate reads with
	env.ReadScript = scriptReader(pol, &c, o.env)
	o.res = pol.Evaluate(c, env)
	o.verdict = call.Verdict{Decision: o.res.Decision, Reason: o.res.Reason}
	if o.verdict.Decision == call.Ask && askRoute(o) != protocol.AskNative { // askfallback.go
		if f.dryRun {
			o.verdict = call.Verdict{Decision: call.Deny, Reason: o.verdict.Reason +
				" No human can answer here: the hook stops this call and records an approval request (check records none)."}
			return o
		}
		if err := ctx.Err(); err != nil {
			// The watchdog has answered (deny): consume no approval use.
			o.verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: %v", context.Cause(ctx))}
			return o
		}
		if pol.Settings.ApprovalURL != "" {
			remoteAsk(ctx, sys, o) // the approval server is the store (remoteask.go)
		} else {
			headlessAskWithin(ctx, sys, f, o)
		}
		deferIfChosen(o)
	}
	if !f.dryRun { // check and serve's /v1/check neither read nor spend a session's hold
		holdSession(ctx, sys, f, o) // approvals: a pending request or a stop holds the session (hold.go)
	}
	return o
}

// foldCase says whether protected paths match case-insensitively: on
// the case-insensitive file systems macOS and Windows use by default, and
// where settings.case_insensitive_paths says so.
func foldCase(pol *policy.Policy) bool {
	return runtime.GOOS == "darwin" || runtime.GOOS == "windows" || (pol != nil && pol.Settings.CaseInsensitivePaths)
}

// failed builds the outcome for a call toolguard could not decide: the
// on_error decision with the cause in the reason.
func failed(sys *system, codec protocol.Codec, ps *policySet, onError call.Decision, err error) *outcome {
	o := &outcome{codec: codec, ps: ps, err: err, started: sys.now()}
	o.verdict = call.Verdict{Decision: onError}
	if onError > call.Allow {
		o.verdict.Reason = fmt.Sprintf("toolguard: %v (on_error = %s)", err, onError)
	}
	return o
}

// workspaceRoot picks the workspace of a call: the flag, the setting, the
// agent's project directory (payload, then environment), the git top
// level above cwd, else cwd. project is callProject(c), which holds that
// last step already when the payload names no project directory.
func workspaceRoot(sys *system, flag, setting string, c *call.Call, project string) string {
	home := sys.home()
	for _, w := range []string{flag, setting, c.ProjectDir} {
		if w != "" {
			return filepath.Clean(argPath(w, c.Cwd, home))
		}
	}
	for _, name := range []string{"CLAUDE_PROJECT_DIR", "CODEBUDDY_PROJECT_DIR", "GEMINI_PROJECT_DIR", "DEVIN_PROJECT_DIR"} {
		if w := sys.getenv(name); w != "" && filepath.IsAbs(w) {
			return filepath.Clean(w)
		}
	}
	if c.Cwd == "" {
		return ""
	}
	return filepath.Clean(project)
}

// gitTop returns the nearest directory at or above dir that holds .git.
func gitTop(dir string) string {
	dir = filepath.Clean(dir)
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// an absolute path and keeps the rest as written.
func resolveExisting(p string) string {
	dir, rest := p, ""
	for i := 0; i < 256; i++ {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			if rest == "" {
				return r
			}
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		if rest == "" {
			rest = filepath.Base(dir)
		} else {
			rest = filepath.Join(filepath.Base(dir), rest)
		}
		dir = parent
	}
	return p
}

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
// installed hook command names. It also returns the names a renamed
// toolguard runs under. Reading the hook commands costs a read of each
// settings file that exists; see docs/surfaces.md for the figure.
func surfaces(sys *system, f *decideFlags, ps *policySet, workspace, project string) ([]policy.Surface, []string) {
	home := sys.home()
	var out []policy.Surface
	seen := map[string]bool{}
	addSurface := func(s policy.Surface) {
		if s.Path == "" || !filepath.IsAbs(s.Path) {
			return
		}
		s.Path = filepath.Clean(s.Path)
		if s.Tree && (s.Path == "/" || above(s.Path, home) || above(s.Path, workspace)) {
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
	// Remote approvals (remoteask.go): the server's socket — moved aside,
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
	// toolguard-serve is the same program with serve built in (serve.go):
	// it runs every subcommand, so it counts as toolguard by name, and
	// the one beside this binary, which `toolguard serve` runs, is
	// protected like this binary.
	names := []string{serveBinary}
	if exe, err := sys.executable(); err == nil && exe != "" {
		addBinary(exe)
		addBinary(filepath.Join(filepath.Dir(exe), serveBinary+filepath.Ext(exe)))
		if r, err := filepath.EvalSymlinks(exe); err == nil && r != exe {
			addBinary(r)
			addBinary(filepath.Join(filepath.Dir(r), serveBinary+filepath.Ext(r)))
		}
		if n := programName(exe); n != "toolguard" && n != "" && n != serveBinary {
			names = append(names, n)
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
	return out, names
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
	cmds, err := install.ExtractCommands(provider, data)
	if err != nil {
		return nil, true
	}
	for _, c := range cmds {
		if !install.IsToolguardCommand(c) {
			continue
		}
		words := strings.Fields(c)
		for i := 0; i+1 < len(words); i++ {
			w := strings.NewReplacer(`"`, "", `'`, "").Replace(words[i]) // "$CLAUDE_PROJECT_DIR"/bin/toolguard
			for _, v := range []string{"CLAUDE_PROJECT_DIR", "CODEBUDDY_PROJECT_DIR", "GEMINI_PROJECT_DIR", "CURSOR_PROJECT_DIR"} {
				w = strings.NewReplacer("${"+v+"}", workspace, "$"+v, workspace).Replace(w)
			}
			if words[i+1] != "hook" || programName(w) != "toolguard" || !strings.ContainsAny(w, `/\`) {
				continue
			}
			bins = append(bins, argPath(w, workspace, ""))
		}
	}
	return bins, true
}

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
