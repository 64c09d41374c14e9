package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/toolguard/toolguard/internal/protocol"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Options says which hook to install or remove, and where.
type Options struct {
	Provider string // claude-code (or claude), codebuddy, codex, gemini, cursor, copilot, windsurf
	Scope    string // "project" (default) or "user"
	Dir      string // project directory, for the project scope
	Home     string // home directory, for the user scope
	// Command is the hook command line to install, for example
	// `/usr/local/bin/toolguard hook --provider codex`. The caller quotes
	// paths with spaces. Uninstall ignores it and removes every toolguard
	// hook of the file.
	Command string
	// Program is the path of the toolguard binary Command runs, when its
	// name is not toolguard (a renamed or versioned binary the caller has
	// asked and found to be toolguard): command lines running it are
	// toolguard's too. "" = only binaries named toolguard.
	Program string
	DryRun  bool // compute and describe the change, write nothing
	// PreToolOnly installs only the pre-tool events, not the prompt,
	// session and post-tool ones (agent.extra).
	PreToolOnly bool
	// File, if set, is the settings file to edit instead of the scope's
	// (a system settings file: system.go).
	File string
}

// ours reports whether a hook command line is toolguard's: one
// IsToolguardCommand recognizes, or one running o.Program's hook.
func (o Options) ours(cmd string) bool {
	return IsToolguardCommand(cmd) || (o.Program != "" && RunsProgramHook(cmd, o.Program))
}

// RunsProgramHook reports whether some word of cmd is prog (the same path,
// or the same file) and the next word is "hook".
func RunsProgramHook(cmd, prog string) bool {
	words := splitWords(cmd)
	for i := 0; i+1 < len(words); i++ {
		if words[i+1] == "hook" && sameProgram(words[i], prog) {
			return true
		}
	}
	return false
}

func sameProgram(word, prog string) bool {
	if word == prog {
		return true
	}
	if !isAbs(word) || !isAbs(prog) {
		return false
	}
	a, err1 := os.Stat(word)
	b, err2 := os.Stat(prog)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// Result describes what Install or Uninstall did (or, with DryRun, would do).
type Result struct {
	File    string // the settings file
	Changed bool   // the file was (or would be) written, created or deleted
	Backup  string // the backup written before the change, "" if none
	// Summary is one human-readable line per change ("add PreToolUse hook:
	// …", "replace …", "remove …"), or a line saying nothing changed.
	Summary string
	Notes   []string // what the user must still do (trust prompts, restarts)
}

// BackupSuffix is appended to a settings file's name for its backup.
const BackupSuffix = ".toolguard.bak"

// Install merges toolguard's hook into the provider's settings file: each of
// the provider's pre-tool events ends up with exactly one toolguard handler
// running o.Command, and toolguard handlers under other events are pointed
// at o.Command too. o.Command must itself be recognized by
// IsToolguardCommand, so that later runs find it again. See the package
// documentation for what is kept, backed up and refused.
func Install(o Options) (Result, error) {
	if isPlugin(o.Provider) {
		return installPlugin(o) // opencode.go
	}
	a, err := lookup(o.Provider)
	if err != nil {
		return Result{}, err
	}
	if !o.ours(o.Command) {
		return Result{}, fmt.Errorf("hook command %q does not run `toolguard hook` (no word of it is a program named toolguard, or Options.Program, followed by \"hook\")", o.Command)
	}
	file, err := a.path(o.Scope, o.Dir, o.Home)
	if o.File != "" {
		file, err = o.File, nil
	}
	if err != nil {
		return Result{}, err
	}
	scope := o.Scope
	if scope == "" {
		scope = ScopeProject
	}
	res := Result{File: file, Notes: a.notes(scope)}
	if w := PathLookup(o.Command); w != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("the hook command runs %q, found through PATH when the agent runs it: a toolguard earlier on that PATH would take over the hook; prefer an absolute path", w))
	}
	doc, root, hooks, log, err := openHooks(file)
	if err != nil {
		return res, err
	}
	if a.flat && !a.unversioned {
		if _, ok := root.get("version"); !ok {
			root.members = append([]member{{"version", num(1)}}, root.members...)
			if doc.data != nil {
				log.add("set version 1")
			}
		}
	}
	for _, ev := range a.events {
		if err := installEvent(a, hooks, ev, a.matcher, o, file, &log); err != nil {
			return res, err
		}
	}
	for _, ev := range a.extra {
		if o.PreToolOnly {
			break
		}
		if err := installEvent(a, hooks, ev.name, ev.matcher, o, file, &log); err != nil {
			return res, err
		}
	}
	// toolguard hooks the user added to other events follow the new command.
	for _, m := range hooks.members {
		arr, ok := m.val.([]any)
		if !ok || slices.Contains(a.events, m.key) || slices.ContainsFunc(a.extra, func(e extraEvent) bool { return e.name == m.key }) {
			continue
		}
		kept, touched := filterEvent(arr, func(h *object) (any, bool) {
			old := toolguardCommand(h, o.ours)
			if old == "" {
				return h, false
			}
			nh, changed := retarget(a, h, o.Command, o.ours)
			if changed {
				log.add("replace %s hook: %s -> %s", m.key, old, o.Command)
			}
			return nh, changed
		})
		if touched {
			hooks.set(m.key, kept)
		}
	}
	if a.name == "codex" {
		res.Notes = append(res.Notes, codexTOMLNotes(filepath.Join(filepath.Dir(file), "config.toml"))...)
	}
	if len(log.lines) == 0 {
		res.Summary = fmt.Sprintf("toolguard hook already installed in %s", file)
		return res, nil
	}
	res.Changed = true
	res.Summary = log.String()
	if o.DryRun {
		return res, nil
	}
	res.Backup, err = doc.write(root, false)
	return res, err
}

