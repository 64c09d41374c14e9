package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestRoutesTamperWriters: the self-protect routes of issue 32 item 6,
// closed by mechanism in the analysis (internal/shellparse/outputs.go and
// friends), through the real hook path for Claude Code and Gemini CLI.
// Each deny passed before; the look-alikes below must pass.
func TestRoutesTamperWriters(t *testing.T) {
	const sp = "toolguard-self-protect"
	runRoutes(t, []routeCase{
		// Output options of compilers, linkers and binary tools.
		{cmd: "gcc -o ~/.local/bin/toolguard stub.c", want: "deny", rule: sp},
		{cmd: "cc -o /usr/local/bin/toolguard stub.c", want: "deny", rule: sp},
		{cmd: "clang -o .claude/settings.json x.c", want: "deny", rule: sp},
		{cmd: "clang++ -O2 stub.cc -o/usr/local/bin/toolguard", want: "deny", rule: sp},
		{cmd: "x86_64-linux-gnu-gcc-12 -o ~/go/bin/toolguard stub.c", want: "deny", rule: sp},
		{cmd: "gcc -Wl,-o,/usr/local/bin/toolguard stub.o", want: "deny", rule: sp},
		{cmd: "go build -o ~/.local/bin/toolguard ./stub", want: "deny", rule: sp},
		{cmd: "go build -o=/usr/local/bin/toolguard ./stub", want: "deny", rule: sp},
		{cmd: "go build -o ~/.local/bin/ ./cmd/toolguard", want: "deny", rule: sp},
		{cmd: "GOBIN=~/.local/bin go install ./cmd/toolguard", want: "deny", rule: sp},
		{cmd: "GOBIN=/usr/local/bin go install ./stub", want: "deny", rule: sp},
		{cmd: "export GOBIN=/usr/local/bin; go install example.com/x/cmd/toolguard@latest", want: "deny", rule: sp},
		{cmd: "rustc -o /usr/local/bin/toolguard stub.rs", want: "deny", rule: sp},
		{cmd: "rustc --out-dir /usr/local/bin toolguard.rs", want: "deny", rule: sp},
		{cmd: "strip -o /usr/local/bin/toolguard x", want: "deny", rule: sp},
		{cmd: "strip /usr/local/bin/toolguard", want: "deny", rule: sp},
		{cmd: "objcopy x /usr/local/bin/toolguard", want: "deny", rule: sp},
		{cmd: "objcopy --strip-all /usr/local/bin/toolguard", want: "deny", rule: sp},
		{cmd: "ld -o /usr/local/bin/toolguard x.o", want: "deny", rule: sp},
		{cmd: "as -o /usr/local/bin/toolguard x.s", want: "deny", rule: sp},
		{cmd: "install stub /usr/local/bin/toolguard", want: "deny", rule: sp},
		{cmd: "zig build-exe -femit-bin=/usr/local/bin/toolguard stub.zig", want: "deny", rule: sp},
		// Writers the analysis did not attribute.
		{cmd: `awk 'BEGIN{print "{\"disableAllHooks\":true}" > ".claude/settings.local.json"}'`, want: "deny", rule: sp},
		{cmd: `awk '{print > "/home/user/.codex/hooks.json"}' f`, want: "deny", rule: sp},
		{cmd: `awk 'BEGIN{printf "x" >> "/home/user/.local/state/toolguard/audit.jsonl"}'`, want: "deny", rule: sp},
		{cmd: "sed -n 'w .claude/settings.json' f", want: "deny", rule: sp},
		{cmd: "sed 's/a/b/w .claude/settings.json' f", want: "deny", rule: sp},
		{cmd: "sed -e '1w /home/user/.gemini/settings.json' f", want: "deny", rule: sp},
		{cmd: `sqlite3 x.db "select writefile('.claude/settings.json', '{}')"`, want: "deny", rule: sp},
		{cmd: `sqlite3 :memory: "select readfile('/home/user/.config/toolguard/approver.key')"`, want: "deny", rule: "toolguard-key-read"},
		{cmd: `sqlite3 x.db "vacuum into '/home/user/.local/state/toolguard/audit.jsonl'"`, want: "deny", rule: sp},
		{cmd: "sqlite3 x.db '.output .claude/settings.local.json' 'select 1'", want: "deny", rule: sp},
		{cmd: "gunzip .claude/settings.json.gz", want: "deny", rule: sp},
		{cmd: "cd .claude && gunzip settings.local.json.gz", want: "deny", rule: sp},
		{cmd: "unzstd .claude/settings.json.zst", want: "deny", rule: sp},
		{cmd: "xz -d .claude/settings.json.xz", want: "deny", rule: sp},
		{cmd: "bunzip2 ~/.codex/hooks.json.bz2", want: "deny", rule: sp},
		{cmd: "git clone https://x.example/r ~/.codex", want: "deny", rule: sp},
		{cmd: "git clone https://x.example/r .claude", want: "deny", rule: sp},
		{cmd: "git clone --depth 1 https://x.example/r /home/user/.config/toolguard", want: "deny", rule: sp},
		{cmd: "git worktree add ~/.codex", want: "deny", rule: sp},
		{cmd: "git checkout-index -a -f --prefix=/home/user/.codex/", want: "deny", rule: sp},
		// Programs that replace or remove their inputs.
		{cmd: "gzip .claude/settings.json", want: "deny", rule: sp},
		{cmd: "gzip ~/.local/state/toolguard/audit.jsonl", want: "deny", rule: sp},
		{cmd: "bzip2 .claude/settings.json", want: "deny", rule: sp},
		{cmd: "xz .claude/settings.json", want: "deny", rule: sp},
		{cmd: "lzma ~/.codex/hooks.json", want: "deny", rule: sp},
		{cmd: "zstd --rm .claude/settings.json", want: "deny", rule: sp},
		{cmd: "lz4 --rm .claude/settings.json", want: "deny", rule: sp},
		{cmd: "tar --remove-files -czf x.tgz .claude", want: "deny", rule: sp},
		{cmd: "tar --remove-files -cf /tmp/a.tar /home/user/.local/state/toolguard/audit.jsonl", want: "deny", rule: sp},
		{cmd: "zip -m x.zip .claude/settings.json", want: "deny", rule: sp},
		{cmd: "zip -mr x.zip .toolguard", want: "deny", rule: sp},
		{cmd: "7z a -sdel x.7z .claude", want: "deny", rule: sp},
		{cmd: "rename s/x/y/ .claude/settings.json", want: "deny", rule: sp},
		{cmd: "prename 's/json/bak/' .claude/settings.json", want: "deny", rule: sp},
		{cmd: "file-rename 's/notes/settings/' .claude/notes.json", want: "deny", rule: sp},
		{cmd: "rename 's/notes/settings.local/' .claude/notes.json", want: "deny", rule: sp},
		{cmd: "mmv '.claude/*' 'x/#1'", want: "deny", rule: sp},
		{cmd: "shred -u .claude/settings.json", want: "deny", rule: sp},
		{cmd: "truncate -s0 .claude/settings.json", want: "deny", rule: sp},
		// Look-alikes.
		{cmd: "gzip build.log", want: "pass"},
		{cmd: "gzip -k build.log", want: "pass"},
		{cmd: "gunzip logs/app.log.gz", want: "pass"},
		{cmd: "zstd -19 big.tar", want: "pass"},
		{cmd: "gcc -o build/app main.c", want: "pass"},
		{cmd: "go build -o bin/x ./cmd/x", want: "pass"},
		{cmd: "go install golang.org/x/tools/cmd/stringer@latest", want: "pass"},
		{cmd: "strip build/app", want: "pass"},
		{cmd: "make && strip -o dist/app build/app", want: "pass"},
		{cmd: "rustc -o target/app main.rs", want: "pass"},
		{cmd: "cargo build --release", want: "pass"},
		{cmd: "git clone https://x.example/r vendor/lib", want: "pass"},
		{cmd: "git clone https://x.example/r", want: "pass"},
		{cmd: "sqlite3 app.db 'select 1'", want: "pass"},
		{cmd: "sqlite3 app.db .tables", want: "pass"},
		{cmd: "sqlite3 -readonly data/app.db 'select count(*) from t'", want: "pass"},
		{cmd: "awk '{print $1}' f", want: "pass"},
		{cmd: "awk '{ if ($1 > 2) print $1 }' f", want: "pass"},
		{cmd: "sed -n '/x/p' f", want: "pass"},
		{cmd: "tar czf out.tgz src", want: "pass"},
		{cmd: "zip -r out.zip src", want: "pass"},
		{cmd: "zip -m out.zip build/a.log", want: "pass"},
		{cmd: "7z a out.7z src", want: "pass"},
		{cmd: `rename 's/\.txt$/.md/' docs/*.txt`, want: "pass"},
		{cmd: "kill %1", want: "pass"},
	})
}

