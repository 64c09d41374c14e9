package install

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/shellparse"
)

// System mode (install --system; docs/install.md, "System mode"; SPEC §9;
// PROTOCOLS §11): the binary, the platform policy and each agent's hook
// entry go where the operating system keeps the agent's user out — root
// owned, 0755 directories, 0644 files (never 0600: Claude Code skips an
// unreadable managed file, which fails open) — and a manifest records
// exactly what was written, so that SystemUninstall reverses it.
//
// Every path below is the path on the target system; SystemOptions.Root
// prefixes them all (tests, container builds).
const (
	SystemLibDir = "/usr/local/lib/toolguard"
	SystemBinary = SystemLibDir + "/toolguard"
	// SystemServeBinary is the server (cmd/toolguard-serve),
	// which `toolguard serve` runs from beside the binary.
	SystemServeBinary = SystemLibDir + "/toolguard-serve"
	SystemPolicy      = "/etc/toolguard/policy.toml"
	SystemManifest    = "/etc/toolguard/system-install.json"
	SystemSocket      = "/run/toolguard/serve.sock"
)

// SystemProviders are the agents install --system configures by default.
var SystemProviders = []string{"claude-code", "codex", "gemini", "qwen", "copilot"}

// systemFiles are each agent's system (managed) settings files.
var systemFiles = map[string]string{
	"claude-code": "/etc/claude-code/managed-settings.d/toolguard.json",
	"codex":       "/etc/codex/requirements.toml",
	"gemini":      "/etc/gemini-cli/settings.json",
	"qwen":        "/etc/qwen-code/settings.json",
	"copilot":     "/etc/github-copilot/policy.d/toolguard.json",
}

// geminiPolicyFile holds the static deny rules that still apply when a
// user switches the Gemini hook off (PROTOCOLS §11.3).
const geminiPolicyFile = "/etc/gemini-cli/policies/toolguard.toml"

// SystemOptions says what install --system writes.
type SystemOptions struct {
	// Root prefixes every system path ("" or "/" = the real system).
	Root string
	// Source is the toolguard binary copied to SystemBinary.
	Source string
	// ServeSource is toolguard-serve (the server, cmd/toolguard-serve),
	// copied beside it with Serve.
	ServeSource string
	// Providers to configure (default SystemProviders).
	Providers []string
	// Sandbox also switches the agents' own sandboxes on where the
	// managed settings can force them (Claude Code sandbox.*, Codex
	// allowed_sandbox_modes).
	Sandbox bool
	// Serve points the platform policy's approvals and audit at the
	// toolguard serve socket (SystemSocket; only when the policy is
	// created), installs toolguard-serve and writes its systemd units
	// (/etc/systemd/system/toolguard.{service,socket}).
	Serve bool
	// Approvers are the public keys (ed25519:…) the platform policy
	// trusts for grants: with Serve, the server's key, so that the hook
	// verifies what the server hands it. Only used when the policy is
	// created.
	Approvers []string
	DryRun    bool
}

// SystemResult is what SystemInstall or SystemUninstall did.
type SystemResult struct {
	Changed bool
	Lines   []string // one line per change, or per file left as it was
	Notes   []string // what the caller must still know or do
}

// SystemCommand is the hook command line of provider in system mode: the
// root-owned binary, with the platform policy pinned by --policy (so that
// TOOLGUARD_POLICY, user and project policies — anything the agent's user
// can write or set — are not read).
func SystemCommand(provider string) string {
	return strings.Join([]string{shellparse.Quote(SystemBinary), "hook", "--provider", provider,
		"--policy", shellparse.Quote(SystemPolicy)}, " ")
}

// SystemFile returns the system settings file install --system writes for
// provider, on the target system.
func SystemFile(provider string) (string, bool) {
	p, ok := systemFiles[canonical(provider)]
	return p, ok
}

func canonical(provider string) string {
	switch provider {
	case "claude":
		return "claude-code"
	case "qwen-code":
		return "qwen"
	}
	return provider
}

