package approval

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The helper-process switch: when helperEnv is set, the test binary is a
// child that runs one Check and prints the outcome (see runHelper).
const helperEnv = "TOOLGUARD_APPROVAL_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" {
		os.Exit(runHelper())
	}
	os.Exit(m.Run())
}

func runHelper() int {
	dir, key, start := os.Getenv("APPROVAL_DIR"), os.Getenv("APPROVAL_KEY"), os.Getenv("APPROVAL_START")
	now, err := time.Parse(time.RFC3339Nano, os.Getenv("APPROVAL_NOW"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 2
	}
	s, err := Open(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 2
	}
	s.Trust(testKeyring)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(start); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Fprintln(os.Stderr, "helper: start file never appeared")
			return 2
		}
	}
	if action := os.Getenv("APPROVAL_ACTION"); action != "" {
		return helperDecide(s, action, os.Getenv("APPROVAL_ID"), now)
	}
	out, err := s.Check(context.Background(), key, now)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	fmt.Printf("%s %s\n", out.Kind, out.ID)
	return 0
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// testSigner signs the grants of the tests; newStore trusts it.
var (
	testSigner  = Signer{Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)), User: "tester"}
	testKeyring = Keyring{testSigner.Key.Public().(ed25519.PublicKey)}
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(filepath.Join(t.TempDir(), "state"))
	if err != nil {
		t.Fatal(err)
	}
	s.Trust(testKeyring)
	return s
}

