package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
)

// Limits on what the hook reads and holds. The deadline and the memory
// cap of the whole process are in hook_guard.go.
const (
	maxPayload = 16 << 20
	// hookMemoryLimit is the heap size past which the hook collects
	// garbage (it does not otherwise).
	hookMemoryLimit = 30 << 20
)

type hookOptions struct {
	decideFlags
	provider string
}

func newHookCmd(sys *system) *cobra.Command {
	var o hookOptions
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Answer one PreToolUse hook call: payload on stdin, reply on stdout",
		Long: `hook reads one hook payload on stdin, decides, and prints the reply in the
agent's dialect. Without --provider the agent is recognised from the payload's shape;
an unrecognised shape gets a reply that blocks in every agent when the call is denied.

A payload that cannot be read, or a policy that does not load, gets the on_error
decision (deny unless the policy says otherwise) — never a silent allow.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &hookUsageError{fmt.Sprintf("%s takes no arguments (got %q)", cmd.CommandPath(), strings.Join(args, " "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runHook(cmd.Context(), sys, &o) },
	}
	// A flag error is answered with a deny, not a bare exit 1 (which most
	// agents treat as "go ahead"): see hookUsage.
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &hookUsageError{err.Error()} })
	cmd.Flags().StringVar(&o.provider, "provider", "", "agent dialect: claude-code (claude), codebuddy, codex, gemini, cursor, copilot, antigravity (agy), kiro, windsurf (cascade), devin")
	o.register(cmd)
	o.registerDecide(cmd.Flags())
	return cmd
}

// runHook answers one hook call. Everything it does runs under the hook
// deadline and memory cap (hookGuard): past either, the watchdog answers
// on_error and exits. The reply is written before the audit line, which
// is bounded by the same deadline.
func runHook(ctx context.Context, sys *system, o *hookOptions) error {
	var codec protocol.Codec
	if o.provider != "" {
		c, err := protocol.Lookup(o.provider)
		if err != nil {
			return &hookUsageError{err.Error()}
		}
		codec = c
	}
	if o.mode != "" {
		if _, ok := policy.ParseMode(o.mode); !ok {
			return &hookUsageError{fmt.Sprintf("unknown --mode %q (want interactive or headless)", o.mode)}
		}
	}
	g := startGuard(ctx, sys, codec)
	defer g.finish()
	// A hook process lives for milliseconds: collect garbage only if the
	// heap nears the limit (a 1 MiB command), not on the way to a decision.
	defer pauseGC()()
	g.pace()
	payload, readErr := readPayload(sys.stdin)
	if ev, ok := protocol.DecodeTurnEvent(payload); ok && readErr == nil {
		return runEvent(sys, o, ev, payload) // prompt, session and tool result events: hook_event.go (hitl)
	}
	if codec == nil {
		codec = protocol.Detect(payload)
		g.setCodec(codec)
	}
	out := hookOutcome(g.ctx, sys, o, g, codec, &payload, readErr)
	if out.codec == nil {
		out.codec = codec
	}
	reply := protocol.EncodeFor(out.codec, out.call, out.verdict)
	var msg string
	if out.err != nil {
		msg = out.err.Error()
	}
	code, ours, err := g.reply(reply, msg)
	if err != nil {
		return &exitError{code: code, msg: err.Error()}
	}
	if ours {
		recordAudit(g.ctx, sys, &o.decideFlags, out)
	}
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
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

// hookOutcome decodes and decides, turning every failure — and a panic —
// into the on_error decision.
//
// The payload is let go of once decoded (*payload = nil, the call's input
// copied out of it): with a 1 MiB command it is megabytes that the
// analysis no longer needs.
func hookOutcome(ctx context.Context, sys *system, o *hookOptions, g *hookGuard, codec protocol.Codec, payload *[]byte, readErr error) (out *outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = failed(sys, codec, &policySet{pol: nil}, call.Deny, fmt.Errorf("internal error: %v", r))
		}
	}()
	var c call.Call
	decodeErr := readErr
	if decodeErr == nil {
		opts := protocol.DecodeOptions{Home: sys.home()}
		if n := codec.Name(); n == protocol.NameWindsurf || n == protocol.NameDevin {
			// Cascade's file and MCP actions, and Devin's documented
			// payload, carry no cwd: the hook's is theirs.
			opts.Dir, _ = sys.getwd()
		}
		c, decodeErr = protocol.DecodeWith(codec, *payload, opts)
		c.Input = bytes.Clone(c.Input)
		*payload = nil
		g.setEvent(c.Event)
	}
	project := callProject(sys, &c)
	o.lazy = true // a materialized policy's rules are decoded as calls reach them
	ps, err := o.load(sys, project)
	if err != nil {
		return failed(sys, codec, &policySet{}, call.Deny, fmt.Errorf("the policy does not load: %w", err))
	}
	if decodeErr != nil {
		return failed(sys, codec, ps, ps.pol.Settings.OnError, fmt.Errorf("cannot read the hook payload: %w", decodeErr))
	}
	decide := decideCall
	if sys.decide != nil {
		decide = sys.decide
	}
	return decide(ctx, sys, &o.decideFlags, ps, codec, c, project)
}

// readPayload reads stdin up to maxPayload bytes. It does not time out
// itself: stdin that stays open is ended by the hook deadline.
func readPayload(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	if len(b) > maxPayload {
		return nil, errPayloadTooLarge
	}
	return b, nil
}

var errPayloadTooLarge = errors.New("payload larger than 16 MiB")
