package main

import (
	"context"
	"math"
	"runtime/debug"
	"sync"
	"testing"
)

// TestHookRestoresGC: hooks run in one process at once (tests, and any
// caller of run) each turn the GC off for their fast path; when the last
// one ends, the process has the GC settings it had before the first —
// not, as a save-and-restore per hook would leave it after an unlucky
// interleaving, the GC off with no memory limit.
func TestHookRestoresGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	dir := t.TempDir()
	for round := 0; round < 20; round++ {
		var wg sync.WaitGroup
		for i := 0; i < 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				f, sys := newFake(t, payload("claude-code", dir, "git status"), nil)
				if code := run(context.Background(), []string{"hook", "--provider", "claude-code"}, sys); code != 0 {
					t.Errorf("hook exit %d: %s", code, f.stderr.String())
				}
			}()
		}
		wg.Wait()
		if p := debug.SetGCPercent(100); p != 100 {
			t.Fatalf("round %d: GC percent %d after the hooks, want 100", round, p)
		}
		if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
			t.Fatalf("round %d: memory limit %d after the hooks, want none (%d)", round, l, int64(math.MaxInt64))
		}
	}
}
