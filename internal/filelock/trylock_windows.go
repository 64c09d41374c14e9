//go:build windows

package filelock

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

const (
	lockfileFailImmediately = 0x1
	errorLockViolation      = syscall.Errno(33)
)

// TryLock takes an exclusive LockFileEx lock on the first byte of f if it
// is free, without waiting: false, nil when another holder has it.
func TryLock(f *os.File) (bool, error) {
	var ol syscall.Overlapped
	r1, _, e1 := procLockFileEx.Call(f.Fd(), lockfileExclusiveLock|lockfileFailImmediately, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r1 != 0 {
		return true, nil
	}
	if errors.Is(e1, errorLockViolation) {
		return false, nil
	}
	return false, e1
}
