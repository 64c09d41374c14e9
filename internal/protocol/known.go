package protocol

import (
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// KnownTool reports whether name is a tool name some supported agent
// sends (the tools table, and the tables of the agents whose tool inputs
// have keys of their own: Antigravity, Kiro), so that `toolguard validate`
// can flag a rule's tool pattern that no call ever carries.
func KnownTool(name string) bool {
	if _, ok := tools[name]; ok {
		return true
	}
	if _, ok := antigravityTools()[name]; ok {
		return true
	}
	_, ok := kiroTools()[name]
	return ok
}

// KnownTools lists the tool names KnownTool accepts, sorted.
func KnownTools() []string {
	names := make([]string, 0, len(tools)+len(antigravityTools())+len(kiroTools()))
	for _, m := range []map[string]toolFill{tools, antigravityTools(), kiroTools()} {
		for n := range m {
			names = append(names, n)
		}
	}
	slices.SortFunc(names, strings.Compare)
	return slices.Compact(names)
}

// The tool names are the neutral vocabulary's too (call.KnownTool, which
// the policy's lint asks).
func init() { call.RegisterTools(KnownTools()...) }
