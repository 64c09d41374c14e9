package hook

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

// The limits of one hook process (docs/limits.md).
const (
	// Deadline bounds the whole hook process, from its start (reading
	// stdin included) to its exit. It sits well inside the shortest hook
	// timeout toolguard installs (30 s, internal/install) and the shortest
	// agent default (Copilot 30 s), because most agents treat a hook that
	// is killed at their timeout as an allow.
	Deadline = 10 * time.Second
	// hookMemoryCap is the heap (objects and goroutine stacks) past which
	// the hook stops and answers on_error. The largest payload the hook
	// analyzes (a 1 MiB command) peaks near 100 MB of heap in its worst
	// shapes; a runaway would otherwise grow until the machine kills it.
	hookMemoryCap = 256 << 20
	// hookDataLimit is the backstop under hookMemoryCap: the kernel
	// refuses the process more memory than this (Linux RLIMIT_DATA; see
	// limitData). Past it the Go runtime exits 2, which blocks too.
	hookDataLimit = 1 << 30
	// hookWatchEvery is how often the watchdog reads the heap size. Most
	// hook runs end before its first look.
	hookWatchEvery = 5 * time.Millisecond
)

// Limits are the deadline, memory cap and polling interval of a hook
// run; a zero field takes the default above. Tests shorten them.
type Limits struct {
	Deadline time.Duration
	Memory   uint64
	Every    time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.Deadline <= 0 {
		l.Deadline = Deadline
	}
	if l.Memory == 0 {
		l.Memory = hookMemoryCap
	}
	if l.Every <= 0 {
		l.Every = hookWatchEvery
	}
	return l
}

// watchdog writes the one reply of a hook process and enforces its
// limits. A watchdog (two runtime timers) watches the deadline and the heap; when
// either is passed it writes the on_error reply (deny) — unless the reply
// was written already — and exits the process through sys.Exit, whatever
// the other goroutines are doing (reading stdin, waiting on a lock,
// allocating, parsing). ctx is cancelled at that moment, with the cause;
// code that consumes something (an approval use) or appends (the audit
// log) checks it first.
type watchdog struct {
	sys    IO
	ctx    context.Context
	cancel context.CancelCauseFunc
	lim    Limits

	// The watchdog is two runtime timers, not a goroutine: nothing runs
	// on a hook's fast path until one of them fires (starting a goroutine
	// that blocks costs the fast path a thread wake-up).
	stopDeadline func() bool // unregisters the deadline callback
	heapTimer    *time.Timer // next look at the heap
	once         sync.Once

	mu       sync.Mutex
	finished bool
	gc       bool           // the hook turned GC off for its fast path (pace restores it)
	codec    protocol.Codec // dialect of the on_error reply; nil until known
	event    string         // the call's event, for Cursor's narrower replies
	done     bool           // the reply is written
	code     int            // its exit code
}

// startGuard starts the watchdog of a hook process. codec is the dialect
// the on_error reply is written in (nil: not known yet, see setCodec).
// The deadline counts from sys.Started, the process start.
func startGuard(parent context.Context, sys IO, codec protocol.Codec) *watchdog {
	lim := sys.Limits.withDefaults()
	if sys.LimitData != nil {
		sys.LimitData(hookDataLimit)
	}
	start := sys.Started
	if start.IsZero() {
		start = time.Now()
	}
	// The deadline is the context's cause from the moment it passes, so
	// that code which sees ctx done before the watchdog has run (the audit
	// append, which then says why its line is missing) names it.
	late := lateError(lim.Deadline)
	dctx, dcancel := context.WithDeadlineCause(parent, start.Add(lim.Deadline), late)
	ctx, cancel := context.WithCancelCause(dctx)
	g := &watchdog{sys: sys, ctx: ctx, codec: codec, lim: lim}
	g.cancel = func(cause error) { cancel(cause); dcancel() }
	g.stopDeadline = context.AfterFunc(dctx, func() { g.fire(late) })
	// Under mu: on a loaded machine the first look can fire before
	// AfterFunc returns, and lookAtHeap resets g.heapTimer.
	g.mu.Lock()
	g.heapTimer = time.AfterFunc(lim.Every, g.lookAtHeap)
	g.mu.Unlock()
	return g
}

// lateError is the hook's deadline passing; its message is formatted only
// when a hook is late.
type lateError time.Duration

func (d lateError) Error() string {
	return fmt.Sprintf("the hook did not finish within its deadline of %s", time.Duration(d))
}

// lookAtHeap fires when the heap (objects and goroutine stacks) is past
// the cap, and otherwise looks again after lim.Every.
func (g *watchdog) lookAtHeap() {
	g.mu.Lock()
	if g.finished {
		g.mu.Unlock()
		return
	}
	// runtime.ReadMemStats, not runtime/metrics: the metrics package's
	// init costs every hook ~0.1 ms (inittrace), and this runs only in a
	// hook that is still deciding after lim.every.
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	used := ms.HeapAlloc + ms.StackInuse
	if g.gc && used > hookMemoryLimit {
		// Past the heap the fast path is tuned for: a big input or a
		// runaway. The GC, which from hookMemoryLimit on collects back
		// to back, gets its normal pacing back, under a soft limit
		// below the cap. Measured with the doubling bomb on a
		// loaded machine: with the GC collecting back to back at
		// 30 MiB (each cycle stopping the world behind the runtime's
		// long copies) the watchdog saw the heap one or two
		// doublings late in 4 of 12 runs and the RLIMIT_DATA backstop
		// ended 2; with this, 1 of 12 late and none ended by it.
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(int64(g.lim.Memory - g.lim.Memory/8))
		g.gc = false
	}
	if used <= g.lim.Memory {
		g.heapTimer.Reset(g.lim.Every)
		g.mu.Unlock()
		return
	}
	g.mu.Unlock()
	g.fire(fmt.Errorf("the hook's memory passed its cap of %d MiB", g.lim.Memory>>20))
}

