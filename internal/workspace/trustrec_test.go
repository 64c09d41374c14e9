package workspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTrustRecordLifecycle: Trust records the file's bytes (IsTrusted
// then holds for exactly them), State follows the file (current, changed,
// missing), RevokeTrust forgets every record of the file and only its.
func TestTrustRecordLifecycle(t *testing.T) {
	dir, proj := t.TempDir(), t.TempDir()
	env := Env{Getenv: func(k string) string {
		if k == "XDG_STATE_HOME" {
			return dir
		}
		return ""
	}}
	trustDir := env.TrustDir()
	file := filepath.Join(proj, ".toolguard", "policy.toml")
	other := filepath.Join(proj, "other.toml")
	for _, f := range []string{file, other} {
		os.MkdirAll(filepath.Dir(f), 0o755)
		if err := os.WriteFile(f, []byte("# v1\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Trust(trustDir, filepath.Join(proj, "absent.toml"), time.Now()); err == nil {
		t.Error("trusted a file that does not exist")
	}
	rec, err := Trust(trustDir, file, time.Unix(1, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Trust(trustDir, other, time.Unix(2, 0)); err != nil {
		t.Fatal(err)
	}
	if !env.IsTrusted(file, []byte("# v1\n")) || env.IsTrusted(file, []byte("# v2\n")) {
		t.Error("IsTrusted does not follow the recorded bytes")
	}
	if rec.State() != "current" {
		t.Errorf("state %q, want current", rec.State())
	}
	os.WriteFile(file, []byte("# v2\n"), 0o644)
	if !strings.HasPrefix(rec.State(), "changed") {
		t.Errorf("state %q after an edit, want changed", rec.State())
	}
	os.Remove(file)
	if rec.State() != "missing" {
		t.Errorf("state %q after removal, want missing", rec.State())
	}
	if n, err := RevokeTrust(trustDir, rec.Path); err != nil || n != 1 {
		t.Errorf("revoked %d (%v), want 1", n, err)
	}
	recs, _ := TrustRecords(trustDir)
	if len(recs) != 1 || recs[0].Path != TrustKey(other) {
		t.Errorf("after revoking, records %+v; want only %s's", recs, other)
	}
}

// TestWritePolicyFile: a new file is written whole with mode 0644; without
// overwrite an existing file is kept and the write refused; with it, the
// file is replaced. No temporary file is left behind.
func TestWritePolicyFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "policy.toml")
	if err := WritePolicyFile(p, []byte("a"), false); err != nil {
		t.Fatal(err)
	}
	if err := WritePolicyFile(p, []byte("b"), false); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("no-overwrite write over an existing file: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "a" {
		t.Errorf("file is %q after a refused write", b)
	}
	if err := WritePolicyFile(p, []byte("c"), true); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if b, _ := os.ReadFile(p); string(b) != "c" || err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("overwrite: %q, %v %v", b, fi.Mode().Perm(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("left %d entries, want only the policy", len(ents))
	}
}
