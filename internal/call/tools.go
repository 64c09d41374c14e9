package call

import (
	"slices"
	"sync"
)

// The tool names agents send (internal/protocol's tables) are registered
// here by internal/protocol when it is linked, so that the policy's lint
// (toolguard validate) can flag a tool pattern no call ever carries without
// importing the agents' dialects.
var knownTools struct {
	sync.RWMutex
	names map[string]bool
}

// RegisterTools adds tool names some supported agent sends.
func RegisterTools(names ...string) {
	knownTools.Lock()
	defer knownTools.Unlock()
	if knownTools.names == nil {
		knownTools.names = map[string]bool{}
	}
	for _, n := range names {
		knownTools.names[n] = true
	}
}

// KnownTool reports whether name is a registered tool name.
func KnownTool(name string) bool {
	knownTools.RLock()
	defer knownTools.RUnlock()
	return knownTools.names[name]
}

// KnownTools lists the registered tool names, sorted.
func KnownTools() []string {
	knownTools.RLock()
	defer knownTools.RUnlock()
	out := make([]string, 0, len(knownTools.names))
	for n := range knownTools.names {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
