// Package hook is one hook process: it reads the agent's payload (bounded),
// runs the decision (internal/guard) under a watchdog that answers deny at
// the deadline or the memory cap, writes exactly one reply in the agent's
// dialect, and appends the audit line. A prompt, session or tool-result
// event (no tool call) takes its own short path (event.go).
package hook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/remote"
	"github.com/toolguard/toolguard/internal/workspace"
)

// Limits on what the hook reads and holds. The deadline and the memory
// cap of the whole process are in hook_guard.go.
const (
	// MaxPayload bounds the payload the hook reads.
	MaxPayload = 16 << 20
	// hookMemoryLimit is the heap size past which the hook collects
	// garbage (it does not otherwise).
	hookMemoryLimit = 30 << 20
)

// IO is what a hook process takes from the process: the decision's
// System (environment, clock, stderr), the payload's stdin and the
// reply's stdout, when the process started (the deadline counts from it;
// zero: from Run), how to end the process when the watchdog fires (nil,
// in tests: return instead), how to set the memory backstop (nil: none;
// tests, where it would bind the whole test binary), and the limits
// (zero: the defaults; tests shorten them).
type IO struct {
	guard.System
	Stdin     io.Reader
	Stdout    io.Writer
	Started   time.Time
	Exit      func(code int)
	LimitData func(max uint64)
	Limits    Limits
}

// Options are a hook command line's: the decision's options and the
// agent's dialect (--provider; "": detected from the payload). Decide is
// for tests: a decision that replaces guard.Decide (a runaway).
type Options struct {
	guard.Options
	Provider string
	Decide   DecideFunc
	// Server is serve's address (--server: unix:///path or
	// http://host:port) whose hook endpoint is asked too, authenticated by
	// NodeToken; its answer counts when it is stricter (forward.go).
	Server, NodeToken string
}

// DecideFunc is the signature of guard.Decide.
type DecideFunc func(ctx context.Context, sys guard.System, r guard.Request) *guard.Outcome

// Run answers one hook call and returns the process's exit code.
// Everything it does runs under the hook deadline and memory cap
// (watchdog): past either, the watchdog answers on_error and exits. The
// reply is written before the audit line, which is bounded by the same
// deadline. A command line that cannot run (an unknown provider or mode)
// is answered as Usage answers it.
func Run(ctx context.Context, sys IO, o Options) int {
	var codec protocol.Codec
	if o.Provider != "" {
		c, err := protocol.Lookup(o.Provider)
		if err != nil {
			return Usage(ctx, sys, nil, err)
		}
		codec = c
	}
	if o.Mode != "" {
		if _, ok := policy.ParseMode(o.Mode); !ok {
			return Usage(ctx, sys, codec, fmt.Errorf("unknown --mode %q (want interactive or headless)", o.Mode))
		}
	}
	code, err := run(ctx, sys, &o, codec)
	if err != nil {
		fmt.Fprintf(sys.Stderr, "toolguard: %v\n", err)
	}
	return code
}

// run is Run past the command line: the exit code, and an error for stderr.
func run(ctx context.Context, sys IO, o *Options, codec protocol.Codec) (int, error) {
	g := startGuard(ctx, sys, codec)
	defer g.finish()
	// A hook process lives for milliseconds: collect garbage only if the
	// heap nears the limit (a 1 MiB command), not on the way to a decision.
	defer pauseGC()()
	g.pace()
	payload, readErr := ReadPayload(sys.Stdin)
	if ev, ok := protocol.DecodeTurnEvent(payload); ok && readErr == nil {
		return runEvent(sys, o, ev, payload) // prompt, session and tool result events: event.go (hitl)
	}
	if codec == nil {
		codec = protocol.Detect(payload)
		g.setCodec(codec)
	}
	var served *remote.HookReply
	if o.Server != "" && readErr == nil {
		served = forward(g, sys, o, codec, payload)
	}
	out := outcome(g.ctx, sys, o, g, codec, &payload, readErr)
	if out.Codec == nil {
		out.Codec = codec
	}
	if served != nil && served.Decision > out.Verdict.Decision {
		// The server is stricter: its reply, its audit line.
		code, _, err := g.reply(protocol.Reply{Stdout: served.Stdout, Stderr: served.Stderr, ExitCode: served.ExitCode}, "")
		return code, err
	}
	reply := protocol.EncodeFor(out.Codec, out.Call, out.Verdict)
	var msg string
	if out.Err != nil {
		msg = out.Err.Error()
	}
	code, ours, err := g.reply(reply, msg)
	if err != nil {
		return code, err
	}
	if ours {
		RecordAudit(g.ctx, sys.System, &o.Options, out)
	}
	return code, nil
}

