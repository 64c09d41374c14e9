package audit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An append to a log whose last line was cut (a crash, a full disk before
// rollback existed) starts with a newline: the cut line stays alone and
// the new record is whole.
func TestAppendAfterCutLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := Append(path, testRecord(1, 0)); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"time":"2026-03-01T12:00:00Z","event":"policy.dec`)
	f.Close()
	if err := Append(path, testRecord(1, 1)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[2], `{"time"`) {
		t.Fatalf("log:\n%s", data)
	}
	recs, errs := Read(bytes.NewReader(data))
	if len(recs) != 2 || len(errs) != 1 {
		t.Errorf("Read: %d records, errors %v; want both whole records and one error", len(recs), errs)
	}
	// The torn line is reported; the record after it chains onto it.
	verifyFile(t, path, ProblemGarbage)
}

// verifyFile runs Verify on path and wants the problem kind ("" = none).
func verifyFile(t *testing.T, path, want string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Verify(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	got := ""
	if rep.Problem != nil {
		got = rep.Problem.Kind
	}
	if got != want {
		t.Errorf("Verify %s: problem %v, want %q", path, rep.Problem, want)
	}
}

// TestVerify: every way of changing a chained log is found at the right
// line; an intact log, and one that starts with lines of an older
// toolguard, verify.
func TestVerify(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	for i := range 5 {
		if err := Append(path, testRecord(2, i)); err != nil {
			t.Fatal(err)
		}
	}
	data, _ := os.ReadFile(path)
	lines := strings.SplitAfter(string(data), "\n")[:5]
	join := func(ls ...string) string { return strings.Join(ls, "") }
	legacy := `{"time":"2026-01-01T00:00:00Z","event":"policy.decision","decision":"deny"}` + "\n"
	edited := strings.Replace(lines[1], `"deny"`, `"allow"`, 1)
	for _, tc := range []struct {
		name, log string
		kind      string
		line      int
	}{
		{"intact", join(lines...), "", 0},
		{"edited", join(lines[0], edited, lines[2], lines[3], lines[4]), ProblemBreak, 3},
		{"removed", join(lines[0], lines[2], lines[3], lines[4]), ProblemBreak, 2},
		{"first-removed", join(lines[1:]...), ProblemBreak, 1},
		{"swapped", join(lines[0], lines[2], lines[1], lines[3], lines[4]), ProblemBreak, 2},
		{"inserted", join(lines[0], lines[1], legacy, lines[2], lines[3], lines[4]), ProblemBreak, 3},
		{"cut", join(lines[0], lines[1], lines[2][:40]), ProblemTruncated, 3},
		{"emptied", "", ProblemEmpty, 0},
		{"garbage", join(lines[0], "rm -rf ~\n", lines[1]), ProblemGarbage, 2},
		{"legacy-prefix", join(legacy, legacy), "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Verify(strings.NewReader(tc.log))
			if err != nil {
				t.Fatal(err)
			}
			if tc.kind == "" {
				if rep.Problem != nil {
					t.Errorf("problem %v in an intact log", rep.Problem)
				}
				return
			}
			if rep.Problem == nil || rep.Problem.Kind != tc.kind || rep.Problem.Line != tc.line {
				t.Errorf("got %+v, want %s at line %d", rep.Problem, tc.kind, tc.line)
			}
		})
	}
	// An append after lines of an older toolguard chains onto them.
	old := filepath.Join(t.TempDir(), "old.jsonl")
	os.WriteFile(old, []byte(legacy+legacy), 0o600)
	if err := Append(old, testRecord(3, 0)); err != nil {
		t.Fatal(err)
	}
	verifyFile(t, old, "")
}

// A last line longer than MaxLineBack is not read back: the next line
// gets an empty prev, which Verify reports as a break.
func TestAppendLongLastLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	long := `{"summary":"` + strings.Repeat("x", MaxLineBack) + `"}` + "\n"
	os.WriteFile(path, []byte(long), 0o600)
	if err := Append(path, testRecord(4, 0)); err != nil {
		t.Fatal(err)
	}
	verifyFile(t, path, ProblemBreak)
}
