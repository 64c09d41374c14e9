package protocol

import (
	"strings"
	"testing"
)

// TestBehavioursOneSource: doctor's per-version table (Behaviours) is read
// from the same facts the e2e suite measures the real CLIs against
// (e2e/conformance_test.go checks Exit1, Timeout, Crash, … of each row):
// each printed row carries its fact's value and source, and every failure
// fact the table has is printed.
func TestBehavioursOneSource(t *testing.T) {
	t.Parallel()
	for _, r := range Table() {
		rows := map[string]Behaviour{}
		for _, b := range r.Behaviours() {
			if _, dup := rows[b.Answer]; dup {
				t.Errorf("%s: row %q twice", r.Provider, b.Answer)
			}
			rows[b.Answer] = b
		}
		for answer, f := range map[string]Fact{
			"no answer (exit 1)": r.Exit1, "no answer (timeout)": r.Timeout, "crash (SIGSEGV)": r.Crash,
			"garbage, exit 0": r.Garbage0, "garbage, exit 2": r.Exit2Garbage,
			"ask (interactive)": r.Interactive.Ask, "ask (headless)": r.Headless.Ask,
			"rewrite (shell)": r.RewriteShell, "rewrite (file tool)": r.RewriteFile, "allow": r.AllowSkipsPrompt,
		} {
			b, ok := rows[answer]
			if f.Value == "" {
				if ok {
					t.Errorf("%s: row %q printed for a fact the table lacks", r.Provider, answer)
				}
				continue
			}
			if !ok {
				t.Errorf("%s: fact %q (%s) not printed", r.Provider, answer, f.Value)
				continue
			}
			if b.Source != f.Source || b.Note != f.Note {
				t.Errorf("%s %q: source %q note %q, the table says %q %q", r.Provider, answer, b.Source, b.Note, f.Source, f.Note)
			}
			if answer != "allow" && !strings.Contains(b.Does, f.Value) {
				t.Errorf("%s %q: %q does not say the table's %q", r.Provider, answer, b.Does, f.Value)
			}
		}
	}
	c, _ := ConformanceFor(NameClaude)
	for _, b := range c.Behaviours() {
		if b.Answer == "no answer (exit 1)" && (b.Does != "the tool runs" || b.Source != "TestConformance/claude/exit-1") {
			t.Errorf("claude exit 1: %+v", b)
		}
	}
}
