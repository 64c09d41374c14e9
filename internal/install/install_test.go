package install

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/golden and ../../hooks from the current code")

var providers = []string{"claude-code", "codebuddy", "codex", "gemini", "cursor", "copilot", "qwen", "windsurf"}

// testCommand is the command installed over the fixtures: a quoted path with
// a space exercises JSON escaping and command recognition.
func testCommand(p string) string {
	return `"/opt/my tools/toolguard" hook --provider ` + p + ` --policy /etc/toolguard/policy.toml`
}

// hooksCommand is the command of the ready configs under hooks/.
func hooksCommand(p string) string { return "toolguard hook --provider " + p }

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// opts returns Options for provider p in scope, rooted at a fresh temp dir.
func opts(t *testing.T, p, scope string) Options {
	root := t.TempDir()
	o := Options{Provider: p, Scope: scope, Command: testCommand(p)}
	if scope == ScopeUser {
		o.Home = root
	} else {
		o.Dir = root
	}
	return o
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	va, err := decodeJSON(a)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	vb, err := decodeJSON(b)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return equalJSON(va, vb)
}

// reformatted fixtures are not laid out exactly as the encoder would write
// them (gemini.json has a \u escape); their round trip is compared as JSON
// values, the others byte for byte.
var reformatted = map[string]bool{"gemini": true}

func TestInstallMatrix(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		for _, scope := range []string{ScopeProject, ScopeUser} {
			t.Run(p+"/"+scope, func(t *testing.T) {
				t.Parallel()
				a, err := lookup(p)
				if err != nil {
					t.Fatal(err)
				}
				ready := mustRead(t, filepath.Join("..", "..", "hooks", p, filepath.Base(a.project)))

				t.Run("no-file", func(t *testing.T) {
					t.Parallel()
					o := opts(t, p, scope)
					o.Command = hooksCommand(p)
					res := install(t, o, true)
					if got := mustRead(t, res.File); !bytes.Equal(got, ready) {
						t.Errorf("installed file differs from hooks/%s:\n%s", p, got)
					}
					if res.Backup != "" || exists(res.File+BackupSuffix) {
						t.Errorf("backup %q written for a new file", res.Backup)
					}
					if info, _ := os.Stat(res.File); info.Mode().Perm() != 0o644 {
						t.Errorf("new file mode = %v, want 0644", info.Mode().Perm())
					}
					install(t, o, false) // twice = no-op
					uninstall(t, o, true)
					// issue 21: uninstall used to leave "{}" behind.
					if exists(res.File) || exists(res.File+BackupSuffix) {
						t.Errorf("%s (or its backup) left after uninstall", res.File)
					}
					uninstall(t, o, false)
				})

				t.Run("empty-object", func(t *testing.T) {
					t.Parallel()
					o := opts(t, p, scope)
					o.Command = hooksCommand(p)
					file, _ := SettingsPath(p, scope, o.Dir, o.Home)
					writeFile(t, file, []byte("{}\n"))
					res := install(t, o, true)
					if got := mustRead(t, file); !bytes.Equal(got, ready) {
						t.Errorf("installed file differs from hooks/%s:\n%s", p, got)
					}
					if res.Backup != file+BackupSuffix || string(mustRead(t, res.Backup)) != "{}\n" {
						t.Errorf("backup = %q, want the original {}", res.Backup)
					}
					if info, _ := os.Stat(file); info.Mode().Perm() != 0o600 {
						t.Errorf("mode = %v, want the original 0600 kept", info.Mode().Perm())
					}
					uninstall(t, o, true)
					// An empty settings file means no settings: it goes, with
					// the backup of it install wrote.
					if exists(file) || exists(file+BackupSuffix) {
						t.Errorf("%s (or its backup) left after uninstall", file)
					}
				})

				t.Run("fixture", func(t *testing.T) {
					t.Parallel()
					o := opts(t, p, scope)
					file, _ := SettingsPath(p, scope, o.Dir, o.Home)
					orig := mustRead(t, filepath.Join("testdata", "fixtures", p+".json"))
					writeFile(t, file, orig)
					before, err := ExtractCommands(p, orig)
					if err != nil {
						t.Fatal(err)
					}

					dry := o
					dry.DryRun = true
					if res := install(t, dry, true); res.Backup != "" {
						t.Errorf("dry run reported backup %q", res.Backup)
					}
					if got := mustRead(t, file); !bytes.Equal(got, orig) || exists(file+BackupSuffix) {
						t.Fatal("dry run wrote the file or a backup")
					}

					res := install(t, o, true)
					got := mustRead(t, file)
					golden(t, filepath.Join("testdata", "golden", p+".installed.json"), got)
					if !bytes.Equal(mustRead(t, res.Backup), orig) {
						t.Error("backup does not hold the original bytes")
					}
					after, err := ExtractCommands(p, got)
					if err != nil {
						t.Fatal(err)
					}
					want := append(slices.Clone(before), o.Command)
					slices.Sort(want)
					slices.Sort(after)
					if !slices.Equal(after, want) {
						t.Errorf("commands after install = %q, want %q", after, want)
					}

					// toolguard already installed: no-op, no rewrite, no backup.
					os.Remove(res.Backup)
					install(t, o, false)
					if exists(res.Backup) || !bytes.Equal(mustRead(t, file), got) {
						t.Error("no-op install touched the file or wrote a backup")
					}

					uninstall(t, o, true)
					back := mustRead(t, file)
					if !jsonEqual(t, back, orig) {
						t.Errorf("round trip changed the JSON value:\n%s", back)
					}
					if !reformatted[p] && !bytes.Equal(back, orig) {
						t.Errorf("round trip changed the bytes:\n%s", back)
					}
				})

				for _, broken := range []string{"truncated", "comment", "trailing-comma", "hooks-string", "array"} {
					t.Run("broken-"+broken, func(t *testing.T) {
						t.Parallel()
						o := opts(t, p, scope)
						file, _ := SettingsPath(p, scope, o.Dir, o.Home)
						orig := mustRead(t, filepath.Join("testdata", "fixtures", "broken-"+broken+".json"))
						writeFile(t, file, orig)
						for name, f := range map[string]func(Options) (Result, error){"install": Install, "uninstall": Uninstall} {
							res, err := f(o)
							if err == nil {
								t.Errorf("%s: no error (Changed = %v)", name, res.Changed)
								continue
							}
							msg := err.Error()
							if !strings.HasPrefix(msg, file+":") || !strings.Contains(msg, "nothing was changed") {
								t.Errorf("%s: error %q does not name the file or say nothing changed", name, msg)
							}
							if !bytes.Equal(mustRead(t, file), orig) || exists(file+BackupSuffix) {
								t.Errorf("%s: refused file was touched", name)
							}
						}
					})
				}
			})
		}
	}
}

func install(t *testing.T, o Options, wantChange bool) Result {
	t.Helper()
	res, err := Install(o)
	if err != nil {
		t.Fatalf("install: %v", err)
	}
	if res.Changed != wantChange {
		t.Fatalf("install: Changed = %v, want %v (%s)", res.Changed, wantChange, res.Summary)
	}
	return res
}

func uninstall(t *testing.T, o Options, wantChange bool) Result {
	t.Helper()
	res, err := Uninstall(o)
	if err != nil {
		t.Fatalf("uninstall: %v", err)
	}
	if res.Changed != wantChange {
		t.Fatalf("uninstall: Changed = %v, want %v (%s)", res.Changed, wantChange, res.Summary)
	}
	return res
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		writeFile(t, path, got)
		return
	}
	want := mustRead(t, path)
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update to accept):\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}
