package policy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
)

// mapThreshold is the size from which ReadFile maps a materialized policy
// instead of copying it: below it a read costs less than a mapping.
const mapThreshold = 256 << 10

// ReadFile reads a policy file for a Source. A large materialized policy in
// the indexed layout (see lazy.go) is mapped read-only where the OS allows
// it, so that a lazily loaded policy touches only the pages it reads: the
// hook then pays neither for copying the whole file into the heap nor for
// faulting in a fresh buffer as large as the file. The mapping is never
// released; it lives as long as the policy that reads its rules from it.
//
// If the file shrinks while it is mapped, reading the lost pages faults;
// Load and the lazy decoding of a rule turn that fault into an error (the
// hook's on_error decision), never a crash.
func ReadFile(path string) ([]byte, error) {
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		return os.ReadFile(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() || st.Size() < mapThreshold || int64(int(st.Size())) != st.Size() {
		return os.ReadFile(path)
	}
	data, err := mapFile(f, int(st.Size()))
	if err != nil {
		return os.ReadFile(path)
	}
	var layout bool
	if err := guardFault(path, func() { layout = bytes.HasPrefix(data, []byte(lazyPrefix)) }); err != nil {
		return nil, err
	}
	if !layout {
		// Only the indexed layout is read in place; anything else is
		// decoded in full, from a copy.
		unmapFile(data)
		return os.ReadFile(path)
	}
	mappedFiles.Store(&data[0], len(data))
	return data, nil
}

// mappedFiles records the mappings ReadFile made, by first byte.
var mappedFiles sync.Map

// releaseMapped drops the resident pages of data if ReadFile mapped it:
// once the loader has checked the whole file, only the few rule lines a
// call reaches need to be in memory again.
func releaseMapped(data []byte) {
	if len(data) == 0 {
		return
	}
	if n, ok := mappedFiles.Load(&data[0]); ok && n.(int) == len(data) {
		releasePages(data)
	}
}

// guardFault runs f, turning a memory fault while it runs (a mapped policy
// file truncated underneath) into an error instead of a crash.
func guardFault(path string, f func()) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, ok := r.(interface{ Addr() uintptr }); !ok {
				panic(r)
			}
			err = fmt.Errorf("policy %s changed while it was being read: %v", path, r)
		}
	}()
	f()
	return nil
}
