//go:build !unix

package install

import (
	"errors"
	"os/exec"
)

// System mode is for Unix systems: root, uids and access(2).

func accessible(string, uint32) bool { return false }

func runAs(*exec.Cmd, uint32, uint32, []uint32) error {
	return errors.New("doctor --system runs on Unix systems only")
}

func ownedBy(string, uint32) bool { return false }

// FileOwner is the uid owning p: unknown here.
func FileOwner(string) (uint32, bool) { return 0, false }
