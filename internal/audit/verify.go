package audit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// Problem kinds reported by [Verify].
const (
	ProblemBreak     = "break"     // a line's prev is not the hash of the line before it
	ProblemTruncated = "truncated" // the last line has no newline: cut short
	ProblemGarbage   = "garbage"   // a line is not a JSON object
	ProblemEmpty     = "empty"     // the file has no lines: toolguard never writes one empty
)

// Problem is the first place where a log's chain does not hold.
type Problem struct {
	Line   int    `json:"line"` // 1-based
	Kind   string `json:"kind"`
	Detail string `json:"detail"`
}

func (p *Problem) Error() string { return fmt.Sprintf("line %d: %s: %s", p.Line, p.Kind, p.Detail) }

// VerifyReport is what [Verify] found.
type VerifyReport struct {
	Lines     int      `json:"lines"`     // lines read
	Unchained int      `json:"unchained"` // leading lines without prev (written before the chain existed)
	Problem   *Problem `json:"problem"`   // the first problem, nil if the chain holds
}

// Verify checks the chain of an audit log: the first line's prev is
// [Genesis] (or the log starts with unchained lines of an older toolguard,
// and the first chained line hashes the line before it), every later
// line's prev is the SHA-256 of the line before it, and the file ends in
// a newline. It reports the first problem only: after a break the rest
// cannot be trusted anyway. A line removed, inserted or edited breaks the
// chain at the line after it; lines cut from the end leave a valid but
// shorter chain, detectable only against a copy or a count kept elsewhere.
func Verify(r io.Reader) (VerifyReport, error) {
	var rep VerifyReport
	br := bufio.NewReaderSize(r, 64<<10)
	prevHash := Genesis
	chained := false
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) == 0 && err == io.EOF {
			if rep.Lines == 0 {
				rep.Problem = &Problem{Line: 0, Kind: ProblemEmpty, Detail: "the log has no lines (emptied?)"}
			}
			return rep, nil
		}
		if err != nil && err != io.EOF {
			return rep, err
		}
		rep.Lines = n
		body := bytes.TrimSuffix(line, []byte("\n"))
		if err == io.EOF {
			rep.Problem = &Problem{Line: n, Kind: ProblemTruncated, Detail: "the last line does not end in a newline (cut short, or being written)"}
			return rep, nil
		}
		var rec struct {
			Prev *string `json:"prev"`
		}
		if len(body) == 0 || body[0] != '{' || json.Unmarshal(body, &rec) != nil {
			rep.Problem = &Problem{Line: n, Kind: ProblemGarbage, Detail: "not a JSON object (a torn or foreign line)"}
			return rep, nil
		}
		switch {
		case rec.Prev == nil && !chained:
			rep.Unchained++
		case rec.Prev == nil:
			rep.Problem = &Problem{Line: n, Kind: ProblemBreak, Detail: "no prev after chained lines"}
			return rep, nil
		case *rec.Prev != prevHash:
			want := prevHash
			rep.Problem = &Problem{Line: n, Kind: ProblemBreak,
				Detail: fmt.Sprintf("prev %.16s… is not the hash of the line before it (%.16s…): a line before it was removed, inserted or changed", *rec.Prev, want)}
			return rep, nil
		default:
			chained = true
		}
		prevHash = lineHash(body)
	}
}
