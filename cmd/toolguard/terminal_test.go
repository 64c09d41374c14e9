//go:build linux || darwin || freebsd || netbsd || openbsd

package main

import (
	"os"
	"testing"
)

// TestDevNullIsNotATerminal: /dev/null is a character device but not a
// terminal; `approvals approve < /dev/null` (an agent's tool call) must
// not pass for a human at a keyboard.
func TestDevNullIsNotATerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	saved := os.Stdin
	os.Stdin = f
	defer func() { os.Stdin = saved }()
	if stdinIsTerminal() {
		t.Fatal("stdin from /dev/null counted as a terminal")
	}
}