// Manifest is what install --system wrote (SystemManifest).
type Manifest struct {
	Version int             `json:"version"`
	Entries []ManifestEntry `json:"entries"`
}

// ManifestEntry is one file install --system wrote or changed.
type ManifestEntry struct {
	Path     string `json:"path"` // on the target system
	Kind     string `json:"kind"` // "file" (toolguard's own), "json" (merged settings), "toml-block"
	Provider string `json:"provider,omitempty"`
	// Created: the file did not exist before the first install.
	Created bool `json:"created,omitempty"`
	// SHA256 of what install last wrote (kind "file").
	SHA256 string `json:"sha256,omitempty"`
	// Backup is where the file as it was before the first install is
	// kept (on the target system), if it existed.
	Backup string `json:"backup,omitempty"`
	// Keys are the settings keys (dotted paths) install set in a merged
	// JSON file, each with its value before ("" = absent).
	Keys map[string]string `json:"keys,omitempty"`
}

// sysfs is the target tree: root-prefixed paths.
type sysfs struct{ root string }

func (s sysfs) path(p string) string {
	if s.root == "" || s.root == "/" {
		return p
	}
	return filepath.Join(s.root, filepath.FromSlash(p))
}

// mkdirs creates the parents of p (on the target system) as 0755
// directories, and refuses a parent that is a symlink or that others than
// its owner can write (such a directory lets its writer replace what
// install puts there).
func (s sysfs) mkdirs(p string) error {
	var missing []string
	for d := filepath.Dir(p); d != "/" && d != "."; d = filepath.Dir(d) {
		fi, err := os.Lstat(s.path(d))
		if errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, d)
			continue
		}
		if err != nil {
			return err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("%s is a symbolic link: install --system writes only through real directories; nothing was changed there", d)
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", d)
		}
		if fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			return fmt.Errorf("%s is writable by group or others (mode %v): anyone who can write it can replace toolguard's files; fix it with chmod go-w %s", d, fi.Mode().Perm(), d)
		}
	}
	for i := len(missing) - 1; i >= 0; i-- {
		if err := os.Mkdir(s.path(missing[i]), 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := os.Chmod(s.path(missing[i]), 0o755); err != nil { // past the umask
			return err
		}
	}
	return nil
}

// readRegular reads a file of the target system: (nil, false) when it
// does not exist; an error for a symlink or anything not regular.
func (s sysfs) readRegular(p string) ([]byte, bool, error) {
	fi, err := os.Lstat(s.path(p))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return nil, false, fmt.Errorf("%s is not a regular file (a symbolic link or special file is not followed in system mode); nothing was changed there", p)
	}
	data, err := os.ReadFile(s.path(p))
	return data, true, err
}

// write writes data to p (on the target system) atomically with mode.
func (s sysfs) write(p string, data []byte, mode fs.FileMode) error {
	if err := s.mkdirs(p); err != nil {
		return err
	}
	if err := writeAtomic(s.path(p), data, mode); err != nil {
		return fmt.Errorf("%s: %v", p, err)
	}
	return nil
}

func sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// SystemBackupSuffix names the copy of a file install --system replaced.
const SystemBackupSuffix = ".toolguard-system.bak"

// installer carries one SystemInstall run.
type installer struct {
	fs     sysfs
	o      SystemOptions
	man    *Manifest
	res    *SystemResult
	before map[string]ManifestEntry // entries of an earlier install
}

// entry records e, keeping what an earlier install recorded about the
// file's state before toolguard (Created, Backup, Keys' old values).
func (in *installer) entry(e ManifestEntry) {
	if old, ok := in.before[e.Path]; ok {
		e.Created, e.Backup = old.Created, old.Backup
		if old.Keys != nil {
			for k, v := range old.Keys {
				if e.Keys == nil {
					e.Keys = map[string]string{}
				}
				e.Keys[k] = v
			}
		}
	}
	in.man.Entries = slices.DeleteFunc(in.man.Entries, func(x ManifestEntry) bool { return x.Path == e.Path })
	in.man.Entries = append(in.man.Entries, e)
}

