//go:build !linux

package main

// limitData does nothing here: RLIMIT_DATA does not bound mmap'd memory
// (the Go heap) outside Linux. The watchdog alone enforces the cap.
func limitData(uint64) {}
