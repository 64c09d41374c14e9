package protocol

import (
	"encoding/json"
	"net/url"
	"path"
	"sort"
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

// JoinAbs is the lexical variant of Abs: "~" and "~/…" become home + the
// rest when home is given; any other relative path (also "", "~user/x",
// C:\x) is joined to cwd when cwd is given, with a slash; the result is
// cleaned ("" with no cwd is "."). It knows no Windows paths. It is what
// an MCP input's path arguments (mcpInputPaths, home "") and a policy's
// examples and [[test]]s (policy/check.go, in the fixed check world) have
// always used; Abs is what a codec uses for a tool's path fields.
func JoinAbs(p, cwd, home string) string {
	switch {
	case home != "" && (p == "~" || strings.HasPrefix(p, "~/")):
		p = home + p[1:]
	case !path.IsAbs(p) && cwd != "":
		p = path.Join(cwd, p)
	}
	return path.Clean(p)
}

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

// mcpPathKeys are the input keys that filesystem-style MCP servers use for
// paths.
var mcpPathKeys = map[string]bool{
	"path": true, "paths": true, "file_path": true, "filePath": true, "file": true, "filename": true,
	"directory": true, "dir": true, "dir_path": true, "source": true, "destination": true,
	"oldPath": true, "newPath": true, "old_path": true, "new_path": true, "target": true,
}

// AddMCPPaths adds to an MCP call's Paths the path arguments of its input
// (mcpInputPaths). Every decode ends with it (DecodeWith), after the codec
// classified the call, so the paths depend only on the call's final kind,
// MCP tool, cwd and input; a caller that builds an MCP call itself (a
// policy's [[test]]) calls it once its Input is set. Other calls are left
// as they are.
func AddMCPPaths(c *call.Call) {
	if c.Kind == call.KindMCP {
		c.Paths = append(c.Paths, mcpInputPaths(c)...)
	}
}

// mcpInputPaths reads path arguments from an MCP call's input (top level,
// and one level into arrays of objects such as `edits` or `items`). The op
// is guessed from the tool name: read for read/get/list/search/view/stat
// tools, delete for delete/remove tools, else write; a move's source is
// deleted. A relative path is joined to the cwd; ~ is not expanded. They
// come after the read and write targets otherPaths gave the same input.
func mcpInputPaths(c *call.Call) []call.Path {
	if len(c.Input) == 0 {
		return nil
	}
	var in map[string]any
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil
	}
	op := mcpOp(c.MCPTool)
	var out []call.Path
	var add func(key string, v any, depth int)
	add = func(key string, v any, depth int) {
		switch x := v.(type) {
		case string:
			if len(x) > 7 && strings.EqualFold(x[:7], "file://") {
				// A file:// URL in any argument (a resource's uri) names a
				// local file: a path target like a path argument (issue 33).
				if u, err := url.Parse(x); err == nil && u.Path != "" && (u.Host == "" || u.Host == "localhost") {
					out = append(out, call.Path{Path: JoinAbs(u.Path, c.Cwd, ""), Op: op})
				}
				return
			}
			if !mcpPathKeys[key] || x == "" || strings.Contains(x, "://") {
				return
			}
			o := op
			if (key == "source" || key == "oldPath" || key == "old_path") && strings.Contains(strings.ToLower(c.MCPTool), "move") {
				o = call.OpDelete
			}
			out = append(out, call.Path{Path: JoinAbs(x, c.Cwd, ""), Op: o})
		case []any:
			for _, e := range x {
				add(key, e, depth)
			}
		case map[string]any:
			if depth > 1 {
				return
			}
			for k, e := range x {
				add(k, e, depth+1)
			}
		}
	}
	keys := make([]string, 0, len(in))
	for k := range in {
		keys = append(keys, k)
	}
	sort.Strings(keys) // deterministic target order, so the same reason every time
	for _, k := range keys {
		add(k, in[k], 0)
	}
	return out
}

func mcpOp(tool string) call.Op {
	t := strings.ToLower(tool)
	for _, w := range []string{"delete", "remove", "unlink", "rmdir"} {
		if strings.Contains(t, w) {
			return call.OpDelete
		}
	}
	for _, w := range []string{"read", "get", "list", "search", "view", "stat", "info", "find", "tree"} {
		if strings.Contains(t, w) {
			return call.OpRead
		}
	}
	return call.OpWrite
}
