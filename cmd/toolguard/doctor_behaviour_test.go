package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/doctor"
	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/protocol"
)

// TestDoctorPrintsBehaviour: doctor prints, for an installed agent
// version, each row of the conformance table and where it comes from.
func TestDoctorPrintsBehaviour(t *testing.T) {
	t.Parallel()
	row, ok := protocol.ConformanceFor(protocol.NameClaude)
	if !ok {
		t.Fatal("no claude row")
	}
	a := doctor.Agent{AgentStatus: install.AgentStatus{Agent: "claude-code", Detected: true}, AgentVersion: "9.9.9",
		Behaviour: row.Behaviours(), MeasuredOn: row.Measured}
	var buf bytes.Buffer
	printBehaviour(&buf, a)
	out := buf.String()
	for _, want := range []string{
		"what 9.9.9 does with each answer (conformance table, measured on " + strings.Join(row.Measured, ", "),
		"no answer (exit 1):  the tool " + row.Exit1.Value + " (measured)",
		"crash (SIGSEGV):",
		"allow:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	var none bytes.Buffer
	printBehaviour(&none, doctor.Agent{AgentVersion: "1.0.0"})
	if none.Len() != 0 {
		t.Errorf("printed a table for an agent with no row: %q", none.String())
	}
}

// TestDoctorNative: doctor reports a native rule install --native wrote
// that the user removed, an agent allow that toolguard denies (the
// built-in rules), and the HTTP hook with whether its server answers.
func TestDoctorNative(t *testing.T) {
	proj := t.TempDir()
	f, sys := newFake(t, nil, nil)
	if code := run(context.Background(), []string{"install", "--native", "--provider", "claude-code", "--dir", proj}, sys); code != 0 {
		t.Fatalf("install exit %d: %s", code, f.stderr.String())
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	file := filepath.Join(proj, ".claude", "settings.json")
	settings := `{"permissions":{"allow":["Bash(gemini hooks disable)","Bash(npm test)"]},
 "hooks":{"PreToolUse":[{"matcher":"*","hooks":[{"type":"http","url":"` + srv.URL + `/v1/hooks/claude-code","onFailure":"block"}]}]}}`
	if err := os.WriteFile(file, []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	f, sys = newFake(t, nil, nil)
	run(context.Background(), []string{"doctor", "--dir", proj, "--agent", "claude-code"}, sys)
	out := f.stdout.String()
	for _, want := range []string{
		"changed: " + file + ": permissions.deny Bash(gemini hooks disable *): written by install --native, no longer there",
		"conflict: " + file + ": permissions.allow Bash(gemini hooks disable): toolguard denies",
		"toolguard's HTTP hook: " + file + " → " + srv.URL + "/v1/hooks/claude-code (onFailure block): answered GET /healthz",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "npm test") {
		t.Errorf("Bash(npm test) reported:\n%s", out)
	}
	srv.Close()
	f, sys = newFake(t, nil, nil)
	run(context.Background(), []string{"doctor", "--dir", proj, "--agent", "claude-code"}, sys)
	if !strings.Contains(f.stdout.String(), "unreachable") {
		t.Errorf("a closed server not reported unreachable:\n%s", f.stdout.String())
	}
}
