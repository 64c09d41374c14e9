//go:build unix

package install

import (
	"os"
	"os/exec"
	"syscall"
)

// accessible is access(2) for the process's real uid and gid.
func accessible(p string, mode uint32) bool { return syscall.Access(p, mode) == nil }

// runAs makes cmd run with the user's credentials.
func runAs(cmd *exec.Cmd, uid, gid uint32, groups []uint32) error {
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid, Groups: groups}}
	return nil
}

// ownedBy reports whether p (not followed) belongs to uid.
func ownedBy(p string, uid uint32) bool {
	owner, ok := FileOwner(p)
	return ok && owner == uid
}

// FileOwner is the uid owning p (not followed).
func FileOwner(p string) (uint32, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return st.Uid, true
}
