package install

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestHooksDir keeps hooks/<agent>/ in step with Install: each ready config
// parses, holds exactly the toolguard command, and is byte for byte what
// Install writes into an empty project. `go test -update` regenerates them.
func TestHooksDir(t *testing.T) {
	t.Parallel()
	for _, p := range providers {
		t.Run(p, func(t *testing.T) {
			t.Parallel()
			a, err := lookup(p)
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			res, err := Install(Options{Provider: p, Dir: dir, Command: hooksCommand(p)})
			if err != nil {
				t.Fatal(err)
			}
			fresh := mustRead(t, res.File)
			ready := filepath.Join("..", "..", "hooks", p, filepath.Base(a.project))
			if *update {
				writeFile(t, ready, fresh)
				if err := os.Chmod(ready, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			data := mustRead(t, ready)
			if _, err := decodeJSON(data); err != nil {
				t.Fatalf("%s: %v", ready, err)
			}
			cmds, err := ExtractCommands(p, data)
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{hooksCommand(p)}; !slices.Equal(cmds, want) {
				t.Errorf("%s: commands = %q, want %q", ready, cmds, want)
			}
			if !bytes.Equal(data, fresh) {
				t.Errorf("%s drifted from Install's output (go test -update):\n%s", ready, fresh)
			}
			if _, err := os.Stat(filepath.Join(filepath.Dir(ready), "README.md")); err != nil {
				t.Errorf("missing README: %v", err)
			}
		})
	}
}
