package protocol

import (
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// Gemini runs a shell command in dir_path: relative paths in the command
// resolve against it, and the session cwd stays the project directory.
func TestGeminiShellDirPath(t *testing.T) {
	t.Parallel()
	c, err := DecodeWith(geminiCodec{}, []byte(`{"session_id":"s","cwd":"/home/u/p","hook_event_name":"BeforeTool",`+
		`"timestamp":"2026-01-01T00:00:00Z","tool_name":"run_shell_command","tool_input":{"command":"rm -rf x","dir_path":"sub"}}`), DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Cwd != "/home/u/p/sub" || c.ProjectDir != "/home/u/p" || c.Command != "rm -rf x" {
		t.Errorf("cwd %q project %q command %q", c.Cwd, c.ProjectDir, c.Command)
	}
}

func TestAskReachesHuman(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		codec, mode string
		want        bool
	}{
		{NameClaude, "bypassPermissions", true},
		{NameCodeBuddy, "default", true},
		{NameCodeBuddy, "bypassPermissions", false},
		{NameCodeBuddy, "dontAsk", false},
		{NameCodex, "default", false},
		{NameUniversal, "", false},
		{NameGemini, "", true},
	} {
		c, err := Lookup(tc.codec)
		if err != nil {
			t.Fatal(err)
		}
		if got := AskReachesHuman(c, call.Call{PermissionMode: tc.mode}); got != tc.want {
			t.Errorf("%s/%s: got %v, want %v", tc.codec, tc.mode, got, tc.want)
		}
	}
}
