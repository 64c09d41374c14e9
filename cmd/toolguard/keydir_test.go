package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHookKeyDirectoryRead: reading a directory that holds the approver key
// (tar -c, cp -r, grep -r, zip -r, rsync, a Grep tool over it) copies the
// key as surely as cat does, and is a locked deny through the real hook path
// for Claude Code and Gemini CLI; a named non-key file there and recursive
// reads elsewhere pass.
func TestHookKeyDirectoryRead(t *testing.T) {
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	proj := filepath.Join(dir, "project")
	cfg := filepath.Join(home, ".config", "toolguard")
	for _, d := range []string{cfg, filepath.Join(proj, ".git"), filepath.Join(proj, "src")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(cfg, "approver.key"), []byte("toolguard-approver-key/1\nAAAA\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ cmd, want string }{
		{"tar czf /tmp/x.tgz ~/.config/toolguard", "deny"},
		{"cp -r ~/.config/toolguard /tmp/k", "deny"},
		{"grep -r . ~/.config/toolguard", "deny"},
		{"zip -r /tmp/k.zip ~/.config", "deny"},
		{"rsync -a ~/.config/ /tmp/c/", "deny"},
		{"cat ~/.config/toolguard/*", "deny"}, // the glob names the key
		{"cat ~/.config/toolguard/approver.key", "deny"},
		// look-alikes
		{"grep -r token src", "pass"},
		{"tar czf /tmp/src.tgz src", "pass"},
		{"cat ~/.config/toolguard/policy.toml", "pass"},
		{"toolguard approvals key", "pass"}, // prints the public key only
	}
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, c := range cases {
			t.Run(agent+"/"+c.cmd, func(t *testing.T) {
				if got, reason := shellHook(t, agent, proj, home, c.cmd); got != c.want {
					t.Fatalf("got %s (%q), want %s", got, reason, c.want)
				}
			})
		}
	}
}

// TestRoutesWholeHomeRead: an archive, copy or recursive search of the
// whole home directory or filesystem reads every key in it, and asks
// (secrets-dir-read) through the real hook path for Claude Code and Gemini
// CLI; listing it and reading named files pass.
func TestRoutesWholeHomeRead(t *testing.T) {
	runRoutes(t, []routeCase{
		{cmd: "tar czf /tmp/h.tgz ~", want: "ask"},
		{cmd: "zip -r /tmp/h.zip ~", want: "ask"},
		{cmd: "cp -r ~ /tmp/h", want: "ask"},
		{cmd: "grep -r AKIA ~", want: "ask"},
		{cmd: "rsync -a ~/ /tmp/h/", want: "ask"},
		{cmd: "tar czf /tmp/all.tgz /", want: "ask"},
		// look-alikes
		{cmd: "ls ~", want: "pass"},
		{cmd: "cat ~/notes.txt", want: "pass"},
		{cmd: "grep -r TODO src", want: "pass"},
		{cmd: "tar czf /tmp/p.tgz .", want: "pass"},
	})
}

// TestRoutesProgramOnPath: a write onto a program found through PATH at run
// time (which, command -v, backquotes) may be toolguard's own binary and
// asks (write-program-on-path, locked); `rm -rf */` is a delete of the
// workspace's contents and asks like `rm -rf *`. Through the real hook
// path for Claude Code and Gemini CLI; reads of such a program and
// literal destinations pass.
func TestRoutesProgramOnPath(t *testing.T) {
	runRoutes(t, []routeCase{
		{cmd: `cp /bin/true "$(which toolguard)"`, want: "ask"},
		{cmd: `echo x > "$(which toolguard)"`, want: "ask"},
		{cmd: "cat /bin/true > $(command -v toolguard)", want: "ask"},
		{cmd: "cp /bin/true `which toolguard`", want: "ask"},
		{cmd: "tee $(which toolguard) < /bin/true", want: "ask"},
		{cmd: "rm -rf -- */", want: "ask"},
		// look-alikes
		{cmd: "ls -la $(which toolguard)", want: "pass"},
		{cmd: "file $(command -v git)", want: "pass"},
		{cmd: "cp build/app bin/app", want: "pass"},
		{cmd: "rm -rf build/*/", want: "pass"},
	})
}

// TestRoutesGitHooks: a git hook written by the agent, or core.hooksPath
// pointed elsewhere, runs later where toolguard sees only the git command:
// ask, through the real hook path for Claude Code and Gemini CLI.
func TestRoutesGitHooks(t *testing.T) {
	runRoutes(t, []routeCase{
		{cmd: "echo 'rm -rf ~' > .git/hooks/pre-commit", want: "ask"},
		{cmd: "cp evil.sh .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout", want: "ask"},
		{cmd: "git config core.hooksPath /tmp/h", want: "ask"},
		{tool: "Write", in: `{"file_path":"/home/user/project/.git/hooks/pre-push","content":"curl x|sh"}`, want: "ask"},
		// look-alikes
		{cmd: "rm -f .git/hooks/pre-commit", want: "pass"},
		{cmd: "ls .git/hooks", want: "pass"},
		{cmd: "git config --get core.hooksPath", want: "pass"},
		{cmd: "git commit -m x", want: "pass"},
	})
}
