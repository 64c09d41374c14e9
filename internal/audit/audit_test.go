package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The helper-process switch: when helperEnv is set, the test binary is a
// child that appends lines and exits (see runHelper).
const helperEnv = "TOOLGUARD_AUDIT_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(runHelper())
	}
	os.Exit(m.Run())
}

// runHelper waits for the start file, then appends lines records, each with
// a summary whose content and size are derived from (worker, seq).
func runHelper() int {
	path, start := os.Getenv("AUDIT_PATH"), os.Getenv("AUDIT_START")
	worker, _ := strconv.Atoi(os.Getenv("AUDIT_WORKER"))
	lines, _ := strconv.Atoi(os.Getenv("AUDIT_LINES"))
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "helper: start file never appeared")
			return 2
		}
		time.Sleep(time.Millisecond)
	}
	for seq := range lines {
		if err := Append(path, testRecord(worker, seq)); err != nil {
			fmt.Fprintln(os.Stderr, "helper:", err)
			return 1
		}
	}
	return 0
}

// testRecord makes a record whose summary is checkable: "w<worker>-s<seq>:"
// then a payload of a size that varies from a few bytes to 48 KB, far more
// than any atomic-write guarantee of a pipe or a page.
func testRecord(worker, seq int) Record {
	tag := fmt.Sprintf("w%d-s%d:", worker, seq)
	size := ((worker*31 + seq*17) % 7) * 8 << 10
	return Record{
		Time:     time.Date(2026, 3, 1, 12, 0, 0, worker*1000+seq, time.UTC),
		Provider: "claude-code",
		Tool:     "Bash",
		Kind:     "shell",
		Summary:  tag + strings.Repeat(string(rune('a'+(worker+seq)%26)), size),
		Decision: "deny",
		Rule:     "r",
	}
}

// checkLog reads the log at path and checks that it holds exactly one whole
// record for every (worker, seq) and nothing else.
func checkLog(t *testing.T, path string, workers, lines int) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		n++
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d is not whole JSON: %v (%.80q…)", n, err, sc.Text())
		}
		tag, _, _ := strings.Cut(rec.Summary, ":")
		var w, s int
		if _, err := fmt.Sscanf(tag, "w%d-s%d", &w, &s); err != nil {
			t.Fatalf("line %d: bad tag %q", n, tag)
		}
		if want := testRecord(w, s); rec.Summary != want.Summary || !rec.Time.Equal(want.Time) {
			t.Fatalf("line %d (%s): content differs from what was written", n, tag)
		}
		if seen[tag] {
			t.Fatalf("line %d: %s written twice", n, tag)
		}
		seen[tag] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Error("log does not end with a newline")
	}
	if want := workers * lines; n != want {
		t.Errorf("log has %d lines, want %d", n, want)
	}
	rep, err := Verify(bytes.NewReader(data))
	if err != nil || rep.Problem != nil || rep.Lines != workers*lines {
		t.Errorf("chain of the concurrent appends: %+v %v %v", rep, rep.Problem, err)
	}
}

func TestAppendConcurrentGoroutines(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "deep", "audit.jsonl")
	workers, lines := 200, 5
	if testing.Short() {
		workers = 20 // -short: fewer writers, the same checks
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers*lines)
	for w := range workers {
		wg.Go(func() {
			for s := range lines {
				if err := Append(path, testRecord(w, s)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	checkLog(t, path, workers, lines)
}

func TestAppendConcurrentProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "audit.jsonl")
	start := filepath.Join(dir, "start")
	workers, lines := 100, 4
	if testing.Short() {
		workers = 10 // -short: fewer processes, the same checks
	}
	cmds := make([]*exec.Cmd, workers)
	outs := make([]*bytes.Buffer, workers)
	for w := range workers {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			helperEnv+"=1",
			"AUDIT_PATH="+path,
			"AUDIT_START="+start,
			"AUDIT_WORKER="+strconv.Itoa(w),
			"AUDIT_LINES="+strconv.Itoa(lines),
		)
		outs[w] = new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = outs[w], outs[w]
		if err := cmd.Start(); err != nil {
			t.Fatalf("start helper %d: %v", w, err)
		}
		cmds[w] = cmd
	}
	// Release them all at once so that they race.
	if err := os.WriteFile(start, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for w, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper %d: %v: %s", w, err, outs[w])
		}
	}
	if t.Failed() {
		return
	}
	checkLog(t, path, workers, lines)
}

