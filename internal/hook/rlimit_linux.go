//go:build linux

package hook

import "syscall"

// LimitData lowers the process's data segment limit (RLIMIT_DATA, which
// Linux applies to every private writable mapping, the Go heap included)
// to max, unless it is lower already. It is the backstop under the
// watchdog: should a runaway allocation keep the watchdog from running
// (a huge non-preemptible copy holding up the scheduler — seen once on a
// machine at load 18: 23 GB and 278 s), the kernel refuses the memory
// and the Go runtime ends the process with exit 2 and the reason on
// stderr, which blocks in every agent (docs/agents.md), instead of
// eating the machine.
func LimitData(max uint64) {
	var r syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_DATA, &r) != nil || r.Cur <= max {
		return
	}
	r.Cur = min(max, r.Max)
	syscall.Setrlimit(syscall.RLIMIT_DATA, &r)
}
