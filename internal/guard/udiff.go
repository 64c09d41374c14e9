package guard

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
)

// Bounds of the unified diff an edit's preview shows.
const (
	diffContext  = 3       // unchanged lines around each change
	diffMaxLines = 400     // lines of diff shown; the rest is cut with a marker
	diffMaxFile  = 1 << 20 // files larger than this get no diff (old -> new instead)
	diffMaxEdits = 500     // Myers' D bound (memory ~D² ints): more changed lines than this, no diff
)

// unifiedDiff returns the unified diff (diff -u, without the file header)
// that turns a into b, split in lines, with diffContext lines of context;
// "" when they are equal, and ok false when they differ in more than
// diffMaxEdits lines (the caller shows something else). Past diffMaxLines
// lines the diff is cut, and a last line says how many were left out.
func unifiedDiff(a, b string) (diff string, ok bool) {
	if a == b {
		return "", true
	}
	x, y := splitLines(a), splitLines(b)
	ops, ok := diffLines(x, y, diffMaxEdits)
	if !ok {
		return "", false
	}
	var out []string
	for _, h := range hunks(ops, diffContext) {
		ai, al, bi, bl := h.aStart+1, h.aLen, h.bStart+1, h.bLen
		if al == 0 {
			ai-- // diff -u names the line before an insertion
		}
		if bl == 0 {
			bi--
		}
		out = append(out, fmt.Sprintf("@@ -%s +%s @@", hunkRange(ai, al), hunkRange(bi, bl)))
		for _, o := range ops[h.from:h.to] {
			switch o.kind {
			case ' ':
				out = append(out, " "+x[o.a])
			case '-':
				out = append(out, "-"+x[o.a])
			case '+':
				out = append(out, "+"+y[o.b])
			}
		}
	}
	if len(out) > diffMaxLines {
		cut := len(out) - diffMaxLines
		out = append(out[:diffMaxLines], fmt.Sprintf("…(diff cut: %d more lines not shown)", cut))
	}
	return strings.Join(out, "\n") + "\n", true
}

func hunkRange(start, n int) string {
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

// splitLines splits s into lines without their "\n"; a last line without
// one is marked as diff does.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if t, ok := strings.CutSuffix(l, "\n"); ok {
			lines[i] = t
		} else {
			lines[i] = l + "\n\\ No newline at end of file"
		}
	}
	return lines
}

// diffOp is one line of an edit script: ' ' kept (a and b), '-' removed
// (a), '+' added (b).
type diffOp struct {
	kind byte
	a, b int
}

// diffLines is Myers' O((N+M)D) diff of x and y, giving up (false) once D
// passes maxD. Common leading and trailing lines are taken off first.
func diffLines(x, y []string, maxD int) ([]diffOp, bool) {
	pre := 0
	for pre < len(x) && pre < len(y) && x[pre] == y[pre] {
		pre++
	}
	suf := 0
	for suf < len(x)-pre && suf < len(y)-pre && x[len(x)-1-suf] == y[len(y)-1-suf] {
		suf++
	}
	mx, my := x[pre:len(x)-suf], y[pre:len(y)-suf]
	mid, ok := myers(mx, my, maxD)
	if !ok {
		return nil, false
	}
	ops := make([]diffOp, 0, pre+len(mid)+suf)
	for i := range pre {
		ops = append(ops, diffOp{' ', i, i})
	}
	for _, o := range mid {
		ops = append(ops, diffOp{o.kind, o.a + pre, o.b + pre})
	}
	for i := range suf {
		ops = append(ops, diffOp{' ', len(x) - suf + i, len(y) - suf + i})
	}
	return ops, true
}

func myers(x, y []string, maxD int) ([]diffOp, bool) {
	n, m := len(x), len(y)
	limit := min(n+m, maxD)
	off := limit + 1
	v := make([]int, 2*limit+3)
	// trace[d] is V before round d, for k in -d-1..d+1 (index k+d+1)
	var trace [][]int
	for d := 0; d <= limit; d++ {
		trace = append(trace, append([]int(nil), v[off-d-1:off+d+2]...))
		for k := -d; k <= d; k += 2 {
			var i int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				i = v[off+k+1] // down: an insertion
			} else {
				i = v[off+k-1] + 1 // right: a deletion
			}
			j := i - k
			for i < n && j < m && x[i] == y[j] {
				i, j = i+1, j+1
			}
			v[off+k] = i
			if i >= n && j >= m {
				return backtrack(trace, n, m, d), true
			}
		}
	}
	return nil, false
}

