//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package audit

import (
	"context"
	"os"
	"sync"
	"syscall"
	"time"
)

// waitLock takes an exclusive flock on f (see lockAppend for the bounds).
// The wait is a blocking flock on a duplicate of f's descriptor in a
// goroutine, so that the kernel hands the lock over in order (polling
// LOCK_NB starves some of 200 concurrent writers). When the wait is
// abandoned, the goroutine releases the lock as soon as it gets it and
// closes its descriptor; f itself stays the caller's.
//
// A free lock is taken at once (LOCK_NB), without the goroutine and the
// thread its blocking flock needs: one try, so a process that finds the
// lock held queues like every other.
func waitLock(ctx context.Context, f *os.File, log *os.File, deadline time.Time) error {
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
		return nil
	}
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
		defer mu.Unlock()
		if abandoned {
			if err == nil {
				syscall.Flock(fd, syscall.LOCK_UN)
			}
		} else {
			got <- err
		}
		syscall.Close(fd) // a lock taken stays with f's open file description
	}()
	why := waitProgress(ctx, log, deadline, func(d time.Duration) bool {
		select {
		case err = <-got:
			return true
		case <-time.After(d):
			return false
		}
	})
	if why == nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	select {
	case err := <-got: // taken just now
		return err
	default:
	}
	abandoned = true
	return why
}
