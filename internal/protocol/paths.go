package protocol

import (
	"encoding/json"
	"path"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// pather makes the paths a tool names absolute and clean.
type pather struct {
	cwd  string // the call's working directory, as the payload gives it
	home string // DecodeOptions.Home; "" leaves ~ unexpanded
}

// isWindowsPath reports whether p is a Windows path: one that starts with
// a drive letter (C:\x, C:/x, C:) or a backslash (\\server\share, \x).
// Such paths are left exactly as given.
func isWindowsPath(p string) bool {
	if len(p) >= 2 && p[1] == ':' && (p[0]|0x20 >= 'a' && p[0]|0x20 <= 'z') {
		return true
	}
	return strings.HasPrefix(p, `\`)
}

// abs is Abs with the call's cwd and home.
func (pt pather) abs(p string) string { return Abs(p, pt.cwd, pt.home) }

// Abs is how toolguard makes a path a tool names absolute: every path a
// codec decodes goes through it (pather), and so does `check --tool
// --path` (it decodes a payload). It returns p absolute and cleaned:
//   - "" stays "";
//   - Windows paths are returned as given;
//   - "~" and "~/…" are expanded with home when it is an absolute path
//     ("~user" forms are not expanded and stay as given, cleaned);
//   - a relative path is joined to a Windows cwd with a backslash and
//     left otherwise as given, or joined to an absolute slash cwd and
//     cleaned; with no usable cwd it stays relative, cleaned.
//
// A slash path is cleaned even if it holds backslashes, which are
// ordinary file-name bytes on Unix.
//
// JoinAbs is the one variant, kept for the results that depend on it
// (abs_test.go pins where the two differ).
func Abs(p, cwd, home string) string {
	if p == "" {
		return ""
	}
	if isWindowsPath(p) {
		return p
	}
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home == "" || !path.IsAbs(home) {
			return path.Clean(p)
		}
		return path.Join(home, p[1:])
	}
	if strings.HasPrefix(p, "~") {
		return path.Clean(p)
	}
	if path.IsAbs(p) {
		return path.Clean(p)
	}
	if isWindowsPath(cwd) {
		return strings.TrimRight(cwd, `\/`) + `\` + p
	}
	if path.IsAbs(cwd) {
		return path.Join(cwd, p)
	}
	return path.Clean(p)
}

// JoinAbs is call.JoinAbs (the lexical variant of Abs).
func JoinAbs(p, cwd, home string) string { return call.JoinAbs(p, cwd, home) }

// cleanCwd tidies the payload's cwd: a slash path is cleaned, anything
// else is kept as given.
func cleanCwd(cwd string) string {
	if cwd == "" || isWindowsPath(cwd) || !path.IsAbs(cwd) {
		return cwd
	}
	return path.Clean(cwd)
}

// ToolInput is the tool input with which tool names path p, in the field
// that tool's classification reads: file_path for file tools and MCP or
// unknown tools, path for search tools, paths for Gemini's
// read_many_files. The field is found by classifying the candidates, so
// it follows the tool table. p == "" gives an empty input. A tool that
// reads a path from none of them (WebFetch, Agent) gets file_path, which
// its classification ignores. `toolguard check --tool T --path P` decodes
// a payload with it, so that check normalizes P as the hook would.
func ToolInput(tool, p string) map[string]any {
	if p == "" {
		return map[string]any{}
	}
	for _, k := range []string{"file_path", "path", "paths"} {
		v := any(p)
		if k == "paths" {
			v = []string{p}
		}
		m := map[string]any{k: v}
		raw, err := json.Marshal(m)
		if err != nil {
			break
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(raw, &fields) != nil {
			break
		}
		c := call.Call{Tool: tool}
		classify(&c, input{raw: raw, fields: fields}, pather{cwd: "/"})
		if len(c.Paths) > 0 {
			return m
		}
	}
	return map[string]any{"file_path": p}
}

// AddMCPPaths is call.AddMCPPaths: an MCP call's input paths added to
// its Paths (DecodeWith ends with it).
func AddMCPPaths(c *call.Call) { call.AddMCPPaths(c) }