// backtrack walks the saved V arrays from (n, m) back to (0, 0).
func backtrack(trace [][]int, n, m, d int) []diffOp {
	var rev []diffOp
	i, j := n, m
	for ; d > 0; d-- {
		v := trace[d]
		at := func(k int) int { return v[k+d+1] }
		k := i - j
		pk := k - 1
		if k == -d || k != d && at(k-1) < at(k+1) {
			pk = k + 1
		}
		pi := at(pk)
		pj := pi - pk
		for i > pi && j > pj {
			i, j = i-1, j-1
			rev = append(rev, diffOp{' ', i, j})
		}
		if pk == k+1 {
			rev = append(rev, diffOp{'+', i, j - 1})
		} else {
			rev = append(rev, diffOp{'-', i - 1, j})
		}
		i, j = pi, pj
	}
	for i > 0 && j > 0 {
		i, j = i-1, j-1
		rev = append(rev, diffOp{' ', i, j})
	}
	ops := make([]diffOp, len(rev))
	for t, o := range rev {
		ops[len(rev)-1-t] = o
	}
	return ops
}

// hunk is a range of ops shown together, and the lines it spans.
type hunk struct {
	from, to                   int // ops[from:to]
	aStart, aLen, bStart, bLen int
}

// hunks groups the changes of ops with ctx lines of context around each;
// changes closer than 2*ctx lines share a hunk.
func hunks(ops []diffOp, ctx int) []hunk {
	var out []hunk
	for i := 0; i < len(ops); {
		if ops[i].kind == ' ' {
			i++
			continue
		}
		from := max(0, i-ctx)
		end := i
		for end < len(ops) {
			if ops[end].kind != ' ' {
				end++
				continue
			}
			run := end
			for run < len(ops) && ops[run].kind == ' ' {
				run++
			}
			if run == len(ops) || run-end > 2*ctx {
				break
			}
			end = run
		}
		to := min(len(ops), end+ctx)
		h := hunk{from: from, to: to, aStart: -1, bStart: -1}
		for _, o := range ops[from:to] {
			if o.kind != '+' {
				if h.aStart < 0 {
					h.aStart = o.a
				}
				h.aLen++
			}
			if o.kind != '-' {
				if h.bStart < 0 {
					h.bStart = o.b
				}
				h.bLen++
			}
		}
		if h.aStart < 0 {
			h.aStart = opLine(ops, from, true)
		}
		if h.bStart < 0 {
			h.bStart = opLine(ops, from, false)
		}
		out = append(out, h)
		i = to
	}
	return out
}

// opLine is the line of a (or b) at which ops[from] sits when the hunk has
// no line of that side.
func opLine(ops []diffOp, from int, a bool) int {
	if a {
		return ops[from].a
	}
	return ops[from].b
}

// editDiff returns the unified diff an Edit, MultiEdit or Gemini replace
// would make to its file, redacted as in the audit log; "" when there is
// none to show: another kind of call, a file the policy would not let the
// agent read (readable, as pre-validation asks), a missing, irregular or
// too large file, an edit that does not apply exactly as written, or a
// diff too big to compute. The caller then shows old -> new only. The
// diff holds lines of the file around each change, which is why it is
// made only from a file the agent may read: the request file is
// agent-readable.
func editDiff(c call.Call, readable func(string) bool) string {
	if c.Kind != call.KindEdit || readable == nil {
		return ""
	}
	in := previewFields(c.Input)
	path, _ := first(in, "file_path", "path", "absolute_path")
	if path == "" {
		return ""
	}
	if !filepath.IsAbs(path) {
		if c.Cwd == "" {
			return ""
		}
		path = filepath.Join(c.Cwd, path)
	}
	path = filepath.Clean(path)
	type edit struct {
		old, new string
		all      bool
	}
	var edits []edit
	mk := func(m map[string]any) bool {
		old, ok1 := m["old_string"].(string)
		new, ok2 := m["new_string"].(string)
		if !ok1 || !ok2 {
			return false
		}
		all, _ := m["replace_all"].(bool)
		if n, ok := m["expected_replacements"].(float64); ok && n > 1 {
			all = true // Gemini's replace of n occurrences
		}
		edits = append(edits, edit{old, new, all})
		return true
	}
	if !mk(in) {
		list, _ := in["edits"].([]any)
		for _, v := range list {
			m, _ := v.(map[string]any)
			if !mk(m) {
				return ""
			}
		}
	}
	if len(edits) == 0 || !readable(path) {
		return ""
	}
	data, err := readRegular(path, diffMaxFile)
	if err != nil {
		return ""
	}
	before := string(data)
	after := before
	for _, e := range edits {
		if e.old == "" || !strings.Contains(after, e.old) {
			return ""
		}
		if e.all {
			after = strings.ReplaceAll(after, e.old, e.new)
		} else {
			after = strings.Replace(after, e.old, e.new, 1)
		}
	}
	d, ok := unifiedDiff(before, after)
	if !ok || d == "" {
		return ""
	}
	return audit.Redact(d)
}
