package protocol

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// Unified diffs under patchText/diff keys name their files too.
func TestUnifiedDiffPaths(t *testing.T) {
	t.Parallel()
	body := "--- a/src/main.go\n+++ b/src/main.go\n@@ -1 +1 @@\n-a\n+b\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n--- /dev/null\n+++ b/.env\t2026-01-01\n@@ -0,0 +1 @@\n+K=v\n"
	got := patchPaths(body, pather{cwd: "/w"})
	want := []call.Path{{Path: "/w/src/main.go", Op: call.OpWrite}, {Path: "/w/old.txt", Op: call.OpDelete}, {Path: "/w/.env", Op: call.OpWrite}}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	c, err := DecodeWith(claudeCodec{name: NameClaude}, []byte(`{"session_id":"s","cwd":"/w","hook_event_name":"PreToolUse","tool_name":"apply_patch","tool_input":{"patchText":"--- a/x\n+++ b/x\n"},"tool_use_id":"t"}`), DecodeOptions{})
	if err != nil || len(c.Paths) != 1 || c.Paths[0].Path != "/w/x" {
		t.Errorf("patchText: %+v %v", c.Paths, err)
	}
}

// Lines inside a hunk are content even when they look like headers, and
// an apply_patch body is never read as a unified diff.
func TestUnifiedDiffHunkContent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		body string
		want []string
	}{
		{"--- src/safe.txt\n+++ src/safe.txt\n@@ -1 +1 @@\n--- .env\n+++ .env", []string{"/w/src/safe.txt"}},
		{"--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n--- a/y\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", []string{"/w/x", "/w/y"}},
		{"*** Begin Patch\n*** Update File: t.ts\n@@\n+x\n--- a/.env\n+++ b/.env\n*** End Patch", []string{"/w/t.ts"}},
	} {
		got := patchPaths(tc.body, pather{cwd: "/w"})
		var paths []string
		for _, p := range got {
			paths = append(paths, p.Path)
		}
		if strings.Join(paths, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%q: got %v, want %v", tc.body, paths, tc.want)
		}
	}
}
