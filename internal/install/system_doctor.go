package install

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// doctor --system (docs/install.md, "System mode"): proves, for one user,
// that no guard surface of a system install is writable by that user (or,
// for secrets, readable), asking the kernel with that user's credentials
// — a probe process started as the user calls access(2) on each path and
// each directory above it — rather than reading mode bits, so ACLs,
// group membership and mounts count as the kernel counts them. It also
// checks that each agent's managed hook is present and pinned fail-closed.

// Access is what a probe found for one path, as the user.
type Access struct {
	Exists bool `json:"exists"`
	Read   bool `json:"read"`
	Write  bool `json:"write"`
}

// ProbeAccess is the probe's work, run in a process with the user's
// credentials: access(2) for R_OK and W_OK on each path (the real uid is
// the user's there, so access answers for the user).
func ProbeAccess(paths []string) map[string]Access {
	out := make(map[string]Access, len(paths))
	for _, p := range paths {
		var a Access
		if _, err := os.Lstat(p); err == nil {
			a.Exists = true
		} else if !os.IsNotExist(err) {
			// Not even searchable: the user cannot see it, let alone write it.
			out[p] = a
			continue
		}
		if a.Exists {
			a.Read = accessible(p, 4)  // R_OK
			a.Write = accessible(p, 2) // W_OK
		}
		out[p] = a
	}
	return out
}

// ProbeAs runs prog (a toolguard binary or, in tests, a helper) with
// args as uid/gid and groups, feeding it paths as JSON on stdin and
// reading a map[string]Access as JSON from its stdout.
func ProbeAs(prog string, args []string, uid, gid uint32, groups []uint32) func([]string) (map[string]Access, error) {
	return func(paths []string) (map[string]Access, error) {
		return probeAs(prog, args, nil, uid, gid, groups, paths)
	}
}

// probeAsEnv is probeAs without supplementary groups (tests).
func probeAsEnv(prog string, args, env []string, uid, gid uint32, paths []string) (map[string]Access, error) {
	return probeAs(prog, args, env, uid, gid, nil, paths)
}

func probeAs(prog string, args, env []string, uid, gid uint32, groups []uint32, paths []string) (map[string]Access, error) {
	{
		in, _ := json.Marshal(paths)
		cmd := exec.Command(prog, args...)
		cmd.Stdin = bytes.NewReader(in)
		cmd.Env = append([]string{"PATH=/usr/bin:/bin"}, env...)
		cmd.Dir = "/"
		// Groups as given: the user's supplementary groups count (an
		// empty list is no supplementary group, not the caller's).
		if err := runAs(cmd, uid, gid, groups); err != nil {
			return nil, err
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("the access probe (%s as uid %d) failed: %v %s", prog, uid, err, strings.TrimSpace(stderr.String()))
		}
		var res map[string]Access
		out = bytes.TrimSpace(out)
		if i := bytes.LastIndexByte(out, '\n'); i >= 0 {
			out = out[i+1:] // the JSON is the last line
		}
		if err := json.Unmarshal(out, &res); err != nil {
			return nil, fmt.Errorf("the access probe answered %q: %v", capText(string(out)), err)
		}
		return res, nil
	}
}

// SystemDoctorOptions says whom to check and how.
type SystemDoctorOptions struct {
	Root  string // as SystemOptions.Root
	User  string // for messages
	UID   uint32
	Probe func(paths []string) (map[string]Access, error)
	// StateDir is the server's state directory (/var/lib/toolguard): its
	// audit log, and in toolguard/ (its XDG_CONFIG_HOME in the unit) the
	// approver key, tokens and sign-in link.
	StateDir string
	// ServerCheck, if set, says whether the server at a socket answers
	// and runs as another account than the user ("" = fine).
	ServerCheck func(socket string) string
	// ClaudeVersion is the installed Claude Code's version ("" = none
	// found; not checked).
	ClaudeVersion string
}

// SystemFinding is one problem doctor --system found.
type SystemFinding struct {
	Surface string `json:"surface"` // binary, settings, policy, socket, secret, state, hook, server, version
	Path    string `json:"path"`
	Problem string `json:"problem"`
	Fix     string `json:"fix"`
}

func (f SystemFinding) String() string {
	return fmt.Sprintf("%s %s: %s\n  fix: %s", f.Surface, f.Path, f.Problem, f.Fix)
}

// surface is a path to prove and how.
type surface struct {
	kind   string
	path   string // on the target system
	secret bool   // must not be readable either
	need   bool   // must exist
}

