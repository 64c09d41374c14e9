package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestHookBinaryDeps keeps the packages that cost every hook process its
// start-up out of the default build (docs/performance.md): the HTTP server
// and its TLS and HTML templates live in toolguard-serve (cmd/toolguard-serve), and the
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
	// Module prefixes the hook never links: the OpenTelemetry SDK exports the
	// server's decisions (cmd/toolguard-serve only).
	bannedPrefixes := []string{"go.opentelemetry.io/"}
	for _, dep := range deps {
		for _, b := range banned {
			if dep == b {
				t.Errorf("the default build of cmd/toolguard imports %s (it belongs in the serve build or a tool)", dep)
			}
		}
		for _, p := range bannedPrefixes {
			if strings.HasPrefix(dep, p) {
				t.Errorf("the default build of cmd/toolguard imports %s (it belongs in the serve build)", dep)
			}
		}
	}
	out, err = exec.Command("go", "list", "-deps", "../toolguard-serve").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps ../toolguard-serve: %v\n%s", err, out)
	}
	if !strings.Contains(" "+strings.Join(strings.Fields(string(out)), " ")+" ", " net/http ") {
		t.Error("cmd/toolguard-serve does not import net/http: the test would prove nothing")
	}
}

// importArrows are the toolguard packages each package may import (its
// non-test imports), as docs/layout.md draws them. The core — call,
// shellparse, policy — knows no agent dialect (protocol), no location
// (workspace) and no process (guard, hook); protocol knows no policy; the
// decision (guard) knows no hook process or server. A package missing
// here fails the test: a new one takes its row, and docs/layout.md its
// arrow.
var importArrows = map[string][]string{
	"internal/call":                {},
	"internal/filelock":            {},
	"internal/knowledge":           {}, // program knowledge and the credential catalog as data (docs/programs.md)
	"internal/knowledge/kgen":      {},
	"internal/knowledge/kgen/run":  {"internal/knowledge/kgen"},
	"internal/testenv":             {}, // tests' helper: what needs ../shared (docs/layout.md)
	"npm":                          {}, // the npm package's pack test
	"internal/shellparse":          {"internal/call"},
	"internal/policy":              {"internal/call", "internal/knowledge", "internal/shellparse"},
	"internal/policy/internal/gen": {"internal/policy"},
	"internal/protocol":            {"internal/call"},
	"internal/approval":            {"internal/call", "internal/filelock"},
	"internal/audit":               {"internal/call", "internal/filelock"},
	"internal/remote":              {"internal/approval", "internal/audit", "internal/call"},
	"internal/install":             {"internal/approval", "internal/call", "internal/policy", "internal/protocol", "internal/shellparse"}, // policy, call: install --native reads the locked denies and evaluates the allows it proves; approval: install --system --serve's key
	"internal/doctor":              {"internal/guard", "internal/install", "internal/policy", "internal/protocol", "internal/remote", "internal/workspace"},
	"internal/importer":            {"internal/call", "internal/policy", "internal/protocol"},
	"internal/workspace":           {"internal/call", "internal/policy", "internal/shellparse"},
	"internal/guard":               {"internal/approval", "internal/audit", "internal/bundle", "internal/call", "internal/install", "internal/policy", "internal/protocol", "internal/remote", "internal/shellparse", "internal/workspace"},
	"internal/cliflags":            {"internal/guard", "internal/workspace"}, // the policy and decision flags hook, check and serve share
	"internal/hook":                {"internal/audit", "internal/call", "internal/guard", "internal/policy", "internal/protocol", "internal/remote", "internal/workspace"},
	"internal/serve": {"internal/approval", "internal/approval/pgstore", "internal/audit", "internal/bundle", "internal/call", "internal/cliflags",
		"internal/guard", "internal/hook", "internal/policy", "internal/protocol", "internal/remote", "internal/serve/otelexport", "internal/workspace"},
	"internal/approval/pgstore":        {"internal/approval", "internal/audit"},
	"internal/approval/pgstore/pgtest": {},
	"internal/bundle":                  {"internal/approval", "internal/policy"},
	"guard":                            {"internal/call", "internal/guard", "internal/policy", "internal/workspace"},

	// serve's audit lines as OpenTelemetry logs (docs/otel.md), and the tests' OTLP/HTTP receiver
	"internal/serve/otelexport":          {"internal/audit"},
	"internal/serve/otelexport/otlptest": {},
}

// TestImportArrows fails when a package imports a toolguard package its
// row in importArrows does not allow (commands and tools import freely).
func TestImportArrows(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/toolguard/toolguard/"
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "../../...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		pkg := strings.TrimPrefix(f[0], mod)
		if strings.HasPrefix(pkg, "cmd/") || strings.HasPrefix(pkg, "tools/") || strings.HasPrefix(pkg, "e2e") {
			continue
		}
		allowed, ok := importArrows[pkg]
		if !ok {
			t.Errorf("%s has no row in importArrows (and no arrow in docs/layout.md)", pkg)
			continue
		}
		seen++
		for _, imp := range f[1:] {
			if dep, ours := strings.CutPrefix(imp, mod); ours && !slices.Contains(allowed, dep) {
				t.Errorf("%s imports %s: an arrow docs/layout.md does not allow", pkg, dep)
			}
		}
	}
	if seen < 10 {
		t.Errorf("only %d packages checked: go list answered %q", seen, out)
	}
}

// commandLineFree are the packages that decide, find or store: they know no
// command line. Flags are registered by the commands (cmd/toolguard,
// internal/serve's command) and internal/cliflags, never here.
var commandLineFree = []string{
	"guard", "internal/approval", "internal/audit", "internal/bundle", "internal/call",
	"internal/doctor", "internal/guard", "internal/hook", "internal/install", "internal/importer",
	"internal/policy", "internal/protocol", "internal/remote", "internal/shellparse",
	"internal/workspace",
}

// TestNoCommandLineInCore fails when a package that decides imports
// cobra or pflag (directly or through another package).
func TestNoCommandLineInCore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list")
	}
	const mod = "github.com/toolguard/toolguard/"
	banned := []string{"github.com/spf13/cobra", "github.com/spf13/pflag"}
	for _, pkg := range commandLineFree {
		out, err := exec.Command("go", "list", "-deps", "../../"+pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, mod+pkg) {
			t.Fatalf("go list -deps %s does not list the package itself: the test would prove nothing (%q)", pkg, out)
		}
		for _, b := range banned {
			if slices.Contains(deps, b) {
				t.Errorf("%s imports %s: flags are registered in cmd/toolguard or internal/cliflags", pkg, b)
			}
		}
	}
}