// Uninstall removes every toolguard hook from the provider's settings file,
// leaving all other content in place.
func Uninstall(o Options) (Result, error) {
	if isPlugin(o.Provider) {
		return uninstallPlugin(o) // opencode.go
	}
	a, err := lookup(o.Provider)
	if err != nil {
		return Result{}, err
	}
	file, err := a.path(o.Scope, o.Dir, o.Home)
	if o.File != "" {
		file, err = o.File, nil
	}
	if err != nil {
		return Result{}, err
	}
	res := Result{File: file}
	doc, err := readDoc(file)
	if err != nil {
		return res, err
	}
	notInstalled := fmt.Sprintf("toolguard hook not installed in %s", file)
	if doc.root == nil {
		res.Summary = notInstalled
		return res, nil
	}
	root := doc.root
	hooks, err := hooksObject(root, file, false)
	if err != nil {
		return res, err
	}
	if hooks == nil {
		res.Summary = notInstalled
		return res, nil
	}
	var log changeLog
	for _, m := range append([]member(nil), hooks.members...) {
		arr, ok := m.val.([]any)
		if !ok {
			continue
		}
		kept, touched := filterEvent(arr, func(h *object) (any, bool) {
			if c := toolguardCommand(h, o.ours); c != "" {
				log.add("remove %s hook: %s", m.key, c)
				return nil, true
			}
			return h, false
		})
		switch {
		case !touched:
		case len(kept) == 0:
			hooks.del(m.key) // toolguard's removal emptied the event
		default:
			hooks.set(m.key, kept)
		}
	}
	if len(log.lines) == 0 {
		res.Summary = notInstalled
		return res, nil
	}
	if hooks.len() == 0 {
		root.del("hooks")
		if v, ok := root.get("version"); a.flat && ok && root.len() == 1 && fmt.Sprint(v) == "1" {
			root.del("version")
		}
	}
	// A file left with nothing in it is deleted, whoever created it: an
	// empty settings file means the same as none, and install may have
	// created it.
	remove := root.len() == 0
	if remove {
		log.add("delete %s (nothing else left in it)", file)
	}
	res.Changed = true
	res.Summary = log.String()
	if o.DryRun {
		return res, nil
	}
	if doc.restores(root, remove) {
		// The file goes back to what install's backup holds (or to nothing):
		// that backup has served, and a new one would only be litter.
		os.Remove(doc.path + BackupSuffix)
		res.Summary += "\n" + fmt.Sprintf("remove backup %s (the file is back to its content before install)", doc.path+BackupSuffix)
		return res, doc.replace(root, remove)
	}
	res.Backup, err = doc.write(root, remove)
	return res, err
}

