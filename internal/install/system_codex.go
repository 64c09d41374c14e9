package install

import (
	"bytes"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
)

// Codex's /etc/codex/requirements.toml is TOML, which BurntSushi/toml
// decodes but cannot rewrite keeping the admin's comments and layout. So
// install --system adds two marked blocks and touches nothing else: the
// top-level keys at the top of the file (before any table header, where a
// top-level key must be), the tables at its end. A key the file already
// holds with the value toolguard wants is not written again; one it holds
// with another value, or a [features] table without hooks = true, is a
// conflict: nothing is written and the error says what to change. The
// result is decoded again and must hold every pin, or nothing is written.

const (
	tomlBegin = "# >>> toolguard install --system (toolguard uninstall --system removes this block)"
	tomlEnd   = "# <<< toolguard"
)

// codexPins are what the requirements must hold for the managed hook to
// stand (PROTOCOLS §11.2).
func codexPins(sandbox bool) map[string]any {
	p := map[string]any{"allow_managed_hooks_only": true}
	if sandbox {
		p["allowed_sandbox_modes"] = []any{"workspace-write", "read-only"}
	}
	return p
}

// stripTOMLBlocks removes toolguard's marked blocks from a file.
func stripTOMLBlocks(data []byte) ([]byte, bool) {
	var out bytes.Buffer
	in, found := false, false
	for _, line := range strings.SplitAfter(string(data), "\n") {
		t := strings.TrimRight(line, "\r\n")
		switch {
		case !in && t == tomlBegin:
			in, found = true, true
		case in && t == tomlEnd:
			in = false
		case !in:
			out.WriteString(line)
		}
	}
	return out.Bytes(), found
}

