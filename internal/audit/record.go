package audit

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Event names of the records.
const (
	// EventDecision is a policy decision of the hook.
	EventDecision = "policy.decision"
	// EventApproval is a human's decision on an approval request
	// (approvals approve or reject).
	EventApproval = "approval.decision"
	// EventBundle is a managed policy bundle the hook refused (its
	// reason in Error; docs/bundles.md).
	EventBundle = "policy.bundle"
)

// Record is one line of the audit log. See the package documentation for the
// meaning of each field.
type Record struct {
	Time       time.Time `json:"time"`
	Event      string    `json:"event"`
	Provider   string    `json:"provider"`
	Session    string    `json:"session"`
	Tool       string    `json:"tool"`
	Kind       string    `json:"kind"`
	Summary    string    `json:"summary"`
	Cwd        string    `json:"cwd"`
	Workspace  string    `json:"workspace"`
	Decision   string    `json:"decision"`
	Rule       string    `json:"rule"`
	Layer      string    `json:"layer"`
	Source     string    `json:"source"`
	Reason     string    `json:"reason"`
	ApprovalID string    `json:"approval_id,omitempty"`
	PolicyHash string    `json:"policy_hash"`
	Bundle     string    `json:"bundle,omitempty"` // the managed policy bundle in effect (its hash; docs/bundles.md)
	Node       string    `json:"node,omitempty"`   // the fleet node whose token made the call (serve's HTTP hook; docs/fleet.md)
	DurationMS float64   `json:"duration_ms"`
	Mode       string    `json:"mode"`
	Error      string    `json:"error,omitempty"`

	// Fields of approval.decision records.
	Approver    string    `json:"approver,omitempty"`     // who decided: the user name
	ApproverKey string    `json:"approver_key,omitempty"` // fingerprint of the key that signed, if any
	CallKey     string    `json:"call_key,omitempty"`     // the approved call's key
	Uses        int       `json:"uses,omitempty"`         // uses granted
	Expires     time.Time `json:"expires,omitzero"`       // when the grant expires

	// Prev chains the log: the SHA-256 (hex) of the previous line's bytes,
	// newline excluded; [Genesis] on a file's first line. [Append] sets it;
	// whatever the caller puts here is replaced.
	Prev    string   `json:"prev"`
	Ignored []string `json:"ignored,omitempty"` // parts of an untrusted project policy not applied (docs/trust.md)
}

