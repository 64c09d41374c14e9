// Package testenv finds, for tests, the reference material that lives
// beside the repository rather than in it: the peer corpus in
// ../shared/corpus (docs/corpus.md). Everything else a test reads is under
// testdata/.
//
// A test that needs it fails under CI=true when it is missing (CI must not
// pass for want of its input) and skips elsewhere, saying what is missing
// and how to provide it.
package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// SharedEnv names a directory that replaces ../shared (the directory that
// holds corpus/), for a checkout where it is not beside the repository.
const SharedEnv = "TOOLGUARD_SHARED"

// Shared returns the directory sub (such as "corpus") of the shared
// reference material: $TOOLGUARD_SHARED/sub, else ../shared/sub beside the
// repository root (the directory holding go.mod). When it is missing the
// test fails under CI=true; elsewhere Shared logs why and returns ok
// false, for a test that can still check something without it.
func Shared(tb testing.TB, sub string) (dir string, ok bool) {
	tb.Helper()
	base := os.Getenv(SharedEnv)
	if base == "" {
		root, err := moduleRoot()
		if err != nil {
			tb.Fatalf("testenv: %v", err)
		}
		base = filepath.Join(filepath.Dir(root), "shared")
	}
	dir = filepath.Join(base, sub)
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return dir, true
	}
	why := "this test needs " + dir + " (the reference material beside the repository, not in it; set " +
		SharedEnv + " to the directory holding " + sub + "/ if it is elsewhere)"
	if os.Getenv("CI") == "true" {
		tb.Fatalf("%s: missing, and CI=true makes that a failure", why)
	}
	tb.Logf("%s: missing, so that part is not run", why)
	return "", false
}

// NeedShared is Shared for a test that checks nothing without the
// directory: outside CI it skips the test when the directory is missing.
func NeedShared(tb testing.TB, sub string) string {
	tb.Helper()
	dir, ok := Shared(tb, sub)
	if !ok {
		tb.Skipf("skipped: no %s directory of the shared reference material (see the log line above)", sub)
	}
	return dir
}

// moduleRoot is the nearest directory at or above the working directory
// (a test's package directory) that holds go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", &os.PathError{Op: "find go.mod above", Path: dir, Err: os.ErrNotExist}
		}
	}
}
