package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// Policy file reads. A policy file must be a regular file (a symlink is
// followed first) of at most maxPolicyFile bytes: a repository can ship
// .toolguard/policy.toml as a link to /dev/zero or a FIFO, and either must
// give the on_error reply at once, not a hang or gigabytes. The file is
// opened non-blocking, so that a FIFO cannot hold the open.
//
// A file rewritten in place while it is read (`>`, tee, an editor that
// saves in place) must not be read half old, half new: its identity
// (device, inode, size, modification time) is taken before and after the
// read, the path must still name the same file, and a file of up to doubleReadMax bytes is read
// twice and compared (a rewrite within one timestamp tick keeps the
// times). A file modified less than settleTime ago may be half written
// (`>` truncates first, then the program writes): it is read again once
// settleTime has passed since its modification, and must not have
// changed. When anything differs the read starts again; after
// readAttempts changed reads it is an error (on_error). An empty policy
// file is an error too: it is what a reader sees between the truncation
// and the write.
const (
	maxPolicyFile = 16 << 20
	doubleReadMax = 1 << 20
	readAttempts  = 3
	settleTime    = 10 * time.Millisecond
)

var errPolicyChanging = errors.New("the file kept changing while it was read (replace policy files atomically: write a temporary file and rename it)")

// readPolicyFile reads one policy file under the rules above.
func readPolicyFile(path string) ([]byte, error) {
	for attempt := 0; attempt < readAttempts; attempt++ {
		data, mtime, stable, err := readOnce(path)
		if err != nil {
			return nil, err
		}
		if stable {
			if wait := settleTime - time.Since(mtime); wait > 0 {
				// Modified just now: wait, and check it did not change.
				time.Sleep(min(wait, settleTime))
				st, err := os.Stat(path)
				if err != nil {
					return nil, err
				}
				if !st.ModTime().Equal(mtime) || st.Size() != int64(len(data)) {
					continue
				}
			}
			if len(data) == 0 {
				return nil, errors.New("the file is empty (a policy file being rewritten in place? replace it atomically)")
			}
			return data, nil
		}
		time.Sleep(time.Duration(attempt+1) * time.Millisecond)
	}
	return nil, errPolicyChanging
}

// readOnce reads the file once; stable is false when it changed meanwhile.
func readOnce(path string) (data []byte, mtime time.Time, stable bool, err error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, mtime, false, err
	}
	defer f.Close()
	before, err := f.Stat()
	if err != nil {
		return nil, mtime, false, err
	}
	if !before.Mode().IsRegular() {
		return nil, mtime, false, fmt.Errorf("not a regular file (%s)", fileKind(before.Mode()))
	}
	size := before.Size()
	if size > maxPolicyFile {
		return nil, mtime, false, fmt.Errorf("larger than %d MiB (%d bytes)", maxPolicyFile>>20, size)
	}
	data, err = readAll(f, size)
	if err != nil {
		return nil, mtime, false, err
	}
	if len(data) > maxPolicyFile {
		return nil, mtime, false, fmt.Errorf("larger than %d MiB", maxPolicyFile>>20)
	}
	if int64(len(data)) != size {
		return nil, mtime, false, nil
	}
	if size <= doubleReadMax {
		again, err := readAll(io.NewSectionReader(f, 0, maxPolicyFile+1), size)
		if err != nil {
			return nil, mtime, false, err
		}
		if !bytes.Equal(again, data) {
			return nil, mtime, false, nil
		}
	}
	after, err := f.Stat()
	if err != nil {
		return nil, mtime, false, err
	}
	now, err := os.Stat(path)
	if err != nil {
		return nil, mtime, false, err
	}
	return data, before.ModTime(), sameFile(before, after) && os.SameFile(before, now), nil
}

// readAll reads r to its end, at most maxPolicyFile+1 bytes, sized for
// the expected length.
func readAll(r io.Reader, size int64) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, size+1))
	_, err := buf.ReadFrom(io.LimitReader(r, maxPolicyFile+1))
	return buf.Bytes(), err
}

// sameFile compares two Stats of one open file: device and inode
// (os.SameFile), size and modification time.
func sameFile(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && os.SameFile(a, b)
}

func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}
