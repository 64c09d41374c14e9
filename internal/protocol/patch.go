package protocol

import (
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// Headers of the apply_patch format (Codex).
const (
	patchAdd    = "*** Add File:"
	patchUpdate = "*** Update File:"
	patchDelete = "*** Delete File:"
	patchMoveTo = "*** Move to:"
)

// patchPaths returns every path an apply_patch body names: Add File and
// Update File are writes, Delete File a delete, and Move to is a write of
// the new path that turns the moved file's old path into a delete.
// Header lines are recognised after leading whitespace, so that a patch
// the agent would accept leniently cannot hide a path. Duplicates are
// dropped; the order is the patch's.
func patchPaths(body string, pt pather) []call.Path {
	var out []call.Path
	lastUpdate := -1 // index in out of the most recent Update File
	applyPatch := strings.Contains(body, "*** Begin Patch") || strings.Contains(body, "*** Update File:") ||
		strings.Contains(body, "*** Add File:") || strings.Contains(body, "*** Delete File:")
	prev := ""
	var hunk hunkCounter
	for raw := range strings.SplitSeq(body, "\n") {
		line := strings.TrimSpace(raw)
		if !applyPatch {
			if hunk.content(raw) {
				continue
			}
			up, uop, ok := unifiedHeader(line, prev)
			prev = line
			if ok {
				out = append(out, call.Path{Path: pt.abs(up), Op: uop})
			}
			continue
		}
		if !strings.HasPrefix(line, "*** ") {
			continue
		}
		var op call.Op
		var p string
		switch {
		case strings.HasPrefix(line, patchAdd):
			op, p = call.OpWrite, line[len(patchAdd):]
		case strings.HasPrefix(line, patchUpdate):
			op, p = call.OpWrite, line[len(patchUpdate):]
		case strings.HasPrefix(line, patchDelete):
			op, p = call.OpDelete, line[len(patchDelete):]
		case strings.HasPrefix(line, patchMoveTo):
			op, p = call.OpWrite, line[len(patchMoveTo):]
		default:
			continue
		}
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if strings.HasPrefix(line, patchMoveTo) && lastUpdate >= 0 {
			out[lastUpdate].Op = call.OpDelete
		}
		lastUpdate = -1
		if strings.HasPrefix(line, patchUpdate) {
			lastUpdate = len(out)
		}
		out = append(out, call.Path{Path: pt.abs(p), Op: op})
	}
	return dedupPaths(out)
}

func dedupPaths(ps []call.Path) []call.Path {
	if len(ps) < 2 {
		return ps
	}
	seen := make(map[call.Path]bool, len(ps))
	out := ps[:0]
	for _, p := range ps {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// unifiedHeader reads the file header lines of a unified diff, which some
// agents send instead of the apply_patch format: "+++ b/path" names a file
// written; "+++ /dev/null" deletes the file the "--- a/path" line before it
// named (prev). A leading "a/" or "b/" and a trailing timestamp are dropped.
func unifiedHeader(line, prev string) (string, call.Op, bool) {
	if !strings.HasPrefix(line, "+++ ") {
		return "", 0, false
	}
	p := diffPath(line[4:])
	if p == "/dev/null" {
		if !strings.HasPrefix(prev, "--- ") {
			return "", 0, false
		}
		old := diffPath(prev[4:])
		if old == "" || old == "/dev/null" {
			return "", 0, false
		}
		return old, call.OpDelete, true
	}
	if p == "" {
		return "", 0, false
	}
	return p, call.OpWrite, true
}

func diffPath(p string) string {
	if i := strings.IndexByte(p, '\t'); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		p = p[2:]
	}
	return p
}

// hunkCounter tracks the lines of a unified diff hunk, so that content
// lines that happen to start with "+++" or "---" are not read as headers.
type hunkCounter struct{ old, new int }

// content reports whether line belongs to the current hunk (and counts
// it), or starts a new one.
func (h *hunkCounter) content(line string) bool {
	if h.old > 0 || h.new > 0 {
		switch {
		case strings.HasPrefix(line, "-"):
			h.old--
		case strings.HasPrefix(line, "+"):
			h.new--
		case strings.HasPrefix(line, "\\"): // "\ No newline at end of file"
		default:
			h.old--
			h.new--
		}
		return true
	}
	if strings.HasPrefix(line, "@@ ") {
		h.old, h.new = hunkSize(line, '-'), hunkSize(line, '+')
		return true
	}
	return false
}

// hunkSize reads the line count of one side of "@@ -l,s +l,s @@" (1 when
// the count is left out).
func hunkSize(header string, side byte) int {
	i := strings.IndexByte(header[2:], side)
	if i < 0 {
		return 0
	}
	f := header[2+i+1:]
	if j := strings.IndexAny(f, " @"); j >= 0 {
		f = f[:j]
	}
	_, cnt, ok := strings.Cut(f, ",")
	if !ok {
		return 1
	}
	n := 0
	for _, c := range cnt {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}
