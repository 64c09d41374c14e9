package install

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshot maps every regular file under root to its content and mode.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			fi, _ := d.Info()
			out[strings.TrimPrefix(p, root)] = fi.Mode().Perm().String() + " " + string(data)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func fakeBinary(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "toolguard")
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho toolguard\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func put(t *testing.T, root, p, data string) {
	t.Helper()
	full := filepath.Join(root, p)
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v\n%s", path, err, data)
	}
	return v
}

func TestSystemInstallFresh(t *testing.T) {
	root := t.TempDir()
	res, err := SystemInstall(SystemOptions{Root: root, Source: fakeBinary(t), ServeSource: fakeBinary(t), Serve: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed {
		t.Fatal("first install changed nothing")
	}
	want := map[string]fs.FileMode{
		SystemBinary: 0o755, SystemPolicy: 0o644, SystemManifest: 0o644,
		systemFiles["claude-code"]: 0o644, systemFiles["codex"]: 0o644, systemFiles["gemini"]: 0o644,
		systemFiles["qwen"]: 0o644, systemFiles["copilot"]: 0o644, geminiPolicyFile: 0o644,
		SystemServeBinary: 0o755, "/etc/systemd/system/toolguard.service": 0o644, "/etc/systemd/system/toolguard.socket": 0o644,
	}
	for p, mode := range want {
		fi, err := os.Stat(filepath.Join(root, p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fi.Mode().Perm() != mode {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode().Perm(), mode)
		}
		for d := filepath.Dir(p); d != "/"; d = filepath.Dir(d) {
			if di, err := os.Stat(filepath.Join(root, d)); err != nil || di.Mode().Perm() != 0o755 {
				t.Errorf("directory %s: %v %v, want 0755", d, di.Mode().Perm(), err)
			}
		}
	}
	cl := readJSON(t, filepath.Join(root, systemFiles["claude-code"]))
	if cl["allowManagedHooksOnly"] != true {
		t.Errorf("claude drop-in: allowManagedHooksOnly = %v", cl["allowManagedHooksOnly"])
	}
	pre := cl["hooks"].(map[string]any)["PreToolUse"].([]any)[0].(map[string]any)["hooks"].([]any)[0].(map[string]any)
	if pre["onFailure"] != "block" || pre["command"] != SystemCommand("claude-code") {
		t.Errorf("claude PreToolUse handler = %v", pre)
	}
	if _, ok := cl["sandbox"]; ok {
		t.Error("sandbox block written without --sandbox")
	}
	if !strings.Contains(SystemCommand("claude-code"), "--policy /etc/toolguard/policy.toml") {
		t.Errorf("system command does not pin the platform policy: %s", SystemCommand("claude-code"))
	}
	req, _ := os.ReadFile(filepath.Join(root, systemFiles["codex"]))
	if err := checkCodexRequirements(req, false); err != nil {
		t.Errorf("codex requirements: %v\n%s", err, req)
	}
	gem := readJSON(t, filepath.Join(root, systemFiles["gemini"]))
	if gem["hooksConfig"].(map[string]any)["enabled"] != true {
		t.Errorf("gemini hooksConfig = %v", gem["hooksConfig"])
	}
	if cmds, _ := ExtractCommands("gemini", mustRead(t, filepath.Join(root, systemFiles["gemini"]))); len(cmds) == 0 || cmds[0] != SystemCommand("gemini") {
		t.Errorf("gemini hooks = %v", cmds)
	}
	qw := readJSON(t, filepath.Join(root, systemFiles["qwen"]))
	if v, ok := qw["disableAllHooks"]; !ok || v != false {
		t.Errorf("qwen disableAllHooks = %v (present %v)", v, ok)
	}
	pol := string(mustRead(t, filepath.Join(root, SystemPolicy)))
	if !strings.Contains(pol, `approval_url = "unix:///run/toolguard/serve.sock"`) || !strings.Contains(pol, `audit_log = "server"`) {
		t.Errorf("platform policy with --serve:\n%s", pol)
	}

	// Idempotent.
	before := snapshot(t, root)
	res, err = SystemInstall(SystemOptions{Root: root, Source: fakeBinary(t), ServeSource: fakeBinary(t), Serve: true})
	if err != nil || res.Changed {
		t.Fatalf("second install: changed %v, err %v, lines %v", res.Changed, err, res.Lines)
	}
	if after := snapshot(t, root); !maps.Equal(before, after) {
		t.Error("second install changed files")
	}

	// Uninstall leaves nothing of toolguard's, twice.
	if _, err := SystemUninstall(root, false); err != nil {
		t.Fatal(err)
	}
	if left := snapshot(t, root); len(left) != 0 {
		t.Errorf("uninstall left files: %v", keys(left))
	}
	res, err = SystemUninstall(root, false)
	if err != nil || res.Changed {
		t.Errorf("second uninstall: changed %v, err %v", res.Changed, err)
	}
}

func keys(m map[string]string) []string {
	var k []string
	for x := range m {
		k = append(k, x)
	}
	return k
}

// An install over existing files keeps what was there and uninstall
// brings every byte back.
func TestSystemInstallExistingRoundTrip(t *testing.T) {
	root := t.TempDir()
	put(t, root, systemFiles["codex"], "# site requirements\nallowed_approval_policies = [\"on-request\"]\n\n[mcp_servers.docs]\nidentity = { command = \"docs-mcp\" }\n")
	put(t, root, systemFiles["gemini"], "{\n  \"ui\": {\"theme\": \"dark\"},\n  \"hooksConfig\": {\"enabled\": false}\n}\n")
	put(t, root, systemFiles["qwen"], "{\"disableAllHooks\": true, \"model\": \"q\"}\n")
	put(t, root, SystemPolicy, "version = 1\n# site rules\n")
	put(t, root, systemFiles["claude-code"], "{\"old\": true}\n")
	before := snapshot(t, root)

	res, err := SystemInstall(SystemOptions{Root: root, Source: fakeBinary(t), Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, filepath.Join(root, SystemPolicy))); got != "version = 1\n# site rules\n" {
		t.Errorf("existing platform policy overwritten:\n%s", got)
	}
	req := mustRead(t, filepath.Join(root, systemFiles["codex"]))
	if err := checkCodexRequirements(req, true); err != nil {
		t.Errorf("codex: %v\n%s", err, req)
	}
	if !strings.Contains(string(req), "# site requirements\nallowed_approval_policies") || !strings.Contains(string(req), "[mcp_servers.docs]") {
		t.Errorf("codex: the admin's content is not kept:\n%s", req)
	}
	gem := readJSON(t, filepath.Join(root, systemFiles["gemini"]))
	if gem["hooksConfig"].(map[string]any)["enabled"] != true || gem["ui"] == nil {
		t.Errorf("gemini = %v", gem)
	}
	if qw := readJSON(t, filepath.Join(root, systemFiles["qwen"])); qw["disableAllHooks"] != false || qw["model"] != "q" {
		t.Errorf("qwen = %v", qw)
	}
	cl := readJSON(t, filepath.Join(root, systemFiles["claude-code"]))
	sb, _ := cl["sandbox"].(map[string]any)
	if sb["enabled"] != true || sb["failIfUnavailable"] != true || sb["allowUnsandboxedCommands"] != false {
		t.Errorf("claude sandbox = %v", cl["sandbox"])
	}
	if !strings.Contains(strings.Join(res.Lines, "\n"), "backup") {
		t.Errorf("no backup reported: %v", res.Lines)
	}

	if _, err := SystemUninstall(root, false); err != nil {
		t.Fatal(err)
	}
	after := snapshot(t, root)
	for p, v := range before {
		if p == systemFiles["gemini"] || p == systemFiles["qwen"] {
			// Re-encoded JSON: the same value, not necessarily the same bytes.
			var a, b any
			json.Unmarshal([]byte(strings.SplitN(v, " ", 2)[1]), &a)
			json.Unmarshal([]byte(strings.SplitN(after[p], " ", 2)[1]), &b)
			if !sameValue(a, b) {
				t.Errorf("%s after uninstall:\n%s\nwant\n%s", p, after[p], v)
			}
			continue
		}
		if after[p] != v {
			t.Errorf("%s after uninstall:\n%q\nwant\n%q", p, after[p], v)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("uninstall left %s", p)
		}
	}
}

func sameValue(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func TestSystemInstallRefuses(t *testing.T) {
	cases := []struct {
		name  string
		setup func(t *testing.T, root string)
		want  string
	}{
		{"codex pin with another value", func(t *testing.T, root string) {
			put(t, root, systemFiles["codex"], "allow_managed_hooks_only = false\n")
		}, "allow_managed_hooks_only = false"},
		{"codex features without hooks", func(t *testing.T, root string) {
			put(t, root, systemFiles["codex"], "[features]\nweb_search = true\n")
		}, "[features] table without hooks = true"},
		{"codex file that does not parse", func(t *testing.T, root string) {
			put(t, root, systemFiles["codex"], "allow_managed_hooks_only = \n")
		}, "does not parse"},
		{"symlinked settings", func(t *testing.T, root string) {
			put(t, root, "/home/u/settings.json", "{}")
			os.MkdirAll(filepath.Join(root, "/etc/gemini-cli"), 0o755)
			os.Symlink(filepath.Join(root, "/home/u/settings.json"), filepath.Join(root, systemFiles["gemini"]))
		}, "not a regular file"},
		{"group-writable directory", func(t *testing.T, root string) {
			os.MkdirAll(filepath.Join(root, "/etc/claude-code"), 0o755)
			os.Chmod(filepath.Join(root, "/etc/claude-code"), 0o777)
		}, "writable by group or others"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			c.setup(t, root)
			before := snapshot(t, root)
			_, err := SystemInstall(SystemOptions{Root: root, Source: fakeBinary(t), Providers: []string{"claude-code", "codex", "gemini"}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want %q", err, c.want)
			}
			// Nothing of the refused agent's file changed.
			after := snapshot(t, root)
			for p, v := range before {
				if after[p] != v {
					t.Errorf("%s changed although install refused", p)
				}
			}
		})
	}
}

func TestSystemUninstallKeepsEditedFiles(t *testing.T) {
	root := t.TempDir()
	if _, err := SystemInstall(SystemOptions{Root: root, Source: fakeBinary(t), Providers: []string{"claude-code"}}); err != nil {
		t.Fatal(err)
	}
	put(t, root, SystemPolicy, "version = 1\n# my rules\n")
	put(t, root, systemFiles["claude-code"], "{\"edited\": true}\n")
	_, err := SystemUninstall(root, false)
	if err == nil || !strings.Contains(err.Error(), "changed since install") {
		t.Fatalf("uninstall of an edited drop-in: err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, SystemManifest)); err != nil {
		t.Error("the manifest went although uninstall did not finish")
	}
	if got := string(mustRead(t, filepath.Join(root, SystemPolicy))); got != "version = 1\n# my rules\n" {
		t.Errorf("edited platform policy: %q", got)
	}
}

func TestSystemInstallDryRun(t *testing.T) {
	root := t.TempDir()
	res, err := SystemInstall(SystemOptions{Root: root, Source: fakeBinary(t), DryRun: true})
	if err != nil || !res.Changed {
		t.Fatalf("dry run: %v %v", res.Changed, err)
	}
	if left := snapshot(t, root); len(left) != 0 {
		t.Errorf("dry run wrote %v", keys(left))
	}
}

// TestSystemdUnitsShipped: packaging/systemd holds the units install
// --system --serve writes.
func TestSystemdUnitsShipped(t *testing.T) {
	for name, text := range SystemdUnits() {
		got, err := os.ReadFile(filepath.Join("..", "..", "packaging", "systemd", name))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != text {
			t.Errorf("packaging/systemd/%s differs from internal/install/system_units.go", name)
		}
	}
}
