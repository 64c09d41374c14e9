package policy

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/tools/hookbench/policygen"
)

// materializedFile writes a materialized policy of n generated rules and
// returns its path and bytes.
func materializedFile(t *testing.T, n int) (string, []byte) {
	t.Helper()
	p, err := Load([]Source{{Path: "org.toml", Data: []byte(policygen.TOML(n))}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

func TestReadSource(t *testing.T) {
	path, want := materializedFile(t, 2000)
	if len(want) < mapThreshold {
		t.Fatalf("the generated policy is %d bytes, below the %d-byte mapping threshold", len(want), mapThreshold)
	}
	src, err := ReadSource("org", path)
	if err != nil {
		t.Fatal(err)
	}
	if !src.mapped || src.Layer != "org" || src.Path != path || !bytes.Equal(src.Data, want) {
		t.Fatalf("ReadSource of a large materialized policy: mapped %v, layer %q, path %q, same bytes %v",
			src.mapped, src.Layer, src.Path, bytes.Equal(src.Data, want))
	}
	p, err := Load([]Source{src}, LoadOptions{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if p.lazy == nil {
		t.Fatal("a mapped materialized policy did not load lazily")
	}
	push := call.Call{Tool: "Bash", Kind: call.KindShell, Cwd: "/home/u/proj", Command: "git push --force origin main", Shell: "bash"}
	if r := p.Evaluate(push, benchEnv); r.Decision != call.Deny {
		t.Fatalf("git push --force on the mapped policy: %v, want deny", r.Decision)
	}

	// Small files, other layouts and TOML are read, not mapped, and read
	// the same.
	for name, data := range map[string][]byte{
		"small.json":    []byte(`{"version":1}`),
		"indented.json": append([]byte("{\n  \"version\": 1,"), bytes.Repeat([]byte(" "), mapThreshold)...),
		"big.toml":      append([]byte("version = 1\n"), bytes.Repeat([]byte("# pad\n"), mapThreshold/6+1)...),
	} {
		f := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadSource("", f)
		if err != nil || got.mapped || !bytes.Equal(got.Data, data) {
			t.Errorf("%s: ReadSource = %d bytes, mapped %v, %v; want the file's %d bytes, read", name, len(got.Data), got.mapped, err, len(data))
		}
	}
	if _, err := ReadSource("", filepath.Join(t.TempDir(), "missing.json")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v, want not-exist", err)
	}
}

// TestReadSourceTruncated: a mapped policy that shrinks while in use gives
// the call on_error (an error the hook answers with deny), not a crash.
func TestReadSourceTruncated(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("faulting on pages past the end of a truncated mapping is checked on Linux")
	}
	path, data := materializedFile(t, 2000)
	src, err := ReadSource("", path)
	if err != nil || !src.mapped {
		t.Fatalf("ReadSource: mapped %v, %v", src.mapped, err)
	}
	p, err := Load([]Source{src}, LoadOptions{Lazy: true})
	if err != nil || p.lazy == nil {
		t.Fatalf("lazy load: %v", err)
	}
	// Keep the first line (the index) and cut the rules off.
	if err := os.Truncate(path, int64(bytes.IndexByte(data, '\n')+1)); err != nil {
		t.Fatal(err)
	}
	push := call.Call{Tool: "Bash", Kind: call.KindShell, Cwd: "/home/u/proj", Command: "git push --force origin main", Shell: "bash"}
	r := p.Evaluate(push, benchEnv)
	if r.Decision != call.Deny || r.Cause != CauseError || !strings.Contains(r.Reason, "changed while it was being read") {
		t.Fatalf("truncated mapped policy: %v (%s) %q, want the on_error deny", r.Decision, r.Cause, r.Reason)
	}
}
