package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolguard/toolguard/tools/hookbench/policygen"
)

// BenchmarkHook runs whole `toolguard hook` invocations in-process: the
// command line, reading the payload, detection, decoding, loading the
// policy (embedded defaults, or a 10,000-rule materialized one),
// evaluation, the audit record of a denial and the reply. Process start-up
// is what tools/hookbench adds to this.
//
//	go test -run='^$' -bench=Hook -benchmem ./cmd/toolguard
func BenchmarkHook(b *testing.B) {
	dir := b.TempDir()
	proj := filepath.Join(dir, "proj")
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	payloads := policygen.Payloads(proj)
	policies := []struct {
		name string
		args []string
	}{{"default", nil}}
	// The defaults + a small project layer (policygen.ProjectTOML), as
	// most users run: hookbench's "defaults + project layer".
	projFile := filepath.Join(dir, "project.toml")
	if err := os.WriteFile(projFile, []byte(policygen.ProjectTOML), 0o644); err != nil {
		b.Fatal(err)
	}
	policies = append(policies, struct {
		name string
		args []string
	}{"project", []string{"--layer", "project=" + projFile}})
	if big := materializeBench10k(b, dir); big != "" {
		policies = append(policies, struct {
			name string
			args []string
		}{"10k", []string{"--policy", big}})
	}
	for _, pol := range policies {
		for _, pl := range payloads {
			if pol.name == "10k" && pl.Name == "shell-1MiB" {
				// Minutes per run today (every path target of the
				// command is tested against every path rule, resolving
				// symlinks each time); tools/hookbench times it with a
				// deadline. See docs/performance.md.
				continue
			}
			b.Run(pol.name+"/"+pl.Name, func(b *testing.B) {
				args := append([]string{"hook", "--provider", "claude-code"}, pol.args...)
				sys, out := benchSystem(dir)
				b.SetBytes(int64(len(pl.Data)))
				b.ReportAllocs()
				for b.Loop() {
					out.Reset()
					sys.stdin = bytes.NewReader(pl.Data)
					if code := run(context.Background(), args, sys); code != 0 {
						b.Fatalf("exit %d: %s", code, out.String())
					}
				}
			})
		}
	}
}

// benchSystem is a fake system rooted in dir (HOME, state, /etc), writing
// the reply to a reusable buffer.
func benchSystem(dir string) (*system, *bytes.Buffer) {
	out := &bytes.Buffer{}
	env := map[string]string{"HOME": filepath.Join(dir, "home"), "XDG_STATE_HOME": filepath.Join(dir, "state")}
	return &system{
		stdout:     out,
		stderr:     out,
		getenv:     func(k string) string { return env[k] },
		now:        time.Now,
		getwd:      func() (string, error) { return dir, nil },
		executable: func() (string, error) { return "/usr/local/bin/toolguard", nil },
		etc:        filepath.Join(dir, "etc"),
	}, out
}

// materializeBench10k writes a 10,000-rule layer and materializes it with
// the real materialize command; it returns the JSON file's path.
func materializeBench10k(b *testing.B, dir string) string {
	b.Helper()
	layer := filepath.Join(dir, "org.toml")
	if err := os.WriteFile(layer, []byte(policygen.TOML(10000)), 0o644); err != nil {
		b.Fatal(err)
	}
	out := filepath.Join(dir, "policy.json")
	sys, buf := benchSystem(dir)
	if code := run(context.Background(), []string{"materialize", "--layer", "org=" + layer, "-o", out}, sys); code != 0 {
		b.Fatalf("materialize: exit %d: %s", code, buf.String())
	}
	return out
}
