package policy

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
)

// mapThreshold is the size from which ReadSource maps a materialized policy
// instead of copying it: below it a read costs less than a mapping.
const mapThreshold = 256 << 10

// ReadSource reads the policy file at path as the Source of layer (""
// for the file's own). A large materialized policy in the indexed layout
// (see lazy.go) is mapped read-only where the OS allows it, so that a
// lazily loaded policy touches only the pages it reads: the hook then pays
// neither for copying the whole file into the heap nor for faulting in a
// fresh buffer as large as the file. The mapping is never released; it
// lives as long as the policy that reads its rules from it.
//
// If the file shrinks while it is mapped, reading the lost pages faults;
// Load, Evaluate and the lazy decoding of a rule turn that fault into an
// error (the hook's on_error decision), never a crash.
func ReadSource(layer, path string) (Source, error) {
	data, mapped, err := readFile(path)
	return Source{Layer: layer, Path: path, Data: data, mapped: mapped}, err
}

func readFile(path string) (data []byte, mapped bool, err error) {
	if !strings.EqualFold(filepath.Ext(path), ".json") {
		data, err = os.ReadFile(path)
		return data, false, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, false, err
	}
	if st.Mode().IsRegular() && st.Size() >= mapThreshold && int64(int(st.Size())) == st.Size() {
		if data, err := mapFile(f, int(st.Size())); err == nil {
			var layout bool
			if err := guardFault(path, func() { layout = bytes.HasPrefix(data, []byte(lazyPrefix)) }); err != nil {
				return nil, false, err
			}
			if layout {
				return data, true, nil
			}
			// Only the indexed layout is read in place; anything else is
			// decoded in full, from a copy.
			unmapFile(data)
		}
	}
	data, err = os.ReadFile(path)
	return data, false, err
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