func mustCreate(t *testing.T, s *Store, key string, now time.Time) Request {
	t.Helper()
	r, err := s.Create(Request{Key: key, Summary: "git push", Tool: "Bash", Kind: "shell", Cwd: "/r", Rules: []string{"git-push"}, Reason: "ask"}, now)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustCheck(t *testing.T, s *Store, key string, now time.Time, want OutcomeKind, wantID string) Outcome {
	t.Helper()
	out, err := s.Check(context.Background(), key, now)
	if err != nil {
		t.Fatal(err)
	}
	if out.Kind != want || out.ID != wantID {
		t.Fatalf("Check(%s) = %+v, want %v %q", key, out, want, wantID)
	}
	return out
}

func TestLifecycle(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	mustCheck(t, s, "k1", t0, None, "")

	r := mustCreate(t, s, "k1", t0)
	if !strings.HasPrefix(r.ID, "req_") || len(r.ID) != 14 || !ValidID(r.ID) || r.Status != StatusPending || !r.Created.Equal(t0) {
		t.Fatalf("Create = %+v", r)
	}
	// A retried call makes no duplicate.
	if again := mustCreate(t, s, "k1", t0.Add(time.Second)); again.ID != r.ID {
		t.Fatalf("second Create made %s, want the pending %s", again.ID, r.ID)
	}
	mustCheck(t, s, "k1", t0.Add(2*time.Second), Pending, r.ID)
	mustCheck(t, s, "k2", t0.Add(2*time.Second), None, "")

	a, err := s.Approve(r.ID, time.Hour, 1, t0.Add(time.Minute), testSigner)
	if err != nil {
		t.Fatal(err)
	}
	if a.Status != StatusApproved || a.Grant == nil || a.Grant.UsesLeft != 1 || !a.Grant.Expires.Equal(t0.Add(61*time.Minute)) {
		t.Fatalf("Approve = %+v", a)
	}
	// A different call is not covered.
	mustCheck(t, s, "k2", t0.Add(2*time.Minute), None, "")
	out := mustCheck(t, s, "k1", t0.Add(2*time.Minute), Granted, r.ID)
	if out.UsesLeft != 0 {
		t.Errorf("UsesLeft = %d, want 0", out.UsesLeft)
	}
	// Used once: the next identical call has nothing and makes a new request.
	mustCheck(t, s, "k1", t0.Add(3*time.Minute), None, "")
	got, err := s.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusConsumed || got.Grant.UsesLeft != 0 || !got.Grant.LastUsed.Equal(t0.Add(2*time.Minute)) {
		t.Errorf("after use: %+v %+v", got, got.Grant)
	}
	next := mustCreate(t, s, "k1", t0.Add(4*time.Minute))
	if next.ID == r.ID {
		t.Error("the call after a consumed grant reused the old request")
	}
	mustCheck(t, s, "k1", t0.Add(5*time.Minute), Pending, next.ID)

	list, err := s.List(t0.Add(5 * time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].ID != r.ID || list[1].ID != next.ID {
		t.Errorf("List = %+v", list)
	}
}

func TestUsesN(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	r := mustCreate(t, s, "k", t0)
	if _, err := s.Approve(r.ID, time.Hour, 3, t0, testSigner); err != nil {
		t.Fatal(err)
	}
	for i, left := range []int{2, 1, 0} {
		out := mustCheck(t, s, "k", t0.Add(time.Duration(i)*time.Second), Granted, r.ID)
		if out.UsesLeft != left {
			t.Errorf("use %d: UsesLeft %d, want %d", i+1, out.UsesLeft, left)
		}
	}
	mustCheck(t, s, "k", t0.Add(time.Minute), None, "")
}

func TestReject(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	r := mustCreate(t, s, "k", t0)
	rj, err := s.Reject(r.ID, "use a feature branch", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if rj.Status != StatusRejected || rj.Grant != nil || rj.RejectReason != "use a feature branch" {
		t.Fatalf("Reject = %+v", rj)
	}
	// The rejection holds for every later call.
	for i := range 3 {
		out := mustCheck(t, s, "k", t0.Add(time.Duration(i+2)*time.Minute), Rejected, r.ID)
		if out.Reason != "use a feature branch" {
			t.Errorf("Reason = %q", out.Reason)
		}
	}
	mustCheck(t, s, "other", t0.Add(time.Hour), None, "")
	// Removing the request lifts the rejection.
	if err := s.Remove(r.ID); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s, "k", t0.Add(time.Hour), None, "")
	if err := s.Remove(r.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Remove: %v, want ErrNotFound", err)
	}
}

func TestRejectionWinsOverGrant(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	a := mustCreate(t, s, "k", t0)
	if _, err := s.Reject(a.ID, "no", t0); err != nil {
		t.Fatal(err)
	}
	b := mustCreate(t, s, "k", t0.Add(time.Second)) // Create does not look at rejections
	if _, err := s.Approve(b.ID, time.Hour, 1, t0.Add(time.Second), testSigner); err != nil {
		t.Fatal(err)
	}
	mustCheck(t, s, "k", t0.Add(time.Minute), Rejected, a.ID)
	if got, _ := s.Get(b.ID); got.Grant.UsesLeft != 1 {
		t.Errorf("the grant was consumed under a rejection: %+v", got.Grant)
	}
}

func TestExpiredGrant(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	r := mustCreate(t, s, "k", t0)
	if _, err := s.Approve(r.ID, time.Minute, 5, t0, testSigner); err != nil {
		t.Fatal(err)
	}
	// At the expiry instant the grant allows nothing.
	mustCheck(t, s, "k", t0.Add(time.Minute), None, "")
	got, err := s.Get(r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusExpired || got.Grant.UsesLeft != 5 {
		t.Errorf("after expiry: %+v %+v", got, got.Grant)
	}

	// List cleans up too.
	r2 := mustCreate(t, s, "k2", t0)
	if _, err := s.Approve(r2.ID, time.Minute, 1, t0, testSigner); err != nil {
		t.Fatal(err)
	}
	list, err := s.List(t0.Add(2 * time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range list {
		if r.Status != StatusExpired {
			t.Errorf("List: %s is %s, want expired", r.ID, r.Status)
		}
	}
	if got, _ := s.Get(r2.ID); got.Status != StatusExpired {
		t.Errorf("List did not store the expiry: %s", got.Status)
	}

	// Prune removes finished requests only.
	p := mustCreate(t, s, "k3", t0)
	n, err := s.Prune(t0.Add(time.Hour), t0.Add(time.Hour))
	if err != nil || n != (Pruned{Finished: 2}) {
		t.Fatalf("Prune = %+v, %v; want 2 finished", n, err)
	}
	if list, _ := s.List(t0.Add(time.Hour)); len(list) != 1 || list[0].ID != p.ID {
		t.Errorf("after Prune: %+v", list)
	}
}

func TestApproveValidation(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	r := mustCreate(t, s, "k", t0)
	tests := []struct {
		name string
		id   string
		ttl  time.Duration
		uses int
		is   error
	}{
		{"zero uses", r.ID, time.Hour, 0, nil},
		{"zero ttl", r.ID, 0, 1, nil},
		{"negative ttl", r.ID, -time.Hour, 1, nil},
		{"unknown id", "req_nonexistent", time.Hour, 1, ErrNotFound},
		{"bad id", "../lock", time.Hour, 1, ErrInvalidID},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := s.Approve(tc.id, tc.ttl, tc.uses, t0, testSigner)
			if err == nil {
				t.Fatal("no error")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v does not wrap %v", err, tc.is)
			}
		})
	}
	if got, _ := s.Get(r.ID); got.Status != StatusPending {
		t.Errorf("a failed Approve changed the request: %s", got.Status)
	}
}

func TestBadIDs(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	for _, id := range []string{"", "..", "../x", "a/b", `a\b`, "req_1.json", "req 1", "req_é", "/etc/passwd", strings.Repeat("a", 65), "a\x00b"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			if ValidID(id) {
				t.Errorf("ValidID(%q) = true", id)
			}
			_, err := s.Get(id)
			_, err2 := s.Reject(id, "r", t0)
			err3 := s.Remove(id)
			for _, e := range []error{err, err2, err3} {
				if !errors.Is(e, ErrInvalidID) {
					t.Errorf("%q: error %v, want ErrInvalidID", id, e)
				}
			}
		})
	}
	for _, id := range []string{"req_abc", "A-b_9", strings.Repeat("a", 64)} {
		if !ValidID(id) {
			t.Errorf("ValidID(%q) = false", id)
		}
	}
}

func TestCorruptFile(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	good := mustCreate(t, s, "k", t0)
	bad := map[string]string{
		"req_garbage":  "{not json",
		"req_empty":    "",
		"req_wrongid":  `{"id":"req_other","key":"k","status":"pending"}`,
		"req_nokey":    `{"id":"req_nokey","status":"pending"}`,
		"req_status":   `{"id":"req_status","key":"k","status":"maybe"}`,
		"req_nogrant":  `{"id":"req_nogrant","key":"k","status":"approved"}`,
		".tmp-ignored": "{",
	}
	for name, data := range bad {
		if err := os.WriteFile(filepath.Join(s.Dir(), "requests", name+".json"), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink to a good request, and a request readable by others.
	if err := os.Symlink(s.path(good.ID), s.path("req_symlink")); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(s.Dir(), "requests", "req_open.json")
	if err := os.WriteFile(open, []byte(`{"id":"req_open","key":"k","status":"pending"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	bad["req_symlink"], bad["req_open"] = "", ""
	list, err := s.List(t0)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, r := range list {
		seen[r.ID] = true
		switch {
		case r.ID == good.ID:
			if r.Status != StatusPending || r.Problem != "" {
				t.Errorf("good request listed as %+v", r)
			}
		case r.Status != StatusTampered || !strings.Contains(r.Problem, r.ID+".json"):
			t.Errorf("List: %s is %s (%q), want tampered with the file named", r.ID, r.Status, r.Problem)
		}
	}
	for name := range bad {
		if listed := seen[name]; listed == strings.HasPrefix(name, ".") {
			t.Errorf("List lists %s: %v; list:\n%+v", name, listed, list)
		}
	}
	if !seen[good.ID] {
		t.Errorf("List lacks %s", good.ID)
	}
	for _, want := range []string{"symlink", "mode 0644"} {
		if !slices.ContainsFunc(list, func(r Request) bool { return strings.Contains(r.Problem, want) }) {
			t.Errorf("no problem mentions %q: %+v", want, list)
		}
	}
	// Check skips them and still answers.
	mustCheck(t, s, "k", t0, Pending, good.ID)
	if _, err := s.Get("req_garbage"); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Get of a corrupt file: %v", err)
	}
	if _, err := s.Approve("req_garbage", time.Hour, 1, t0, testSigner); err == nil {
		t.Error("Approve of a corrupt file: no error")
	}
}

func TestFilesOnDisk(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	r := mustCreate(t, s, "k", t0)
	if _, err := s.Approve(r.ID, time.Hour, 2, t0, testSigner); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Join(s.Dir(), "requests"))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != r.ID+".json" {
		t.Errorf("requests/ holds %v, want only %s.json (no temporary files)", entries, r.ID)
	}
	for p, want := range map[string]os.FileMode{
		s.Dir():                            0o700 | os.ModeDir,
		filepath.Join(s.Dir(), "requests"): 0o700 | os.ModeDir,
		s.path(r.ID):                       0o600,
		filepath.Join(s.Dir(), "lock"):     0o600,
	} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode() &^ 0o022; got != want {
			t.Errorf("%s: mode %v, want %v", p, fi.Mode(), want)
		}
	}
	data, err := os.ReadFile(s.path(r.ID))
	if err != nil {
		t.Fatal(err)
	}
	for _, field := range []string{`"id": "` + r.ID + `"`, `"key": "k"`, `"status": "approved"`, `"uses_left": 2`, `"expires": "2026-03-01T13:00:00Z"`, `"rules": [`} {
		if !bytes.Contains(data, []byte(field)) {
			t.Errorf("request file lacks %s:\n%s", field, data)
		}
	}
}

// TestConsumeOnceGoroutines races many Checks on one grant of a few uses.
func TestConsumeOnceGoroutines(t *testing.T) {
	t.Parallel()
	for _, uses := range []int{1, 7} {
		t.Run(strconv.Itoa(uses), func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			r := mustCreate(t, s, "k", t0)
			if _, err := s.Approve(r.ID, time.Hour, uses, t0, testSigner); err != nil {
				t.Fatal(err)
			}
			const n = 120
			var (
				wg    sync.WaitGroup
				mu    sync.Mutex
				kinds = map[OutcomeKind]int{}
			)
			for range n {
				wg.Go(func() {
					// Each goroutine opens its own Store, as a hook process would.
					s, err := Open(s.Dir())
					if err != nil {
						t.Error(err)
						return
					}
					s.Trust(testKeyring)
					out, err := s.Check(context.Background(), "k", t0.Add(time.Second))
					if err != nil {
						t.Error(err)
						return
					}
					mu.Lock()
					kinds[out.Kind]++
					mu.Unlock()
				})
			}
			wg.Wait()
			if kinds[Granted] != uses || kinds[None] != n-uses {
				t.Errorf("outcomes %v, want %d granted and %d none", kinds, uses, n-uses)
			}
		})
	}
}

// TestConsumeOnceProcesses races real processes on one single-use grant.
func TestConsumeOnceProcesses(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	r := mustCreate(t, s, "k", t0)
	if _, err := s.Approve(r.ID, time.Hour, 1, t0, testSigner); err != nil {
		t.Fatal(err)
	}
	start := filepath.Join(t.TempDir(), "start")
	const n = 60
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	errs := make([]*bytes.Buffer, n)
	for i := range n {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(),
			helperEnv+"=1",
			"APPROVAL_DIR="+s.Dir(),
			"APPROVAL_KEY=k",
			"APPROVAL_START="+start,
			"APPROVAL_NOW="+t0.Add(time.Second).Format(time.RFC3339Nano),
		)
		outs[i], errs[i] = new(bytes.Buffer), new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = outs[i], errs[i]
		if err := cmd.Start(); err != nil {
			t.Fatalf("start helper %d: %v", i, err)
		}
		cmds[i] = cmd
	}
	if err := os.WriteFile(start, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("helper %d: %v: %s", i, err, errs[i])
			continue
		}
		counts[strings.TrimSpace(outs[i].String())]++
	}
	want := map[string]int{"granted " + r.ID: 1, "none": n - 1}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", counts, want)
	}
	if got, _ := s.Get(r.ID); got.Status != StatusConsumed {
		t.Errorf("request is %s, want consumed", got.Status)
	}
}

func TestOpenErrors(t *testing.T) {
	t.Parallel()
	if _, err := Open(""); err == nil {
		t.Error("Open(\"\"): no error")
	}
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(filepath.Join(file, "state")); err == nil {
		t.Error("Open under a regular file: no error")
	}
	if _, err := newStore(t).Create(Request{}, t0); err == nil {
		t.Error("Create without a key: no error")
	}
}