func (in *installer) line(format string, args ...any) {
	in.res.Lines = append(in.res.Lines, fmt.Sprintf(format, args...))
}

// backup keeps old (the file's bytes before toolguard first changed it)
// beside it, unless an earlier install already did.
func (in *installer) backup(p string, old []byte, mode fs.FileMode) (string, error) {
	if prev, ok := in.before[p]; ok && (prev.Backup != "" || prev.Created) {
		return prev.Backup, nil
	}
	b := p + SystemBackupSuffix
	if in.o.DryRun {
		return b, nil
	}
	if err := writeAtomic(in.fs.path(b), old, mode); err != nil {
		return "", fmt.Errorf("%s: writing backup: %v; nothing was changed", p, err)
	}
	return b, nil
}

// ownFile makes p hold exactly data (a file of toolguard's own).
func (in *installer) ownFile(provider, p string, data []byte, mode fs.FileMode, keepExisting bool) error {
	old, exists, err := in.fs.readRegular(p)
	if err != nil {
		return err
	}
	e := ManifestEntry{Path: p, Kind: "file", Provider: provider, Created: !exists, SHA256: sum(data)}
	if exists && bytes.Equal(old, data) {
		in.entry(e)
		in.fs.chmodOwn(p, mode, in.o.DryRun)
		in.line("unchanged %s", p)
		return nil
	}
	if exists && keepExisting {
		if _, ok := in.before[p]; !ok {
			// Not ours, and not to be replaced (the platform policy): it
			// stays, and uninstall leaves it.
			in.line("kept %s (it exists; install --system does not overwrite it)", p)
			return nil
		}
		if prev := in.before[p]; prev.SHA256 != sum(old) {
			in.line("kept %s (changed since toolguard wrote it)", p)
			e.SHA256 = sum(old)
			in.entry(e)
			return nil
		}
	}
	if exists {
		if e.Backup, err = in.backup(p, old, 0o644); err != nil {
			return err
		}
		in.line("replace %s (backup: %s)", p, e.Backup)
	} else {
		in.line("create %s", p)
	}
	in.res.Changed = true
	in.entry(e)
	if in.o.DryRun {
		return nil
	}
	return in.fs.write(p, data, mode)
}

// chmodOwn sets a file's mode (root owned files keep a known mode).
func (s sysfs) chmodOwn(p string, mode fs.FileMode, dry bool) {
	if !dry {
		_ = os.Chmod(s.path(p), mode)
	}
}