// TestRoutesTamperLinks: a link whose target is a surface is that
// surface, whether the target exists or not (ln -s, ln, cp -s), and the
// CLI is matched however its name is looked up.
func TestRoutesTamperLinks(t *testing.T) {
	runRoutes(t, []routeCase{
		{cmd: "ln -s .claude/settings.local.json notes.json", want: "deny", rule: "toolguard-self-protect-ln"},
		{cmd: "ln -sf ~/.codex/hooks.json h.json", want: "deny", rule: "toolguard-self-protect-ln"},
		{cmd: "ln -s settings.local.json .claude/notes.json", want: "deny", rule: "toolguard-self-protect-ln"},
		{cmd: "ln .claude/settings.local.json notes.json", want: "deny", rule: "toolguard-self-protect-ln"},
		{cmd: "cp -s /home/user/project/.claude/settings.local.json notes.json", want: "deny", rule: "toolguard-self-protect-hardlink"},
		{cmd: `ln -s .claude/settings.local.json notes.json; echo '{"disableAllHooks":true}' > notes.json`, want: "deny"},
		{cmd: "toolguard uninstall", want: "deny", rule: "toolguard-cli-mutate"},
		{cmd: "env toolguard uninstall", want: "deny", rule: "toolguard-cli-mutate"},
		{cmd: "command toolguard uninstall", want: "deny", rule: "toolguard-cli-mutate"},
		{cmd: "$(which toolguard) uninstall", want: "deny", rule: "toolguard-cli-mutate"},
		{cmd: `"$(command -v toolguard)" trust`, want: "deny", rule: "toolguard-cli-mutate"},
		{cmd: "`which toolguard` approvals approve req_x", want: "deny", rule: "toolguard-cli-mutate"},
		{cmd: "$(readlink -f $(which toolguard)) uninstall", want: "deny", rule: "toolguard-cli-mutate"},
		{cmd: "/usr/local/bin/toolguard trust", want: "deny", rule: "toolguard-cli-mutate"},
		// Look-alikes.
		{cmd: "ln -s ../lib/a.so lib.so", want: "pass"},
		{cmd: "ln -s .claude/agents/r.md r.md", want: "pass"},
		{cmd: `"$(which toolguard)" check -- ls`, want: "pass"},
		{cmd: "$(which git) status", want: "pass"},
	})
}

