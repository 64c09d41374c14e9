package hook

import (
	"context"
	"fmt"
	"time"

	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/remote"
)

// forwardTimeout bounds the server's answer; the rest of the hook's
// deadline is left for deciding locally when it does not come.
const forwardTimeout = 4 * time.Second

// forward asks serve's hook endpoint (--server) to decide the call: the
// server's reply is printed as it is, and the server writes the audit
// line. When the server cannot be reached or does not answer a decision
// (down, a refused token, a malformed answer), the hook decides locally
// with its own policy and state, exactly as without --server (with
// settings.approval_url a headless ask still fails closed), and says why
// on stderr. done is false when the caller is to decide locally.
func forward(g *watchdog, sys IO, o *Options, codec protocol.Codec, payload []byte) (code int, done bool, err error) {
	c, err := remote.NewNode(o.Server, o.NodeToken)
	if err == nil {
		c.Timeout = forwardTimeout
		ctx, cancel := context.WithTimeout(g.ctx, forwardTimeout)
		var r remote.HookReply
		r, err = c.Hook(ctx, codec.Name(), payload)
		cancel()
		if err == nil {
			code, _, werr := g.reply(protocol.Reply{Stdout: r.Stdout, Stderr: r.Stderr, ExitCode: r.ExitCode}, "")
			return code, true, werr
		}
	}
	fmt.Fprintf(sys.Stderr, "toolguard: --server: %v; deciding with the local policy\n", err)
	return 0, false, nil
}
