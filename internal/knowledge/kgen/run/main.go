// Command run is `go generate ./internal/knowledge`: it writes
// tables_gen.go and docs/programs.md, docs/secrets.md (kgen).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolguard/toolguard/internal/knowledge/kgen"
)

func main() {
	// go generate runs in the package directory (internal/knowledge).
	prog, err := os.ReadFile("programs.toml")
	check(err)
	places, err := os.ReadFile("places.toml")
	check(err)
	out, err := kgen.Generate(prog, places)
	check(err)
	docs := filepath.Join("..", "..", "docs")
	check(os.WriteFile("tables_gen.go", out.Go, 0o644))
	check(os.WriteFile(filepath.Join(docs, "programs.md"), out.ProgramsMD, 0o644))
	check(os.WriteFile(filepath.Join(docs, "secrets.md"), out.SecretsMD, 0o644))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "kgen:", err)
		os.Exit(1)
	}
}
