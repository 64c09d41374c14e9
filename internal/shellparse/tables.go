package shellparse

import (
	"sync"
	"sync/atomic"
)

// No table of this package costs anything at process start: a hook call
// that never reaches a shell analysis (a Write, an MCP call) must not pay
// for it. Small sets are switch functions, tables of values are sorted
// static slices (laid out by the linker, searched with lookup), and the
// few tables that need building (maps of compiled specs, regular
// expressions) are lazy values built on first use.

// lazy is a value built by build on first use. Unlike sync.OnceValue, a
// package-level lazy is static data: it allocates nothing until get.
type lazy[T any] struct {
	build func() T
	mu    sync.Mutex
	done  atomic.Bool
	v     T
}

// get returns the value, building it on the first call.
func (l *lazy[T]) get() T {
	if !l.done.Load() {
		l.slow()
	}
	return l.v
}

func (l *lazy[T]) slow() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.done.Load() {
		l.v = l.build()
		l.done.Store(true)
	}
}

// named is one entry of a sorted static table.
type named[T any] struct {
	name string
	v    T
}

// lookup finds name in table, which must be sorted by name (each table
// has a test that checks it).
func lookup[T any](table []named[T], name string) (T, bool) {
	lo, hi := 0, len(table)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if table[m].name < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(table) && table[lo].name == name {
		return table[lo].v, true
	}
	var zero T
	return zero, false
}

// set makes a set of names; it is for the lazy tables only.
func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}
