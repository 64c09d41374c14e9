//go:build !linux

package hook

// LimitData does nothing here: RLIMIT_DATA does not bound mmap'd memory
// (the Go heap) outside Linux. The watchdog alone enforces the cap.
func LimitData(uint64) {}