// installEvent makes hooks[event] hold exactly one toolguard handler running
// cmd: the first existing one is updated in place, later ones are removed,
// and a new entry is appended when there is none.
func installEvent(a *agent, hooks *object, event, matcher string, o Options, file string, log *changeLog) error {
	cmd := o.Command
	var arr []any
	if v, ok := hooks.get(event); ok {
		var isArr bool
		if arr, isArr = v.([]any); !isArr {
			return fmt.Errorf("%s: \"hooks\".%s is %s, want an array; nothing was changed", file, event, kindOf(v))
		}
	}
	found := false
	kept, touched := filterEvent(arr, func(h *object) (any, bool) {
		old := toolguardCommand(h, o.ours)
		if old == "" {
			return h, false
		}
		if found {
			log.add("remove duplicate %s hook: %s", event, old)
			return nil, true
		}
		found = true
		nh, changed := retarget(a, h, cmd, o.ours)
		if changed {
			log.add("replace %s hook: %s -> %s", event, old, cmd)
		}
		if o, ok := nh.(*object); ok {
			if key, v, pinned := pinTimeout(a, o); pinned {
				log.add("set %s hook %s: %s (above toolguard's own deadline)", event, key, v)
				changed = true
			}
			if key, v, pinned := pinFailClosed(a, o, event); pinned {
				log.add("set %s hook %s: %v (a hook that cannot answer blocks the call)", event, key, v)
				changed = true
			}
		}
		return nh, changed
	})
	if !found {
		h := a.handler(cmd)
		pinFailClosed(a, h, event)
		entry := any(h)
		if !a.flat {
			g := &object{}
			if matcher != "" {
				g.set("matcher", matcher)
			}
			g.set("hooks", []any{entry})
			entry = g
		}
		kept = append(kept, entry)
		log.add("add %s hook: %s", event, cmd)
		touched = true
	}
	if touched {
		hooks.set(event, kept)
	}
	return nil
}

// retarget points a toolguard handler at cmd. Shell-string fields that run
// toolguard are rewritten in place (other fields, such as a timeout the user
// tuned, stay); an exec-form handler (exec/args) is replaced whole.
func retarget(a *agent, h *object, cmd string, ours func(string) bool) (any, bool) {
	_, hasExec := h.get("exec")
	_, hasArgs := h.get("args")
	if hasExec || hasArgs {
		return a.handler(cmd), true
	}
	changed := false
	for _, k := range []string{"command", "bash", "powershell"} {
		if s, ok := stringField(h, k); ok && ours(s) && s != cmd {
			h.set(k, cmd)
			changed = true
		}
	}
	return h, changed
}

// minTimeout is the shortest hook timeout Install leaves in place: the
// hook's deadline (10 s) plus time for the process to start on a loaded
// machine. A shorter or missing one is set to HookTimeout.
const minTimeout = 15 * time.Second

// pinTimeout gives a toolguard handler the agent's timeout field when it
// has none or one below minTimeout, and reports the key and value set.
// Agents without a timeout field (none today) are left alone.
func pinTimeout(a *agent, h *object) (key string, val json.Number, changed bool) {
	tmpl := a.handler("toolguard hook")
	for _, k := range []string{"timeout", "timeoutSec"} {
		v, ok := tmpl.get(k)
		if !ok {
			continue
		}
		unit := time.Second
		if a.name == "gemini" || a.name == "qwen" { // milliseconds
			unit = time.Millisecond
		}
		if cur, ok := h.get(k); ok {
			if n, ok := cur.(json.Number); ok {
				if f, err := n.Float64(); err == nil && time.Duration(f*float64(unit)) >= minTimeout {
					return "", "", false
				}
			}
		}
		h.set(k, v)
		return k, v.(json.Number), true
	}
	return "", "", false
}

// pinFailClosed sets the agent's fail-closed switch on a toolguard handler
// of a pre-tool event where the per-agent table says so, and reports what
// it set. The prompt, session and post-tool events are left alone: a
// toolguard that cannot run there must not block the user's prompts.
func pinFailClosed(a *agent, h *object, event string) (key string, val any, changed bool) {
	if len(a.failClosed) != 2 || !failClosedWorks(a.name) || !slices.Contains(a.events, event) {
		return "", nil, false
	}
	key, val = a.failClosed[0].(string), a.failClosed[1]
	if cur, ok := h.get(key); ok && cur == val {
		return "", nil, false
	}
	h.set(key, val)
	return key, val, true
}

