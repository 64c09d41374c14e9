package protocol

import (
	"slices"
	"strings"
)

// KnownTool reports whether name is a tool name some supported agent
// sends (the tools table), so that `toolguard validate` can flag a rule's
// tool pattern that no call ever carries.
func KnownTool(name string) bool {
	_, ok := tools[name]
	return ok
}

// KnownTools lists the tool names of the tools table, sorted.
func KnownTools() []string {
	names := make([]string, 0, len(tools))
	for n := range tools {
		names = append(names, n)
	}
	slices.SortFunc(names, strings.Compare)
	return names
}