// pace tells the guard that the hook turned the GC off for its fast path
// (run), so that a long run gets it back.
func (g *watchdog) pace() {
	g.mu.Lock()
	g.gc = true
	g.mu.Unlock()
}

// setCodec names the dialect of the on_error reply once it is known.
func (g *watchdog) setCodec(c protocol.Codec) {
	g.mu.Lock()
	g.codec = c
	g.mu.Unlock()
}

// setEvent records the call's event (Cursor's beforeReadFile takes a
// narrower reply).
func (g *watchdog) setEvent(ev string) {
	g.mu.Lock()
	g.event = ev
	g.mu.Unlock()
}

// fire answers on_error (deny) with cause, unless the reply is out
// already, and exits.
func (g *watchdog) fire(cause error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.finished {
		return
	}
	g.finished = true
	g.cancel(cause)
	if !g.done {
		r := BlockReply(g.codec, call.Call{Event: g.event}, fmt.Sprintf("toolguard: %v (on_error = deny)", cause))
		g.sys.Stdout.Write(r.Stdout)
		fmt.Fprintf(g.sys.Stderr, "toolguard: %v\n", cause)
		g.sys.Stderr.Write(r.Stderr)
		g.done, g.code = true, r.ExitCode
	} else {
		fmt.Fprintf(g.sys.Stderr, "toolguard: %v (after the reply; exiting)\n", cause)
	}
	if g.sys.Exit != nil {
		g.sys.Exit(g.code) // under the lock: nothing else is written
	}
}

// reply writes r (and msg, a line for stderr, if any) unless the watchdog
// answered first. It returns the exit code of the reply that went out and
// whether it was r.
func (g *watchdog) reply(r protocol.Reply, msg string) (int, bool, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.done {
		return g.code, false, nil
	}
	g.done, g.code = true, r.ExitCode
	if msg != "" {
		fmt.Fprintf(g.sys.Stderr, "toolguard: %s\n", msg)
	}
	if _, err := g.sys.Stdout.Write(r.Stdout); err != nil {
		g.code = 2
		return 2, true, fmt.Errorf("writing the reply: %v", err)
	}
	if len(r.Stderr) > 0 {
		g.sys.Stderr.Write(r.Stderr)
	}
	return g.code, true, nil
}

// finish stops the watchdog.
func (g *watchdog) finish() {
	g.once.Do(func() {
		g.mu.Lock()
		g.finished = true
		g.heapTimer.Stop()
		g.mu.Unlock()
		g.stopDeadline()
		g.cancel(nil)
	})
}

// BlockReply is the deny of a call toolguard could not decide, in codec's
// dialect. Where the dialect is unknown (nil or the universal codec) it is
// the universal deny with exit 2, which blocks in every agent even when
// the agent ignores the JSON (Codex reads the stderr line the caller
// writes).
func BlockReply(codec protocol.Codec, c call.Call, reason string) protocol.Reply {
	if codec == nil {
		codec, _ = protocol.Lookup(protocol.NameUniversal)
	}
	r := protocol.EncodeFor(codec, c, call.Verdict{Decision: call.Deny, Reason: reason})
	if codec.Name() == protocol.NameUniversal && r.ExitCode == 0 {
		r.ExitCode = 2
	}
	return r
}

// Usage answers a hook command line that cannot be run (an unknown
// flag, provider or mode, extra arguments) as the agent's deny: the
// payload is read (under the deadline) to learn the dialect, unless codec
// (a valid --provider) names it; the message goes to stderr too.
func Usage(ctx context.Context, sys IO, codec protocol.Codec, uerr error) int {
	return UsagePayload(ctx, sys, codec, uerr, nil)
}

// UsagePayload is Usage with the payload already read (nil: Usage reads
// it): a command line that failed before any command ran, with a hook
// payload on stdin.
func UsagePayload(ctx context.Context, sys IO, codec protocol.Codec, uerr error, payload []byte) int {
	g := startGuard(ctx, sys, codec)
	defer g.finish()
	if payload == nil {
		payload, _ = ReadPayload(sys.Stdin)
	}
	if codec == nil {
		codec = protocol.Detect(payload)
		g.setCodec(codec)
	}
	c, _ := protocol.DecodeWith(codec, payload, protocol.DecodeOptions{Home: sys.Home()})
	r := BlockReply(codec, call.Call{Event: c.Event},
		fmt.Sprintf("toolguard: the hook command line is wrong (%v); on_error = deny. A human must fix the toolguard hook entry in the agent's settings.", uerr))
	code, _, err := g.reply(r, uerr.Error()+"\nRun 'toolguard hook --help' for usage.")
	if err != nil {
		fmt.Fprintf(sys.Stderr, "toolguard: %v\n", err)
	}
	return code
}