// failClosedWorks: the table says install writes the agent's switch
// (FailClosedInstall).
func failClosedWorks(provider string) bool {
	row, ok := protocol.ConformanceFor(provider)
	return ok && row.FailClosedInstall
}

// filterEvent walks the entries of one event array — handlers, or matcher
// groups holding handlers under "hooks" — and lets f keep (possibly
// replaced) or drop each handler. A group that f empties is dropped; groups
// that were already empty, and entries that are not objects, are kept.
func filterEvent(arr []any, f func(h *object) (any, bool)) ([]any, bool) {
	out := make([]any, 0, len(arr))
	touched := false
	for _, e := range arr {
		o, ok := e.(*object)
		if !ok {
			out = append(out, e)
			continue
		}
		if inner, isGroup := groupHandlers(o); isGroup {
			var keep []any
			groupTouched := false
			for _, he := range inner {
				h, ok := he.(*object)
				if !ok {
					keep = append(keep, he)
					continue
				}
				nh, t := f(h)
				groupTouched = groupTouched || t
				if nh != nil {
					keep = append(keep, nh)
				}
			}
			if groupTouched {
				touched = true
				if len(keep) == 0 {
					continue
				}
				o.set("hooks", keep)
			}
			out = append(out, o)
			continue
		}
		nh, t := f(o)
		touched = touched || t
		if nh != nil {
			out = append(out, nh)
		}
	}
	return out, touched
}

// groupHandlers returns the handlers of a matcher group, and whether o is a
// group at all (it has a "hooks" array).
func groupHandlers(o *object) ([]any, bool) {
	v, ok := o.get("hooks")
	if !ok {
		return nil, false
	}
	arr, ok := v.([]any)
	return arr, ok
}

// toolguardCommand returns the first command line of h that runs toolguard's
// hook, or "".
func toolguardCommand(h *object, ours func(string) bool) string {
	for _, c := range handlerCommands(h) {
		if ours(c) {
			return c
		}
	}
	return ""
}

