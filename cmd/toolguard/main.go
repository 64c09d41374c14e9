// Command toolguard is the PreToolUse hook that coding agents run before a
// tool call: it decides allow, ask or deny from a layered policy and
// answers in the agent's own dialect. See README.md.
package main

import (
	"context"
	"os"
	"time"
)

// processStart is when the process started (as near as Go lets a program
// see it): the hook deadline counts from here.
var processStart = time.Now()

func main() {
	os.Exit(run(context.Background(), os.Args[1:], realSystem()))
}
