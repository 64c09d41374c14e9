//go:build serve

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