// SystemInstall installs toolguard system-wide (see the constants above).
// It is idempotent: a second run changes nothing and says so.
func SystemInstall(o SystemOptions) (SystemResult, error) {
	var res SystemResult
	if o.Source == "" {
		return res, errors.New("no toolguard binary to install")
	}
	bin, err := os.ReadFile(o.Source)
	if err != nil {
		return res, fmt.Errorf("reading the toolguard binary: %v", err)
	}
	providers := o.Providers
	if len(providers) == 0 {
		providers = SystemProviders
	}
	for i, p := range providers {
		providers[i] = canonical(p)
		if _, ok := systemFiles[providers[i]]; !ok {
			return res, fmt.Errorf("install --system does not support %q (supported: %s)", p, strings.Join(SystemProviders, ", "))
		}
	}
	fsys := sysfs{o.Root}
	man, err := readManifest(fsys)
	if err != nil {
		return res, err
	}
	in := &installer{fs: fsys, o: o, res: &res, man: &Manifest{Version: 1}, before: map[string]ManifestEntry{}}
	for _, e := range man.Entries {
		in.before[e.Path] = e
		in.man.Entries = append(in.man.Entries, e)
	}
	if err := in.ownFile("", SystemBinary, bin, 0o755, false); err != nil {
		return res, err
	}
	if err := in.ownFile("", SystemPolicy, PlatformPolicy(o.Serve, o.Approvers...), 0o644, true); err != nil {
		return res, err
	}
	if o.Serve {
		if o.ServeSource == "" {
			return res, errors.New("--serve wants toolguard-serve (the server binary) beside toolguard")
		}
		srv, err := os.ReadFile(o.ServeSource)
		if err != nil {
			return res, fmt.Errorf("reading toolguard-serve: %v", err)
		}
		if err := in.ownFile("", SystemServeBinary, srv, 0o755, false); err != nil {
			return res, err
		}
		for _, name := range sortedKeys(SystemdUnits()) {
			if err := in.ownFile("", "/etc/systemd/system/"+name, []byte(SystemdUnits()[name]), 0o644, false); err != nil {
				return res, err
			}
		}
	}
	for _, p := range providers {
		var err error
		switch p {
		case "claude-code":
			err = in.ownFile(p, systemFiles[p], claudeManaged(o.Sandbox), 0o644, false)
		case "copilot":
			err = in.ownFile(p, systemFiles[p], copilotPolicy(), 0o644, false)
		case "codex":
			err = in.codex()
		case "gemini":
			err = in.jsonSettings(p, map[string]any{"hooksConfig.enabled": true})
			if err == nil {
				err = in.ownFile(p, geminiPolicyFile, []byte(geminiPolicy), 0o644, false)
			}
		case "qwen":
			err = in.jsonSettings(p, map[string]any{"disableAllHooks": false})
		}
		if err != nil {
			return res, err
		}
	}
	res.Notes = append(res.Notes, systemNotes(providers, o)...)
	if !in.res.Changed || o.DryRun {
		return res, nil
	}
	data, err := json.MarshalIndent(in.man, "", "  ")
	if err != nil {
		return res, err
	}
	return res, fsys.write(SystemManifest, append(data, '\n'), 0o644)
}