// Claude Code versions system mode relies on (PROTOCOLS §11.1).
const (
	ClaudeMinOnFailure = "2.1.295" // onFailure: "block"
	ClaudeMinSimple    = "2.1.281" // CLAUDE_CODE_SIMPLE, --bare no longer skip managed hooks
)

// SystemDoctor checks a system install for o.User. It returns the
// surfaces it checked (target paths) and what is wrong; an error only
// when it could not check at all.
func SystemDoctor(o SystemDoctorOptions) (checked []string, findings []SystemFinding, err error) {
	fsys := sysfs{o.Root}
	if o.StateDir == "" {
		o.StateDir = "/var/lib/toolguard"
	}
	add := func(f SystemFinding) { findings = append(findings, f) }
	man, err := readManifest(fsys)
	if err != nil {
		return nil, nil, err
	}
	providers := map[string]bool{}
	for _, e := range man.Entries {
		if e.Provider != "" {
			providers[e.Provider] = true
		}
	}
	if len(man.Entries) == 0 {
		add(SystemFinding{"install", SystemManifest, "no system install here", "toolguard install --system (as root)"})
		return nil, findings, nil
	}
	var surfaces []surface
	seen := map[string]bool{}
	push := func(s surface) {
		if !seen[s.path] {
			seen[s.path] = true
			surfaces = append(surfaces, s)
		}
	}
	push(surface{"binary", SystemBinary, false, true})
	push(surface{"policy", SystemPolicy, false, true})
	push(surface{"settings", SystemManifest, false, true})
	if _, ok, _ := fsys.readRegular(SystemServeBinary); ok {
		push(surface{"binary", SystemServeBinary, false, true})
	}
	// Every file the agents read hooks from at the system level, ours or
	// not: any of them can carry a hook, and a writable one is a hook the
	// user chooses.
	files := map[string][]string{
		"claude-code": append([]string{"/etc/claude-code/managed-settings.json"}, fsys.glob("/etc/claude-code/managed-settings.d/*.json")...),
		"codex":       {"/etc/codex/requirements.toml", "/etc/codex/config.toml", "/etc/codex/managed_config.toml"},
		"gemini":      append([]string{"/etc/gemini-cli/settings.json", "/etc/gemini-cli/system-defaults.json"}, fsys.glob("/etc/gemini-cli/policies/*.toml")...),
		"qwen":        {"/etc/qwen-code/settings.json"},
		"copilot":     append([]string{"/etc/github-copilot/managed-settings.json"}, fsys.glob("/etc/github-copilot/policy.d/*.json")...),
	}
	var hookCmds []string
	for _, p := range sortedKeys(files) {
		if !providers[p] {
			continue
		}
		for _, f := range files[p] {
			data, ok, rerr := fsys.readRegular(f)
			if rerr != nil {
				add(SystemFinding{"settings", f, rerr.Error(), "replace it with a regular root-owned 0644 file (toolguard install --system)"})
				continue
			}
			if !ok {
				continue
			}
			push(surface{"settings", f, false, false})
			if strings.HasSuffix(f, ".toml") && p != "codex" {
				continue // Gemini admin policies: rules, not hooks
			}
			if p == "claude-code" || p == "qwen" || p == "copilot" {
				// Another managed file of the same tier switching every hook
				// off (Claude merges its drop-ins; the last word may be it).
				if root, perr := parseSettings(p, data); perr == nil {
					if v, ok := getPath(root, "disableAllHooks"); ok && v == true {
						add(SystemFinding{"hook", f, "disableAllHooks is true in a system settings file: the managed hook does not run", "remove disableAllHooks from " + f})
					}
					if v, ok := getPath(root, "allowManagedHooksOnly"); ok && v == false && p == "claude-code" {
						add(SystemFinding{"hook", f, "allowManagedHooksOnly is false in a managed file: user and project hooks may rewrite approved calls", "remove allowManagedHooksOnly from " + f})
					}
				}
			}
			cmds, xerr := ExtractCommands(p, data)
			if xerr != nil {
				add(SystemFinding{"settings", f, "does not parse: " + xerr.Error(), "fix the file or reinstall: toolguard install --system"})
			}
			hookCmds = append(hookCmds, cmds...)
		}
		findings = append(findings, failClosedFindings(fsys, p)...)
	}
	// The binary and the policies each hook line names.
	for _, c := range hookCmds {
		words := splitWords(c)
		for i := 0; i+1 < len(words); i++ {
			if isToolguardProgram(words[i]) && words[i+1] == "hook" {
				if !filepath.IsAbs(words[i]) {
					add(SystemFinding{"binary", words[i], "a hook line runs toolguard through PATH, which the user can change", "toolguard install --system (writes " + SystemBinary + ")"})
				} else {
					push(surface{"binary", words[i], false, true})
				}
			}
			if words[i] == "--policy" && filepath.IsAbs(words[i+1]) {
				push(surface{"policy", words[i+1], false, true})
			}
		}
		if IsToolguardCommand(c) && !strings.Contains(c, "--policy") {
			add(SystemFinding{"policy", c, "the hook line pins no --policy: TOOLGUARD_POLICY and the user's own policy would be read", "toolguard install --system (pins " + SystemPolicy + ")"})
		}
	}
	// The server: its socket, and what it keeps.
	socket := policySocket(fsys, SystemPolicy)
	if socket != "" {
		push(surface{"socket", socket, false, false})
		push(surface{"state", o.StateDir, false, true})
		for _, f := range []string{"approver.key", "serve.tokens", "serve.login"} {
			push(surface{"secret", filepath.Join(o.StateDir, "toolguard", f), true, false})
		}
		push(surface{"state", filepath.Join(o.StateDir, "audit.jsonl"), false, false})
		if o.ServerCheck != nil {
			if p := o.ServerCheck(socket); p != "" {
				add(SystemFinding{"server", socket, p, "systemctl enable --now toolguard.socket (or start toolguard serve as the toolguard account)"})
			}
		}
	}

	// Ask the kernel, as the user, about each surface and every
	// directory above it (a writable directory replaces what it holds).
	var paths []string
	want := map[string][]surface{} // real path -> surfaces it stands for
	for _, s := range surfaces {
		real := fsys.path(s.path)
		if r, err := filepath.EvalSymlinks(real); err == nil && r != real {
			want[r] = append(want[r], s) // where a link leads is the surface too
			paths = append(paths, r)
		}
		want[real] = append(want[real], s)
		paths = append(paths, real)
		checked = append(checked, s.path)
	}
	dirs := map[string][]surface{}
	for _, p := range slices.Clone(paths) {
		for d := filepath.Dir(p); ; d = filepath.Dir(d) {
			if _, ok := dirs[d]; !ok {
				paths = append(paths, d)
			}
			dirs[d] = append(dirs[d], want[p]...)
			if d == "/" || d == "." {
				break
			}
		}
	}
	slices.Sort(paths)
	paths = slices.Compact(paths)
	got, err := o.Probe(paths)
	if err != nil {
		return checked, findings, err
	}
	shown := func(real string) string {
		if o.Root == "" || o.Root == "/" {
			return real
		}
		if rel, err := filepath.Rel(o.Root, real); err == nil && !strings.HasPrefix(rel, "..") {
			return "/" + rel
		}
		return real
	}
	for _, real := range slices.Sorted(mapsKeys(want)) {
		a := got[real]
		for _, s := range want[real] {
			switch {
			case !a.Exists && s.need:
				if _, err := os.Lstat(real); err != nil { // missing for root too
					add(SystemFinding{s.kind, shown(real), "missing", "toolguard install --system"})
				}
			case a.Write && s.kind == "socket":
				// Connecting needs write permission on the socket: every
				// local account may reach the server; what it may do there
				// is the server's (peer credentials). Its directory counts.
			case a.Write:
				add(SystemFinding{s.kind, shown(real), fmt.Sprintf("writable by %s", o.User), fixWrite(shown(real), s)})
			case s.secret && a.Read:
				add(SystemFinding{s.kind, shown(real), fmt.Sprintf("readable by %s", o.User), fmt.Sprintf("chown toolguard:toolguard %s && chmod 0600 %s", shown(real), shown(real))})
			}
		}
	}
	for _, d := range slices.Sorted(mapsKeys(dirs)) {
		a := got[d]
		if !a.Write {
			continue
		}
		if sticky(d) {
			// /tmp-like: the user may add entries but not replace others'.
			owned := false
			for p := range want {
				if filepath.Dir(p) == d && ownedBy(p, o.UID) {
					owned = true
				}
			}
			if !owned {
				continue
			}
		}
		s := dirs[d][0]
		add(SystemFinding{s.kind, shown(d), fmt.Sprintf("directory writable by %s, who can replace the %s below it (%s)", o.User, s.kind, s.path),
			fmt.Sprintf("chown root:root %s && chmod go-w %s", shown(d), shown(d))})
	}
	if o.ClaudeVersion != "" && providers["claude-code"] && versionLess(o.ClaudeVersion, ClaudeMinOnFailure) {
		add(SystemFinding{"version", "claude", fmt.Sprintf("Claude Code %s is older than %s: it ignores onFailure (a failing hook lets the call run)%s",
			o.ClaudeVersion, ClaudeMinOnFailure, map[bool]string{true: ", and before " + ClaudeMinSimple + " CLAUDE_CODE_SIMPLE or --bare skip the managed hook", false: ""}[versionLess(o.ClaudeVersion, ClaudeMinSimple)]),
			"npm install -g @anthropic-ai/claude-code@latest (as root)"})
	}
	return checked, findings, nil
}

