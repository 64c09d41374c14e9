//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd)

package audit

import (
	"context"
	"os"
	"time"

	"github.com/toolguard/toolguard/internal/filelock"
)

// lockPoll is the pause between two attempts at a busy lock.
const lockPoll = 2 * time.Millisecond

// waitLock takes an exclusive lock on f (see lockAppend for the bounds),
// polling a non-blocking attempt.
func waitLock(ctx context.Context, f *os.File, log *os.File, deadline time.Time) error {
	var err error
	why := waitProgress(ctx, log, deadline, func(d time.Duration) bool {
		end := time.Now().Add(d)
		for {
			var ok bool
			if ok, err = filelock.TryLock(f); err != nil || ok {
				return true
			}
			if !time.Now().Before(end) {
				return false
			}
			time.Sleep(lockPoll)
		}
	})
	if why != nil {
		return why
	}
	return err
}
