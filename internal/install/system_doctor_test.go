//go:build unix

package install

import (
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAccessProbeHelper is the probe half of TestSystemDoctor, run as
// another uid (only as its child).
func TestAccessProbeHelper(t *testing.T) {
	if os.Getenv("TG_ACCESS_PROBE") == "" {
		t.Skip("helper of TestSystemDoctor")
	}
	var paths []string
	data, _ := io.ReadAll(os.Stdin)
	if err := json.Unmarshal(data, &paths); err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(ProbeAccess(paths))
	os.Stdout.Write(append([]byte("\n"), out...))
	os.Exit(0) // before the testing package prints PASS on stdout
}

func needRootForDoctor(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("doctor --system's test probes as another uid and needs root; CI must run it as root")
		}
		t.Skip("needs root: the probe runs as a throwaway uid (SysProcAttr.Credential)")
	}
}

const (
	doctorUser = 54321 // the agent's user: no passwd entry
	serverUID  = 4242  // the toolguard account
)

// goodInstall is a system install in a fresh root that other uids can
// traverse, with the server's state owned by serverUID.
func goodInstall(t *testing.T) string {
	t.Helper()
	root, err := os.MkdirTemp("", "tgroot")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	os.Chmod(root, 0o755)
	if _, err := SystemInstall(SystemOptions{Root: root, Source: fakeBinary(t), ServeSource: fakeBinary(t), Serve: true}); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(root, "var/lib/toolguard")
	os.MkdirAll(filepath.Dir(state), 0o755)
	os.Mkdir(state, 0o700)
	os.Mkdir(filepath.Join(state, "toolguard"), 0o700)
	os.Chown(filepath.Join(state, "toolguard"), serverUID, serverUID)
	for _, f := range []string{"toolguard/approver.key", "toolguard/serve.tokens", "toolguard/serve.login", "audit.jsonl"} {
		os.WriteFile(filepath.Join(state, f), []byte("x\n"), 0o600)
		os.Chown(filepath.Join(state, f), serverUID, serverUID)
	}
	os.Chown(state, serverUID, serverUID)
	os.Chmod(state, 0o700)
	// The socket, as systemd's toolguard.socket makes it: 0666 in a 0755
	// directory.
	run := filepath.Join(root, "run", "toolguard")
	os.MkdirAll(run, 0o755)
	os.Chmod(filepath.Join(root, "run"), 0o755)
	ln, err := net.Listen("unix", filepath.Join(run, "serve.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	os.Chmod(filepath.Join(run, "serve.sock"), 0o666)
	os.Chown(filepath.Join(run, "serve.sock"), serverUID, serverUID)
	return root
}

func probeBinary(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tgprobe")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "probe.test")
	data, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	return bin
}

func runDoctor(t *testing.T, root, bin string) ([]string, []SystemFinding) {
	t.Helper()
	o := SystemDoctorOptions{Root: root, User: "agent", UID: doctorUser, StateDir: "/var/lib/toolguard",
		Probe: func(paths []string) (map[string]Access, error) {
			return probeWithEnv(bin, paths)
		}}
	checked, f, err := SystemDoctor(o)
	if err != nil {
		t.Fatal(err)
	}
	return checked, f
}

// probeWithEnv is ProbeAs with the helper's switch in the environment.
func probeWithEnv(bin string, paths []string) (map[string]Access, error) {
	return probeAsEnv(bin, []string{"-test.run=^TestAccessProbeHelper$"}, []string{"TG_ACCESS_PROBE=1"}, doctorUser, doctorUser, paths)
}

// TestSystemDoctor: doctor --system passes on a good install, and fails
// naming the surface when that one surface is made writable (or, for a
// secret, readable) to the user, or its fail-closed pin is gone.
func TestSystemDoctor(t *testing.T) {
	needRootForDoctor(t)
	bin := probeBinary(t)
	root := goodInstall(t)
	checked, f := runDoctor(t, root, bin)
	if len(f) != 0 {
		t.Fatalf("good install: %v", f)
	}
	for _, want := range []string{SystemBinary, SystemServeBinary, SystemPolicy, systemFiles["claude-code"], systemFiles["codex"],
		systemFiles["gemini"], systemFiles["qwen"], systemFiles["copilot"], SystemSocket, "/var/lib/toolguard/toolguard/approver.key"} {
		found := false
		for _, c := range checked {
			found = found || c == want
		}
		if !found {
			t.Errorf("not checked: %s (checked %v)", want, checked)
		}
	}
	in := func(root, p string) string { return filepath.Join(root, p) }
	cases := []struct {
		name, surface, path string
		break_              func(root string)
	}{
		{"binary writable", "binary", SystemBinary, func(r string) { os.Chmod(in(r, SystemBinary), 0o777) }},
		{"serve binary owned by the user", "binary", SystemServeBinary, func(r string) { os.Chown(in(r, SystemServeBinary), doctorUser, doctorUser) }},
		{"binary directory writable", "binary", SystemLibDir, func(r string) { os.Chmod(in(r, SystemLibDir), 0o777) }},
		{"/usr/local writable", "binary", "/usr/local", func(r string) { os.Chown(in(r, "/usr/local"), doctorUser, 0) }},
		{"policy writable", "policy", SystemPolicy, func(r string) { os.Chmod(in(r, SystemPolicy), 0o666) }},
		{"policy directory the user's", "policy", "/etc/toolguard", func(r string) { os.Chown(in(r, "/etc/toolguard"), doctorUser, doctorUser) }},
		{"claude drop-in writable", "settings", systemFiles["claude-code"], func(r string) { os.Chmod(in(r, systemFiles["claude-code"]), 0o666) }},
		{"claude drop-in directory writable", "settings", "/etc/claude-code/managed-settings.d", func(r string) { os.Chmod(in(r, "/etc/claude-code/managed-settings.d"), 0o777) }},
		{"another managed file writable", "settings", "/etc/claude-code/managed-settings.d/zz.json", func(r string) {
			os.WriteFile(in(r, "/etc/claude-code/managed-settings.d/zz.json"), []byte(`{"env":{}}`), 0o666)
			os.Chmod(in(r, "/etc/claude-code/managed-settings.d/zz.json"), 0o666)
		}},
		{"codex requirements writable", "settings", systemFiles["codex"], func(r string) { os.Chmod(in(r, systemFiles["codex"]), 0o646) }},
		{"gemini settings writable", "settings", systemFiles["gemini"], func(r string) { os.Chown(in(r, systemFiles["gemini"]), doctorUser, 0) }},
		{"qwen settings group-writable", "settings", systemFiles["qwen"], func(r string) {
			os.Chown(in(r, systemFiles["qwen"]), 0, doctorUser)
			os.Chmod(in(r, systemFiles["qwen"]), 0o664)
		}},
		{"copilot policy writable", "settings", systemFiles["copilot"], func(r string) { os.Chmod(in(r, systemFiles["copilot"]), 0o666) }},
		{"approver key readable", "secret", "/var/lib/toolguard/toolguard/approver.key", func(r string) {
			os.Chmod(in(r, "/var/lib/toolguard"), 0o755)
			os.Chmod(in(r, "/var/lib/toolguard/toolguard"), 0o755)
			os.Chmod(in(r, "/var/lib/toolguard/toolguard/approver.key"), 0o644)
		}},
		{"tokens readable", "secret", "/var/lib/toolguard/toolguard/serve.tokens", func(r string) {
			os.Chmod(in(r, "/var/lib/toolguard"), 0o711)
			os.Chmod(in(r, "/var/lib/toolguard/toolguard"), 0o711)
			os.Chmod(in(r, "/var/lib/toolguard/toolguard/serve.tokens"), 0o604)
		}},
		{"audit log writable", "state", "/var/lib/toolguard/audit.jsonl", func(r string) {
			os.Chmod(in(r, "/var/lib/toolguard"), 0o711)
			os.Chmod(in(r, "/var/lib/toolguard/audit.jsonl"), 0o606)
		}},
		{"socket directory writable", "socket", "/run/toolguard", func(r string) { os.Chmod(in(r, "/run/toolguard"), 0o777) }},
		{"state directory writable", "state", "/var/lib/toolguard", func(r string) { os.Chmod(in(r, "/var/lib/toolguard"), 0o777) }},
		{"another drop-in switches hooks off", "hook", "/etc/claude-code/managed-settings.d/zz-off.json", func(r string) {
			os.WriteFile(in(r, "/etc/claude-code/managed-settings.d/zz-off.json"), []byte(`{"disableAllHooks": true}`), 0o644)
		}},
		{"claude onFailure gone", "hook", systemFiles["claude-code"], func(r string) {
			p := in(r, systemFiles["claude-code"])
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), `"onFailure": "block"`, `"onFailure": "ignore"`, 1)), 0o644)
		}},
		{"codex pin gone", "hook", systemFiles["codex"], func(r string) {
			p := in(r, systemFiles["codex"])
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), "allow_managed_hooks_only = true", "", 1)), 0o644)
		}},
		{"qwen pin gone", "hook", systemFiles["qwen"], func(r string) {
			p := in(r, systemFiles["qwen"])
			data, _ := os.ReadFile(p)
			os.WriteFile(p, []byte(strings.Replace(string(data), `"disableAllHooks": false`, `"disableAllHooks": true`, 1)), 0o644)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := goodInstall(t)
			c.break_(root)
			_, f := runDoctor(t, root, bin)
			found := false
			for _, x := range f {
				if x.Surface == c.surface && x.Path == c.path && x.Fix != "" {
					found = true
				}
			}
			if !found {
				t.Errorf("doctor did not name %s %s; found %v", c.surface, c.path, f)
			}
		})
	}
}

func TestVersionLess(t *testing.T) {
	for _, c := range []struct {
		a, b string
		less bool
	}{{"2.1.197", "2.1.295", true}, {"2.1.295", "2.1.295", false}, {"2.1.332", "2.1.295", false}, {"2.2.0", "2.1.295", false}, {"1.9.999", "2.1.0", true}} {
		if versionLess(c.a, c.b) != c.less {
			t.Errorf("versionLess(%s, %s) != %v", c.a, c.b, c.less)
		}
	}
}
