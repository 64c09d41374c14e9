package doctor

import (
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/remote"
	"github.com/toolguard/toolguard/internal/workspace"
)

// SystemOptions are doctor --system's: whose access to prove, and where
// the system install is (internal/install/system_doctor.go; docs/install.md,
// "System mode").
type SystemOptions struct {
	User     string // --user: a name or a uid ("" : SudoUser, else the invoking user)
	SudoUser string // $SUDO_USER
	Root     string // the tree install --system --root wrote
	StateDir string // the server's state directory
	// Self is this binary: the access probe is it, run as the user
	// (`doctor --access-probe`); when the user cannot run it, the
	// installed one.
	Self string
}

// SystemReport is what doctor --system found.
type SystemReport struct {
	User          *user.User
	Checked       []string
	Findings      []install.SystemFinding
	ClaudeVersion string
}

// System proves, as root, that no guard surface is writable and no secret
// readable by the agent's user (install.SystemDoctor, with the access
// probe run as that user and the approval server's socket asked for its
// health).
func System(ctx context.Context, o SystemOptions) (*SystemReport, error) {
	name := o.User
	if name == "" {
		name = o.SudoUser
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
		return nil, fmt.Errorf("--user %s: %v", name, err)
	}
	uid, _ := strconv.ParseUint(u.Uid, 10, 32)
	gid, _ := strconv.ParseUint(u.Gid, 10, 32)
	if uid == 0 {
		return nil, workspace.Usagef("doctor --system proves what the agent's user cannot do; root can do everything: name that user with --user NAME")
	}
	var groups []uint32
	if ids, err := u.GroupIds(); err == nil {
		for _, g := range ids {
			if n, err := strconv.ParseUint(g, 10, 32); err == nil {
				groups = append(groups, uint32(n))
			}
		}
	}
	prog := o.Self
	if prog == "" || !otherExecutable(prog) {
		prog = filepath.Join(o.Root, install.SystemBinary)
	}
	opts := install.SystemDoctorOptions{Root: o.Root, User: u.Username, UID: uint32(uid), StateDir: o.StateDir,
		Probe: install.ProbeAs(prog, []string{"doctor", "--access-probe"}, uint32(uid), uint32(gid), groups),
		ServerCheck: func(sock string) string {
			path := filepath.Join(o.Root, sock)
			if owner, ok := install.FileOwner(path); ok && owner == uint32(uid) {
				return fmt.Sprintf("the socket belongs to %s: the agent's user runs the server it trusts", u.Username)
			}
			c, err := remote.New("unix://"+path, "")
			if err != nil {
				return err.Error()
			}
			var h map[string]string
			if err := c.Do(ctx, "GET", "/healthz", nil, &h); err != nil || h["status"] != "ok" {
				return fmt.Sprintf("the server does not answer (%v)", err)
			}
			return ""
		}}
	if v, _, found := install.AgentVersion(ctx, "claude-code"); found {
		opts.ClaudeVersion = v
	}
	checked, findings, err := install.SystemDoctor(opts)
	if err != nil {
		return nil, err
	}
	return &SystemReport{User: u, Checked: checked, Findings: findings, ClaudeVersion: opts.ClaudeVersion}, nil
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
