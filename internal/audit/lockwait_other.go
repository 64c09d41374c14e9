//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package audit

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/toolguard/toolguard/internal/filelock"
)

// lockPoll is the pause between two attempts at a busy lock.
const lockPoll = 2 * time.Millisecond

// waitLock takes an exclusive lock on f, polling a non-blocking attempt
// until deadline or until ctx is done.
func waitLock(ctx context.Context, f *os.File, deadline time.Time) error {
	start := time.Now()
	for {
		ok, err := filelock.TryLock(f)
		if err != nil || ok {
			return err
		}
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("%w (gave up: %v)", ErrLockBusy, context.Cause(ctx))
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%w (waited %s)", ErrLockBusy, time.Since(start).Round(time.Millisecond))
		}
		time.Sleep(lockPoll)
	}
}
