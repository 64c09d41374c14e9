// Command gen writes internal/policy/builtin_gen.go, the embedded defaults
// decoded at build time, and the list of rules in docs/defaults.md (below
// its marker line). Run it with `go generate ./internal/policy` after
// editing internal/policy/defaults.toml; TestBuiltinGenerated and
// TestDefaultsDocGenerated fail until the checked-in files are what it
// writes.
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
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	raw, err := policy.GenerateBuiltin()
	if err != nil {
		return err
	}
	src, err := format.Source(raw)
	if err != nil {
		return err
	}
	if err := os.WriteFile(policy.BuiltinGenFile, src, 0o644); err != nil {
		return err
	}
	current, err := os.ReadFile(policy.DefaultsDocFile)
	if err != nil {
		return err
	}
	doc, err := policy.GenerateDefaultsDoc(current)
	if err != nil {
		return err
	}
	return os.WriteFile(policy.DefaultsDocFile, doc, 0o644)
}
