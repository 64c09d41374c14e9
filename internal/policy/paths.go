package policy

import (
	"path"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// callPaths lists every path a non-shell call names: the paths the codec
// decoded (for MCP and unknown tools, protocol derives them from the
// input: otherPaths and mcpInputPaths) and the fixed directory part of
// absolute search patterns (`/etc/**/*.conf` reads /etc).
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