// hookGC holds the GC settings of the process while hooks run in it
// (one in a hook process; several at once in tests): pauseGC turns the GC
// off up to hookMemoryLimit for the first and gives the settings back when
// the last ends. A save-and-restore per hook, interleaved, could leave the
// process with the GC off and no memory limit.
var hookGC struct {
	sync.Mutex
	running int
	percent int
	limit   int64
}

func pauseGC() (resume func()) {
	hookGC.Lock()
	defer hookGC.Unlock()
	if hookGC.running == 0 {
		hookGC.percent = debug.SetGCPercent(-1)
		hookGC.limit = debug.SetMemoryLimit(hookMemoryLimit)
	}
	hookGC.running++
	return func() {
		hookGC.Lock()
		defer hookGC.Unlock()
		if hookGC.running--; hookGC.running == 0 {
			debug.SetMemoryLimit(hookGC.limit)
			debug.SetGCPercent(hookGC.percent)
		}
	}
}

// outcome decodes and decides, turning every failure — and a panic —
// into the on_error decision.
//
// The payload is let go of once decoded (*payload = nil, the call's input
// copied out of it): with a 1 MiB command it is megabytes that the
// analysis no longer needs.
func outcome(ctx context.Context, sys IO, o *Options, g *watchdog, codec protocol.Codec, payload *[]byte, readErr error) (out *guard.Outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = guard.Failed(sys.Now(), codec, &workspace.Set{Pol: nil}, call.Deny, fmt.Errorf("internal error: %v", r))
		}
	}()
	var c call.Call
	decodeErr := readErr
	if decodeErr == nil {
		opts := protocol.DecodeOptions{Home: sys.Home()}
		if n := codec.Name(); n == protocol.NameWindsurf || n == protocol.NameDevin {
			// Cascade's file and MCP actions, and Devin's documented
			// payload, carry no cwd: the hook's is theirs.
			opts.Dir = sys.Cwd()
		}
		c, decodeErr = protocol.DecodeWith(codec, *payload, opts)
		c.Input = bytes.Clone(c.Input)
		*payload = nil
		g.setEvent(c.Event)
	}
	project := sys.Project(&c)
	o.Lazy = true // a materialized policy's rules are decoded as calls reach them
	// The managed policy bundle, if a trusted layer pins one, is laid
	// over the node's layers here (internal/guard/bundle.go).
	ps, err := guard.LoadPolicy(ctx, sys.System, &o.Options, project)
	if err != nil {
		return guard.Failed(sys.Now(), codec, &workspace.Set{}, call.Deny, fmt.Errorf("the policy does not load: %w", err))
	}
	if decodeErr != nil {
		return guard.Failed(sys.Now(), codec, ps, ps.Pol.Settings.OnError, fmt.Errorf("cannot read the hook payload: %w", decodeErr))
	}
	decide := guard.Decide
	if o.Decide != nil {
		decide = o.Decide
	}
	return decide(ctx, sys.System, guard.Request{Options: &o.Options, Set: ps, Codec: codec, Call: c, Project: project})
}

// ReadPayload reads stdin up to MaxPayload bytes. It does not time out
// itself: stdin that stays open is ended by the hook deadline.
func ReadPayload(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if len(b) > MaxPayload {
		return nil, errPayloadTooLarge
	}
	return b, nil
}

var errPayloadTooLarge = errors.New("payload larger than 16 MiB")
