package guard

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const amendRule = `
[[rule]]
id = "amend-req_test"
decision = "allow"
priority = 1
command = "terraform apply"
regex = '^terraform apply -auto-approve$'

[[test]]
command = "terraform apply -auto-approve"
expect = "allow"
`

// TestPlanAmend: the amended file is checked before anything is written,
// written atomically with the file's mode, and never over a change made
// since it was checked.
func TestPlanAmend(t *testing.T) {
	t.Parallel()
	a := Amendment{Rule: "amend-req_test", Snippet: amendRule}
	t.Run("new file", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "sub", "policy.toml")
		p, err := PlanAmend(file, a)
		if err != nil {
			t.Fatal(err)
		}
		if p.OldLines != 1 || p.Rule != a.Rule || p.File != file {
			t.Errorf("plan %+v", p)
		}
		if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("PlanAmend wrote the file (%v)", err)
		}
		if err := p.Write(); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(file)
		fi, _ := os.Stat(file)
		if string(data) != "version = 1\n"+amendRule || fi.Mode().Perm() != 0o600 {
			t.Errorf("wrote %v:\n%s", fi.Mode(), data)
		}
	})
	t.Run("existing file keeps its mode", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "policy.toml")
		if err := os.WriteFile(file, []byte("version = 1"), 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := PlanAmend(file, a)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.Write(); err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(file)
		fi, _ := os.Stat(file)
		if string(data) != "version = 1\n"+amendRule || fi.Mode().Perm() != 0o644 {
			t.Errorf("wrote %v:\n%s", fi.Mode(), data)
		}
	})
	for _, tc := range []struct {
		name    string
		between func(file string) error // after the plan, before the write
		exists  bool
	}{
		{"changed in between", func(f string) error { return os.WriteFile(f, []byte("version = 1\n# theirs\n"), 0o600) }, true},
		{"removed in between", os.Remove, true},
		{"created in between", func(f string) error { return os.WriteFile(f, []byte("version = 1\n"), 0o600) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "policy.toml")
			if tc.exists {
				if err := os.WriteFile(file, []byte("version = 1\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			p, err := PlanAmend(file, a)
			if err != nil {
				t.Fatal(err)
			}
			if err := tc.between(file); err != nil {
				t.Fatal(err)
			}
			before, _ := os.ReadFile(file)
			if err := p.Write(); !errors.Is(err, ErrAmendRace) {
				t.Fatalf("Write: %v, want ErrAmendRace", err)
			}
			if after, _ := os.ReadFile(file); string(after) != string(before) {
				t.Errorf("the other change was overwritten:\n%s", after)
			}
		})
	}
	for _, tc := range []struct{ name, snippet, want string }{
		{"does not load", "\n[[rule]\n", "does not load, nothing written"},
		{"test fails", strings.Replace(amendRule, `expect = "allow"`, `expect = "deny"`, 1), "does not validate, nothing written"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(t.TempDir(), "policy.toml")
			if _, err := PlanAmend(file, Amendment{Snippet: tc.snippet}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("PlanAmend: %v, want %q", err, tc.want)
			}
			if _, err := os.Stat(file); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused amendment wrote the file (%v)", err)
			}
		})
	}
	t.Run("not a regular file", func(t *testing.T) {
		t.Parallel()
		dir := t.TempDir()
		if _, err := PlanAmend(dir, a); err == nil {
			t.Fatal("PlanAmend of a directory: no error")
		}
	})
}
