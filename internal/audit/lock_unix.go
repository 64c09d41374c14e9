//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package audit

import (
	"os"
	"syscall"
)

// lockAppend takes an exclusive flock on the log file itself.
func lockAppend(f *os.File, _ string) (unlock func() error, err error) {
	fd := int(f.Fd())
	for {
		err = syscall.Flock(fd, syscall.LOCK_EX)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return nil, err
	}
	return func() error { return syscall.Flock(fd, syscall.LOCK_UN) }, nil
}
