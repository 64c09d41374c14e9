//go:build unix

package audit

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A lock held by another program (flock audit.jsonl sleep 600) costs the
// record, not the caller's time: Append gives up after LockTimeout, or at
// the caller's deadline when that comes first, and the file is unchanged.
func TestAppendHeldLock(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := Append(path, testRecord(0, 0)); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	holder, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
		t.Skipf("flock: %v", err)
	}
	start := time.Now()
	err = Append(path, testRecord(0, 1))
	took := time.Since(start)
	if !errors.Is(err, ErrLockBusy) || took < LockTimeout || took > LockTimeout+5*time.Second {
		t.Errorf("Append under a held lock: %v after %s (want ErrLockBusy after %s)", err, took, LockTimeout)
	}
	ctx, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, errors.New("the caller's own deadline"))
	defer cancel()
	start = time.Now()
	err = AppendContext(ctx, path, testRecord(0, 2))
	// It stops at the caller's deadline, and says so with the context's
	// cause (also when its own clock saw the deadline first), not after
	// LockTimeout ("no append").
	if !errors.Is(err, ErrLockBusy) || !strings.Contains(err.Error(), "gave up: the caller's own deadline") {
		t.Errorf("AppendContext with a 50 ms deadline: %v after %s, want it to give up at the deadline, naming its cause", err, time.Since(start))
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, before) {
		t.Errorf("the log changed under a held lock")
	}
	// Released, the next append goes through and the chain holds.
	syscall.Flock(int(holder.Fd()), syscall.LOCK_UN)
	if err := Append(path, testRecord(0, 3)); err != nil {
		t.Fatal(err)
	}
	verifyFile(t, path, "")
}

// A FIFO, a device or a directory at the log's path is refused at once;
// opening a FIFO for writing would otherwise wait for a reader forever.
func TestAppendNotRegular(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	dev := filepath.Join(dir, "null.jsonl")
	if err := os.Symlink("/dev/null", dev); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{fifo: "a FIFO", dev: "a device", dir: ""} {
		done := make(chan error, 1)
		go func() { done <- Append(path, testRecord(0, 0)) }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want a refusal naming %q", path, err, want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("%s: Append blocked", path)
		}
	}
}

// A full filesystem: writes that fail or are cut short are rolled back,
// so the log stays whole lines and its chain holds. Needs root (to mount
// a small tmpfs).
func TestAppendFullFilesystem(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to mount a tmpfs")
	}
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("mount tmpfs: %v: %s", err, out)
	}
	defer exec.Command("umount", dir).Run()
	path := filepath.Join(dir, "audit.jsonl")
	var failed error
	ok := 0
	for i := 0; i < 200 && failed == nil; i++ {
		rec := testRecord(i%5, i) // lines of 0 to 48 KiB
		if failed = Append(path, rec); failed == nil {
			ok++
		}
	}
	if failed == nil || !errors.Is(failed, syscall.ENOSPC) && !strings.Contains(failed.Error(), "short write") {
		t.Fatalf("never ran out of space (%d appends): %v", ok, failed)
	}
	// Small records still fit after the failed big one.
	for i := 0; i < 3; i++ {
		if err := Append(path, Record{Time: time.Unix(int64(i), 0), Decision: "deny"}); err == nil {
			ok++
		}
	}
	data, _ := os.ReadFile(path)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("the log ends in a cut line after %v", failed)
	}
	recs, errs := Read(bytes.NewReader(data))
	if len(errs) != 0 || len(recs) != ok {
		t.Errorf("after the full disk: %d records (want %d), errors %v", len(recs), ok, errs)
	}
	verifyFile(t, path, "")
}
