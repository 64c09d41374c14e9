package hook

import (
	"fmt"
	"time"

	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/remote"
)

// forwardTimeout bounds the server's answer; the rest of the hook's
// deadline is left for the local decision.
const forwardTimeout = 4 * time.Second

// forward asks serve's hook endpoint (--server) to decide the call and
// returns its reply, or nil (saying why on stderr) when the server cannot
// be reached or does not answer a decision (down, a refused token, a
// malformed answer).
//
// The server can only tighten: the hook still decides locally, and the
// server's reply is printed only when its decision is stricter than the
// local one (run). Its reply is not signed, and whatever answers at the
// address — a process the agent started on a loopback port while serve
// was down — could say allow; the fleet's policy reaches the node as a
// signed bundle, its grants as signed grants (settings.approval_url), and
// neither can be forged this way.
func forward(g *watchdog, sys IO, o *Options, codec protocol.Codec, payload []byte) *remote.HookReply {
	c, err := remote.NewNode(o.Server, o.NodeToken)
	if err == nil {
		c.Timeout = forwardTimeout
		var r remote.HookReply
		if r, err = c.Hook(g.ctx, codec.Name(), payload); err == nil {
			return &r
		}
	}
	fmt.Fprintf(sys.Stderr, "toolguard: --server: %v; deciding with the local policy alone\n", err)
	return nil
}
