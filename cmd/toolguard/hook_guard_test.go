package main

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/hook"
	"github.com/toolguard/toolguard/internal/install"
)

// exitRecorder is a system.exit that reports the code on a channel
// instead of ending the test binary.
func exitRecorder(sys *system) chan int {
	ch := make(chan int, 1)
	sys.exit = func(code int) { ch <- code }
	return ch
}

// waitExit waits for the watchdog's exit, failing after limit.
func waitExit(t *testing.T, ch chan int, limit time.Duration) int {
	t.Helper()
	select {
	case code := <-ch:
		return code
	case <-time.After(limit):
		t.Fatalf("no exit within %s", limit)
		return -1
	}
}

// TestHookDeadline: whatever holds the hook up — stdin left open, a
// decision blocked on a lock — the watchdog writes the on_error deny in
// the agent's dialect when the deadline (counted from process start)
// passes, and exits with the code the agent blocks on.
func TestHookDeadline(t *testing.T) {
	const deadline = 300 * time.Millisecond
	for _, tc := range []struct {
		name, provider string
		wantCode       int
		want           string // in stdout
	}{
		{"claude-code", "claude-code", 0, `"permissionDecision":"deny"`},
		{"gemini", "gemini", 0, `"decision":"deny"`},
		{"codex", "codex", 0, `"permissionDecision":"deny"`},
		{"detect", "", 2, `"decision":"block"`}, // stdin never ends: no dialect known
	} {
		t.Run("stdin-open/"+tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			f, sys := newFake(t, nil, nil)
			sys.stdin = pr
			sys.started = time.Now()
			sys.limits = hook.Limits{Deadline: deadline}
			exited := exitRecorder(sys)
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), withProvider(tc.provider), sys) }()
			code := waitExit(t, exited, 5*time.Second)
			took := time.Since(sys.started)
			out, errs := f.stdout.String(), f.stderr.String() // the main goroutine is blocked reading
			pw.Close()
			if got := <-done; got != code {
				t.Errorf("run returned %d after the watchdog exited %d", got, code)
			}
			if code != tc.wantCode || !strings.Contains(out, tc.want) || !strings.Contains(out, "deadline of 300ms") {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			if !strings.Contains(errs, "did not finish within its deadline") {
				t.Errorf("stderr %q", errs)
			}
			if took < deadline || took > deadline+5*time.Second {
				t.Errorf("answered after %s, deadline %s", took, deadline)
			}
			if f.stdout.String() != out {
				t.Errorf("a second reply was written: %q", f.stdout.String())
			}
		})
	}
	// The deadline counts from the process start, not from when the hook
	// command began: a process that started 5 s ago with a 5.2 s deadline
	// has 200 ms left, not 5.2 s.
	t.Run("from-process-start", func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		_, sys := newFake(t, nil, nil)
		sys.stdin = pr
		sys.started = time.Now().Add(-5 * time.Second)
		sys.limits = hook.Limits{Deadline: 5200 * time.Millisecond}
		exited := exitRecorder(sys)
		begin := time.Now()
		go run(context.Background(), []string{"hook", "--provider", "claude-code"}, sys)
		waitExit(t, exited, 5*time.Second)
		if took := time.Since(begin); took > 3*time.Second {
			t.Errorf("answered %s after the hook began; the deadline left 200 ms", took)
		}
	})
	// A decision blocked (on a lock, a slow disk): deny at the deadline,
	// and the hook context says why, for whatever checks it later.
	for _, provider := range []string{"claude-code", "gemini"} {
		t.Run("blocked-decision/"+provider, func(t *testing.T) {
			payload, err := os.ReadFile(filepath.Join("../../testdata/payloads", provider, "git-status.json"))
			if err != nil {
				t.Fatal(err)
			}
			f, sys := newFake(t, payload, nil)
			sys.started = time.Now()
			sys.limits = hook.Limits{Deadline: deadline}
			exited := exitRecorder(sys)
			release := make(chan struct{})
			var cause error
			sys.decide = func(ctx context.Context, sys guard.System, r guard.Request) *guard.Outcome {
				<-release
				cause = context.Cause(ctx)
				return guard.Decide(ctx, sys, r)
			}
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), []string{"hook", "--provider", provider}, sys) }()
			code := waitExit(t, exited, 5*time.Second)
			out := f.stdout.String()
			close(release)
			<-done
			if code != 0 || !isDenyReply(out) || !strings.Contains(out, "deadline") {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			if cause == nil || !strings.Contains(cause.Error(), "deadline") {
				t.Errorf("hook context cause %v, want the deadline", cause)
			}
			if f.stdout.String() != out {
				t.Errorf("the late decision was written too: %q", f.stdout.String())
			}
		})
	}
}

