//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/audit"
)

// timedWriter records when it was first written to.
type timedWriter struct {
	bytes.Buffer
	first time.Time
}

func (w *timedWriter) Write(p []byte) (int, error) {
	if w.first.IsZero() {
		w.first = time.Now()
	}
	return w.Buffer.Write(p)
}

// TestHookAuditBounded: the reply goes out before the audit append, and
// an audit log that cannot be written — its lock held by another program
// (`flock audit.jsonl sleep 600`, which the defaults let through), a FIFO
// or a device at its path — neither delays the reply nor changes it; stderr
// says why the audit line is missing. Before, the hook waited on the lock
// (or the FIFO) forever and the agent's timeout let the call run.
func TestHookAuditBounded(t *testing.T) {
	for _, agent := range []string{"claude-code", "gemini"} {
		payload, err := os.ReadFile(filepath.Join("../../testdata/payloads", agent, "push-force.json"))
		if err != nil {
			t.Fatal(err)
		}
		for _, kind := range []string{"held-lock", "fifo", "device", "writable"} {
			t.Run(agent+"/"+kind, func(t *testing.T) {
				dir := t.TempDir()
				log := filepath.Join(dir, "audit.jsonl")
				want := ""
				switch kind {
				case "held-lock":
					os.WriteFile(log, nil, 0o600)
					holder, err := os.Open(log)
					if err != nil {
						t.Fatal(err)
					}
					defer holder.Close()
					if err := syscall.Flock(int(holder.Fd()), syscall.LOCK_EX); err != nil {
						t.Skip(err)
					}
					want = "lock is held by another process"
				case "fifo":
					if err := syscall.Mkfifo(log, 0o600); err != nil {
						t.Skip(err)
					}
					want = "not a regular file (a FIFO)"
				case "device":
					os.Symlink("/dev/null", log)
					want = "not a regular file (a device)"
				}
				_, sys := newFake(t, payload, nil)
				out, errw := &timedWriter{}, &timedWriter{}
				sys.stdout, sys.stderr = out, errw
				sys.started = time.Now()
				exited := exitRecorder(sys)
				start := time.Now()
				done := make(chan int, 1)
				go func() {
					done <- run(context.Background(), []string{"hook", "--provider", agent, "--audit-log", log}, sys)
				}()
				var code int
				select {
				case code = <-done:
				case <-time.After(5 * time.Second):
					t.Fatal("the hook did not return")
				}
				select {
				case c := <-exited:
					t.Fatalf("the watchdog fired (exit %d): the append was not bounded", c)
				default:
				}
				// The reply is out before the append gives up (a held lock:
				// at least LockTimeout before).
				if !errw.first.IsZero() && !out.first.Before(errw.first) {
					t.Errorf("the reply (%s) came after the audit error (%s)", out.first.Sub(start), errw.first.Sub(start))
				}
				if kind == "held-lock" && errw.first.Sub(out.first) < audit.LockTimeout/2 {
					t.Errorf("the reply came %s before the audit gave up on the lock: it waited", errw.first.Sub(out.first))
				}
				if total := time.Since(start); total > audit.LockTimeout+5*time.Second {
					t.Errorf("the hook took %s", total)
				}
				if code != 0 || !isDenyReply(out.String()) || !strings.Contains(out.String(), "git-push-force") {
					t.Errorf("exit %d, stdout %q", code, out.String())
				}
				if want == "" {
					data, _ := os.ReadFile(log)
					if !strings.Contains(string(data), `"rule":"git-push-force"`) || errw.Len() != 0 {
						t.Errorf("log %q, stderr %q", data, errw.String())
					}
					return
				}
				if s := errw.String(); !strings.Contains(s, want) || !strings.Contains(s, "the decision (deny) stands") {
					t.Errorf("stderr %q, want %q", s, want)
				}
			})
		}
	}
}
