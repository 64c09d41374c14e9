// Command gen writes internal/policy/builtin_gen.go, the embedded defaults
// decoded at build time. Run it with `go generate ./internal/policy` after
// editing internal/policy/defaults.toml; TestBuiltinGenerated fails until
// the checked-in file is what it writes.
//
// It imports the policy package it generates for: when a change to the
// rule types makes the old builtin_gen.go fail to compile, check out a
// builtin_gen.go that compiles (or reduce builtinGen to fileDoc{}: a file
// whose hash does not match is never used) and run it again.
package main

import (
	"fmt"
	"go/format"
	"os"

	"github.com/toolguard/toolguard/internal/policy"
)

func main() {
	var src []byte
	raw, err := policy.GenerateBuiltin()
	if err == nil {
		src, err = format.Source(raw)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(policy.BuiltinGenFile, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
