package audit

import (
	"context"
	"errors"
	"os"
	"runtime"
	"time"

	"github.com/toolguard/toolguard/internal/filelock"
)

// LockTimeout bounds the wait for the log's lock in one append. A holder
// that keeps it longer (another program's flock, a stuck process) costs
// the record, never the caller's time.
const LockTimeout = 500 * time.Millisecond

// ErrLockBusy is returned when the log's lock stayed held past the bound.
var ErrLockBusy = errors.New("the log's lock is held by another process")

// lockAppend takes an exclusive lock for one append to the log at path:
// on the log file itself, or on Windows — where a handle opened for
// append-only access cannot be locked — on the sidecar file path+".lock".
// It waits until deadline or until ctx is done (waitLock).
func lockAppend(ctx context.Context, f *os.File, path string, deadline time.Time) (unlock func() error, err error) {
	lf := f
	if runtime.GOOS == "windows" {
		if lf, err = os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o600); err != nil {
			return nil, err
		}
	}
	fail := func(err error) (func() error, error) {
		if lf != f {
			lf.Close()
		}
		return nil, err
	}
	if err := waitLock(ctx, lf, deadline); err != nil {
		return fail(err)
	}
	return func() error {
		err := filelock.Unlock(lf)
		if lf != f {
			if cerr := lf.Close(); err == nil {
				err = cerr
			}
		}
		return err
	}, nil
}
