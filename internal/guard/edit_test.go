package guard

import (
	"encoding/json"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// TestEditableInput: what a request records for approve --edit. Never a
// secret, even one hidden from the redactor by a JSON escape; never a
// MultiEdit, a patch or another kind of call.
func TestEditableInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		kind  call.Kind
		input string
		want  bool
	}{
		{"shell", call.KindShell, `{"command":"git tag v1","description":"Tag"}`, true},
		{"write", call.KindWrite, `{"file_path":"/p/a","content":"x\n"}`, true},
		{"edit", call.KindEdit, `{"file_path":"/p/a","old_string":"a","new_string":"b"}`, true},
		{"secret", call.KindShell, `{"command":"curl -u admin:hunter2secret https://x.example/"}`, false},
		{"escaped secret", call.KindShell, `{"command":"curl -u admin:\u0068unter2secret https://x.example/"}`, false},
		{"secret in another field", call.KindWrite, `{"file_path":"/p/a","content":"x","note":"ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`, false},
		{"multiedit", call.KindEdit, `{"file_path":"/p/a","edits":[{"old_string":"a","new_string":"b"}]}`, false},
		{"patch", call.KindEdit, `{"command":"*** Begin Patch\n*** End Patch\n"}`, false},
		{"mcp", call.KindMCP, `{"q":"x"}`, false},
		{"not an object", call.KindShell, `"git tag v1"`, false},
		{"command not a string", call.KindShell, `{"command":["git","tag"]}`, false},
	}
	for _, tt := range tests {
		got := editableInput(call.Call{Kind: tt.kind, Input: json.RawMessage(tt.input)})
		if (got != "") != tt.want {
			t.Errorf("%s: editableInput = %q, want recorded %v", tt.name, got, tt.want)
		}
	}
}

// TestWithField: the edited field replaces the old one; every other field
// is kept.
func TestWithField(t *testing.T) {
	t.Parallel()
	got, err := WithField([]byte(`{"command":"git tag v1","timeout":120,"description":"x <y>"}`), "command", "git tag v1.0.1 && echo '<ok>'")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"command":"git tag v1.0.1 && echo '<ok>'","description":"x <y>","timeout":120}`
	if got != want {
		t.Errorf("withField = %s, want %s", got, want)
	}
}