func tomlValue(v any) string {
	switch x := v.(type) {
	case []any:
		var parts []string
		for _, e := range x {
			parts = append(parts, tomlValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		return fmt.Sprintf("%q", x)
	}
	return fmt.Sprint(v)
}

func sameTOML(have, want any) bool {
	if h, ok := have.([]any); ok {
		w, _ := want.([]any)
		return reflect.DeepEqual(h, w)
	}
	return reflect.DeepEqual(have, want)
}

// codexRequirements returns the file with toolguard's blocks in it.
func codexRequirements(old []byte, sandbox bool) ([]byte, error) {
	base, _ := stripTOMLBlocks(old)
	var have map[string]any
	if _, err := toml.Decode(string(base), &have); err != nil {
		return nil, fmt.Errorf("does not parse as TOML (%v); nothing was changed", err)
	}
	var head, tail strings.Builder
	pins := codexPins(sandbox)
	for _, k := range sortedKeys(pins) {
		v, ok := have[k]
		switch {
		case !ok:
			fmt.Fprintf(&head, "%s = %s\n", k, tomlValue(pins[k]))
		case !sameTOML(v, pins[k]):
			return nil, fmt.Errorf("holds %s = %s; toolguard needs %s = %s: change it by hand (or drop it) and run install --system again; nothing was changed",
				k, tomlValue(v), k, tomlValue(pins[k]))
		}
	}
	if f, ok := have["features"]; ok {
		fm, isMap := f.(map[string]any)
		if !isMap {
			return nil, fmt.Errorf("its features is not a table; nothing was changed")
		}
		if h, ok := fm["hooks"]; !ok || h != true {
			return nil, fmt.Errorf("has a [features] table without hooks = true: add `hooks = true` under [features] by hand " +
				"(a user could otherwise switch the managed hook off) and run install --system again; nothing was changed")
		}
	} else {
		tail.WriteString("[features]\nhooks = true\n")
	}
	hook := func(event, matcher string) {
		fmt.Fprintf(&tail, "[[hooks.%s]]\n", event)
		if matcher != "" {
			fmt.Fprintf(&tail, "matcher = %q\n", matcher)
		}
		// The form PROTOCOLS §11.2 ran live: no timeout key (toolguard
		// answers within its own 10 s deadline).
		fmt.Fprintf(&tail, "[[hooks.%s.hooks]]\ntype = \"command\"\ncommand = %q\n", event, SystemCommand("codex"))
	}
	hook("PreToolUse", "*")
	for _, ev := range []string{"PostToolUse", "UserPromptSubmit", "SessionStart"} {
		hook(ev, "")
	}
	var out bytes.Buffer
	if head.Len() > 0 {
		out.WriteString(tomlBegin + "\n" + head.String() + tomlEnd + "\n")
	}
	out.Write(base)
	if len(base) > 0 && !bytes.HasSuffix(base, []byte("\n")) {
		out.WriteByte('\n')
	}
	out.WriteString(tomlBegin + "\n" + tail.String() + tomlEnd + "\n")
	if err := checkCodexRequirements(out.Bytes(), sandbox); err != nil {
		return nil, fmt.Errorf("merging toolguard's entries would not hold (%v): the file's own tables conflict with them; nothing was changed", err)
	}
	return out.Bytes(), nil
}

// checkCodexRequirements decodes a requirements file and says what it
// lacks for the toolguard hook to stand.
func checkCodexRequirements(data []byte, sandbox bool) error {
	var got struct {
		AllowManagedHooksOnly *bool          `toml:"allow_managed_hooks_only"`
		AllowedSandboxModes   []string       `toml:"allowed_sandbox_modes"`
		Features              map[string]any `toml:"features"`
		Hooks                 map[string][]struct {
			Matcher string `toml:"matcher"`
			Hooks   []struct {
				Type    string `toml:"type"`
				Command string `toml:"command"`
			} `toml:"hooks"`
		} `toml:"hooks"`
	}
	if _, err := toml.Decode(string(data), &got); err != nil {
		return err
	}
	if got.AllowManagedHooksOnly == nil || !*got.AllowManagedHooksOnly {
		return fmt.Errorf("allow_managed_hooks_only is not true")
	}
	if got.Features["hooks"] != true {
		return fmt.Errorf("features.hooks is not true")
	}
	if sandbox && !reflect.DeepEqual(got.AllowedSandboxModes, []string{"workspace-write", "read-only"}) {
		return fmt.Errorf("allowed_sandbox_modes is not [\"workspace-write\", \"read-only\"]")
	}
	for _, g := range got.Hooks["PreToolUse"] {
		for _, h := range g.Hooks {
			if h.Type == "command" && IsToolguardCommand(h.Command) && (g.Matcher == "" || g.Matcher == "*") {
				return nil
			}
		}
	}
	return fmt.Errorf("no toolguard PreToolUse hook for every tool")
}

func (in *installer) codex() error {
	p := systemFiles["codex"]
	old, exists, err := in.fs.readRegular(p)
	if err != nil {
		return err
	}
	data, err := codexRequirements(old, in.o.Sandbox)
	if err != nil {
		return fmt.Errorf("%s %v", p, err)
	}
	e := ManifestEntry{Path: p, Kind: "toml-block", Provider: "codex", Created: !exists}
	if exists && bytes.Equal(old, data) {
		in.entry(e)
		in.fs.chmodOwn(p, 0o644, in.o.DryRun)
		in.line("unchanged %s", p)
		return nil
	}
	if exists {
		if e.Backup, err = in.backup(p, old, 0o644); err != nil {
			return err
		}
		in.line("add toolguard's blocks to %s (backup: %s)", p, e.Backup)
	} else {
		in.line("create %s", p)
	}
	in.res.Changed = true
	in.entry(e)
	if in.o.DryRun {
		return nil
	}
	return in.fs.write(p, data, 0o644)
}

func uninstallTOML(fsys sysfs, e ManifestEntry, dry bool, res *SystemResult) error {
	data, ok, err := fsys.readRegular(e.Path)
	if err != nil {
		return err
	}
	if !ok {
		res.Lines = append(res.Lines, "already gone: "+e.Path)
		return nil
	}
	rest, found := stripTOMLBlocks(data)
	if !found {
		res.Lines = append(res.Lines, "no toolguard block left in "+e.Path)
	} else if len(bytes.TrimSpace(rest)) == 0 && e.Created {
		res.Lines = append(res.Lines, "remove "+e.Path+" (install created it; nothing else is in it)")
		if !dry {
			if err := os.Remove(fsys.path(e.Path)); err != nil {
				return err
			}
		}
	} else {
		res.Lines = append(res.Lines, "remove toolguard's blocks from "+e.Path)
		if !dry {
			if err := writeAtomic(fsys.path(e.Path), rest, 0o644); err != nil {
				return err
			}
		}
	}
	if e.Backup != "" && !dry {
		os.Remove(fsys.path(e.Backup))
	}
	return nil
}
