package install

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeCLI puts a script named name on a fresh PATH that prints out.
func fakeCLI(t *testing.T, name, out string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\nprintf '%s\\n' '"+out+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
}

// TestAgentVersion: doctor's version check reads the conformance table: a
// covered version is quiet, another version, an unreadable one and an
// agent measured on nothing warn, a CLI not on PATH is not asked.
func TestAgentVersion(t *testing.T) {
	cases := []struct {
		name, provider, bin, out string
		found                    bool
		version, warn            string
	}{
		{"covered", "claude-code", "claude", "2.1.197 (Claude Code)", true, "2.1.197", ""},
		{"newer", "claude-code", "claude", "2.1.300 (Claude Code)", true, "2.1.300", "is not a version the conformance table covers (measured on 2.1.197)"},
		{"codex covered", "codex", "codex", "codex-cli 0.171.0", true, "0.171.0", ""},
		{"gemini older", "gemini", "gemini", "0.60.1", true, "0.60.1", "Gemini CLI 0.60.1 is not a version"},
		{"garbage", "codex", "codex", "hello", true, "", "could not read Codex CLI's version"},
		{"documented only", "cursor", "cursor-agent", "1.2.3", true, "1.2.3", "no measurements for Cursor"},
		{"not on PATH", "codex", "other", "0.171.0", false, "", ""},
		{"no row", "universal", "universal", "1.0.0", false, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			fakeCLI(t, tc.bin, tc.out)
			v, w, found := AgentVersion(context.Background(), tc.provider)
			if found != tc.found || v != tc.version {
				t.Fatalf("AgentVersion(%s) = %q, %q, %v; want version %q found %v", tc.provider, v, w, found, tc.version, tc.found)
			}
			if tc.warn == "" && w != "" || tc.warn != "" && !strings.Contains(w, tc.warn) {
				t.Errorf("warning %q, want %q", w, tc.warn)
			}
		})
	}
}
