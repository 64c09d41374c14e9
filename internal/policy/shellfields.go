package policy

import (
	"encoding/json"
	"fmt"
	"sort"

	"github.com/toolguard/toolguard/internal/call"
)

// shellFieldCommand returns the shell command an MCP or unknown tool call
// names in a field settings.shell_fields lists for its tool (a glob over
// the tool name, as path.Match: mcp__db__*; an MCP tool is also matched
// as mcp__SERVER__TOOL in every dialect), or "" when none does. The
// fields protocol knows (command, cmd, script, shell_command) are read by
// the codecs already (call.Call.Command); these are the policy's own
// additions, for servers that name the field otherwise
// (mcp__db__run_shell {"sh": "…"}). A field that is not a string gives
// nothing.
func (p *Policy) shellFieldCommand(c *call.Call) string {
	if len(p.Settings.ShellFields) == 0 || c.Command != "" || len(c.Input) == 0 {
		return ""
	}
	globs := make([]string, 0, len(p.Settings.ShellFields))
	for g := range p.Settings.ShellFields {
		globs = append(globs, g)
	}
	sort.Strings(globs)
	names := []string{c.Tool}
	if c.MCPServer != "" {
		names = append(names, "mcp__"+c.MCPServer+"__"+c.MCPTool) // Gemini's mcp_srv_tool too
	}
	var in map[string]json.RawMessage
	for _, g := range globs {
		if !matchAny(g, names) {
			continue
		}
		if in == nil && json.Unmarshal(c.Input, &in) != nil {
			return ""
		}
		for _, f := range p.Settings.ShellFields[g] {
			var s string
			if json.Unmarshal(in[f], &s) == nil && s != "" {
				return s
			}
		}
	}
	return ""
}

// checkShellFields reports settings.shell_fields entries that cannot work:
// a glob path.Match refuses, or an empty field name.
func checkShellFields(m map[string][]string) []string {
	var bad []string
	for g, fields := range m {
		if _, err := globMatch(g, ""); err != nil {
			bad = append(bad, fmt.Sprintf("shell_fields: tool pattern %q: %v", g, err))
		}
		for _, f := range fields {
			if f == "" {
				bad = append(bad, fmt.Sprintf("shell_fields.%s: an empty field name", g))
			}
		}
	}
	sort.Strings(bad)
	return bad
}

func matchAny(glob string, names []string) bool {
	for _, n := range names {
		if ok, _ := globMatch(glob, n); ok {
			return true
		}
	}
	return false
}
