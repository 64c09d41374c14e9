package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records what Shared says instead of
// stopping the test (its other methods are not called).
type recorder struct {
	testing.TB
	fatal, skip, log string
}

func (r *recorder) Helper()                   {}
func (r *recorder) Fatalf(f string, a ...any) { r.fatal = fmt.Sprintf(f, a...) }
func (r *recorder) Skipf(f string, a ...any)  { r.skip = fmt.Sprintf(f, a...) }
func (r *recorder) Logf(f string, a ...any)   { r.log = fmt.Sprintf(f, a...) }

func TestShared(t *testing.T) {
	base := t.TempDir()
	if err := os.Mkdir(filepath.Join(base, "corpus"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv(SharedEnv, base)

	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		r := &recorder{}
		if dir, ok := Shared(r, "corpus"); !ok || dir != filepath.Join(base, "corpus") || r.fatal != "" {
			t.Errorf("CI=%q present: %q %v %q", ci, dir, ok, r.fatal)
		}
	}

	t.Setenv("CI", "")
	r := &recorder{}
	if _, ok := Shared(r, "missing"); ok || r.fatal != "" || !strings.Contains(r.log, filepath.Join(base, "missing")) {
		t.Errorf("outside CI, missing: ok %v fatal %q log %q", ok, r.fatal, r.log)
	}
	r = &recorder{}
	NeedShared(r, "missing")
	if r.skip == "" || r.fatal != "" {
		t.Errorf("NeedShared outside CI: skip %q fatal %q", r.skip, r.fatal)
	}

	t.Setenv("CI", "true")
	r = &recorder{}
	NeedShared(r, "missing")
	if !strings.Contains(r.fatal, "CI=true") || !strings.Contains(r.fatal, SharedEnv) {
		t.Errorf("under CI=true a missing directory must fail, saying why: fatal %q skip %q", r.fatal, r.skip)
	}
}
