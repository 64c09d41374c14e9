//go:build linux

package remote_test

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/remote"
	"github.com/toolguard/toolguard/internal/serve"
)

// needRoot skips a test that switches uid, saying why; under CI=true a
// test that cannot run is a failure.
func needRoot(t *testing.T) {
	t.Helper()
	if !serve.PeerSupported {
		t.Skip("peer credentials are read on Linux only")
	}
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("this test runs clients as other uids and needs root; CI must run it")
		}
		t.Skip("needs root to run clients as other uids (SysProcAttr.Credential)")
	}
}

// openDir is a temporary directory other uids can enter.
func openDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tgpeer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A client process run as another uid: the test binary again, told by
// the environment what to do (TestPeerClientHelper).
func runAs(t *testing.T, bin string, uid, gid uint32, url, act string) string {
	t.Helper()
	cmd := exec.Command(bin, "-test.run=^TestPeerClientHelper$")
	cmd.Env = []string{"TG_PEER_URL=" + url, "TG_PEER_ACT=" + act}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid, NoSetGroups: true}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("helper as %d: %v\n%s", uid, err, out)
	}
	s := string(out)
	if i := strings.Index(s, "RESULT "); i >= 0 {
		s = s[i+len("RESULT "):]
		s, _, _ = strings.Cut(s, "\n")
		return s
	}
	t.Fatalf("helper said nothing:\n%s", out)
	return ""
}

var peerCall = call.Call{Provider: "claude-code", SessionID: "s-peer", Cwd: "/w", Tool: "Bash",
	Kind: call.KindShell, Command: "git push origin main", Shell: "bash"}

// TestPeerClientHelper is the client half of TestPeerRoles (run only as
// its child).
func TestPeerClientHelper(t *testing.T) {
	url := os.Getenv("TG_PEER_URL")
	if url == "" {
		t.Skip("helper of TestPeerRoles")
	}
	c, err := remote.New(url, "")
	if err != nil {
		fmt.Println("RESULT new:", err)
		return
	}
	ctx := context.Background()
	key := approval.Key(peerCall)
	code := func(err error) string {
		var se *remote.StatusError
		if errors.As(err, &se) {
			return strconv.Itoa(se.Code)
		}
		if err != nil {
			return "error: " + err.Error()
		}
		return "ok"
	}
	var res string
	switch act, arg, _ := strings.Cut(os.Getenv("TG_PEER_ACT"), ":"); act {
	case "create":
		cr, err := c.Create(ctx, remote.CreateRequest{Call: peerCall, Key: key, Reason: "ask"})
		res = code(err) + " " + cr.ID
	case "use":
		_, err := c.Use(ctx, remote.UseRequest{Key: key, Session: peerCall.SessionID})
		res = code(err)
	case "audit":
		res = code(c.Audit(ctx, audit.Record{Time: time.Now(), Provider: "claude-code", Tool: "Bash", Decision: "deny", Summary: "rm -rf /"}))
	case "audit-forge":
		res = code(c.Audit(ctx, audit.Record{Event: audit.EventApproval, Decision: "approve", Approver: "root"}))
	case "approve":
		res = code(c.Do(ctx, "POST", "/v1/approvals/"+arg+"/approve", map[string]int{"uses": 1}, nil))
	case "list":
		res = code(c.Do(ctx, "GET", "/v1/approvals", nil, nil))
	case "login":
		res = code(c.Do(ctx, "POST", "/v1/login-links", struct{}{}, nil))
	}
	fmt.Println("RESULT " + res)
}

// TestPeerRoles: over a Unix socket with no token, the server gives the
// caller's uid its role — root and the approver group approve; any other
// uid records, uses and appends audit lines, and never approves, lists
// every session or mints a login link.
func TestPeerRoles(t *testing.T) {
	needRoot(t)
	grp, err := user.LookupGroup("daemon")
	if err != nil {
		t.Skipf("no group daemon to use as the approver group: %v", err)
	}
	gid, _ := strconv.ParseUint(grp.Gid, 10, 32)

	dir := openDir(t)
	bin := filepath.Join(dir, "client.test")
	if data, err := os.ReadFile(os.Args[0]); err != nil || os.WriteFile(bin, data, 0o755) != nil {
		t.Fatalf("copying the test binary: %v", err)
	}
	key, err := approval.GenerateKey(filepath.Join(dir, "approver.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := approval.Open(filepath.Join(dir, "state"))
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	st.Trust(approval.Keyring{pub})
	roles, err := serve.PeerRoles("daemon", 4242)
	if err != nil {
		t.Fatal(err)
	}
	var lines []audit.Record
	srv := serve.New(serve.Config{Store: st, Signer: approval.Signer{Key: key, User: "root"}, PeerRole: roles,
		AppendAudit: func(r audit.Record) error { lines = append(lines, r); return nil }})
	t.Cleanup(srv.Close)
	sock := filepath.Join(dir, "serve.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	os.Chmod(sock, 0o666)
	hs := &http.Server{Handler: srv, ConnContext: serve.PeerConnContext}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
	url := "unix://" + sock

	const agent = 54321 // no passwd entry
	out := runAs(t, bin, agent, agent, url, "create")
	code, id, _ := strings.Cut(out, " ")
	if code != "ok" || !approval.ValidID(id) {
		t.Fatalf("agent create: %q", out)
	}
	for _, c := range []struct {
		uid, gid  uint32
		act, want string
	}{
		{agent, agent, "use", "ok"},
		{agent, agent, "audit", "ok"},
		{agent, agent, "audit-forge", "403"},
		{agent, agent, "approve:" + id, "403"},
		{agent, agent, "list", "403"},
		{agent, agent, "login", "403"},
		{4242, 4242, "list", "ok"},         // the server's own account
		{agent, uint32(gid), "list", "ok"}, // the approver group
		{agent, uint32(gid), "approve:" + id, "ok"},
	} {
		if got := runAs(t, bin, c.uid, c.gid, url, c.act); got != c.want {
			t.Errorf("uid %d gid %d %s: %s, want %s", c.uid, c.gid, c.act, got, c.want)
		}
	}
	if len(lines) != 1 || lines[0].Summary != "rm -rf /" {
		t.Errorf("audit lines = %+v", lines)
	}
	if r, err := st.Get(id); err != nil || r.Status != approval.StatusApproved {
		t.Errorf("request after the group's approve: %+v %v", r, err)
	}
}
