package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
)

// Limits on what the hook reads: payloads beyond maxPayload, or stdin
// that stays open past stdinTimeout, get the on_error decision.
const (
	maxPayload   = 16 << 20
	stdinTimeout = 20 * time.Second
	// evalTimeout bounds decoding, loading and evaluating, so that the
	// hook answers on_error (deny) well inside every agent's hook timeout
	// (Copilot 30 s, Gemini and CodeBuddy 60 s) instead of being killed —
	// which most agents treat as an allow.
	evalTimeout = 10 * time.Second
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
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runHook(sys, &o) },
	}
	cmd.Flags().StringVar(&o.provider, "provider", "", "agent dialect: claude-code (claude), codebuddy, codex, gemini, cursor, copilot")
	o.register(cmd)
	o.registerDecide(cmd.Flags())
	return cmd
}

func runHook(sys *system, o *hookOptions) error {
	// A hook process lives for milliseconds: collect garbage only if the
	// heap nears the limit (a 1 MiB command), not on the way to a decision.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(hookMemoryLimit))
	var codec protocol.Codec
	if o.provider != "" {
		c, err := protocol.Lookup(o.provider)
		if err != nil {
			return usagef("%v", err)
		}
		codec = c
	}
	if o.mode != "" {
		if _, ok := policy.ParseMode(o.mode); !ok {
			return usagef("unknown --mode %q (want interactive or headless)", o.mode)
		}
	}
	payload, readErr := readPayload(sys.stdin)
	if ev, ok := protocol.DecodeTurnEvent(payload); ok && readErr == nil {
		return runEvent(sys, o, ev, payload) // prompt, session and tool result events: prompt.go (hitl)
	}
	if codec == nil {
		codec = protocol.Detect(payload)
	}
	out := decideWithin(evalTimeout, func() *outcome { return hookOutcome(sys, o, codec, &payload, readErr) },
		func() *outcome {
			return failed(sys, codec, &policySet{}, call.Deny,
				fmt.Errorf("the decision took longer than %s", evalTimeout))
		})
	reply := protocol.EncodeFor(out.codec, out.call, out.verdict)
	if out.err != nil {
		fmt.Fprintf(sys.stderr, "toolguard: %v\n", out.err)
	}
	recordAudit(sys, &o.decideFlags, out)
	if _, err := sys.stdout.Write(reply.Stdout); err != nil {
		return &exitError{code: 2, msg: fmt.Sprintf("writing the reply: %v", err)}
	}
	if len(reply.Stderr) > 0 {
		sys.stderr.Write(reply.Stderr)
	}
	if reply.ExitCode != 0 {
		return &exitError{code: reply.ExitCode}
	}
	return nil
}

// hookOutcome decodes and decides, turning every failure — and a panic —
// into the on_error decision.
//
// The payload is let go of once decoded (*payload = nil, the call's input
// copied out of it): with a 1 MiB command it is megabytes that the
// analysis no longer needs.
func hookOutcome(sys *system, o *hookOptions, codec protocol.Codec, payload *[]byte, readErr error) (out *outcome) {
	defer func() {
		if r := recover(); r != nil {
			out = failed(sys, codec, &policySet{pol: nil}, call.Deny, fmt.Errorf("internal error: %v", r))
		}
	}()
	var c call.Call
	decodeErr := readErr
	if decodeErr == nil {
		c, decodeErr = protocol.DecodeWith(codec, *payload, protocol.DecodeOptions{Home: sys.home()})
		c.Input = bytes.Clone(c.Input)
		*payload = nil
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
	return decideCall(sys, &o.decideFlags, ps, codec, c, project)
}

// readPayload reads stdin up to maxPayload bytes, giving up after
// stdinTimeout.
func readPayload(r io.Reader) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, maxPayload+1))
		done <- result{b, err}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return nil, fmt.Errorf("reading stdin: %w", res.err)
		}
		if len(res.b) > maxPayload {
			return nil, errPayloadTooLarge
		}
		return res.b, nil
	case <-time.After(stdinTimeout):
		return nil, fmt.Errorf("stdin still open after %s", stdinTimeout)
	}
}

var errPayloadTooLarge = errors.New("payload larger than 16 MiB")

// decideWithin runs decide, and answers with late() if it has not finished
// within d. The slow decision is abandoned: the process exits after the
// reply.
func decideWithin(d time.Duration, decide, late func() *outcome) *outcome {
	done := make(chan *outcome, 1)
	go func() { done <- decide() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case o := <-done:
		return o
	case <-timer.C:
		return late()
	}
}
