package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
	"github.com/toolguard/toolguard/tools/hookbench/policygen"
)

// materialized writes a materialized policy of n generated rules.
func materialized(t *testing.T, n int) (string, []byte) {
	t.Helper()
	p, err := policy.Load([]policy.Source{{Path: "org.toml", Data: []byte(policygen.TOML(n))}}, policy.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "policy.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, data
}

var pastTime = time.Now().Add(-time.Hour)

var pushForce = call.Call{Tool: "Bash", Kind: call.KindShell, Cwd: "/home/u/proj", Command: "git push --force origin main", Shell: "bash"}

// TestPolicySourceInPlace: a large materialized policy is read in place
// (its rules decoded as calls reach them) and decides as the whole file
// does; smaller files and TOML are read in full.
func TestPolicySourceInPlace(t *testing.T) {
	path, data := materialized(t, 2000)
	if len(data) < workspace.ReadInPlaceMin {
		t.Fatalf("the generated policy is %d bytes, below %d", len(data), workspace.ReadInPlaceMin)
	}
	src, err := workspace.PolicySource(path)
	if err != nil || src.File == nil || src.Data != nil {
		t.Fatalf("policySource: file %v, %d bytes, %v", src.File != nil, len(src.Data), err)
	}
	p, err := policy.Load([]policy.Source{src}, policy.LoadOptions{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	env := policy.Env{Home: "/home/u", Workspace: "/home/u/proj"}
	if r := p.Evaluate(pushForce, env); r.Decision != call.Deny || r.Cause == policy.CauseError {
		t.Fatalf("git push --force: %v (%s) %q", r.Decision, r.Cause, r.Reason)
	}
	// Not lazy (check, rules): the same file is read in full through it.
	full, err := policy.Load([]policy.Source{src}, policy.LoadOptions{NoBuiltin: true})
	if err != nil || full.RuleCount() != p.RuleCount() {
		t.Fatalf("full load: %v, %d rules vs %d", err, full.RuleCount(), p.RuleCount())
	}
	// A large JSON file not in the indexed layout is read in place too,
	// and loaded in full from it.
	indented := filepath.Join(t.TempDir(), "indented.json")
	if err := os.WriteFile(indented, append([]byte("{\n  \"version\": 1"), append(bytes.Repeat([]byte(" "), workspace.ReadInPlaceMin), '}')...), 0o644); err != nil {
		t.Fatal(err)
	}
	if src, err := workspace.PolicySource(indented); err != nil || src.File == nil {
		t.Errorf("indented.json: in place %v, %v", src.File != nil, err)
	} else if p, err := policy.Load([]policy.Source{src}, policy.LoadOptions{Lazy: true}); err != nil || p.RuleCount() == 0 {
		t.Errorf("indented.json: %v, %d rules (want the builtin ones)", err, p.RuleCount())
	}
	for name, data := range map[string][]byte{
		"small.json": []byte(`{"version":1}`),
		"big.toml":   append([]byte("version = 1\n"), bytes.Repeat([]byte("# pad\n"), workspace.ReadInPlaceMin/6+1)...),
	} {
		f := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(f, data, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(f, pastTime, pastTime)
		got, err := workspace.PolicySource(f)
		if err != nil || got.File != nil || !bytes.Equal(got.Data, data) {
			t.Errorf("%s: %d bytes, in place %v, %v; want the file's %d bytes", name, len(got.Data), got.File != nil, err, len(data))
		}
	}
}

// TestPolicyTruncatedInUse: a policy read in place that is cut short (or
// rewritten) under the hook gives the call on_error (deny), not a crash
// and not a decision from another file's rules.
func TestPolicyTruncatedInUse(t *testing.T) {
	path, data := materialized(t, 2000)
	src, err := workspace.PolicySource(path)
	if err != nil || src.File == nil {
		t.Fatal(err)
	}
	p, err := policy.Load([]policy.Source{src}, policy.LoadOptions{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, int64(bytes.IndexByte(data, '\n')+1)); err != nil {
		t.Fatal(err)
	}
	r := p.Evaluate(pushForce, policy.Env{Home: "/home/u", Workspace: "/home/u/proj"})
	if r.Decision != call.Deny || r.Cause != policy.CauseError {
		t.Fatalf("truncated policy: %v (%s) %q, want the on_error deny", r.Decision, r.Cause, r.Reason)
	}
	// Through the hook, for two dialects, a file that is cut short before
	// the hook starts is not the layout: the full decode reports it.
	for _, agent := range []string{"claude-code", "gemini"} {
		f, sys := newFake(t, payload(agent, "/home/u/proj", "git status"), nil)
		code := run(context.Background(), []string{"hook", "--provider", agent, "--policy", path}, sys)
		if got := replyDecision(t, agent, f.stdout.String()); got != "deny" || code != 0 || !strings.Contains(f.stderr.String(), "does not load") {
			t.Errorf("%s: %q exit %d, stderr %q", agent, got, code, f.stderr.String())
		}
	}
}