// handlerCommands returns the command lines one handler runs: "command"
// (joined with "args" in exec form), "bash", "powershell", or "exec"+"args".
func handlerCommands(h *object) []string {
	var out []string
	addArgs := func(prog string) string {
		words := []string{prog}
		if v, ok := h.get("args"); ok {
			if arr, ok := v.([]any); ok && len(arr) > 0 {
				for _, a := range arr {
					if s, ok := a.(string); ok {
						words = append(words, s)
					}
				}
				return joinWords(words)
			}
		}
		return prog
	}
	if s, ok := stringField(h, "exec"); ok {
		out = append(out, addArgs(s))
	}
	if s, ok := stringField(h, "command"); ok {
		out = append(out, addArgs(s))
	}
	for _, k := range []string{"bash", "powershell"} {
		if s, ok := stringField(h, k); ok && !contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func stringField(o *object, key string) (string, bool) {
	v, ok := o.get(key)
	if !ok {
		return "", false
	}
	s, ok := v.(string)
	return s, ok
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hooksObject returns root's "hooks" object, creating it when create is set.
func hooksObject(root *object, file string, create bool) (*object, error) {
	v, ok := root.get("hooks")
	if !ok {
		if !create {
			return nil, nil
		}
		h := &object{}
		root.set("hooks", h)
		return h, nil
	}
	h, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("%s: \"hooks\" is %s, want an object; nothing was changed", file, kindOf(v))
	}
	return h, nil
}

func kindOf(v any) string {
	switch v.(type) {
	case *object:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case nil:
		return "null"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}

type changeLog struct{ lines []string }

// openHooks reads the settings file an install edits: its document, the
// root object (empty for a new file), the hooks object in it (created
// when missing) and a change log that starts with the file's creation.
func openHooks(file string) (doc *document, root, hooks *object, log changeLog, err error) {
	if doc, err = readDoc(file); err != nil {
		return nil, nil, nil, log, err
	}
	if root = doc.root; root == nil {
		root = &object{}
	}
	if doc.data == nil {
		log.add("create %s", file)
	}
	hooks, err = hooksObject(root, file, true)
	return doc, root, hooks, log, err
}

func (l *changeLog) add(format string, args ...any) {
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *changeLog) String() string { return strings.Join(l.lines, "\n") }

// document is a settings file as read from disk.
type document struct {
	path  string // the file to write (a symlink's target)
	data  []byte // nil when the file does not exist
	mode  fs.FileMode
	style style
	root  *object // nil when the file does not exist
}

// readDoc reads and parses a settings file. A missing file is an empty
// document; a file that is empty or only blanks counts as "{}".
func readDoc(file string) (*document, error) {
	d := &document{path: file, style: defaultStyle, mode: 0o644}
	if target, err := filepath.EvalSymlinks(file); err == nil {
		d.path = target
	}
	fi, err := os.Stat(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %v; nothing was changed", file, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file; nothing was changed", file)
	}
	data, err := os.ReadFile(d.path)
	if err != nil {
		return nil, fmt.Errorf("%s: %v; nothing was changed", file, err)
	}
	d.data = data
	d.mode = fi.Mode().Perm()
	d.style = detectStyle(data)
	if len(bytes.TrimSpace(data)) == 0 {
		d.root = &object{}
		return d, nil
	}
	v, err := decodeJSON(data)
	if err != nil {
		return nil, fmt.Errorf("%s:%v; nothing was changed", file, err)
	}
	root, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("%s: top-level value is %s, want an object; nothing was changed", file, kindOf(v))
	}
	d.root = root
	return d, nil
}

// restores reports whether root (or, with remove, no file) is what the
// backup beside the file holds, or there is no backup and the file goes:
// then uninstall writes no backup and removes the old one.
func (d *document) restores(root *object, remove bool) bool {
	data, err := os.ReadFile(d.path + BackupSuffix)
	if errors.Is(err, fs.ErrNotExist) {
		return remove
	}
	if err != nil {
		return false
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return remove
	}
	v, err := decodeJSON(data)
	if err != nil {
		return false
	}
	if remove {
		o, ok := v.(*object)
		return ok && o.len() == 0
	}
	return equalJSON(v, root)
}

// replace writes root over the file (or deletes it), with no backup.
func (d *document) replace(root *object, remove bool) error {
	if remove {
		if err := os.Remove(d.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %v", d.path, err)
		}
		return nil
	}
	out, err := encodeJSON(root, d.style)
	if err != nil {
		return fmt.Errorf("%s: %v; nothing was changed", d.path, err)
	}
	if err := writeAtomic(d.path, out, d.mode); err != nil {
		return fmt.Errorf("%s: %v; nothing was changed", d.path, err)
	}
	return nil
}

// write backs up the existing file, then atomically replaces it with root
// (or deletes it when remove is set). It returns the backup's path.
func (d *document) write(root *object, remove bool) (string, error) {
	backup := ""
	if d.data != nil {
		backup = d.path + BackupSuffix
		if err := writeAtomic(backup, d.data, d.mode); err != nil {
			return "", fmt.Errorf("%s: writing backup: %v; nothing was changed", d.path, err)
		}
	}
	if remove {
		if err := os.Remove(d.path); err != nil {
			return backup, fmt.Errorf("%s: %v", d.path, err)
		}
		return backup, nil
	}
	out, err := encodeJSON(root, d.style)
	if err != nil {
		return backup, fmt.Errorf("%s: %v; nothing was changed", d.path, err)
	}
	if err := os.MkdirAll(filepath.Dir(d.path), 0o755); err != nil {
		return backup, fmt.Errorf("%s: %v; nothing was changed", d.path, err)
	}
	if err := writeAtomic(d.path, out, d.mode); err != nil {
		return backup, fmt.Errorf("%s: %v; nothing was changed", d.path, err)
	}
	return backup, nil
}

// writeAtomic writes data to a temporary file beside path and renames it
// over path, so a reader sees the old or the new file, never half of one.
func writeAtomic(path string, data []byte, mode fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	fail := func(err error) error {
		tmp.Close()
		os.Remove(name)
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		return fail(err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fail(err)
	}
	if err := tmp.Sync(); err != nil {
		return fail(err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(name)
		return err
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return err
	}
	return nil
}
