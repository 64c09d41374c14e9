package hook

import (
	"bytes"
	"context"
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

// fakeIO is a hook IO with buffers for stdout and stderr, and an exit
// that reports the code on a channel instead of ending the test binary.
func fakeIO(lim Limits) (IO, *bytes.Buffer, *bytes.Buffer, chan int) {
	var stdout, stderr bytes.Buffer
	ch := make(chan int, 1)
	sys := IO{Stdin: bytes.NewReader(nil), Stdout: &stdout, Limits: lim, Exit: func(code int) { ch <- code }}
	sys.Stderr = &stderr
	sys.Now = time.Now
	return sys, &stdout, &stderr, ch
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

// BenchmarkHookGuard is what the watchdog adds to every hook run: its
// contexts, goroutine and ticker, started and stopped.
func BenchmarkHookGuard(b *testing.B) {
	sys := IO{Stdout: io.Discard}
	sys.Stderr = io.Discard
	b.ReportAllocs()
	for b.Loop() {
		g := startGuard(context.Background(), sys, nil)
		g.finish()
	}
}

// A limit passed after the reply is out (during the audit append) ends
// the process with that reply's exit code and writes no second reply.
func TestGuardFiresAfterReply(t *testing.T) {
	sys, stdout, stderr, exited := fakeIO(Limits{Deadline: time.Hour})
	codec, _ := protocol.Lookup("claude-code")
	g := startGuard(context.Background(), sys, codec)
	defer g.finish()
	r := BlockReply(nil, call.Call{}, "toolguard: denied by rule x")
	if code, ours, err := g.reply(r, ""); code != 2 || !ours || err != nil {
		t.Fatalf("reply: %d %v %v", code, ours, err)
	}
	out := stdout.String()
	g.fire(errors.New("the hook did not finish within its deadline of 10s"))
	if code := waitExit(t, exited, time.Second); code != 2 {
		t.Errorf("exit %d, want the reply's 2", code)
	}
	if stdout.String() != out {
		t.Errorf("a second reply: %q", stdout.String())
	}
	if !strings.Contains(stderr.String(), "after the reply") || g.ctx.Err() == nil {
		t.Errorf("stderr %q, ctx %v", stderr.String(), g.ctx.Err())
	}
	if code, ours, _ := g.reply(r, ""); ours || code != 2 {
		t.Errorf("a reply after the exit went out: %d %v", code, ours)
	}
}

// When the deadline passes, the hook's context names it at once: code
// that finds the context done before the watchdog has run — the audit
// append — says why, so a hook that then ends with its reply but no
// audit line is still seen as late (TestConcurrentHooks counts those by
// that message). A context done for another reason is not named so.
func TestDeadlineIsTheCause(t *testing.T) {
	for _, late := range []bool{true, false} {
		lim := Limits{Deadline: 20 * time.Millisecond}
		if !late {
			lim.Deadline = time.Hour
		}
		sys, _, _, exited := fakeIO(lim)
		parent, cancel := context.WithCancel(context.Background())
		g := startGuard(parent, sys, nil)
		if !late {
			cancel() // the look-alike: the caller gave up, not the deadline
		}
		<-g.ctx.Done()
		cause := context.Cause(g.ctx)
		err := audit.AppendContext(g.ctx, filepath.Join(t.TempDir(), "audit.jsonl"), audit.Record{})
		named := func(e error) bool {
			return e != nil && strings.Contains(e.Error(), "did not finish within its deadline")
		}
		if named(cause) != late || named(err) != late {
			t.Errorf("late=%v: cause %v, audit append %v", late, cause, err)
		}
		if late {
			waitExit(t, exited, time.Second)
		}
		g.finish()
		cancel()
	}
}
