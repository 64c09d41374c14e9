package main

import (
	"bytes"
	"strings"
	"testing"

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
	a := doctorAgent{AgentStatus: install.AgentStatus{Agent: "claude-code", Detected: true}, AgentVersion: "9.9.9",
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
	printBehaviour(&none, doctorAgent{AgentVersion: "1.0.0"})
	if none.Len() != 0 {
		t.Errorf("printed a table for an agent with no row: %q", none.String())
	}
}
