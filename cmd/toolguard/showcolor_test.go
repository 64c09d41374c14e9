package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/approval"
)

// TestShowColor: approvals show colours only a terminal, and never with
// NO_COLOR; the text is the same with and without colour.
func TestShowColor(t *testing.T) {
	t.Parallel()
	r := approval.Request{ID: "req_a", Status: approval.StatusPending, Tool: "Edit", Kind: "edit",
		Approve: "toolguard approvals approve req_a",
		Preview: &approval.Preview{Path: "/p/f", Diff: "@@ -1 +1 @@\n-a\n+b\n",
			Rules: []approval.RulePreview{{ID: "r1", Decision: "ask", Source: "x.toml:3"}}}}
	var plain, col bytes.Buffer
	renderRequest(&plain, r, false)
	renderRequest(&col, r, true)
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("plain output has escapes:\n%q", plain.String())
	}
	for _, want := range []string{ansiYellow + ansiBold + "pending" + ansiReset, ansiCyan + "@@ -1 +1 @@" + ansiReset,
		ansiRed + "-a" + ansiReset, ansiGreen + "+b" + ansiReset, ansiYellow + "ask" + ansiReset} {
		if !strings.Contains(col.String(), want) {
			t.Errorf("coloured output lacks %q:\n%q", want, col.String())
		}
	}
	strip := strings.NewReplacer(ansiReset, "", ansiBold, "", ansiDim, "", ansiRed, "", ansiGreen, "", ansiYellow, "", ansiCyan, "")
	if strip.Replace(col.String()) != plain.String() {
		t.Errorf("colour changes the text:\n%s\nvs\n%s", strip.Replace(col.String()), plain.String())
	}

	// useColor: a buffer never; a character device unless NO_COLOR or TERM=dumb
	_, sys := newFake(t, nil, nil)
	if useColor(sys) {
		t.Error("colour on a buffer")
	}
	tty, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0) // a character device, as a terminal is
	if err != nil {
		t.Skip(err)
	}
	defer tty.Close()
	for _, tt := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, true},
		{map[string]string{"NO_COLOR": "1"}, false},
		{map[string]string{"NO_COLOR": ""}, true},
		{map[string]string{"TERM": "dumb"}, false},
	} {
		_, sys := newFake(t, nil, tt.env)
		sys.stdout = tty
		if got := useColor(sys); got != tt.want {
			t.Errorf("useColor with %v = %v, want %v", tt.env, got, tt.want)
		}
	}
}

// TestShowNoTerminalEscapes: a request's texts come from the agent; show
// and list never write its control characters raw (a command with ESC [2K
// and a carriage return could otherwise hide what it runs), through the
// real hook path in two dialects.
func TestShowNoTerminalEscapes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pol := filepath.Join(dir, "p.toml")
	os.WriteFile(pol, []byte("version = 1\n[settings]\nmode = \"headless\"\nstate_dir = \""+filepath.Join(dir, "state")+
		"\"\naudit = \"off\"\n[[rule]]\nid = \"ask-tag\"\ndecision = \"ask\"\ncommand = \"git tag\"\n"), 0o600)
	evil := "git tag v1; rm -rf build\r\x1b[2Kgit tag v1"
	cmdJSON, _ := json.Marshal(evil)
	payloads := map[string]string{
		"claude-code": `{"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":` + string(cmdJSON) + `}}`,
		"gemini":      `{"session_id":"s2","cwd":"/tmp","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":` + string(cmdJSON) + `}}`,
	}
	for prov, payload := range payloads {
		f, sys := newFake(t, []byte(payload), nil)
		if err := run(context.Background(), []string{"hook", "--provider", prov, "--policy", pol}, sys); err != 0 {
			t.Fatalf("%s: %v", prov, err)
		}
		if !strings.Contains(f.stdout.String(), "approval request req_") {
			t.Fatalf("%s: %s", prov, f.stdout.String())
		}
	}
	f, sys := newFake(t, nil, nil)
	if err := run(context.Background(), []string{"approvals", "list", "--json", "--policy", pol}, sys); err != 0 {
		t.Fatal(err)
	}
	var reqs []approval.Request
	if err := json.Unmarshal(f.stdout.Bytes(), &reqs); err != nil || len(reqs) != 2 {
		t.Fatalf("list: %v %s", err, f.stdout.String())
	}
	for _, r := range reqs {
		f, sys := newFake(t, nil, nil)
		if err := run(context.Background(), []string{"approvals", "show", r.ID, "--policy", pol}, sys); err != 0 {
			t.Fatal(err)
		}
		out := f.stdout.String()
		if strings.ContainsAny(out, "\x1b\r") || !strings.Contains(out, `\u000d\u001b[2Kgit tag v1`) {
			t.Errorf("show %s (%s) writes control characters raw or hides them:\n%q", r.ID, r.Provider, out)
		}
	}
	f, sys = newFake(t, nil, nil)
	if err := run(context.Background(), []string{"approvals", "list", "--policy", pol}, sys); err != 0 {
		t.Fatal(err)
	}
	if strings.ContainsAny(f.stdout.String(), "\x1b\r") {
		t.Errorf("list writes control characters raw:\n%q", f.stdout.String())
	}
}
