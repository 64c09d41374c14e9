package policy

import (
	"encoding/json"
	"path"
	"sort"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// callPaths lists every path a non-shell call names: the paths the codec
// decoded, the fixed directory part of absolute search patterns
// (`/etc/**/*.conf` reads /etc), and for MCP tools the filesystem-style
// arguments of their input.
func callPaths(c *call.Call) []call.Path {
	out := c.Paths
	if c.Kind == call.KindSearch {
		base := c.Cwd
		if len(c.Paths) == 1 {
			base = c.Paths[0].Path
		}
		for _, pat := range c.Patterns {
			if dir := staticDir(pat); dir != "" {
				out = append(out, call.Path{Path: dir, Op: call.OpRead})
			} else if base != "" && pat != "" {
				// A relative pattern names the files it reads: Glob .env
				// in src reads src/.env.
				out = append(out, call.Path{Path: path.Join(base, pat), Op: call.OpRead})
			}
		}
	}
	if c.Kind == call.KindMCP {
		out = append(out, mcpPaths(c)...)
	}
	return out
}

// staticDir is the directory part of an absolute glob before its first
// wildcard, or "" for a relative pattern.
func staticDir(pat string) string {
	if !strings.HasPrefix(pat, "/") {
		return ""
	}
	i := strings.IndexAny(pat, "*?[{")
	if i < 0 {
		return path.Clean(pat)
	}
	d := path.Dir(pat[:i+1])
	return path.Clean(d)
}

// mcpPathKeys are the input keys that filesystem-style MCP servers use for
// paths.
var mcpPathKeys = map[string]bool{
	"path": true, "paths": true, "file_path": true, "filePath": true, "file": true, "filename": true,
	"directory": true, "dir": true, "dir_path": true, "source": true, "destination": true,
	"oldPath": true, "newPath": true, "old_path": true, "new_path": true, "target": true,
}

// mcpPaths reads path arguments from an MCP call's input (top level, and
// one level into arrays of objects such as `edits` or `items`). The op is
// guessed from the tool name: read for read/get/list/search/view/stat
// tools, delete for delete/remove tools, else write; a move's source is
// deleted.
func mcpPaths(c *call.Call) []call.Path {
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
			if !mcpPathKeys[key] || x == "" || strings.Contains(x, "://") {
				return
			}
			o := op
			if (key == "source" || key == "oldPath" || key == "old_path") && strings.Contains(strings.ToLower(c.MCPTool), "move") {
				o = call.OpDelete
			}
			p := x
			if !path.IsAbs(p) && c.Cwd != "" {
				p = path.Join(c.Cwd, p)
			}
			out = append(out, call.Path{Path: path.Clean(p), Op: o})
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
