package shellparse

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/internal/testenv"
)

// corpusCommands loads the shell commands of the shared peer corpus, which
// lives beside the repository (testenv.NeedShared: the test fails without it
// under CI=true, and skips elsewhere).
func corpusCommands(tb testing.TB) []string {
	tb.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.NeedShared(tb, "corpus"), "*.jsonl"))
	var out []string
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			tb.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<24)
		for sc.Scan() {
			var rec struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Command != "" {
				out = append(out, rec.Command)
			}
		}
		f.Close()
	}
	return out
}

// TestCorpus runs every command of the peer corpus: no panic, only typed
// errors, and nearly all of it parses.
func TestCorpus(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: the peer corpus run is left out")
	}
	cmds := corpusCommands(t)
	if len(cmds) == 0 {
		t.Fatal("the peer corpus holds no command")
	}
	failed := 0
	for _, c := range cmds {
		_, err := Analyze(c, Options{Cwd: "/w", Home: "/home/u"})
		var pe *ParseError
		var le *LimitError
		switch {
		case err == nil:
		case errors.As(err, &pe), errors.As(err, &le):
			failed++
			if testing.Verbose() {
				t.Logf("%q: %v", c, err)
			}
		default:
			t.Errorf("%q: untyped error %T %v", c, err, err)
		}
	}
	if failed*50 > len(cmds) {
		t.Errorf("%d of %d corpus commands fail to analyze", failed, len(cmds))
	}
}
