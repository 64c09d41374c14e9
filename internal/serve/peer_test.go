package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// TestPeerRoleOwnUID: over a Unix socket with PeerRole and no token, the
// role comes from the caller's uid as the kernel reports it — here the
// test's own: an approver when it is serve's own uid (or root), a hook
// otherwise; without PeerConnContext on the server there is no role.
func TestPeerRoleOwnUID(t *testing.T) {
	if !PeerSupported {
		t.Skip("peer credentials are read on Linux only")
	}
	me := uint32(os.Getuid())
	for _, c := range []struct {
		name string
		self uint32
		ctx  bool
		want int
	}{
		{"caller is serve's uid", me, true, 200},
		{"caller is another uid", me + 1, true, map[bool]int{true: 200, false: 403}[me == 0]},
		{"no peer context", me, false, 401},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t)
			roles, err := PeerRoles("", c.self)
			if err != nil {
				t.Fatal(err)
			}
			f.srv.cfg.PeerRole = roles
			dir, _ := os.MkdirTemp("", "tgp")
			t.Cleanup(func() { os.RemoveAll(dir) })
			sock := filepath.Join(dir, "s")
			ln, err := net.Listen("unix", sock)
			if err != nil {
				t.Fatal(err)
			}
			hs := &http.Server{Handler: f.srv}
			if c.ctx {
				hs.ConnContext = PeerConnContext
			}
			go hs.Serve(ln)
			t.Cleanup(func() { hs.Close() })
			cl := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
				return (&net.Dialer{}).DialContext(ctx, "unix", sock)
			}}}
			res, err := cl.Get("http://toolguard/v1/approvals") // the full list: approvers only
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != c.want {
				t.Errorf("status %d, want %d: %s", res.StatusCode, c.want, b)
			}
		})
	}
}