func fixWrite(path string, s surface) string {
	if s.kind == "state" || s.kind == "secret" {
		return fmt.Sprintf("chown -R toolguard:toolguard %s && chmod -R go-rwx %s", path, path)
	}
	return fmt.Sprintf("chown root:root %s && chmod go-w %s", path, path)
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func sticky(d string) bool {
	fi, err := os.Stat(d)
	return err == nil && fi.Mode()&fs.ModeSticky != 0
}

func (s sysfs) glob(pattern string) []string {
	m, _ := filepath.Glob(s.path(pattern))
	out := make([]string, 0, len(m))
	for _, p := range m {
		if s.root != "" && s.root != "/" {
			p = "/" + strings.TrimPrefix(strings.TrimPrefix(p, s.root), "/")
		}
		out = append(out, p)
	}
	return out
}

// policySocket is the Unix socket of a policy's settings.approval_url.
func policySocket(fsys sysfs, p string) string {
	data, ok, err := fsys.readRegular(p)
	if err != nil || !ok {
		return ""
	}
	var doc struct {
		Settings struct {
			ApprovalURL string `toml:"approval_url"`
		} `toml:"settings"`
	}
	if _, err := toml.Decode(string(data), &doc); err != nil {
		return ""
	}
	s, _ := strings.CutPrefix(doc.Settings.ApprovalURL, "unix://")
	if s == doc.Settings.ApprovalURL {
		return ""
	}
	return s
}

// failClosedFindings checks that provider's managed hook is pinned the
// way PROTOCOLS §11 found it must be.
func failClosedFindings(fsys sysfs, provider string) []SystemFinding {
	var out []SystemFinding
	bad := func(path, problem string) {
		out = append(out, SystemFinding{"hook", path, problem, "toolguard install --system"})
	}
	switch provider {
	case "claude-code":
		p := systemFiles[provider]
		data, ok, _ := fsys.readRegular(p)
		if !ok {
			bad(p, "no managed Claude Code hook")
			return out
		}
		var v struct {
			AllowManagedHooksOnly bool `json:"allowManagedHooksOnly"`
			Hooks                 map[string][]struct {
				Matcher string `json:"matcher"`
				Hooks   []struct {
					Command   string `json:"command"`
					OnFailure string `json:"onFailure"`
				} `json:"hooks"`
			} `json:"hooks"`
		}
		if err := json.Unmarshal(data, &v); err != nil {
			bad(p, "does not parse: "+err.Error())
			return out
		}
		if !v.AllowManagedHooksOnly {
			bad(p, "allowManagedHooksOnly is not true: a user or project hook could rewrite an approved command")
		}
		found := false
		for _, g := range v.Hooks["PreToolUse"] {
			for _, h := range g.Hooks {
				if IsToolguardCommand(h.Command) && (g.Matcher == "*" || g.Matcher == "") {
					found = true
					if h.OnFailure != "block" {
						bad(p, "the PreToolUse hook has no onFailure \"block\": a missing or crashing hook lets the call run")
					}
				}
			}
		}
		if !found {
			bad(p, "no toolguard PreToolUse hook for every tool")
		}
	case "codex":
		p := systemFiles[provider]
		data, ok, _ := fsys.readRegular(p)
		if !ok {
			bad(p, "no requirements.toml")
			return out
		}
		if err := checkCodexRequirements(data, false); err != nil {
			bad(p, err.Error())
		}
	case "gemini", "qwen":
		p := systemFiles[provider]
		data, ok, _ := fsys.readRegular(p)
		if !ok {
			bad(p, "no system settings")
			return out
		}
		cmds, _ := ExtractCommands(provider, data)
		if !slices.ContainsFunc(cmds, IsToolguardCommand) {
			bad(p, "no toolguard hook")
		}
		root, err := parseSettings(provider, data)
		if err == nil {
			key, want := "hooksConfig.enabled", any(true)
			if provider == "qwen" {
				key, want = "disableAllHooks", any(false)
			}
			if v, ok := getPath(root, key); !ok || v != want {
				bad(p, fmt.Sprintf("%s is not pinned to %v: user settings can switch the hook off", key, want))
			}
		}
	}
	return out
}

// versionLess compares dotted numeric versions.
func versionLess(a, b string) bool {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
