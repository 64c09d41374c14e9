package main

import (
	"context"
	"crypto/ed25519"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/workspace"
)

// TestInstallSystemCommand: install --system through the command line —
// refused for a non-root user on the live system (nothing written), into
// --root as anyone, idempotent, reversed by uninstall --system; flags of
// the user-scope install are refused with it; the user-scope install is
// untouched by the flag's existence.
func TestInstallSystemCommand(t *testing.T) {
	old := geteuid
	defer func() { geteuid = old }()
	bin := filepath.Join(t.TempDir(), "toolguard")
	fakeToolguard(t, bin)
	f, sys := newFake(t, nil, nil)
	sys.executable = func() (string, error) { return bin, nil }

	geteuid = func() int { return 1000 }
	if code := run(context.Background(), []string{"install", "--system"}, sys); code == 0 || !strings.Contains(f.stderr.String(), "run it as root") {
		t.Fatalf("non-root install --system: exit %d, %s", code, f.stderr.String())
	}
	f.stderr.Reset()
	if code := run(context.Background(), []string{"install", "--system", "--scope", "user"}, sys); code == 0 || !strings.Contains(f.stderr.String(), "--system goes with") {
		t.Fatalf("--system --scope user: exit %d, %s", code, f.stderr.String())
	}

	root := t.TempDir()
	f.stderr.Reset()
	args := []string{"install", "--system", "--root", root, "--provider", "claude-code,codex", "--sandbox"}
	if code := run(context.Background(), args, sys); code != 0 {
		t.Fatalf("install --system --root: exit %d: %s", code, f.stderr.String())
	}
	drop, err := os.ReadFile(filepath.Join(root, "etc/claude-code/managed-settings.d/toolguard.json"))
	if err != nil || !strings.Contains(string(drop), install.SystemCommand("claude-code")) || !strings.Contains(string(drop), `"onFailure": "block"`) ||
		!strings.Contains(string(drop), `"allowManagedHooksOnly": true`) || !strings.Contains(string(drop), `"failIfUnavailable": true`) {
		t.Fatalf("drop-in: %v\n%s", err, drop)
	}
	if _, err := os.Stat(filepath.Join(root, "etc/gemini-cli")); err == nil {
		t.Error("gemini written although --provider named claude-code,codex")
	}
	f.stdout.Reset()
	if code := run(context.Background(), args, sys); code != 0 || !strings.Contains(f.stdout.String(), "unchanged") || strings.Contains(f.stdout.String(), "create") {
		t.Fatalf("second install: exit %d: %s", code, f.stdout.String())
	}
	if code := run(context.Background(), []string{"uninstall", "--system", "--root", root}, sys); code != 0 {
		t.Fatalf("uninstall --system: exit %d: %s", code, f.stderr.String())
	}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			t.Errorf("uninstall left %s", p)
		}
		return nil
	})

	// --serve wants the server binary beside this one.
	f.stderr.Reset()
	if code := run(context.Background(), []string{"install", "--system", "--root", root, "--serve"}, sys); code == 0 || !strings.Contains(f.stderr.String(), "toolguard-serve") {
		t.Fatalf("--serve without toolguard-serve: exit %d: %s", code, f.stderr.String())
	}

	// With it: the server's key is created (0600, 0700 directories under a
	// traversable /var/lib) and the platform policy trusts it for grants.
	fakeToolguard(t, filepath.Join(filepath.Dir(bin), "toolguard-serve"))
	root = t.TempDir()
	f.stderr.Reset()
	if code := run(context.Background(), []string{"install", "--system", "--root", root, "--serve", "--provider", "codex"}, sys); code != 0 {
		t.Fatalf("install --system --serve: exit %d: %s", code, f.stderr.String())
	}
	key, err := approval.LoadKey(filepath.Join(root, install.ServerKeyPath))
	if err != nil {
		t.Fatal(err)
	}
	for p, mode := range map[string]os.FileMode{"var/lib": 0o755, "var/lib/toolguard": 0o700, "var/lib/toolguard/toolguard": 0o700, install.ServerKeyPath: 0o600} {
		if fi, err := os.Stat(filepath.Join(root, p)); err != nil || fi.Mode().Perm() != mode {
			t.Errorf("%s: %v %v, want %v", p, fi.Mode().Perm(), err, mode)
		}
	}
	pol, _ := os.ReadFile(filepath.Join(root, install.SystemPolicy))
	if !strings.Contains(string(pol), approval.PublicText(key.Public().(ed25519.PublicKey))) || !strings.Contains(string(pol), `audit_log = "server"`) {
		t.Errorf("platform policy does not trust the server's key:\n%s", pol)
	}
	if !strings.Contains(f.stdout.String(), "chown -R toolguard:toolguard /var/lib/toolguard") {
		t.Errorf("the setup steps do not hand the state to the toolguard account:\n%s", f.stdout.String())
	}
	// The policy loads as the hook loads it.
	pf := policyFlags{workspace.Selection{Files: []string{filepath.Join(root, install.SystemPolicy)}}}
	if ps, err := pf.load(sys, t.TempDir()); err != nil || len(ps.Pol.Settings.Approvers) != 1 || ps.Pol.Settings.AuditLog != "server" {
		t.Errorf("platform policy: %v", err)
	}
}
