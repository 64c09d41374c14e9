package guard

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// maxValidateFile bounds the files pre-validation reads: a larger file is
// not checked (the request goes to the human as before).
const maxValidateFile = 4 << 20

// editProblem says why an edit that would become an approval request
// cannot apply as written — an Edit or Gemini replace whose old_string does
// not occur exactly once (or the expected number of times) in the file, or
// whose file does not exist; a MultiEdit likewise, edit by edit; a Codex
// apply_patch whose Update or Delete File names a missing file or whose
// lines to replace are not in the file — or "" when it may apply or cannot
// be checked. A human is not asked to approve a call that would fail: the
// model is told what is wrong and fixes the call first.
//
// The file is read only when the policy would let the agent read it
// (readable): the answer tells the model something about the content (does
// this string occur?), so a file the agent may not read (a .env, a key) is
// never checked — else edits would be an oracle for its content. Only
// regular files up to maxValidateFile are read; anything else, or a call
// whose shape is not recognised, is not checked.
func editProblem(c call.Call, readable func(path string) bool) string {
	if c.Kind != call.KindEdit {
		return ""
	}
	in := previewFields(c.Input)
	if in == nil {
		return ""
	}
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) || c.Cwd == "" {
			return filepath.Clean(p)
		}
		return filepath.Join(c.Cwd, p)
	}
	if patch, ok := first(in, "", "command", "patch", "input"); ok && strings.Contains(patch, "*** Begin Patch") {
		return patchProblem(patch, abs, readable)
	}
	path, _ := first(in, "file_path", "path", "absolute_path")
	if path == "" {
		return ""
	}
	path = abs(path)
	type edit struct {
		old, new string
		all      bool
		want     int // expected occurrences; 0 when any number is fine (replace_all)
	}
	mk := func(m map[string]any) (edit, bool) {
		old, ok := m["old_string"].(string)
		if !ok {
			return edit{}, false
		}
		e := edit{old: old, new: str(m, "new_string"), want: 1}
		if all, _ := m["replace_all"].(bool); all {
			e.all, e.want = true, 0
		}
		if n, ok := m["expected_replacements"].(float64); ok && n >= 1 && n == float64(int(n)) {
			e.want = int(n) // Gemini's replace
		}
		return e, true
	}
	var edits []edit
	if e, ok := mk(in); ok {
		edits = append(edits, e)
	} else if list, ok := in["edits"].([]any); ok {
		for _, v := range list {
			m, _ := v.(map[string]any)
			e, ok := mk(m)
			if !ok {
				return ""
			}
			edits = append(edits, e)
		}
	}
	if len(edits) == 0 {
		return ""
	}
	if !readable(path) {
		return ""
	}
	content, err := readBounded(path)
	if errors.Is(err, fs.ErrNotExist) {
		if len(edits) == 1 && edits[0].old == "" {
			return "" // an empty old_string creates the file
		}
		return fmt.Sprintf("%s does not exist, so this edit cannot apply. Check the path, or create the file with a write first.", path)
	}
	if err != nil {
		return ""
	}
	for i, e := range edits {
		which := "old_string"
		if len(edits) > 1 {
			which = fmt.Sprintf("old_string of edit %d", i+1)
		}
		if e.old == "" {
			return "" // creating, or an agent-specific meaning: not checked
		}
		n := occurrences(content, e.old)
		switch {
		case n == 0:
			return fmt.Sprintf("the %s does not occur in %s, so this edit cannot apply. Read the file again and copy the text to replace exactly (white space and line breaks included).", which, path)
		case e.want > 0 && n != e.want:
			if e.want == 1 {
				return fmt.Sprintf("the %s occurs %d times in %s, so the edit is ambiguous. Include more of the surrounding lines so that it occurs exactly once, or set replace_all if every occurrence is meant.", which, n, path)
			}
			return fmt.Sprintf("the %s occurs %d times in %s, not the %d expected_replacements.", which, n, path, e.want)
		}
		if e.all {
			content = strings.ReplaceAll(content, e.old, e.new)
		} else {
			content = strings.Replace(content, e.old, e.new, 1)
		}
	}
	return ""
}

