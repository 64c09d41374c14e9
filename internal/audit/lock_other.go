//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package audit

import "os"

// lockAppend is a no-op where neither flock nor LockFileEx exists; the line
// then relies on O_APPEND and a single write.
func lockAppend(*os.File, string) (func() error, error) {
	return func() error { return nil }, nil
}
