// Command schemagen writes the policy's JSON Schemas (both forms) from
// the policy package's on-disk structs: `go generate ./internal/policy`
// runs it. TestSchemaFresh fails when the checked-in files are stale.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/toolguard/toolguard/internal/policy"
)

func main() {
	out := flag.String("out", "schema", "directory to write the schemas to")
	flag.Parse()
	for _, f := range []struct{ form, name string }{
		{policy.FormTOML, "policy.schema.json"},
		{policy.FormJSON, "policy-json.schema.json"},
	} {
		path := filepath.Join(*out, f.name)
		if err := os.WriteFile(path, policy.JSONSchema(f.form), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "schemagen:", err)
			os.Exit(1)
		}
	}
}
