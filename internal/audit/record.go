package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// EventDecision is the event name of a policy decision record.
const EventDecision = "policy.decision"

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
	DurationMS float64   `json:"duration_ms"`
	Mode       string    `json:"mode"`
	Error      string    `json:"error,omitempty"`
	Ignored    []string  `json:"ignored,omitempty"` // parts of an untrusted project policy not applied (docs/trust.md)
}

// MarshalLine returns rec as one JSON line, newline included. Time is
// converted to UTC and an empty Event becomes [EventDecision].
func (rec Record) MarshalLine() ([]byte, error) {
	rec.Time = rec.Time.UTC()
	if rec.Event == "" {
		rec.Event = EventDecision
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(rec); err != nil { // Encode appends the newline
		return nil, fmt.Errorf("encode audit record: %v", err)
	}
	return buf.Bytes(), nil
}

// Append adds rec as one line to the log file at path, creating the parent
// directories (0700) and the file (0600) when missing. The line is written
// with a single write under an exclusive lock held only for that write.
func Append(path string, rec Record) (err error) {
	if path == "" {
		return errors.New("audit log: empty path")
	}
	line, err := rec.MarshalLine()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("audit log: %v", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("audit log: %v", err)
	}
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("audit log: %v", cerr)
		}
	}()
	unlock, err := lockAppend(f, path)
	if err != nil {
		return fmt.Errorf("audit log: lock %s: %v", path, err)
	}
	_, werr := f.Write(line)
	uerr := unlock()
	if werr != nil {
		return fmt.Errorf("audit log: %v", werr)
	}
	if uerr != nil {
		return fmt.Errorf("audit log: unlock %s: %v", path, uerr)
	}
	return nil
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
