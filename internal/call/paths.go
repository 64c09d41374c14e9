package call

import (
	"encoding/json"
	"path"
	"sort"
	"strings"
)

// The paths of a call that no agent's dialect decides: an MCP input's path
// arguments, and the lexical join the policy's examples use. They are here,
// not in internal/protocol, so that internal/policy needs no codec.

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

// mcpPathKeys are the input keys that filesystem-style MCP servers use for
// paths.
var mcpPathKeys = map[string]bool{
	"path": true, "paths": true, "file_path": true, "filePath": true, "file": true, "filename": true,
	"directory": true, "dir": true, "dir_path": true, "source": true, "destination": true,
	"oldPath": true, "newPath": true, "old_path": true, "new_path": true, "target": true,
}

// AddMCPPaths adds to an MCP call's Paths the path arguments of its input
// (mcpInputPaths). Every decode ends with it (protocol.DecodeWith), after the codec
// classified the call, so the paths depend only on the call's final kind,
// MCP tool, cwd and input; a caller that builds an MCP call itself (a
// policy's [[test]]) calls it once its Input is set. Other calls are left
// as they are.
func AddMCPPaths(c *Call) {
	if c.Kind == KindMCP {
		c.Paths = append(c.Paths, mcpInputPaths(c)...)
	}
}

// mcpInputPaths reads path arguments from an MCP call's input (top level,
// and one level into arrays of objects such as `edits` or `items`). The op
// is guessed from the tool name: read for read/get/list/search/view/stat
// tools, delete for delete/remove tools, else write; a move's source is
// deleted. A relative path is joined to the cwd; ~ is not expanded. They
// come after the read and write targets otherPaths gave the same input.
func mcpInputPaths(c *Call) []Path {
	if len(c.Input) == 0 {
		return nil
	}
	var in map[string]any
	if err := json.Unmarshal(c.Input, &in); err != nil {
		return nil
	}
	op := mcpOp(c.MCPTool)
	var out []Path
	var add func(key string, v any, depth int)
	add = func(key string, v any, depth int) {
		switch x := v.(type) {
		case string:
			if !mcpPathKeys[key] || x == "" || strings.Contains(x, "://") {
				return
			}
			o := op
			if (key == "source" || key == "oldPath" || key == "old_path") && strings.Contains(strings.ToLower(c.MCPTool), "move") {
				o = OpDelete
			}
			out = append(out, Path{Path: JoinAbs(x, c.Cwd, ""), Op: o})
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

func mcpOp(tool string) Op {
	t := strings.ToLower(tool)
	for _, w := range []string{"delete", "remove", "unlink", "rmdir"} {
		if strings.Contains(t, w) {
			return OpDelete
		}
	}
	for _, w := range []string{"read", "get", "list", "search", "view", "stat", "info", "find", "tree"} {
		if strings.Contains(t, w) {
			return OpRead
		}
	}
	return OpWrite
}
