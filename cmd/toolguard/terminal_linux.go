package main

import (
	"os"
	"syscall"
	"unsafe"
)

// stdinIsTerminal reports whether the process's stdin is a terminal: the
// terminal ioctl succeeds on it. A character device that is not a
// terminal (/dev/null, /dev/zero) is not one: `approvals approve <
// /dev/null` must not pass for a human at a keyboard.
func stdinIsTerminal() bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, os.Stdin.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
