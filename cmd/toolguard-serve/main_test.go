package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/workspace"
)

// TestUsage: a command line toolguard-serve cannot run exits 1 with the
// help hint; the serve command's refusals (a non-loopback address without
// TLS) are usage errors too.
func TestUsage(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"serve", "extra"}, "takes no arguments"},
		{[]string{"serve", "--addr", "0.0.0.0:8787"}, "not a loopback address"},
		{[]string{"serve", "--tls-cert", "c.pem"}, "--tls-cert and --tls-key go together"},
	} {
		var stderr bytes.Buffer
		sys := guard.System{Env: workspace.Env{Getenv: func(k string) string { return env[k] },
			Getwd: func() (string, error) { return home, nil }}, Now: time.Now, Stderr: &stderr}
		if code := run(context.Background(), tc.args, sys); code != 1 || !strings.Contains(stderr.String(), tc.want) ||
			!strings.Contains(stderr.String(), "--help' for usage") {
			t.Errorf("%q: exit %d, stderr %q", tc.args, code, stderr.String())
		}
	}
}
