package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// heavyDeps are packages the hook binary must not link: each costs
// package init in every hook process (net/http and crypto/tls ~0.3 ms
// together, measured in round 4; docs/performance.md). The hook's remote
// approval client (internal/remote) speaks HTTP/1.1 over net for this.
var heavyDeps = []string{"net/http", "crypto/tls", "html/template", "go/format", "go/ast", "go/parser"}

// TestHookBinaryDeps fails when the default build of cmd/toolguard links
// a heavy package. toolguard serve needs net/http: the test applies once
// serve.go is behind the serve build tag (its own binary), and skips
// until then.
func TestHookBinaryDeps(t *testing.T) {
	src, err := os.ReadFile("serve.go")
	if err == nil && !bytes.Contains(src, []byte("//go:build serve")) {
		t.Skip("cmd/toolguard/serve.go has no //go:build serve line yet: the default build still links serve's net/http")
	}
	if testing.Short() {
		t.Skip("runs go list")
	}
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Skipf("go list: %v\n%s", err, out)
	}
	deps := map[string]bool{}
	for _, p := range strings.Fields(string(out)) {
		deps[p] = true
	}
	if !deps["github.com/toolguard/toolguard/internal/remote"] {
		t.Error("the hook does not link internal/remote: the test would prove nothing")
	}
	for _, p := range heavyDeps {
		if deps[p] {
			t.Errorf("the default build of cmd/toolguard links %s (go list -deps ./cmd/toolguard)", p)
		}
	}
}