func readManifest(fsys sysfs) (*Manifest, error) {
	data, ok, err := fsys.readRegular(SystemManifest)
	if err != nil || !ok {
		return &Manifest{Version: 1}, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %v (install --system's manifest does not parse; nothing was changed)", SystemManifest, err)
	}
	for _, e := range m.Entries {
		if !filepath.IsAbs(e.Path) || strings.Contains(e.Path, "..") {
			return nil, fmt.Errorf("%s: entry %q is not an absolute path; nothing was changed", SystemManifest, e.Path)
		}
	}
	return &m, nil
}

// PlatformPolicy is the platform policy install --system creates (never
// over an existing one). With serve, headless asks and the audit log go to
// the toolguard serve socket, which runs as its own account.
func PlatformPolicy(serve bool, approvers ...string) []byte {
	var b strings.Builder
	b.WriteString(`# toolguard platform policy (toolguard install --system). Root owned, 0644.
# Every system hook line loads this file with --policy, so user and project
# policies, and TOOLGUARD_POLICY, are not read. Add your rules here.
version = 1

[settings]
`)
	if serve {
		fmt.Fprintf(&b, `# Headless asks and grants: the toolguard serve socket (it runs as the
# toolguard account; the hook role can record and use, never approve).
approval_url = "unix://%s"
# Audit lines go to the same server, which writes the hash-chained log.
audit_log = "server"
`, SystemSocket)
		if len(approvers) > 0 {
			b.WriteString("# The server's key: the hook honours only grants it signed.\napprovers = [")
			for i, a := range approvers {
				if i > 0 {
					b.WriteString(", ")
				}
				fmt.Fprintf(&b, "%q", a)
			}
			b.WriteString("]\n")
		}
	} else {
		b.WriteString(`# Without toolguard serve (install --system --serve), approvals and the audit
# log stay in each user's own state directory, which that user can write.
`)
	}
	return []byte(b.String())
}

func claudeManaged(sandbox bool) []byte {
	cmd := SystemCommand("claude-code")
	handler := func(block bool) *object {
		h := obj("type", "command", "command", cmd, "timeout", num(timeoutSeconds))
		if block {
			h.set("onFailure", "block")
		}
		return h
	}
	group := func(matcher string, block bool) []any {
		g := &object{}
		if matcher != "" {
			g.set("matcher", matcher)
		}
		g.set("hooks", []any{handler(block)})
		return []any{g}
	}
	hooks := obj("PreToolUse", group("*", true),
		"PostToolUse", group("*", false), "PostToolUseFailure", group("*", false),
		"UserPromptSubmit", group("", false), "SessionStart", group("", false))
	root := obj("allowManagedHooksOnly", true, "hooks", hooks)
	if sandbox {
		root.set("sandbox", obj("enabled", true, "failIfUnavailable", true, "allowUnsandboxedCommands", false))
	}
	out, _ := encodeJSON(root, defaultStyle)
	return out
}

func copilotPolicy() []byte {
	root := obj("version", num(1), "hooks", obj("preToolUse", []any{
		obj("type", "command", "bash", SystemCommand("copilot"), "timeoutSec", num(timeoutSeconds))}))
	out, _ := encodeJSON(root, defaultStyle)
	return out
}

// geminiPolicy is the backstop for Gemini CLI, whose system hook a user
// can switch off (hooksConfig.disabled, GEMINI_CLI_SYSTEM_SETTINGS_PATH):
// admin policy rules still apply then, and under --yolo (PROTOCOLS §11.3).
// They name the ways to switch the hook off (the variable, the settings
// keys, Gemini's settings and policy directories); they are static and
// best effort, the hook is the guard. They do not name toolguard: its
// system files are root owned (the OS refuses the write), and a rule on
// the word denied every harmless mention (grep -r toolguard, a checkout
// of that name, toolguard check).
const geminiPolicy = `# toolguard install --system: admin rules that hold when the toolguard hook
# is switched off (Gemini CLI system hooks are advisory). Root owned, 0644.

[[rule]]
toolName = "run_shell_command"
commandRegex = "(GEMINI_CLI_SYSTEM_SETTINGS_PATH|hooksConfig|disableAllHooks|/etc/gemini-cli|\\.gemini/)"
decision = "deny"
priority = 999

[[rule]]
toolName = ["write_file", "replace"]
argsPattern = "(\\.gemini/|/etc/gemini-cli|hooksConfig|disableAllHooks)"
decision = "deny"
priority = 999
`

// jsonSettings merges the toolguard hook into a JSON system settings file
// (Gemini CLI, Qwen Code) with the install machinery of the user scopes,
// and sets keys (dotted paths) that pin the hooks on.
func (in *installer) jsonSettings(provider string, keys map[string]any) error {
	p := systemFiles[provider]
	old, exists, err := in.fs.readRegular(p)
	if err != nil {
		return err
	}
	e := ManifestEntry{Path: p, Kind: "json", Provider: provider, Created: !exists, Keys: map[string]string{}}
	if exists {
		if e.Backup, err = in.backup(p, old, 0o644); err != nil {
			return err
		}
	}
	if !in.o.DryRun {
		if err := in.fs.mkdirs(p); err != nil {
			return err
		}
	}
	r, err := Install(Options{Provider: provider, File: in.fs.path(p), Command: SystemCommand(provider), DryRun: in.o.DryRun})
	if err != nil {
		return err
	}
	if r.Changed {
		in.res.Changed = true
		in.line("%s: %s", p, strings.ReplaceAll(r.Summary, in.fs.path(p), p))
	}
	// The pinned keys.
	doc, err := readDoc(in.fs.path(p))
	if err != nil {
		return err
	}
	root := doc.root
	if root == nil {
		root = &object{}
	}
	changed := false
	for _, k := range sortedKeys(keys) {
		prev, had := getPath(root, k)
		if had && equalJSON(prev, keys[k]) {
			if _, known := in.before[p].Keys[k]; !known {
				// Already so before toolguard: nothing to restore.
				continue
			}
			e.Keys[k] = in.before[p].Keys[k]
			continue
		}
		e.Keys[k] = ""
		if had {
			b, _ := encodeJSON(prev, style{})
			e.Keys[k] = string(bytes.TrimSpace(b))
		}
		setPath(root, k, keys[k])
		changed = true
		in.line("%s: set %s = %v", p, k, keys[k])
	}
	in.entry(e)
	if changed {
		in.res.Changed = true
		if !in.o.DryRun {
			if err := doc.replace(root, false); err != nil {
				return err
			}
		}
	}
	if !r.Changed && !changed {
		in.line("unchanged %s", p)
	}
	in.fs.chmodOwn(p, 0o644, in.o.DryRun)
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func getPath(root *object, dotted string) (any, bool) {
	parts := strings.Split(dotted, ".")
	cur := root
	for i, k := range parts {
		v, ok := cur.get(k)
		if !ok {
			return nil, false
		}
		if i == len(parts)-1 {
			return v, true
		}
		if cur, ok = v.(*object); !ok {
			return nil, false
		}
	}
	return nil, false
}

func setPath(root *object, dotted string, val any) {
	parts := strings.Split(dotted, ".")
	cur := root
	for _, k := range parts[:len(parts)-1] {
		v, ok := cur.get(k)
		o, isObj := v.(*object)
		if !ok || !isObj {
			o = &object{}
			cur.set(k, o)
		}
		cur = o
	}
	cur.set(parts[len(parts)-1], val)
}

// delPath deletes a dotted key, and each parent object it leaves empty.
func delPath(root *object, dotted string) {
	parts := strings.Split(dotted, ".")
	var chain []*object
	cur := root
	for _, k := range parts[:len(parts)-1] {
		v, _ := cur.get(k)
		o, ok := v.(*object)
		if !ok {
			return
		}
		chain = append(chain, cur)
		cur = o
	}
	cur.del(parts[len(parts)-1])
	for i := len(chain) - 1; i >= 0 && cur.len() == 0; i-- {
		chain[i].del(parts[i])
		cur = chain[i]
	}
}

func systemNotes(providers []string, o SystemOptions) []string {
	var n []string
	for _, p := range providers {
		switch p {
		case "claude-code":
			n = append(n, "Claude Code: managed drop-in with allowManagedHooksOnly and onFailure \"block\"; needs Claude Code 2.1.295 or later "+
				"(onFailure; 2.1.281 against CLAUDE_CODE_SIMPLE and --bare): check with toolguard doctor --system.")
		case "codex":
			n = append(n, "Codex: requirements.toml pins features.hooks and allow_managed_hooks_only; a missing hook binary still lets the tool run (Codex has no fail-closed switch).")
		case "gemini":
			n = append(n, "Gemini CLI: the system hook is ADVISORY — hooksConfig.disabled in user or project settings, or GEMINI_CLI_SYSTEM_SETTINGS_PATH, "+
				"switches it off; the static rules in "+geminiPolicyFile+" still apply then.")
		case "qwen":
			n = append(n, "Qwen Code: disableAllHooks is pinned false, but QWEN_CODE_SYSTEM_SETTINGS_PATH switches the system file off: ADVISORY.")
		case "copilot":
			n = append(n, "Copilot CLI: "+systemFiles["copilot"]+" is written from the vendor's description of policy hooks, NOT VERIFIED with the real CLI.")
		}
	}
	if !o.Serve {
		n = append(n, "Without --serve, approvals and the audit log stay in each user's state directory, which that user can write.")
	}
	return n
}

// SystemUninstall reverses what the manifest says install --system wrote:
// owned files are removed (and a file they replaced is restored) unless
// they changed since; merged settings lose toolguard's hooks and the keys
// it set get their old values; Codex's marked blocks are removed. It is
// idempotent.
func SystemUninstall(root string, dry bool) (SystemResult, error) {
	var res SystemResult
	fsys := sysfs{root}
	man, err := readManifest(fsys)
	if err != nil {
		return res, err
	}
	if len(man.Entries) == 0 {
		res.Lines = append(res.Lines, "toolguard is not installed system-wide (no "+SystemManifest+")")
		return res, nil
	}
	var failed []string
	for i := len(man.Entries) - 1; i >= 0; i-- {
		e := man.Entries[i]
		var err error
		switch e.Kind {
		case "file":
			err = uninstallOwn(fsys, e, dry, &res)
		case "json":
			err = uninstallJSON(fsys, e, dry, &res)
		case "toml-block":
			err = uninstallTOML(fsys, e, dry, &res)
		default:
			err = fmt.Errorf("unknown kind %q", e.Kind)
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", e.Path, err))
		}
	}
	if len(failed) > 0 {
		return res, fmt.Errorf("uninstall --system left these as they were (the manifest stays): %s", strings.Join(failed, "; "))
	}
	res.Changed = true
	res.Lines = append(res.Lines, "remove "+SystemManifest)
	if !dry {
		if err := os.Remove(fsys.path(SystemManifest)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return res, err
		}
		// Directories install created and left empty.
		for _, d := range []string{"/etc/toolguard", SystemLibDir, "/etc/claude-code/managed-settings.d", "/etc/github-copilot/policy.d", "/etc/gemini-cli/policies"} {
			_ = os.Remove(fsys.path(d)) // only if empty
		}
	}
	return res, nil
}

func restoreBackup(fsys sysfs, e ManifestEntry, dry bool, res *SystemResult) error {
	if e.Backup == "" {
		return nil
	}
	if _, err := os.Lstat(fsys.path(e.Backup)); err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("%s: its backup %s is gone; not restored", e.Path, e.Backup))
		return nil
	}
	res.Lines = append(res.Lines, fmt.Sprintf("restore %s from %s", e.Path, e.Backup))
	if dry {
		return nil
	}
	return os.Rename(fsys.path(e.Backup), fsys.path(e.Path))
}