// heapNow is the heap the watchdog measures.
func heapNow() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64() + s[1].Value.Uint64()
}

// TestHookMemoryCap: a decision that allocates without bound ends in the
// on_error deny and the exit, long before the deadline — not in a Go
// fatal error or the machine's OOM killer, which most agents would take as
// an allow.
func TestHookMemoryCap(t *testing.T) {
	for _, provider := range []string{"claude-code", "gemini", "codex"} {
		t.Run(provider, func(t *testing.T) {
			payload, err := os.ReadFile(filepath.Join("../../testdata/payloads", provider, "git-status.json"))
			if err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			f, sys := newFake(t, payload, nil)
			sys.started = time.Now()
			sys.limits = hook.Limits{Deadline: 10 * time.Second, Memory: heapNow() + 64<<20}
			exited := exitRecorder(sys)
			sys.decide = func(ctx context.Context, _ guard.System, r guard.Request) *guard.Outcome {
				var hoard [][]byte
				for ctx.Err() == nil { // a runaway: stops only because the test must end
					b := make([]byte, 1<<20)
					for i := range b {
						b[i] = 1
					}
					hoard = append(hoard, b)
				}
				runtime.KeepAlive(hoard)
				return &guard.Outcome{Codec: r.Codec, Verdict: call.Verdict{Decision: call.Allow}}
			}
			done := make(chan int, 1)
			go func() { done <- run(context.Background(), []string{"hook", "--provider", provider}, sys) }()
			code := waitExit(t, exited, 10*time.Second)
			took := time.Since(sys.started)
			<-done
			out := f.stdout.String()
			if code != 0 || !isDenyReply(out) || !strings.Contains(out, "memory passed its cap") {
				t.Errorf("exit %d, stdout %q", code, out)
			}
			if took > 9*time.Second {
				t.Errorf("the cap took %s to fire", took)
			}
			if strings.Contains(out, "allow") {
				t.Errorf("the runaway's allow was written: %q", out)
			}
		})
	}
}

// The hook deadline sits well inside the timeout install pins on every
// hook entry (and the shortest agent default, Copilot's 30 s): the agent
// never gives up on toolguard before its on_error reply.
func TestDeadlineInsideInstalledTimeout(t *testing.T) {
	if 2*hook.Deadline > install.HookTimeout || install.HookTimeout > 30*time.Second {
		t.Errorf("hook deadline %s, installed timeout %s: want the timeout at least twice the deadline and at most 30 s", hook.Deadline, install.HookTimeout)
	}
}

// Once the hook context is done (the watchdog has answered), a headless
// ask consumes nothing and creates no request: decideCall denies without
// opening the approval store. Without the cancelled context the same call
// creates a pending request (the look-alike).
func TestDecideAfterDeadlineTouchesNoApproval(t *testing.T) {
	payload, err := os.ReadFile("../../testdata/payloads/claude-code/write-workflow.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, cancelled := range []bool{true, false} {
		state := t.TempDir()
		f, sys := newFake(t, payload, nil)
		sys.decide = func(ctx context.Context, sys guard.System, r guard.Request) *guard.Outcome {
			if cancelled {
				var cancel context.CancelCauseFunc
				ctx, cancel = context.WithCancelCause(ctx)
				cancel(errors.New("the hook did not finish within its deadline of 10s"))
			}
			return guard.Decide(ctx, sys, r)
		}
		code := run(context.Background(), []string{"hook", "--provider", "claude-code", "--mode", "headless", "--state-dir", state}, sys)
		entries, _ := filepath.Glob(filepath.Join(state, "*", "*"))
		if code != 0 || !isDenyReply(f.stdout.String()) {
			t.Errorf("cancelled=%v: exit %d, stdout %q", cancelled, code, f.stdout.String())
		}
		if cancelled && (len(entries) != 0 || !strings.Contains(f.stdout.String(), "deadline")) {
			t.Errorf("after the deadline: state %q, stdout %q", entries, f.stdout.String())
		}
		if !cancelled && len(entries) == 0 {
			t.Errorf("look-alike: no pending request created (stdout %q)", f.stdout.String())
		}
	}
}
