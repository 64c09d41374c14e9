package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/remote"
)

// doctor --system (internal/install/system_doctor.go; docs/install.md,
// "System mode").
type doctorSystemFlags struct {
	on    bool
	user  string
	root  string
	state string
	probe bool // hidden: the access probe, run as the user
}

func (f *doctorSystemFlags) register(cmd *cobra.Command) {
	fl := cmd.Flags()
	fl.BoolVar(&f.on, "system", false, "prove a system install (as root): no guard surface writable, and no secret readable, by --user")
	fl.StringVar(&f.user, "user", "", "with --system: the agent's user (default: $SUDO_USER, else the invoking user)")
	fl.StringVar(&f.root, "root", "/", "with --system: the tree install --system --root wrote")
	fl.StringVar(&f.state, "state-dir-system", "/var/lib/toolguard", "with --system: the server's state directory")
	fl.BoolVar(&f.probe, "access-probe", false, "")
	_ = fl.MarkHidden("access-probe")
	_ = fl.MarkHidden("state-dir-system")
}

func runDoctorSystem(sys *system, o *doctorOptions) error {
	f := &o.sys
	if f.probe {
		// The probe: paths as JSON on stdin, access as JSON on stdout.
		var paths []string
		data, err := io.ReadAll(io.LimitReader(sys.stdin, 1<<20))
		if err != nil || json.Unmarshal(data, &paths) != nil {
			return errors.New("--access-probe wants a JSON list of paths on stdin")
		}
		out, _ := json.Marshal(install.ProbeAccess(paths))
		fmt.Fprintf(sys.stdout, "%s\n", out)
		return nil
	}
	if geteuid() != 0 {
		return errors.New("doctor --system checks as another user: run it as root (sudo toolguard doctor --system --user NAME)")
	}
	name := f.user
	if name == "" {
		name = sys.getenv("SUDO_USER")
	}
	var u *user.User
	var err error
	if name == "" {
		u, err = user.Current()
	} else if _, nerr := strconv.Atoi(name); nerr == nil {
		u, err = user.LookupId(name)
		if err != nil { // a uid without a passwd entry (a container's agent)
			u, err = &user.User{Uid: name, Gid: name, Username: "uid " + name}, nil
		}
	} else {
		u, err = user.Lookup(name)
	}
	if err != nil {
		return fmt.Errorf("--user %s: %v", name, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	if uid == 0 {
		return usagef("doctor --system proves what the agent's user cannot do; root can do everything: name that user with --user NAME")
	}
	var groups []uint32
	if ids, err := u.GroupIds(); err == nil {
		for _, g := range ids {
			if n, err := strconv.ParseUint(g, 10, 32); err == nil {
				groups = append(groups, uint32(n))
			}
		}
	}
	// The probe is this binary run as the user; when the user cannot
	// run it (a root-only directory), the installed one.
	prog, _ := sys.executable()
	if prog == "" || !otherExecutable(prog) {
		prog = filepath.Join(f.root, install.SystemBinary)
	}
	opts := install.SystemDoctorOptions{Root: f.root, User: u.Username, UID: uint32(uid), StateDir: f.state,
		Probe: install.ProbeAs(prog, []string{"doctor", "--access-probe"}, uint32(uid), uint32(gid), groups),
		ServerCheck: func(sock string) string {
			path := filepath.Join(f.root, sock)
			if owner, ok := install.FileOwner(path); ok && owner == uint32(uid) {
				return fmt.Sprintf("the socket belongs to %s: the agent's user runs the server it trusts", u.Username)
			}
			c, err := remote.New("unix://"+path, "")
			if err != nil {
				return err.Error()
			}
			var h map[string]string
			if err := c.Do(context.Background(), "GET", "/healthz", nil, &h); err != nil || h["status"] != "ok" {
				return fmt.Sprintf("the server does not answer (%v)", err)
			}
			return ""
		}}
	if v, _, found := install.AgentVersion(context.Background(), "claude-code"); found {
		opts.ClaudeVersion = v
	}
	checked, findings, err := install.SystemDoctor(opts)
	if err != nil {
		return err
	}
	if o.json {
		out, _ := json.MarshalIndent(map[string]any{"user": u.Username, "checked": checked, "problems": findings}, "", "  ")
		fmt.Fprintf(sys.stdout, "%s\n", out)
	} else {
		fmt.Fprintf(sys.stdout, "toolguard doctor --system for %s (uid %s): %d surfaces checked with that user's credentials\n", u.Username, u.Uid, len(checked))
		for _, c := range checked {
			fmt.Fprintf(sys.stdout, "  %s\n", c)
		}
		if opts.ClaudeVersion != "" {
			fmt.Fprintf(sys.stdout, "Claude Code %s\n", opts.ClaudeVersion)
		}
		for _, fd := range findings {
			fmt.Fprintf(sys.stdout, "FAIL %s\n", strings.ReplaceAll(fd.String(), "\n", "\n     "))
		}
	}
	if len(findings) > 0 {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("%d problem(s): the guard is not out of %s's reach", len(findings), u.Username)}
	}
	fmt.Fprintf(sys.stdout, "ok: no guard surface is writable, and no secret readable, by %s\n", u.Username)
	return nil
}

// otherExecutable reports whether a program and every directory above it
// can be run and searched by anyone.
func otherExecutable(p string) bool {
	for d := p; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == "/" {
			return true
		}
	}
}
