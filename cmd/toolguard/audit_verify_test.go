package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditVerify: `toolguard audit verify` exits 0 on an intact chain,
// 1 at the first break, a cut last line, an emptied log or a missing one.
func TestAuditVerify(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "audit.jsonl")
	payload, err := os.ReadFile("../../testdata/payloads/claude-code/push-force.json")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		f, sys := newFake(t, payload, nil)
		if code := run(context.Background(), []string{"hook", "--provider", "claude-code", "--audit-log", log}, sys); code != 0 {
			t.Fatalf("hook: exit %d: %s", code, f.stderr.String())
		}
	}
	data, _ := os.ReadFile(log)
	lines := strings.SplitAfter(string(data), "\n")
	for _, tc := range []struct {
		name, content string // "-" = no file
		code          int
		want          string
	}{
		{"intact", string(data), 0, "3 lines, chain intact"},
		{"line-removed", lines[0] + lines[2], 1, ":2: break:"},
		{"line-edited", lines[0] + strings.Replace(lines[1], "deny", "allow", 1) + lines[2], 1, ":3: break:"},
		{"cut", lines[0] + lines[1] + lines[2][:30], 1, ":3: truncated:"},
		{"emptied", "", 1, "empty"},
		{"removed", "-", 1, "no audit log where one was expected"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "audit.jsonl")
			if tc.content != "-" {
				os.WriteFile(file, []byte(tc.content), 0o600)
			}
			f, sys := newFake(t, nil, nil)
			code := run(context.Background(), []string{"audit", "verify", "--file", file}, sys)
			if out := f.stdout.String() + f.stderr.String(); code != tc.code || !strings.Contains(out, tc.want) {
				t.Errorf("exit %d, output %q; want exit %d and %q", code, out, tc.code, tc.want)
			}
		})
	}
}
