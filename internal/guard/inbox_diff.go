package guard

import (
	"path/filepath"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
)

// requestDiff is the unified diff an approval request shows: an edit's
// change to the file (editDiff), or what a write that replaces an existing
// file changes in it (writeDiff). "" when there is none to show.
func requestDiff(c call.Call, readable func(string) bool) string {
	if c.Kind == call.KindWrite {
		return writeDiff(c, readable)
	}
	return editDiff(c, readable)
}

// writeDiff is the unified diff from the file a Write replaces to the
// content it writes: the file's current state, which the content alone
// does not show. Under the same conditions as editDiff: only from a file
// the policy lets the agent read (the request file is agent-readable), a
// regular file of at most diffMaxFile bytes, the diff redacted. A new file
// (or one that cannot be read) has none: the preview's content shows it.
func writeDiff(c call.Call, readable func(string) bool) string {
	if c.Kind != call.KindWrite || readable == nil {
		return ""
	}
	in := previewFields(c.Input)
	content, ok := first(in, "content", "file_text", "contents", "text")
	if !ok {
		return ""
	}
	path, _ := first(in, "file_path", "path", "absolute_path", "filePath")
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
	if !readable(path) {
		return ""
	}
	before, err := readRegular(path, diffMaxFile)
	if err != nil {
		return ""
	}
	d, ok := unifiedDiff(string(before), content)
	if !ok || d == "" {
		return ""
	}
	return audit.Redact(d)
}
