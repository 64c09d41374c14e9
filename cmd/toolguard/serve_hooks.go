//go:build serve

package main

import (
	"bytes"
	"context"
	"fmt"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/serve"
)

// serveHook is what POST /v1/hooks/{agent} decides with: the process
// hook's steps (hook.go's hookOutcome and runHook) on a payload that came
// over HTTP, with the served policy — decode with the agent's codec, then
// the one decision function (decideCall, or sys.decide) — and the reply
// the hook would print, in the agent's dialect. The audit line is the
// hook's (recordAudit), written by the server.
//
// Prompt, session and tool-result events (hook_event.go) are not handled
// here: they get an empty reply, no decision (docs/api.md).
func serveHook(serverSys *system, o *serveOptions, ps *policySet) func(context.Context, serve.HookCall) serve.HookAnswer {
	sys := serverSys
	return func(ctx context.Context, hc serve.HookCall) serve.HookAnswer {
		if _, ok := protocol.DecodeTurnEvent(hc.Payload); ok && hc.ReadErr == nil {
			return serve.HookAnswer{}
		}
		// What the decision writes for the human on the hook's stderr (a
		// recorded request's approve command) goes into this reply's.
		var stderr bytes.Buffer
		callSys := *sys
		callSys.stderr = &stderr
		sys := &callSys
		codec := hc.Codec
		var out *outcome
		c, err := hc.Payload, hc.ReadErr
		var cl call.Call
		if err == nil {
			opts := protocol.DecodeOptions{Home: sys.home()}
			if n := codec.Name(); n == protocol.NameWindsurf || n == protocol.NameDevin {
				opts.Dir, _ = sys.getwd()
			}
			cl, err = protocol.DecodeWith(codec, c, opts)
		}
		if err != nil {
			out = failed(sys, codec, ps, ps.pol.Settings.OnError, fmt.Errorf("cannot read the hook payload: %w", err))
		} else {
			decide := decideCall
			if sys.decide != nil {
				decide = sys.decide
			}
			out = decide(ctx, sys, &o.decideFlags, ps, codec, cl, callProject(sys, &cl))
		}
		if out.codec == nil {
			out.codec = codec
		}
		rep := protocol.EncodeFor(out.codec, out.call, out.verdict)
		var head []byte
		if out.err != nil {
			head = []byte("toolguard: " + out.err.Error() + "\n")
		}
		rep.Stderr = append(append(head, stderr.Bytes()...), rep.Stderr...)
		return serve.HookAnswer{Reply: rep, Audit: func(ctx context.Context) { recordAudit(ctx, serverSys, &o.decideFlags, out) }}
	}
}

// serveNodeTokens reads --node-tokens: a private file of NAME:TOKEN (or
// TOKEN) lines, one per node (serve.ParseNodeTokens).
func serveNodeTokens(sys *system, flag string) ([]serve.NodeToken, error) {
	if flag == "" {
		return nil, nil
	}
	path := argPath(flag, mustWd(sys), sys.home())
	data, err := readPrivate(path)
	if err != nil {
		return nil, err
	}
	ts, err := serve.ParseNodeTokens(data)
	if err != nil {
		return nil, fmt.Errorf("node token file %s: %v", path, err)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("node token file %s: no token", path)
	}
	return ts, nil
}
