package npm

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// standIn writes a program that answers `version` as toolguard does.
func standIn(t *testing.T, versionLine string) string {
	t.Helper()
	exe := filepath.Join(t.TempDir(), "toolguard")
	script := "#!/bin/sh\n[ \"$1\" = version ] || exit 9\necho '" + versionLine + "'\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return exe
}

func needNode(t *testing.T) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binary is a shell script")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("node is not on PATH: CI needs it to check npm/pack.js")
		}
		t.Skip("skipped: no node on PATH to run npm/pack.js")
	}
	return node
}

type pkgJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	OptionalDependencies map[string]string `json:"optionalDependencies"`
	Files                []string          `json:"files"`
}

func readPkg(t *testing.T, dir string) pkgJSON {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var p pkgJSON
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPackVersion: the version every package gets, from --version or from
// the binary; a source build ("devel") gets a snapshot version npm accepts.
func TestPackVersion(t *testing.T) {
	node := needNode(t)
	plat := runtime.GOOS + ":" + runtime.GOARCH
	snapshot := regexp.MustCompile(`^0\.0\.0-devel-[0-9a-f]{7,12}$|^0\.0\.0-devel-\d{14}$`)
	for _, c := range []struct {
		name, line string   // the binary's version line
		args       []string // extra pack.js arguments
		want       string   // exact version, or "snapshot"
		wantErr    string
	}{
		{name: "release", line: "toolguard 1.2.3 (commit 0123456789ab, built 2026-01-02T03:04:05Z) linux/amd64 go1.26", want: "1.2.3"},
		{name: "explicit", line: "toolguard devel linux/amd64 go1.26", args: []string{"--version", "v2.0.0-rc.1+abc"}, want: "2.0.0-rc.1"},
		{name: "devel with commit", line: "toolguard devel (commit 00a1b2c3d4e5f6, built 2026-01-02T03:04:05Z) linux/amd64 go1.26", want: "0.0.0-devel-00a1b2c3d4e5"},
		{name: "devel without commit", line: "toolguard devel linux/amd64 go1.26", want: "snapshot"},
		{name: "devel given", line: "toolguard 9.9.9 linux/amd64 go1.26", args: []string{"--version", "devel"}, want: "snapshot"},
		{name: "go build pseudo-version", line: "toolguard v0.0.0-20261204165500-0123456789ab+dirty (commit 0123456789ab) linux/amd64 go1.26", want: "0.0.0-20261204165500-0123456789ab"},
		{name: "not toolguard", line: "something else", wantErr: "version printed"},
		{name: "bad version", line: "toolguard devel linux/amd64 go1.26", args: []string{"--version", "latest"}, wantErr: `bad --version "latest"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "pkgs")
			args := append([]string{"pack.js", "--out", out}, c.args...)
			args = append(args, standIn(t, c.line)+":"+plat)
			cmd := exec.Command(node, args...)
			stdout, err := cmd.Output()
			if c.wantErr != "" {
				ee, ok := err.(*exec.ExitError)
				if !ok || !strings.Contains(string(ee.Stderr), c.wantErr) {
					t.Fatalf("err %v, want an exit with %q on stderr", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("pack.js: %v: %s", err, err.(*exec.ExitError).Stderr)
			}
			dirs := strings.Fields(string(stdout))
			if len(dirs) != 2 {
				t.Fatalf("pack.js printed %q, want the platform and launcher directories", stdout)
			}
			platPkg, main := readPkg(t, dirs[0]), readPkg(t, dirs[1])
			if main.Name != "toolguard" || !strings.HasPrefix(platPkg.Name, "@toolguard/") {
				t.Fatalf("packages %q and %q", platPkg.Name, main.Name)
			}
			switch {
			case c.want == "snapshot" && !snapshot.MatchString(main.Version):
				t.Errorf("version %q, want a snapshot 0.0.0-devel-<commit or time>", main.Version)
			case c.want != "snapshot" && main.Version != c.want:
				t.Errorf("version %q, want %q", main.Version, c.want)
			}
			if platPkg.Version != main.Version {
				t.Errorf("%s has version %q, the launcher %q", platPkg.Name, platPkg.Version, main.Version)
			}
			for dep, v := range main.OptionalDependencies {
				if v != main.Version {
					t.Errorf("optionalDependency %s@%s, want %s", dep, v, main.Version)
				}
			}
		})
	}
}

// TestPackDevelNpmPack: the packages of a source build pack with npm
// itself, offline (npm pack checks the version and the files).
func TestPackDevelNpmPack(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: npm pack is left out")
	}
	node := needNode(t)
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("skipped: no npm on PATH")
	}
	tmp := t.TempDir()
	out := filepath.Join(tmp, "pkgs")
	exe := standIn(t, "toolguard devel (commit 0123456789ab, built 2026-01-02T03:04:05Z) linux/amd64 go1.26")
	stdout, err := exec.Command(node, "pack.js", "--out", out, exe+":"+runtime.GOOS+":"+runtime.GOARCH).Output()
	if err != nil {
		t.Fatalf("pack.js: %v", err)
	}
	tgz := filepath.Join(tmp, "tgz")
	if err := os.Mkdir(tgz, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range strings.Fields(string(stdout)) {
		cmd := exec.Command(npm, "pack", "--offline", "--silent", dir)
		cmd.Dir = tgz
		cmd.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(tmp, "cache"),
			"npm_config_update_notifier=false", "npm_config_fund=false", "npm_config_audit=false")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm pack %s: %v\n%s", dir, err, b)
		}
	}
	files, _ := filepath.Glob(filepath.Join(tgz, "*-0.0.0-devel-0123456789ab.tgz"))
	if len(files) != 2 {
		entries, _ := os.ReadDir(tgz)
		t.Fatalf("npm pack wrote %v, want two tarballs of version 0.0.0-devel-0123456789ab", entries)
	}
}
