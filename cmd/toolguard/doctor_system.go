package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/doctor"
	"github.com/toolguard/toolguard/internal/install"
)

// doctor --system (internal/doctor/system.go, internal/install/system_doctor.go;
// docs/install.md, "System mode").
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
	self, _ := sys.executable()
	rep, err := doctor.System(context.Background(), doctor.SystemOptions{User: f.user, SudoUser: sys.getenv("SUDO_USER"),
		Root: f.root, StateDir: f.state, Self: self})
	if err != nil {
		return err
	}
	u, checked, findings := rep.User, rep.Checked, rep.Findings
	if o.json {
		out, _ := json.MarshalIndent(map[string]any{"user": u.Username, "checked": checked, "problems": findings}, "", "  ")
		fmt.Fprintf(sys.stdout, "%s\n", out)
	} else {
		fmt.Fprintf(sys.stdout, "toolguard doctor --system for %s (uid %s): %d surfaces checked with that user's credentials\n", u.Username, u.Uid, len(checked))
		for _, c := range checked {
			fmt.Fprintf(sys.stdout, "  %s\n", c)
		}
		if rep.ClaudeVersion != "" {
			fmt.Fprintf(sys.stdout, "Claude Code %s\n", rep.ClaudeVersion)
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
