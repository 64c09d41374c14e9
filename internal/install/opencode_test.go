package install

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
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

// TestOpencodePluginRuns loads the plugin in node (skipped without node) and
// calls its tool.execute.before with hook commands standing in for toolguard:
// a deny, exit 2, and every failure (a crash, garbage, no decision, a missing
// program) throw, which is what blocks the tool in opencode; silence and an
// allow do not, and an allow's updatedInput replaces the arguments.
func TestOpencodePluginRuns(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not in PATH")
	}
	deny := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"toolguard: denied by rule r"}}`
	allow := `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"git status"}}}`
	cases := []struct {
		name, cmd string
		want      string // "ok", or a substring of the thrown message
		args      string // the arguments afterwards (JSON), when want is ok
	}{
		{"deny", "cat >/dev/null; echo '" + deny + "'", "toolguard: denied by rule r", ""},
		{"ask", `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"asked"}}'`, "asked", ""},
		{"exit 2", "cat >/dev/null; echo 'blocked by stderr' >&2; exit 2", "blocked by stderr", ""},
		{"crash", "cat >/dev/null; echo boom >&2; exit 1", "the hook failed (exit 1): boom", ""},
		{"garbage", "cat >/dev/null; echo not json", "unreadable hook reply", ""},
		{"no decision", `cat >/dev/null; echo '{"hookSpecificOutput":{}}'`, "without a decision", ""},
		{"missing program", "/nonexistent/toolguard hook --provider opencode", "the hook failed (exit 127)", ""},
		{"pass", "cat >/dev/null", "ok", `{"command":"git push"}`},
		{"allow with rewrite", "cat >/dev/null; echo '" + allow + "'", "ok", `{"command":"git status"}`},
		{"payload", `p=$(cat); case "$p" in *'"session_id":"ses_1"'*'"hook_event_name":"PreToolUse","tool_name":"bash","tool_input":{"command":"git push"},"tool_use_id":"c1","client":"opencode"'*) ;; *) echo "$p" >&2; exit 1;; esac`, "ok", `{"command":"git push"}`},
	}
	dir := t.TempDir()
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			plugin := filepath.Join(dir, fmt.Sprintf("p%d.mjs", i))
			writeFile(t, plugin, pluginSource(tc.cmd))
			script := `const m = await import(process.argv[1]);
const h = await m.Toolguard({ directory: process.argv[2] });
const out = { args: { command: "git push" } };
try { await h["tool.execute.before"]({ tool: "bash", sessionID: "ses_1", callID: "c1" }, out); console.log("ok " + JSON.stringify(out.args)); }
catch (e) { console.log("threw " + e.message); }`
			got, err := exec.Command(node, "--input-type=module", "-e", script, plugin, dir).CombinedOutput()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, got)
			}
			line := strings.TrimSpace(string(got))
			switch {
			case tc.want == "ok":
				if line != "ok "+tc.args {
					t.Errorf("got %q, want ok %s", line, tc.args)
				}
			case !strings.HasPrefix(line, "threw ") || !strings.Contains(line, tc.want):
				t.Errorf("got %q, want a throw with %q", line, tc.want)
			}
		})
	}
}
