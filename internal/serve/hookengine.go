package serve

import (
	"bytes"
	"context"
	"fmt"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/hook"
	"github.com/toolguard/toolguard/internal/protocol"
)

// Hook is what POST /v1/hooks/{agent} decides with: the process hook's
// steps on a payload that came over HTTP, with the served policy — decode
// with the agent's codec, then guard.Decide — and the reply the hook would
// print, in the agent's dialect. The audit line is the hook's
// (hook.RecordAudit), written by the server once the reply is out.
//
// Prompt, session and tool-result events are not handled here: they get
// an empty reply, no decision (docs/api.md).
func (e *Engine) Hook(ctx context.Context, hc HookCall) HookAnswer {
	if _, ok := protocol.DecodeTurnEvent(hc.Payload); ok && hc.ReadErr == nil {
		return HookAnswer{}
	}
	// What the decision writes for the human on the hook's stderr (a
	// recorded request's approve command) goes into this reply's.
	var stderr bytes.Buffer
	sys := e.Sys
	sys.Stderr = &stderr
	codec := hc.Codec
	var out *guard.Outcome
	err := hc.ReadErr
	var cl call.Call
	if err == nil {
		opts := protocol.DecodeOptions{Home: sys.Home()}
		if n := codec.Name(); n == protocol.NameWindsurf || n == protocol.NameDevin {
			opts.Dir = sys.Cwd()
		}
		cl, err = protocol.DecodeWith(codec, hc.Payload, opts)
	}
	if err != nil {
		out = guard.Failed(sys.Now(), codec, e.Set, e.Set.Pol.Settings.OnError, fmt.Errorf("cannot read the hook payload: %w", err))
	} else {
		out = guard.Decide(ctx, sys, guard.Request{Options: &e.Options, Set: e.Set, Codec: codec, Call: cl, Project: sys.Project(&cl)})
	}
	if out.Codec == nil {
		out.Codec = codec
	}
	out.Node = hc.Node // the audit line names the node
	rep := protocol.EncodeFor(out.Codec, out.Call, out.Verdict)
	var head []byte
	if out.Err != nil {
		head = []byte("toolguard: " + out.Err.Error() + "\n")
	}
	rep.Stderr = append(append(head, stderr.Bytes()...), rep.Stderr...)
	return HookAnswer{Reply: rep, Decision: out.Verdict.Decision, Audit: func(ctx context.Context) { hook.RecordAudit(ctx, e.Sys, &e.Options, out) }}
}

// nodeTokens reads --node-tokens: a private file of NAME:TOKEN (or TOKEN)
// lines, one per node (ParseNodeTokens).
func nodeTokensFile(sys guard.System, flag string) ([]NodeToken, error) {
	if flag == "" {
		return nil, nil
	}
	path := sys.Path(flag)
	data, err := readPrivate(path)
	if err != nil {
		return nil, err
	}
	ts, err := ParseNodeTokens(data)
	if err != nil {
		return nil, fmt.Errorf("node token file %s: %v", path, err)
	}
	if len(ts) == 0 {
		return nil, fmt.Errorf("node token file %s: no token", path)
	}
	return ts, nil
}
