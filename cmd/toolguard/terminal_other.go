//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package main

import "os"

// stdinIsTerminal reports whether the process's stdin is a character
// device. Where no terminal ioctl is used (Windows), a redirected NUL
// device may pass for a terminal: approvals there want --key.
func stdinIsTerminal() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
