package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// opencode has no command hooks; it loads plugins. toolguard's plugin
// (pluginSource, the same file as hooks/opencode/toolguard.js) runs the hook
// command from its tool.execute.before handler and throws on a deny, which
// blocks the tool and hands the message to the model. Install writes the
// plugin file with the hook command in it; the file is toolguard's own, so
// Uninstall deletes it.
const (
	opencodeProvider = "opencode"
	opencodeProject  = ".opencode/plugins/toolguard.js"
	opencodeUser     = ".config/opencode/plugins/toolguard.js"
	// pluginMarker is the first line of every plugin file Install writes:
	// a file without it is not toolguard's, and is never replaced.
	pluginMarker = "// toolguard opencode plugin (written by `toolguard install --provider opencode`)."
)

// pluginCommandPrefix starts the line that holds the hook command as a JSON
// string; Install writes it and ExtractCommands (doctor, the guard's
// surfaces) reads it back. (No regexp: this package is in the hook binary,
// which compiles nothing at init.)
const pluginCommandPrefix = "const COMMAND = "

func isPlugin(provider string) bool { return provider == opencodeProvider }

func pluginPath(scope, dir, home string) (string, error) {
	switch scope {
	case "", ScopeProject:
		if dir == "" {
			return "", errors.New("project scope needs a project directory")
		}
		return filepath.Join(dir, filepath.FromSlash(opencodeProject)), nil
	case ScopeUser:
		if home == "" {
			return "", errors.New("user scope needs a home directory")
		}
		return filepath.Join(home, filepath.FromSlash(opencodeUser)), nil
	}
	return "", fmt.Errorf("unknown scope %q (want project or user)", scope)
}

// pluginSource is the plugin file running cmd.
func pluginSource(cmd string) []byte {
	js, _ := json.Marshal(cmd)
	return []byte(pluginMarker + "\n" + strings.Replace(pluginBody, pluginCommandPrefix+"\"\";", pluginCommandPrefix+string(js)+";", 1))
}

// pluginCommands returns the hook command of a toolguard plugin file; a
// file that is not one holds none.
func pluginCommands(data []byte) ([]string, error) {
	if !bytes.HasPrefix(data, []byte(pluginMarker)) {
		return nil, nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimRight(line, " \t\r"), pluginCommandPrefix)
		if !ok {
			continue
		}
		var cmd string
		if err := json.Unmarshal([]byte(strings.TrimSuffix(rest, ";")), &cmd); err != nil {
			return nil, fmt.Errorf("toolguard plugin COMMAND: %v", err)
		}
		return []string{cmd}, nil
	}
	return nil, errors.New("toolguard plugin without a COMMAND line")
}

func installPlugin(o Options) (Result, error) {
	if !o.ours(o.Command) {
		return Result{}, fmt.Errorf("hook command %q does not run `toolguard hook` (no word of it is a program named toolguard, or Options.Program, followed by \"hook\")", o.Command)
	}
	file, err := pluginPath(o.Scope, o.Dir, o.Home)
	if err != nil {
		return Result{}, err
	}
	res := Result{File: file, Notes: []string{
		"opencode loads plugins when it starts: restart running sessions.",
		"opencode has no ask: toolguard's ask becomes a deny that records an approval request.",
	}}
	if w := PathLookup(o.Command); w != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("the hook command runs %q, found through PATH when the agent runs it: a toolguard earlier on that PATH would take over the hook; prefer an absolute path", w))
	}
	old, err := readFileIfExists(file)
	if err != nil {
		return res, err
	}
	want := pluginSource(o.Command)
	switch {
	case old != nil && bytes.Equal(old, want):
		res.Summary = fmt.Sprintf("toolguard plugin already installed in %s", file)
		return res, nil
	case old != nil && !bytes.HasPrefix(old, []byte(pluginMarker)):
		return res, fmt.Errorf("%s exists and is not toolguard's plugin (no %q first line); nothing was changed", file, pluginMarker)
	case old != nil:
		res.Summary = fmt.Sprintf("replace toolguard plugin in %s: %s", file, o.Command)
	default:
		res.Summary = fmt.Sprintf("create %s\nadd tool.execute.before plugin: %s", file, o.Command)
	}
	res.Changed = true
	if o.DryRun {
		return res, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return res, err
	}
	return res, writeAtomic(file, want, 0o644)
}

func uninstallPlugin(o Options) (Result, error) {
	file, err := pluginPath(o.Scope, o.Dir, o.Home)
	if err != nil {
		return Result{}, err
	}
	res := Result{File: file}
	old, err := readFileIfExists(file)
	if err != nil {
		return res, err
	}
	if old == nil || !bytes.HasPrefix(old, []byte(pluginMarker)) {
		res.Summary = fmt.Sprintf("toolguard plugin not installed in %s", file)
		return res, nil
	}
	res.Changed = true
	res.Summary = fmt.Sprintf("remove %s", file)
	if o.DryRun {
		return res, nil
	}
	return res, os.Remove(file)
}

// opencodeStatus is doctor's view of opencode: guarded when a toolguard
// plugin file (project or user) runs a toolguard hook command.
func opencodeStatus(home, project string) AgentStatus {
	h := func(p string) string { return join(home, p) }
	pr := func(p string) string { return join(project, p) }
	st := AgentStatus{Agent: opencodeProvider, Enforceable: true,
		Detected: anyExists([]string{h(".config/opencode"), pr(".opencode"), pr("opencode.json"), pr("opencode.jsonc")})}
	var notes []string
	for _, f := range []string{pr(opencodeProject), h(opencodeUser)} {
		if f == "" {
			continue
		}
		data, err := readFileIfExists(f)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		if data == nil {
			continue
		}
		st.SettingsFiles = append(st.SettingsFiles, f)
		cmds, err := pluginCommands(data)
		if err != nil {
			notes = append(notes, fmt.Sprintf("%s: %v", f, err))
			continue
		}
		for _, c := range cmds {
			named := IsToolguardCommand(c)
			if named || LooksLikeHook(c) {
				st.Hooks = append(st.Hooks, HookRef{Command: c, File: f, Event: "tool.execute.before", Named: named})
			}
			if !named {
				continue
			}
			st.Guarded = true
			if w := PathLookup(c); w != "" {
				notes = append(notes, fmt.Sprintf("%s: the plugin runs %q, found through PATH: whichever toolguard comes first there runs, or none; use an absolute path (toolguard install writes one)", f, w))
			}
			if !contains(st.Commands, c) {
				st.Commands = append(st.Commands, c)
			}
		}
	}
	if st.Detected && !st.Guarded {
		notes = append(notes, "policy not enforced: no toolguard plugin in .opencode/plugins/ or ~/.config/opencode/plugins/ (toolguard install --provider opencode)")
	}
	return finish(st, notes)
}