// Genesis is the prev of a log's first line: the SHA-256 of no bytes.
const Genesis = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// MarshalLine returns rec as one JSON line, newline included, as
// encoding/json's Encoder (SetEscapeHTML(false)) writes it. Time is
// converted to UTC and an empty Event becomes [EventDecision].
func (rec Record) MarshalLine() ([]byte, error) {
	rec.Time = rec.Time.UTC()
	if !rec.Expires.IsZero() {
		rec.Expires = rec.Expires.UTC()
	}
	if rec.Event == "" {
		rec.Event = EventDecision
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil {
		return nil, fmt.Errorf("encode audit record: %v", err)
	}
	return buf.Bytes(), nil
}

// Append is [AppendContext] without a deadline of the caller's (the lock
// wait is still bounded: [LockTimeout] without progress, [MaxLockWait] in
// all).
func Append(path string, rec Record) error {
	return AppendContext(context.Background(), path, rec)
}

// AppendContext adds rec as one line to the log file at path, creating
// the parent directories (0700) and the file (0600) when missing. It never
// blocks for long: the file is opened non-blocking and must be a regular
// file (a FIFO, a device or a directory is refused), and the wait for
// the exclusive lock ends when the log has not grown for [LockTimeout],
// at ctx's deadline (or [MaxLockWait]), or when ctx is done. Under the lock it reads back the last line (at most
// [MaxLineBack] bytes) to chain the record (Prev), starts the line with a
// newline if the file does not end in one, and writes the line with a
// single write; a failed or short write is rolled back (the file is
// truncated to its size before the write), so one bad write never costs
// a neighbouring record.
func AppendContext(ctx context.Context, path string, rec Record) error {
	_, _, err := AppendLine(ctx, path, rec)
	return err
}

// AppendLine is [AppendContext] that also returns the line as written:
// rec with its Prev set, and the line's hash (the SHA-256, hex, of its
// bytes without the newline: the prev of the line after it). Serve's
// OpenTelemetry export names each line it sends by that hash.
func AppendLine(ctx context.Context, path string, rec Record) (written Record, hash string, err error) {
	if path == "" {
		return rec, "", errors.New("audit log: empty path")
	}
	if err := ctx.Err(); err != nil {
		return rec, "", fmt.Errorf("audit log: not written: %v", context.Cause(ctx))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return rec, "", fmt.Errorf("audit log: %v", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_RDWR|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return rec, "", fmt.Errorf("audit log: %v", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("audit log: %v", cerr)
		}
	}()
	if fi, err := f.Stat(); err != nil {
		return rec, "", fmt.Errorf("audit log: %v", err)
	} else if !fi.Mode().IsRegular() {
		return rec, "", fmt.Errorf("audit log: %s is not a regular file (%s); nothing written", path, fileType(fi.Mode()))
	}
	// Appends of one process take turns before the file lock, so that
	// the kernel's lock queue holds one waiter per process. Waiting for a
	// turn is progress (each turn is bounded below), so it is bounded by
	// ctx and by turnTimeout only.
	turn := time.NewTimer(turnTimeout)
	defer turn.Stop()
	select {
	case appendTurn <- struct{}{}:
		defer func() { <-appendTurn }()
	case <-turn.C:
		return rec, "", fmt.Errorf("audit log: lock %s: %w (waited %s for the other appends of this process)", path, ErrLockBusy, turnTimeout)
	case <-ctx.Done():
		return rec, "", fmt.Errorf("audit log: lock %s: %w (gave up: %v)", path, ErrLockBusy, context.Cause(ctx))
	}
	deadline := time.Now().Add(MaxLockWait)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	unlock, err := lockAppend(ctx, f, path, deadline)
	if err != nil {
		return rec, "", fmt.Errorf("audit log: lock %s: %w", path, err)
	}
	written, hash, werr := appendLocked(f, rec)
	uerr := unlock()
	if werr != nil {
		return rec, "", fmt.Errorf("audit log: %w", werr)
	}
	if uerr != nil {
		return rec, "", fmt.Errorf("audit log: unlock %s: %v", path, uerr)
	}
	return written, hash, nil
}

// appendTurn is held by the append of this process that is taking or
// holding the file lock.
var appendTurn = make(chan struct{}, 1)

// turnTimeout bounds the wait for appendTurn.
const turnTimeout = 30 * time.Second

// appendLocked writes rec at the end of f, whose lock the caller holds,
// and returns it as written (chained) with its line's hash.
func appendLocked(f *os.File, rec Record) (Record, string, error) {
	fi, err := f.Stat()
	if err != nil {
		return rec, "", err
	}
	size := fi.Size()
	prev, endsInNL, err := lastLine(f, size)
	if err != nil {
		return rec, "", err
	}
	rec.Prev = prev
	line, err := rec.MarshalLine()
	if err != nil {
		return rec, "", err
	}
	hash := lineHash(bytes.TrimSuffix(line, []byte("\n")))
	if !endsInNL {
		line = append([]byte{'\n'}, line...)
	}
	n, werr := f.Write(line)
	if werr == nil && n < len(line) {
		werr = io.ErrShortWrite
	}
	if werr != nil {
		if n > 0 || werr == io.ErrShortWrite {
			if terr := f.Truncate(size); terr != nil {
				return rec, "", fmt.Errorf("%w; rolling back to %d bytes failed too: %v", werr, size, terr)
			}
		}
		return rec, "", werr
	}
	return rec, hash, nil
}

// MaxLineBack bounds how far back from the end of the log an append reads
// to find the last line. A longer last line (toolguard writes none) is
// chained with an empty prev, which Verify reports as a break.
const MaxLineBack = 256 << 10

// lastLine returns the prev of a line appended to a log of size bytes —
// the SHA-256 of its last line, [Genesis] for an empty file — and whether
// the file ends in a newline (an empty file does). It reads the tail only,
// in growing chunks, never more than MaxLineBack bytes.
func lastLine(f *os.File, size int64) (prev string, endsInNL bool, err error) {
	if size == 0 {
		return Genesis, true, nil
	}
	for chunk := int64(4 << 10); ; chunk *= 8 {
		chunk = min(chunk, size, MaxLineBack+1)
		buf := make([]byte, chunk)
		if _, err := f.ReadAt(buf, size-chunk); err != nil {
			return "", false, fmt.Errorf("read back the last line: %v", err)
		}
		endsInNL = buf[len(buf)-1] == '\n'
		body := buf
		if endsInNL {
			body = buf[:len(buf)-1]
		}
		if i := bytes.LastIndexByte(body, '\n'); i >= 0 {
			return lineHash(body[i+1:]), endsInNL, nil
		}
		if chunk == size { // the whole file is one line
			return lineHash(body), endsInNL, nil
		}
		if chunk > MaxLineBack {
			return "", endsInNL, nil
		}
	}
}

// lineHash is the prev of the line after line.
func lineHash(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}

// fileType names what a non-regular file is.
func fileType(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0, m&fs.ModeCharDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m.IsDir():
		return "a directory"
	}
	return m.Type().String()
}

// LineError is a line Read could not parse.
type LineError struct {
	Line int // 1-based
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Read parses an audit log. Blank lines are skipped silently; a line that is
// not a JSON object is skipped and reported as a *[LineError]. The only other
// error it can report is the reader's own, last. Records of every event are
// returned; [Aggregate] keeps the decisions.
func Read(r io.Reader) ([]Record, []error) {
	var (
		recs []Record
		errs []error
	)
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if trimmed := bytes.TrimSpace(line); len(trimmed) > 0 {
			var rec Record
			if trimmed[0] != '{' {
				errs = append(errs, &LineError{Line: n, Err: errors.New("not a JSON object")})
			} else if perr := json.Unmarshal(trimmed, &rec); perr != nil {
				errs = append(errs, &LineError{Line: n, Err: perr})
			} else {
				recs = append(recs, rec)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("line %d: read: %v", n, err))
			break
		}
	}
	return recs, errs
}
