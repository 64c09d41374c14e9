package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/toolguard/toolguard/internal/policy"
)

// Policy file reads. A policy file must be a regular file (a symlink is
// followed first) of at most MaxPolicyFile bytes: a repository can ship
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
// changed. settleTime is 100 ms: a writer paused longer than that between
// two writes (on a machine at load average 20, 1–3 of 100 reads in
// TestPolicyRewrittenInPlace at 10 and 50 ms) is indistinguishable from a
// finished one, which is why docs/trust.md asks for replace-by-rename.
// When anything differs the read starts again; after
// readAttempts changed reads it is an error (on_error). An empty policy
// file is an error too: it is what a reader sees between the truncation
// and the write.
const (
	MaxPolicyFile = 16 << 20
	doubleReadMax = 1 << 20
	readAttempts  = 3
	settleTime    = 100 * time.Millisecond
)

// ReadInPlaceMin is the size from which a materialized policy (.json) is
// read in place (policy.Source.File: the checksum streamed through a small
// buffer, a block of rules read when a call reaches it) instead of into
// memory (read twice, compared): below it one read costs less. A
// platform + project + agent file over the defaults is ~140 KiB: read in
// place, its load took 256 us instead of 474 (hookbench's file, git
// status, 150 interleaved runs).
const ReadInPlaceMin = 16 << 10

var errPolicyChanging = errors.New("the file kept changing while it was read (replace policy files atomically: write a temporary file and rename it)")

// ReadPolicyFile reads one policy file under the rules above.
func ReadPolicyFile(path string) ([]byte, error) {
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

// PolicySource reads the policy file at path into a Source: a large
// materialized policy is left open and read in place (openPolicyFile),
// anything else is read in full (readPolicyFile).
func PolicySource(path string) (policy.Source, error) {
	if strings.EqualFold(filepath.Ext(path), ".json") {
		f, err := openPolicyFile(path)
		if err != nil {
			return policy.Source{}, err
		}
		if f != nil {
			return policy.Source{Path: path, File: f}, nil
		}
	}
	data, err := ReadPolicyFile(path)
	return policy.Source{Path: path, Data: data}, err
}

// openFile is a policy file kept open and read in place: Check fails once
// it was written to (size or modification time changed) since it was
// opened. (A file replaced by rename is no concern: the open file is the
// old one, whole.)
type openFile struct {
	f  *os.File
	st os.FileInfo
}

func (o *openFile) ReadAt(b []byte, off int64) (int, error) { return o.f.ReadAt(b, off) }
func (o *openFile) Size() int64                             { return o.st.Size() }

func (o *openFile) Check() error {
	st, err := o.f.Stat()
	if err != nil {
		return err
	}
	if !sameFile(o.st, st) {
		return errors.New("the policy file changed while it was in use (replace policy files atomically: write a temporary file and rename it)")
	}
	return nil
}

// openPolicyFile opens a policy file to read in place, under the same
// rules as readPolicyFile; nil, nil when it is smaller than ReadInPlaceMin
// (read it in full instead). A file modified just now is given
// settleTime first. The file stays open for the life of the process.
func openPolicyFile(path string) (*openFile, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err == nil {
		err = checkRegular(st)
	}
	if err == nil && st.Size() >= ReadInPlaceMin {
		if wait := settleTime - time.Since(st.ModTime()); wait > 0 {
			time.Sleep(min(wait, settleTime))
			var again os.FileInfo
			if again, err = f.Stat(); err == nil && !sameFile(st, again) {
				err = errPolicyChanging
			}
		}
		if err == nil {
			return &openFile{f: f, st: st}, nil
		}
	}
	f.Close()
	return nil, err
}

// checkRegular refuses what is not a regular file of at most
// MaxPolicyFile bytes.
func checkRegular(st os.FileInfo) error {
	if !st.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", FileKind(st.Mode()))
	}
	if st.Size() > MaxPolicyFile {
		return fmt.Errorf("larger than %d MiB (%d bytes)", MaxPolicyFile>>20, st.Size())
	}
	return nil
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
	if err := checkRegular(before); err != nil {
		return nil, mtime, false, err
	}
	size := before.Size()
	data, err = readAll(f, size)
	if err != nil {
		return nil, mtime, false, err
	}
	if len(data) > MaxPolicyFile {
		return nil, mtime, false, fmt.Errorf("larger than %d MiB", MaxPolicyFile>>20)
	}
	if int64(len(data)) != size {
		return nil, mtime, false, nil
	}
	if size <= doubleReadMax {
		again, err := readAll(io.NewSectionReader(f, 0, MaxPolicyFile+1), size)
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

// readAll reads r to its end into a buffer of the expected size, and
// fails past MaxPolicyFile bytes. A file that grew meanwhile reads longer
// than size (the caller compares).
func readAll(r io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, size, size+1)
	n, err := io.ReadFull(r, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		return buf[:n], nil // shrank: the caller sees the short length
	}
	if err != nil {
		return nil, err
	}
	var one [1]byte
	if m, _ := r.Read(one[:]); m > 0 {
		rest, err := io.ReadAll(io.LimitReader(r, MaxPolicyFile))
		if err != nil {
			return nil, err
		}
		return append(append(buf, one[0]), rest...), nil // grew
	}
	return buf, nil
}

// sameFile compares two Stats of one open file: device and inode
// (os.SameFile), size and modification time.
func sameFile(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && os.SameFile(a, b)
}

func FileKind(m os.FileMode) string {
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

// ReadSmall reads a small regular file — a token, a cached bundle — of at
// most max bytes, opened non-blocking (a FIFO in its place cannot hold
// the caller); with noFollow a symlink in its place is refused where the
// system can say so (O_NOFOLLOW). It returns the file's info, so that a
// caller can check its mode.
func ReadSmall(path string, max int64, noFollow bool) ([]byte, os.FileInfo, error) {
	flag := os.O_RDONLY | syscall.O_NONBLOCK
	if noFollow {
		flag |= oNoFollow
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, st, fmt.Errorf("not a regular file (%s)", FileKind(st.Mode()))
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err == nil && int64(len(data)) > max {
		err = fmt.Errorf("larger than %d bytes", max)
	}
	return data, st, err
}