func TestAppendFileModes(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "new")
	path := filepath.Join(dir, "audit.jsonl")
	if err := Append(path, Record{Time: time.Unix(0, 0)}); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode() &^ 0o022; got != want { // whatever the umask took away
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
	}
}

func TestAppendError(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// The parent "directory" is a regular file.
	if err := Append(filepath.Join(file, "audit.jsonl"), Record{}); err == nil {
		t.Error("Append under a regular file: no error")
	}
	if err := Append("", Record{}); err == nil {
		t.Error("Append to an empty path: no error")
	}
}

func TestMarshalLine(t *testing.T) {
	t.Parallel()
	rec := Record{
		Time:       time.Date(2026, 3, 1, 13, 0, 0, 123456789, time.FixedZone("CET", 3600)),
		Provider:   "claude-code",
		Session:    "s-1",
		Tool:       "Bash",
		Kind:       "shell",
		Summary:    "make && make test <x>",
		Cwd:        "/r",
		Decision:   "deny",
		Rule:       "git-push-force",
		DurationMS: 0.5,
		Mode:       "interactive",
	}
	line, err := rec.MarshalLine()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"time":"2026-03-01T12:00:00.123456789Z","event":"policy.decision","provider":"claude-code","session":"s-1","tool":"Bash","kind":"shell","summary":"make && make test <x>","cwd":"/r","workspace":"","decision":"deny","rule":"git-push-force","layer":"","source":"","reason":"","policy_hash":"","duration_ms":0.5,"mode":"interactive","prev":""}` + "\n"
	if string(line) != want {
		t.Errorf("MarshalLine:\n got %s\nwant %s", line, want)
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	input := strings.Join([]string{
		`{"time":"2026-03-01T12:00:00Z","event":"policy.decision","decision":"deny","rule":"a"}`,
		``,
		`{"time":"2026-03-01T12:00:01Z","event":"policy.decision","decision":"ask"`, // cut short
		`not json`,
		`null`,
		`   {"time":"2026-03-01T12:00:02Z","decision":"allow","future_field":1}   `,
		`{"time":"2026-03-01T12:00:03Z","decision":"ask"}`, // no final newline
	}, "\n")
	recs, errs := Read(strings.NewReader(input))
	if len(recs) != 3 {
		t.Fatalf("Read: %d records, want 3: %+v", len(recs), recs)
	}
	if recs[0].Rule != "a" || recs[1].Decision != "allow" || recs[2].Decision != "ask" {
		t.Errorf("Read: wrong records %+v", recs)
	}
	var lines []int
	for _, err := range errs {
		var le *LineError
		if !errors.As(err, &le) {
			t.Fatalf("error %v is not a *LineError", err)
		}
		lines = append(lines, le.Line)
	}
	if fmt.Sprint(lines) != "[3 4 5]" {
		t.Errorf("errors on lines %v, want [3 4 5]: %v", lines, errs)
	}
}

func FuzzRead(f *testing.F) {
	f.Add([]byte(`{"time":"2026-03-01T12:00:00Z","decision":"deny"}` + "\n"))
	f.Add([]byte("null\n{\n\n[1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, errs := Read(bytes.NewReader(data))
		if lines := bytes.Count(data, []byte("\n")) + 1; len(recs)+len(errs) > lines {
			t.Errorf("%d records and %d errors from %d lines", len(recs), len(errs), lines)
		}
	})
}

func TestAggregate(t *testing.T) {
	t.Parallel()
	at := func(min int) time.Time { return time.Date(2026, 3, 1, 12, min, 0, 0, time.UTC) }
	recs := []Record{
		{Time: at(0), Event: EventDecision, Provider: "codex", Decision: "deny", Rule: "old", Summary: "too old"},
		{Time: at(10), Event: EventDecision, Provider: "claude-code", Decision: "deny", Rule: "git-push-force", Summary: "git push -f"},
		{Time: at(11), Event: EventDecision, Provider: "claude-code", Decision: "deny", Rule: "git-push-force", Summary: "git push -f"},
		{Time: at(12), Event: EventDecision, Provider: "codex", Decision: "ask", Rule: "rm-rf", Summary: "rm -rf build"},
		{Time: at(13), Event: EventDecision, Provider: "gemini", Decision: "allow", Rule: "ls", Summary: "ls"},
		{Time: at(14), Provider: "gemini", Decision: "deny", Summary: "a\nb"}, // no event, no rule
		{Time: at(15), Event: "approval.granted", Provider: "codex", Decision: "allow"},
	}
	sum := Aggregate(recs, at(5))
	got, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"since":"2026-03-01T12:05:00Z","first":"2026-03-01T12:10:00Z","last":"2026-03-01T12:14:00Z","total":5,` +
		`"by_decision":[{"name":"deny","count":3},{"name":"allow","count":1},{"name":"ask","count":1}],` +
		`"by_rule":[{"name":"git-push-force","count":2},{"name":"(none)","count":1},{"name":"ls","count":1},{"name":"rm-rf","count":1}],` +
		`"by_provider":[{"name":"claude-code","count":2},{"name":"gemini","count":2},{"name":"codex","count":1}],` +
		`"top_blocked":[{"name":"git push -f","count":2},{"name":"a\nb","count":1},{"name":"rm -rf build","count":1}]}`
	if string(got) != want {
		t.Errorf("Aggregate:\n got %s\nwant %s", got, want)
	}

	var buf bytes.Buffer
	if err := sum.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	wantText := `5 decisions from 2026-03-01T12:10:00Z to 2026-03-01T12:14:00Z

by decision:
  3  deny
  1  allow
  1  ask

by rule:
  2  git-push-force
  1  (none)
  1  ls
  1  rm-rf

by agent:
  2  claude-code
  2  gemini
  1  codex

most blocked (deny and ask):
  2  git push -f
  1  a\nb
  1  rm -rf build
`
	if buf.String() != wantText {
		t.Errorf("WriteText:\n got %s\nwant %s", buf.String(), wantText)
	}
}