// occurrences counts s in content; when it does not occur as written, it
// counts it with curly quotes made straight and CRLF made LF, as Claude
// Code's Edit tool finds it too, so that such an edit is not refused.
func occurrences(content, s string) int {
	if n := strings.Count(content, s); n > 0 {
		return n
	}
	norm := strings.NewReplacer("\r\n", "\n", "\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`)
	return strings.Count(norm.Replace(content), norm.Replace(s))
}

// patchProblem checks a Codex apply_patch body: an Update File or Delete
// File of a missing file, and each hunk's old lines (context and removed
// lines), which must be found in order in the file, as the patch tool
// seeks them (exact, then ignoring trailing, then surrounding white space).
// A body it does not understand is not checked.
func patchProblem(body string, abs func(string) string, readable func(string) bool) string {
	type hunk struct {
		header string
		old    []string
	}
	type file struct {
		path   string
		delete bool
		hunks  []hunk
	}
	var files []*file
	var cur *file
	for raw := range strings.SplitSeq(strings.ReplaceAll(body, "\r\n", "\n"), "\n") {
		line := strings.TrimRight(raw, " \t")
		switch {
		case strings.HasPrefix(line, "*** Begin Patch"), strings.HasPrefix(line, "*** End Patch"),
			strings.HasPrefix(line, "*** End of File"):
			continue
		case strings.HasPrefix(line, patchUpdate):
			cur = &file{path: strings.TrimSpace(line[len(patchUpdate):])}
			files = append(files, cur)
			continue
		case strings.HasPrefix(line, patchDelete):
			files = append(files, &file{path: strings.TrimSpace(line[len(patchDelete):]), delete: true})
			cur = nil
			continue
		case strings.HasPrefix(line, patchAdd):
			cur = nil // added files are not checked
			continue
		case strings.HasPrefix(line, "*** Move to:"):
			continue
		case strings.HasPrefix(line, "*** "):
			return "" // a header this check does not know
		}
		if cur == nil {
			continue
		}
		if strings.HasPrefix(line, "@@") {
			cur.hunks = append(cur.hunks, hunk{header: strings.TrimSpace(strings.TrimPrefix(line, "@@"))})
			continue
		}
		if len(cur.hunks) == 0 {
			cur.hunks = append(cur.hunks, hunk{})
		}
		h := &cur.hunks[len(cur.hunks)-1]
		switch {
		case raw == "":
			h.old = append(h.old, "")
		case raw[0] == ' ' || raw[0] == '-':
			h.old = append(h.old, raw[1:])
		case raw[0] == '+':
		default:
			return "" // not the apply_patch grammar: not checked
		}
	}
	for _, f := range files {
		if f.path == "" {
			continue
		}
		path := abs(f.path)
		if !readable(path) {
			continue
		}
		content, err := readBounded(path)
		if errors.Is(err, fs.ErrNotExist) {
			verb := "updates"
			if f.delete {
				verb = "deletes"
			}
			return fmt.Sprintf("the patch %s %s, which does not exist, so it cannot apply. Check the path (relative to the working directory), or use *** Add File: to create it.", verb, f.path)
		}
		if err != nil || f.delete {
			continue
		}
		lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
		at := 0
		for i, h := range f.hunks {
			if h.header != "" {
				j := seekLines(lines, []string{h.header}, at, true)
				if j < 0 {
					return fmt.Sprintf("hunk %d of the patch for %s starts at the line %q (after @@), which is not in the file, so the patch cannot apply. Read the file again and copy its lines exactly.", i+1, f.path, h.header)
				}
				at = j + 1
			}
			old := h.old
			for len(old) > 0 && old[len(old)-1] == "" {
				old = old[:len(old)-1] // a trailing empty line is often the patch's own
			}
			if len(old) == 0 {
				continue
			}
			j := seekLines(lines, old, at, false)
			if j < 0 {
				return fmt.Sprintf("hunk %d of the patch for %s does not apply: its context and removed lines (starting %q) are not in the file in that order. Read the file again and copy its lines exactly.", i+1, f.path, old[0])
			}
			at = j + len(old)
		}
	}
	return ""
}

// seekLines finds pat as consecutive lines of lines at or after start:
// exactly, then ignoring trailing white space, then surrounding white
// space. prefix matches a line that starts with the pattern's only line
// (an @@ header may name the start of a line). It returns the index or -1.
func seekLines(lines, pat []string, start int, prefix bool) int {
	eqs := []func(a, b string) bool{
		func(a, b string) bool { return a == b },
		func(a, b string) bool { return strings.TrimRight(a, " \t") == strings.TrimRight(b, " \t") },
		func(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) },
	}
	if prefix {
		eqs = append(eqs, func(a, b string) bool { return strings.HasPrefix(strings.TrimSpace(a), strings.TrimSpace(b)) })
	}
	for _, eq := range eqs {
	next:
		for i := start; i+len(pat) <= len(lines); i++ {
			for k, p := range pat {
				if !eq(lines[i+k], p) {
					continue next
				}
			}
			return i
		}
	}
	return -1
}

// Headers of Codex's apply_patch format.
const (
	patchAdd    = "*** Add File:"
	patchUpdate = "*** Update File:"
	patchDelete = "*** Delete File:"
)

// readBounded reads path if it is a regular file of at most
// maxValidateFile bytes (readRegular: opened without blocking, so a FIFO
// swapped in cannot hang the hook); a missing file is fs.ErrNotExist.
func readBounded(path string) (string, error) {
	b, err := readRegular(path, maxValidateFile)
	return string(b), err
}

// readableBy returns whether the policy in effect would let the agent read
// a file (pass or allow for a read of it): only such files are read for
// pre-validation.
func readableBy(o *Outcome) func(string) bool {
	env := o.Env // as the call itself was evaluated (decideCall)
	return func(path string) bool {
		if o.Set == nil || o.Set.Pol == nil {
			return false
		}
		rc := call.Call{Kind: call.KindRead, Tool: "Read", Cwd: o.Call.Cwd, SessionID: o.Call.SessionID,
			Provider: o.Call.Provider, ProjectDir: o.Call.ProjectDir, PermissionMode: o.Call.PermissionMode,
			Paths: []call.Path{{Path: path, Op: call.OpRead}}}
		res := o.Set.Pol.Evaluate(rc, env)
		return res.Decision <= call.Allow
	}
}
