//go:build serve

package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/serve"
)

// serve in system mode (docs/install.md, "System mode"): on a Unix socket
// the caller is known by its peer credentials, so the agent's user can
// reach the server as a hook without holding anything secret; the server
// keeps the audit log the hooks send (POST /v1/audit); a socket that
// systemd opened (toolguard.socket) is taken over; and the one-time
// sign-in link is never written where an agent may read it.
type serveSystemFlags struct {
	peer          bool
	approverGroup string
}

func (f *serveSystemFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.peer, "peer-credentials", false, "with --socket (Linux): a caller without a token gets the role of its uid — root, this account and --approver-group approve, any other uid is a hook; the socket is then 0666")
	fl.StringVar(&f.approverGroup, "approver-group", "", "with --peer-credentials: members of this group approve")
}

// check refuses the flags where they cannot work.
func (f *serveSystemFlags) check(socket string) error {
	if f.approverGroup != "" && !f.peer {
		return usagef("--approver-group goes with --peer-credentials")
	}
	if !f.peer {
		return nil
	}
	if socket == "" {
		return usagef("--peer-credentials wants --socket: only a Unix socket tells who the caller is")
	}
	if !serve.PeerSupported {
		return errors.New("--peer-credentials: this system does not report a Unix socket's peer credentials (Linux only); use bearer tokens")
	}
	return nil
}

// peerRole is serve.Config.PeerRole for the flags (nil without --peer-credentials).
func (f *serveSystemFlags) peerRole() (func(serve.Peer) serve.Role, error) {
	if !f.peer {
		return nil, nil
	}
	return serve.PeerRoles(f.approverGroup, uint32(os.Getuid()))
}

// listenUnix listens on path: the socket systemd passed (LISTEN_FDS, for
// this process, on that path) if there is one, else a new one (a stale
// socket file is replaced) with mode 0600, or 0666 when any local account
// may connect (peer credentials decide what it may do).
func listenUnix(sys *system, path string, open bool) (net.Listener, error) {
	if ln, ok, err := activated(sys, path); ok || err != nil {
		return ln, err
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSocket != 0 {
		_ = os.Remove(path) // a socket left by an earlier run
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	mode := fs.FileMode(0o600)
	if open {
		mode = 0o666
	}
	if err := os.Chmod(path, mode); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

// activated takes the listening socket systemd passed (sd_listen_fds: fd
// 3, LISTEN_PID is this process, LISTEN_FDS = 1) when it is a Unix socket
// on path.
func activated(sys *system, path string) (net.Listener, bool, error) {
	if sys.getenv("LISTEN_PID") != strconv.Itoa(os.Getpid()) || sys.getenv("LISTEN_FDS") == "" {
		return nil, false, nil
	}
	if n := sys.getenv("LISTEN_FDS"); n != "1" {
		return nil, false, fmt.Errorf("systemd passed %s sockets; toolguard.socket should listen on one", n)
	}
	f := os.NewFile(3, "systemd-socket")
	ln, err := net.FileListener(f)
	f.Close()
	if err != nil {
		return nil, false, fmt.Errorf("the socket systemd passed: %v", err)
	}
	if a, ok := ln.Addr().(*net.UnixAddr); !ok || a.Name != path {
		ln.Close()
		return nil, false, fmt.Errorf("the socket systemd passed is %v, not --socket %s", ln.Addr(), path)
	}
	return ln, true, nil
}

// loginFile is where serve keeps the sign-in link when its stderr is not
// a terminal: beside the token file (a secret surface: the default rules
// deny reading it; in system mode only the toolguard account can).
func loginFile(tokenPath string) string { return filepath.Join(filepath.Dir(tokenPath), "serve.login") }

// announceLogin tells the human the one-time sign-in link: on a terminal,
// or on a stderr that is not a file (in-process callers); anything else —
// a file (nohup.out), a pipe, the journal — gets only the path of a 0600
// file that holds it, since the agent may be able to read that output.
func announceLogin(sys *system, link, tokenPath string) {
	if f, ok := sys.stderr.(*os.File); !ok || isTerminal(f) {
		fmt.Fprintf(sys.stderr, "toolguard serve: sign in once at %s\n", link)
		return
	}
	p := loginFile(tokenPath)
	if err := writePrivate(p, []byte(link+"\n")); err != nil {
		fmt.Fprintf(sys.stderr, "toolguard serve: the sign-in link was not written (%v); mint one with POST /v1/login-links as an approver\n", err)
		return
	}
	fmt.Fprintf(sys.stderr, "toolguard serve: the one-time sign-in link is in %s (mode 0600; stderr is not a terminal, so it is not printed)\n", p)
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// writePrivate writes data to a new 0600 file at path (an old one, or a
// link in its place, is replaced, never followed).
func writePrivate(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".serve.login*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// serveAppendAudit is serve.Config.AppendAudit: the server's own audit
// log (where auditPath puts it for the server; audit_log = "server" means
// the state directory's audit.jsonl here).
func serveAppendAudit(sys *system, o *serveOptions, ps *policySet) func(audit.Record) error {
	path := auditPath(sys, &o.decideFlags, ps.pol)
	if path == "" {
		return nil
	}
	return func(rec audit.Record) error { return audit.Append(path, rec) }
}