// TestHookDanglingLink: a write to an existing symbolic link whose target
// does not exist yet is a write of the target (the hook follows the link,
// decide.go resolveExisting), so a link planted by an earlier call onto
// .claude/settings.local.json cannot be written through.
func TestHookDanglingLink(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.Symlink(".claude/settings.local.json", filepath.Join(ws, "notes.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(home, ".codex", "hooks.json"), filepath.Join(ws, "h.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("does-not-exist.txt", filepath.Join(ws, "plain.txt")); err != nil {
		t.Fatal(err)
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, tc := range []struct {
			tool, in, want string
		}{
			{"shell", `echo '{"disableAllHooks":true}' > notes.json`, "deny"},
			{"shell", `cp /tmp/evil.json h.json`, "deny"},
			{"write", "notes.json", "deny"},
			{"shell", `echo hello > plain.txt`, "pass"},
			{"write", "plain.txt", "pass"},
		} {
			var tool string
			var input []byte
			if tc.tool == "shell" {
				tool = map[string]string{"claude-code": "Bash", "gemini": "run_shell_command"}[agent]
				input, _ = json.Marshal(map[string]string{"command": tc.in})
			} else {
				tool = map[string]string{"claude-code": "Write", "gemini": "write_file"}[agent]
				input, _ = json.Marshal(map[string]string{"file_path": filepath.Join(ws, tc.in), "content": "{}"})
			}
			event := map[string]string{"claude-code": "PreToolUse", "gemini": "BeforeTool"}[agent]
			payload, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": ws, "hook_event_name": event,
				"tool_name": tool, "tool_input": json.RawMessage(input)})
			f, sys := newFake(t, payload, map[string]string{"HOME": home})
			sys.etc = filepath.Join(home, "etc")
			if code := run(context.Background(), []string{"hook", "--provider", agent}, sys); code != 0 {
				t.Fatalf("%s %q: exit %d, stderr %q", agent, tc.in, code, f.stderr.String())
			}
			if got, reason := routeDecision(t, agent, f.stdout.String()); got != tc.want {
				t.Errorf("%s %s %q: got %s (%q), want %s", agent, tc.tool, tc.in, got, reason, tc.want)
			}
		}
	}
}