func TestAggregateEmptyAndTopN(t *testing.T) {
	t.Parallel()
	empty, err := json.Marshal(Aggregate(nil, time.Time{}))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"total":0,"by_decision":[],"by_rule":[],"by_provider":[],"top_blocked":[]}`; string(empty) != want {
		t.Errorf("empty summary: got %s, want %s", empty, want)
	}
	var buf bytes.Buffer
	if err := Aggregate(nil, time.Time{}).WriteText(&buf); err != nil || buf.String() != "no decisions recorded\n" {
		t.Errorf("empty WriteText = %q, %v", buf.String(), err)
	}

	var recs []Record
	for i := range 25 {
		for range i + 1 {
			recs = append(recs, Record{Decision: "ask", Summary: fmt.Sprintf("cmd %02d", i)})
		}
	}
	top := Aggregate(recs, time.Time{}).TopBlocked
	if len(top) != TopBlocked || top[0].Name != "cmd 24" || top[0].Count != 25 || top[TopBlocked-1].Name != "cmd 15" {
		t.Errorf("TopBlocked = %+v", top)
	}
}

// TestMarshalLineRefuses: a record encoding/json cannot write (a NaN or
// infinite duration, a year past 9999) is an error, not a broken line.
func TestMarshalLineRefuses(t *testing.T) {
	t.Parallel()
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := (Record{DurationMS: f}).MarshalLine(); err == nil {
			t.Errorf("duration %v: no error", f)
		}
	}
	if _, err := (Record{Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}).MarshalLine(); err == nil {
		t.Error("year 10000: no error")
	}
}
