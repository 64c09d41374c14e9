package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// TestWriteDiff: a Write that replaces a file the agent may read shows the
// diff from the file's current state; a new file, a file the agent may not
// read, a directory, and a write that changes nothing show none.
func TestWriteDiff(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.txt")
	if err := os.WriteFile(old, []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	input := func(path, content string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"file_path": path, "content": content})
		return b
	}
	yes := func(string) bool { return true }
	no := func(string) bool { return false }
	tests := []struct {
		name     string
		c        call.Call
		readable func(string) bool
		want     string // "" for no diff
	}{
		{"replaces a file", call.Call{Kind: call.KindWrite, Input: input(old, "one\nTWO\nthree\n")}, yes,
			"@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n"},
		{"relative to cwd", call.Call{Kind: call.KindWrite, Cwd: dir, Input: input("old.txt", "one\n")}, yes, "-two\n"},
		{"new file", call.Call{Kind: call.KindWrite, Input: input(filepath.Join(dir, "new.txt"), "x\n")}, yes, ""},
		{"not readable by the agent", call.Call{Kind: call.KindWrite, Input: input(old, "x\n")}, no, ""},
		{"a directory", call.Call{Kind: call.KindWrite, Input: input(dir, "x\n")}, yes, ""},
		{"no change", call.Call{Kind: call.KindWrite, Input: input(old, "one\ntwo\nthree\n")}, yes, ""},
		{"relative without cwd", call.Call{Kind: call.KindWrite, Input: input("old.txt", "x\n")}, yes, ""},
		{"not a write", call.Call{Kind: call.KindShell, Input: input(old, "x\n")}, yes, ""},
	}
	for _, tt := range tests {
		got := requestDiff(tt.c, tt.readable)
		if tt.want == "" && got != "" || tt.want != "" && !strings.Contains(got, tt.want) {
			t.Errorf("%s: requestDiff = %q, want %q", tt.name, got, tt.want)
		}
	}
}
