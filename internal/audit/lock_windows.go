//go:build windows

package audit

import (
	"os"
	"syscall"
	"unsafe"
)

var (
	kernel32         = syscall.NewLazyDLL("kernel32.dll")
	procLockFileEx   = kernel32.NewProc("LockFileEx")
	procUnlockFileEx = kernel32.NewProc("UnlockFileEx")
)

const lockfileExclusiveLock = 0x2

// lockAppend takes an exclusive LockFileEx lock on the sidecar file
// path+".lock": a handle opened for append-only access cannot be locked.
func lockAppend(_ *os.File, path string) (unlock func() error, err error) {
	lf, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	var ol syscall.Overlapped
	r1, _, e1 := procLockFileEx.Call(lf.Fd(), lockfileExclusiveLock, 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
	if r1 == 0 {
		lf.Close()
		return nil, e1
	}
	return func() error {
		var ol syscall.Overlapped
		r1, _, e1 := procUnlockFileEx.Call(lf.Fd(), 0, 1, 0, uintptr(unsafe.Pointer(&ol)))
		cerr := lf.Close()
		if r1 == 0 {
			return e1
		}
		return cerr
	}, nil
}
