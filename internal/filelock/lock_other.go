//go:build !(darwin || dragonfly || freebsd || linux || netbsd || openbsd || windows)

package filelock

import "os"

// Without flock or LockFileEx there is no lock (see the package
// documentation).
func Lock(*os.File) error   { return nil } // Lock does nothing here.
func Unlock(*os.File) error { return nil } // Unlock does nothing here.
func SyncDir(string)        {}             // SyncDir does nothing here.
