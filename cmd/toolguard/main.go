// Command toolguard is the PreToolUse hook that coding agents run before a
// tool call: it decides allow, ask or deny from a layered policy and
// answers in the agent's own dialect. See README.md.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], realSystem()))
}