func uninstallOwn(fsys sysfs, e ManifestEntry, dry bool, res *SystemResult) error {
	data, ok, err := fsys.readRegular(e.Path)
	if err != nil {
		return err
	}
	if !ok {
		res.Lines = append(res.Lines, "already gone: "+e.Path)
		return restoreBackup(fsys, e, dry, res)
	}
	if sum(data) != e.SHA256 {
		if e.Path == SystemPolicy {
			res.Lines = append(res.Lines, fmt.Sprintf("kept %s (changed since install: your rules are in it)", e.Path))
			return nil
		}
		return fmt.Errorf("changed since install --system wrote it (sha256 %s); remove or restore it by hand", sum(data)[:12])
	}
	res.Lines = append(res.Lines, "remove "+e.Path)
	if !dry {
		if err := os.Remove(fsys.path(e.Path)); err != nil {
			return err
		}
	}
	return restoreBackup(fsys, e, dry, res)
}

func uninstallJSON(fsys sysfs, e ManifestEntry, dry bool, res *SystemResult) error {
	if _, ok, err := fsys.readRegular(e.Path); err != nil || !ok {
		if !ok && err == nil {
			res.Lines = append(res.Lines, "already gone: "+e.Path)
		}
		return err
	}
	doc, err := readDoc(fsys.path(e.Path))
	if err != nil {
		return err
	}
	changed := false
	for _, k := range sortedKeys(e.Keys) {
		if old := e.Keys[k]; old == "" {
			delPath(doc.root, k)
		} else {
			v, err := decodeJSON([]byte(old))
			if err != nil {
				return fmt.Errorf("manifest value of %s: %v", k, err)
			}
			setPath(doc.root, k, v)
		}
		changed = true
		res.Lines = append(res.Lines, fmt.Sprintf("%s: restore %s", e.Path, k))
	}
	if changed && !dry {
		if err := doc.replace(doc.root, false); err != nil {
			return err
		}
	}
	r, err := Uninstall(Options{Provider: e.Provider, File: fsys.path(e.Path), DryRun: dry})
	if err != nil {
		return err
	}
	if r.Changed {
		res.Lines = append(res.Lines, e.Path+": "+strings.ReplaceAll(r.Summary, fsys.path(e.Path), e.Path))
	}
	if !dry {
		os.Remove(fsys.path(e.Path) + BackupSuffix) // the user-scope machinery's own backup
		if e.Backup != "" {
			os.Remove(fsys.path(e.Backup))
		}
	}
	return nil
}
