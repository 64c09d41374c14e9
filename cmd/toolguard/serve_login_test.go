//go:build serve

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/audit"
)

// TestAnnounceLogin: serve's sign-in link reaches a terminal (or an
// in-process caller's buffer), never a file or pipe its stderr is
// redirected to (nohup.out): that gets the path of a 0600 file.
func TestAnnounceLogin(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "serve.tokens")
	link := "http://127.0.0.1:8787/login?t=SECRET-once"

	var buf bytes.Buffer
	announceLogin(&system{stderr: &buf}, link, tokens)
	if !strings.Contains(buf.String(), link) {
		t.Errorf("in-process stderr: %q", buf.String())
	}

	out, err := os.Create(filepath.Join(dir, "nohup.out"))
	if err != nil {
		t.Fatal(err)
	}
	announceLogin(&system{stderr: out}, link, tokens)
	out.Close()
	logged, _ := os.ReadFile(filepath.Join(dir, "nohup.out"))
	if strings.Contains(string(logged), "SECRET") {
		t.Fatalf("the link went to a file stderr: %q", logged)
	}
	p := loginFile(tokens)
	if !strings.Contains(string(logged), p) {
		t.Errorf("stderr does not say where the link is: %q", logged)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("link file: %v %v", fi, err)
	}
	if got, _ := os.ReadFile(p); strings.TrimSpace(string(got)) != link {
		t.Errorf("link file holds %q", got)
	}
	// A link planted in its place is replaced, not followed.
	target := filepath.Join(dir, "agent-readable")
	os.Remove(p)
	if err := os.Symlink(target, p); err != nil {
		t.Fatal(err)
	}
	out, _ = os.Create(filepath.Join(dir, "nohup2.out"))
	announceLogin(&system{stderr: out}, link, tokens)
	out.Close()
	if _, err := os.Stat(target); err == nil {
		t.Error("the link was written through a symlink planted in its place")
	}
}

// TestServePeerCredentials: the real `toolguard serve --socket
// --peer-credentials` with the platform policy of a system install
// (audit_log = "server"): the socket is 0666, a hook with no token is
// answered by the caller's uid (the test's own uid is serve's: an
// approver), and the audit lines a system-mode hook sends land in the
// server's state directory, chained.
func TestServePeerCredentials(t *testing.T) {
	outside := t.TempDir()
	env := map[string]string{"HOME": outside, "XDG_CONFIG_HOME": filepath.Join(outside, "cfg"), "XDG_STATE_HOME": filepath.Join(outside, "st")}
	state := filepath.Join(outside, "state")
	sock := remoteSocket(t)
	platform := filepath.Join(outside, "policy.toml")
	os.WriteFile(platform, []byte("version = 1\n[settings]\napproval_url = \"unix://"+sock+"\"\naudit_log = \"server\"\n"), 0o644)
	mk := func(stderr io.Writer) *system {
		return &system{stdin: bytes.NewReader(nil), stdout: io.Discard, stderr: stderr,
			getenv: func(k string) string { return env[k] }, now: time.Now,
			getwd:      func() (string, error) { return outside, nil },
			executable: func() (string, error) { return "/usr/local/bin/toolguard", nil },
			etc:        filepath.Join(outside, "etc"), isTerminal: func() bool { return false }}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--socket", sock, "--peer-credentials", "--policy", platform, "--state-dir", state}, mk(&errb))
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, errb.String())
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errb.String(), "listening on unix:"); {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if fi, err := os.Stat(sock); err != nil || fi.Mode().Perm() != 0o666 {
		t.Fatalf("socket: %v %v", fi, err)
	}
	e := newTrustEnv(t)
	for _, agent := range []string{"claude-code", "codex"} {
		r := e.hook(agent, e.project, "git push --force origin main", "--policy", platform)
		wantDecision(t, agent, r, "deny")
		if r.stderr != "" {
			t.Errorf("%s: stderr %q", agent, r.stderr)
		}
	}
	f, err := os.Open(filepath.Join(state, "audit.jsonl"))
	if err != nil {
		t.Fatalf("the server's log: %v", err)
	}
	defer f.Close()
	rep, err := audit.Verify(f)
	if err != nil || rep.Problem != nil || rep.Lines != 2 {
		t.Errorf("the server's log: %d lines, %v %v", rep.Lines, err, rep.Problem)
	}
	// Without --socket the flag is refused.
	var e2 bytes.Buffer
	if code := run(context.Background(), []string{"serve", "--peer-credentials"}, mk(&e2)); code == 0 || !strings.Contains(e2.String(), "wants --socket") {
		t.Errorf("--peer-credentials without --socket: %d %s", code, e2.String())
	}
}
