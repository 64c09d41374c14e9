package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestHookBinaryDeps keeps the packages that cost every hook process its
// start-up out of the default build (docs/performance.md): the HTTP server
// and its TLS and HTML templates live in toolguard-serve (-tags serve), and the
// builtin generator's go/format in internal/gen. Measured with perf stat,
// 200 runs of a `git status` hook call: linking net/http alone (a client
// call) took the process from 2.77 to 3.02 ms.
func TestHookBinaryDeps(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, out)
	}
	banned := []string{"net/http", "crypto/tls", "html/template", "crypto/x509", "go/format", "go/ast", "go/parser", "github.com/jackc/pgx/v5"}
	deps := strings.Fields(string(out))
	// The hook's remote-approval client speaks HTTP/1.1 over net for this.
	if !slices.Contains(deps, "github.com/toolguard/toolguard/internal/remote") {
		t.Error("the hook does not link internal/remote: the test would prove nothing")
	}
	for _, dep := range deps {
		for _, b := range banned {
			if dep == b {
				t.Errorf("the default build of cmd/toolguard imports %s (it belongs in the serve build or a tool)", dep)
			}
		}
	}
	out, err = exec.Command("go", "list", "-tags", "serve", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -tags serve -deps: %v\n%s", err, out)
	}
	if !strings.Contains(" "+strings.Join(strings.Fields(string(out)), " ")+" ", " net/http ") {
		t.Error("the serve build does not import net/http: is serve.go still tagged serve?")
	}
}
