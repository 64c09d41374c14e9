package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMergeCases checks edits of files that already hold toolguard, byte for
// byte: replacement in place, duplicates, mixed groups, refusals.
func TestMergeCases(t *testing.T) {
	t.Parallel()
	const newCmd = "/usr/local/bin/toolguard hook --provider claude-code"
	tests := []struct {
		name      string
		provider  string
		uninstall bool
		in        string
		want      string // "" = unchanged
		wantErr   string
		summary   string
	}{
		{
			// A timeout of 10 s is the hook's own deadline: the agent could
			// give up (an allow, in most agents) before the on_error reply,
			// so Install raises it to 30 s.
			name:     "replace in place keeps other fields and handlers, raises a short timeout",
			provider: "claude-code",
			in: `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "lint.sh"
          },
          {
            "type": "command",
            "command": "/old/toolguard hook --provider claude-code",
            "timeout": 10,
            "statusMessage": "checking"
          }
        ]
      }
    ]
  }
}
`,
			want: `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "lint.sh"
          },
          {
            "type": "command",
            "command": "/usr/local/bin/toolguard hook --provider claude-code",
            "timeout": 30,
            "statusMessage": "checking",
            "onFailure": "block"
          }
        ]
      }
    ]
  }
}
`,
			summary: "replace PreToolUse hook: /old/toolguard hook --provider claude-code -> " + newCmd,
		},
		{
			name:     "duplicate toolguard groups collapse to the first",
			provider: "claude-code",
			in:       `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"` + newCmd + `"}]},{"matcher":"Bash","hooks":[{"type":"command","command":"toolguard hook"}]}]}}`,
			want:     `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"` + newCmd + `","timeout":30,"onFailure":"block"}]}]}}`,
			summary:  "remove duplicate PreToolUse hook: toolguard hook",
		},
		{
			name:     "a timeout above the minimum stays",
			provider: "gemini",
			in:       `{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"type":"command","command":"` + newCmd + `","timeout":60000}]}]}}`,
			summary:  "already installed",
		},
		{
			name:     "a gemini timeout in seconds is raised",
			provider: "gemini",
			in:       `{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"type":"command","command":"` + newCmd + `","timeout":30}]}]}}`,
			want:     `{"hooks":{"BeforeTool":[{"matcher":"*","hooks":[{"type":"command","command":"` + newCmd + `","timeout":30000}]}]}}`,
			summary:  "set BeforeTool hook timeout: 30000",
		},
		{
			// Qwen's timeouts are milliseconds too: 10000 is 10 s, below the minimum
			name:     "a qwen timeout of 10 s is raised",
			provider: "qwen",
			in:       `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"` + newCmd + `","timeout":10000}]}]}}`,
			want:     `{"hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"` + newCmd + `","timeout":30000}]}]}}`,
			summary:  "set PreToolUse hook timeout: 30000",
		},
		{
			name:     "copilot timeoutSec pinned",
			provider: "copilot",
			in:       `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"` + newCmd + `"}]}}`,
			want:     `{"version":1,"hooks":{"preToolUse":[{"type":"command","bash":"` + newCmd + `","timeoutSec":30}]}}`,
		},
		{
			name:     "exec form replaced whole",
			provider: "claude-code",
			in:       `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"toolguard","args":["hook"]}]}]}}`,
			want:     `{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"` + newCmd + `","timeout":30,"onFailure":"block"}]}]}}`,
		},
		{
			name:      "uninstall keeps the group's other handler",
			provider:  "claude-code",
			uninstall: true,
			in:        `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"lint.sh"},{"type":"command","command":"toolguard hook"}]}],"Stop":[]}}`,
			want:      `{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"lint.sh"}]}],"Stop":[]}}`,
			summary:   "remove PreToolUse hook: toolguard hook",
		},
		{
			name:      "uninstall keeps groups that were already empty",
			provider:  "codex",
			uninstall: true,
			in:        `{"hooks":{"PreToolUse":[{"matcher":"x","hooks":[]},{"hooks":[{"type":"command","command":"toolguard hook"}]}],"PermissionRequest":[{"hooks":[{"command":"toolguard hook --provider codex"}]}]}}`,
			want:      `{"hooks":{"PreToolUse":[{"matcher":"x","hooks":[]}]}}`,
		},
		{
			name:      "uninstall cursor keeps version with other hooks",
			provider:  "cursor",
			uninstall: true,
			in:        `{"version":1,"hooks":{"stop":[{"command":"a"}],"preToolUse":[{"command":"toolguard hook"}]}}`,
			want:      `{"version":1,"hooks":{"stop":[{"command":"a"}]}}`,
		},
		{
			name:      "uninstall not installed",
			provider:  "gemini",
			uninstall: true,
			in:        `{"hooks":{"BeforeTool":[{"hooks":[{"command":"toolguard check"}]}]}}`,
			summary:   "toolguard hook not installed in",
		},
		{
			name:     "cursor adds version first and only missing events",
			provider: "cursor",
			in:       `{"hooks":{"preToolUse":[{"command":"toolguard hook --provider claude-code"}]}}`,
			want:     `{"version":1,"hooks":{"preToolUse":[{"command":"` + newCmd + `","timeout":30,"failClosed":true}],"beforeShellExecution":[{"command":"` + newCmd + `","timeout":30,"failClosed":true}],"beforeMCPExecution":[{"command":"` + newCmd + `","timeout":30,"failClosed":true}]}}`,
			summary:  "set preToolUse hook failClosed: true",
		},
		{
			name:     "cursor failClosed false is switched on; claude-code gets no onFailure (ignored by the measured version)",
			provider: "cursor",
			in:       `{"version":1,"hooks":{"preToolUse":[{"command":"` + newCmd + `","timeout":30,"failClosed":false}]}}`,
			want:     `{"version":1,"hooks":{"preToolUse":[{"command":"` + newCmd + `","timeout":30,"failClosed":true}],"beforeShellExecution":[{"command":"` + newCmd + `","timeout":30,"failClosed":true}],"beforeMCPExecution":[{"command":"` + newCmd + `","timeout":30,"failClosed":true}]}}`,
		},
		{
			name:     "toolguard under another event follows the new command",
			provider: "claude-code",
			in:       `{"hooks":{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"/old/toolguard hook"}]}]}}`,
			want:     `{"hooks":{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"` + newCmd + `"}]}],"PreToolUse":[{"matcher":"*","hooks":[{"type":"command","command":"` + newCmd + `","timeout":30,"onFailure":"block"}]}]}}`,
			summary:  "replace PermissionRequest hook: /old/toolguard hook -> " + newCmd,
		},
		{
			name:     "event of the wrong type is refused",
			provider: "claude-code",
			in:       `{"hooks":{"PreToolUse":{"matcher":"*"}}}`,
			wantErr:  `"hooks".PreToolUse is an object, want an array; nothing was changed`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			file, _ := SettingsPath(tt.provider, "", dir, "")
			writeFile(t, file, []byte(tt.in))
			// These cases are about the pre-tool events; TestInstallExtraEvents has the others.
			o := Options{Provider: tt.provider, Dir: dir, Command: newCmd, PreToolOnly: true}
			f := Install
			if tt.uninstall {
				f = Uninstall
			}
			res, err := f(o)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := string(mustRead(t, file))
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if got != want {
				t.Errorf("got:\n%s\nwant:\n%s", got, want)
			}
			if res.Changed != (tt.want != "") {
				t.Errorf("Changed = %v", res.Changed)
			}
			if tt.summary != "" && !strings.Contains(res.Summary, tt.summary) {
				t.Errorf("summary %q lacks %q", res.Summary, tt.summary)
			}
		})
	}
}

