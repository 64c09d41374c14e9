//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package audit

import (
	"context"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// waitLock takes an exclusive flock on f, waiting until deadline or until
// ctx is done. The wait is a blocking flock on a duplicate of f's
// descriptor in a goroutine, so that the kernel hands the lock over in
// order (polling LOCK_NB starves some of 200 concurrent writers). When
// the wait is abandoned, the goroutine releases the lock as soon as it
// gets it and closes its descriptor; f itself stays the caller's.
func waitLock(ctx context.Context, f *os.File, deadline time.Time) error {
	fd, err := syscall.Dup(int(f.Fd()))
	if err != nil {
		return err
	}
	var (
		mu        sync.Mutex
		abandoned bool
		got       = make(chan error, 1)
	)
	go func() {
		var err error
		for {
			if err = syscall.Flock(fd, syscall.LOCK_EX); err != syscall.EINTR {
				break
			}
		}
		mu.Lock()
		if abandoned && err == nil {
			syscall.Flock(fd, syscall.LOCK_UN)
		}
		syscall.Close(fd) // the lock stays with f's open file description
		mu.Unlock()
		got <- err
	}()
	start := time.Now()
	timer := time.NewTimer(time.Until(deadline))
	defer timer.Stop()
	var why error
	select {
	case err := <-got:
		return err
	case <-timer.C:
		why = fmt.Errorf("%w (waited %s)", ErrLockBusy, time.Since(start).Round(time.Millisecond))
	case <-ctx.Done():
		why = fmt.Errorf("%w (gave up: %v)", ErrLockBusy, context.Cause(ctx))
	}
	mu.Lock()
	select {
	case err := <-got: // taken just now
		mu.Unlock()
		return err
	default:
	}
	abandoned = true
	mu.Unlock()
	return why
}
