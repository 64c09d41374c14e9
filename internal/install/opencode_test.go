package install

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestOpencodePlugin: install writes toolguard's plugin with the command in it,
// is a no-op the second time, replaces its own older plugin, refuses a file
// that is not its own, and uninstall deletes only its own file.
func TestOpencodePlugin(t *testing.T) {
	t.Parallel()
	for _, scope := range []string{ScopeProject, ScopeUser} {
		t.Run(scope, func(t *testing.T) {
			t.Parallel()
			o := opts(t, "opencode", scope)
			file, err := SettingsPath("opencode", scope, o.Dir, o.Home)
			if err != nil {
				t.Fatal(err)
			}
			dry := o
			dry.DryRun = true
			install(t, dry, true)
			if exists(file) {
				t.Fatal("dry run wrote the plugin")
			}
			res := install(t, o, true)
			if res.File != file {
				t.Errorf("file = %s, want %s", res.File, file)
			}
			data := mustRead(t, file)
			if cmds, err := ExtractCommands("opencode", data); err != nil || !slices.Equal(cmds, []string{o.Command}) {
				t.Errorf("commands = %q, %v; want [%q]", cmds, err, o.Command)
			}
			for _, want := range []string{`"tool.execute.before"`, "throw", "/bin/sh"} {
				if !bytes.Contains(data, []byte(want)) {
					t.Errorf("plugin lacks %q", want)
				}
			}
			install(t, o, false)
			o2 := o
			o2.Command = o.Command + " --policy /etc/x.toml"
			install(t, o2, true)
			if cmds, _ := ExtractCommands("opencode", mustRead(t, file)); !slices.Equal(cmds, []string{o2.Command}) {
				t.Errorf("after replace: commands = %q", cmds)
			}
			uninstall(t, o, true)
			if exists(file) {
				t.Error("uninstall left the plugin")
			}
			uninstall(t, o, false)

			// a file of the same name that is not toolguard's is neither replaced nor removed
			foreign := []byte("export const Mine = async () => ({})\n")
			writeFile(t, file, foreign)
			if _, err := Install(o); err == nil || !strings.Contains(err.Error(), "not toolguard's plugin") {
				t.Errorf("install over a foreign plugin: err = %v", err)
			}
			uninstall(t, o, false)
			if got := mustRead(t, file); !bytes.Equal(got, foreign) {
				t.Error("a foreign plugin was changed")
			}
			if _, err := Install(Options{Provider: "opencode", Scope: scope, Dir: o.Dir, Home: o.Home, Command: "/bin/true"}); err == nil {
				t.Error("install accepted a command that does not run toolguard hook")
			}
		})
	}
}

// TestHooksDirOpencode keeps hooks/opencode/toolguard.js identical to what
// Install writes for the bare command (`go test -update` regenerates it).
func TestHooksDirOpencode(t *testing.T) {
	t.Parallel()
	o := Options{Provider: "opencode", Dir: t.TempDir(), Command: hooksCommand("opencode")}
	res, err := Install(o)
	if err != nil {
		t.Fatal(err)
	}
	fresh := mustRead(t, res.File)
	ready := filepath.Join("..", "..", "hooks", "opencode", "toolguard.js")
	if *update {
		writeFile(t, ready, fresh)
		if err := os.Chmod(ready, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if data := mustRead(t, ready); !bytes.Equal(data, fresh) {
		t.Errorf("%s drifted from Install's output (go test -update)", ready)
	}
	if _, err := os.Stat(filepath.Join("..", "..", "hooks", "opencode", "README.md")); err != nil {
		t.Errorf("missing README: %v", err)
	}
}
