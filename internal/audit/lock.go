package audit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/toolguard/toolguard/internal/filelock"
)

// LockTimeout bounds the wait for the log's lock while it makes no
// progress: a holder that keeps it that long without the log growing
// (another program's flock, a stuck process) costs the record, never
// more of the caller's time. While other appends go through (the log
// grows), the wait goes on — a queue of a hundred hook processes on a
// loaded machine takes seconds — up to the caller's deadline, or
// MaxLockWait without one.
const LockTimeout = 500 * time.Millisecond

// MaxLockWait bounds the whole wait of a caller without a deadline.
const MaxLockWait = 10 * time.Second

// progressEvery is how often a waiting append looks at the log's size.
const progressEvery = 20 * time.Millisecond

// ErrLockBusy is returned when the log's lock stayed held past the bound.
var ErrLockBusy = errors.New("the log's lock is held by another process")

// waitProgress calls try(d) — which waits up to d for the lock and reports
// whether it got it (or failed for good) — until it does, or until log
// has not grown for LockTimeout, or deadline passes, or ctx is done. It
// returns nil when try reported done, else the error that says why not.
func waitProgress(ctx context.Context, log *os.File, deadline time.Time, try func(d time.Duration) bool) error {
	start := time.Now()
	lastSize, lastGrowth := fileSize(log), start
	for {
		if try(progressEvery) {
			return nil
		}
		now := time.Now()
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w (gave up: %v)", ErrLockBusy, context.Cause(ctx))
		}
		if size := fileSize(log); size != lastSize {
			lastSize, lastGrowth = size, now
		}
		if now.Sub(lastGrowth) >= LockTimeout {
			return fmt.Errorf("%w (no append for %s)", ErrLockBusy, now.Sub(lastGrowth).Round(time.Millisecond))
		}
		if !now.Before(deadline) {
			if d, ok := ctx.Deadline(); ok && !d.After(deadline) {
				// The caller's deadline: its context is done at once; say
				// what it says (a hook: that it passed its deadline).
				<-ctx.Done()
				return fmt.Errorf("%w (gave up: %v)", ErrLockBusy, context.Cause(ctx))
			}
			return fmt.Errorf("%w (waited %s)", ErrLockBusy, now.Sub(start).Round(time.Millisecond))
		}
	}
}

func fileSize(f *os.File) int64 {
	fi, err := f.Stat()
	if err != nil {
		return -1
	}
	return fi.Size()
}

// lockAppend takes an exclusive lock for one append to the log at path:
// on the log file itself, or on Windows — where a handle opened for
// append-only access cannot be locked — on the sidecar file path+".lock".
// It waits while other appends make progress, up to deadline, and gives
// up after LockTimeout without progress or when ctx is done (waitLock).
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
	if err := waitLock(ctx, lf, f, deadline); err != nil {
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