func TestInstallThroughSymlink(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude.json")
	writeFile(t, real, []byte("{}\n"))
	link := filepath.Join(dir, "proj", ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip(err)
	}
	if _, err := Install(Options{Provider: "claude", Dir: filepath.Join(dir, "proj"), Command: "toolguard hook"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("symlink replaced: %v %v", fi, err)
	}
	if cmds, _ := ExtractCommands("claude", mustRead(t, real)); len(cmds) != 1 {
		t.Errorf("target not updated: %q", cmds)
	}
	if !exists(real + BackupSuffix) {
		t.Error("no backup beside the target")
	}
}

func TestInstallCodexTOMLNote(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	writeFile(t, filepath.Join(home, ".codex", "config.toml"),
		[]byte("[[hooks.PreToolUse]]\n[[hooks.PreToolUse.hooks]]\ntype = \"command\"\ncommand = \"/bin/toolguard hook --provider codex\"\n"))
	res, err := Install(Options{Provider: "codex", Scope: "user", Home: home, Command: "toolguard hook --provider codex", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(res.Notes, "\n")
	for _, want := range []string{"/hooks", "--dangerously-bypass-hook-trust", "0.124", "also defines [hooks]", "does not run twice"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
	if exists(res.File) {
		t.Error("dry run created the file")
	}
}
