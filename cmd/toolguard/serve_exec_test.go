package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/guard"
)

// TestServeRunsServeBinary: in the default build `toolguard serve` runs the
// toolguard-serve beside the binary with every argument as given (flags
// too), and exits as it does; with none installed it fails, naming what
// to install, and runs nothing.
func TestServeRunsServeBinary(t *testing.T) {
	dir := t.TempDir()
	exe := filepath.Join(dir, "toolguard")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir()) // no toolguard-serve on PATH

	f, sys := newFake(t, nil, nil)
	sys.executable = func() (string, error) { return exe, nil }
	code := run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0"}, sys)
	if code != exitFailure || !strings.Contains(f.stderr.String(), "toolguard-serve is not installed") ||
		!strings.Contains(f.stderr.String(), "go build -o toolguard-serve ./cmd/toolguard-serve") {
		t.Fatalf("without toolguard-serve: exit %d, stderr %q", code, f.stderr.String())
	}

	script := "#!/bin/sh\necho \"args: $*\"\nexit 7\n"
	if err := os.WriteFile(filepath.Join(dir, guard.ServeBinary), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	f, sys = newFake(t, nil, nil)
	sys.executable = func() (string, error) { return exe, nil }
	code = run(context.Background(), []string{"serve", "--addr", "127.0.0.1:0", "--help"}, sys)
	if code != 7 || f.stdout.String() != "args: serve --addr 127.0.0.1:0 --help\n" {
		t.Fatalf("with toolguard-serve: exit %d, stdout %q, stderr %q", code, f.stdout.String(), f.stderr.String())
	}
}
