package guard

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/call"
)

// TestPreviewFile: what a file call puts in the file reaches the preview,
// whatever the agent calls the fields.
func TestPreviewFile(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 200) + strings.Repeat("m", 100) + strings.Repeat("z", 200)
	tests := []struct {
		name, tool, input string
		kind              call.Kind
		check             func(p *approval.Preview) bool
	}{
		{"claude write", "Write", `{"file_path":"/r/a","content":"` + long + `"}`, call.KindWrite, func(p *approval.Preview) bool {
			return p.Size == 500 && strings.HasPrefix(p.Content, strings.Repeat("a", 200)+"\n…(500 characters in all, 100 not shown)…\n") &&
				strings.HasSuffix(p.Content, strings.Repeat("z", 200)) && !strings.Contains(p.Content, "m")
		}},
		{"copilot create", "create", `{"path":"/r/a","file_text":"x"}`, call.KindWrite, func(p *approval.Preview) bool {
			return p.Size == 1 && p.Content == "x"
		}},
		{"edit replace_all", "Edit", `{"file_path":"/r/a","old_string":"a","new_string":"b","replace_all":true}`, call.KindEdit, func(p *approval.Preview) bool {
			return len(p.Edits) == 1 && p.Edits[0] == approval.EditPreview{Old: "a", New: "b", ReplaceAll: true}
		}},
		{"multiedit", "MultiEdit", `{"file_path":"/r/a","edits":[{"old_string":"a","new_string":"b"},{"old_string":"c","new_string":"d"}]}`, call.KindEdit, func(p *approval.Preview) bool {
			return len(p.Edits) == 2 && p.Edits[1].Old == "c" && p.Edits[1].New == "d"
		}},
		{"notebook", "NotebookEdit", `{"notebook_path":"/r/a.ipynb","cell_id":"c","new_source":"print(1)"}`, call.KindEdit, func(p *approval.Preview) bool {
			return len(p.Edits) == 1 && p.Edits[0].New == "print(1)"
		}},
		{"codex bare patch", "apply_patch", `"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"`, call.KindEdit, func(p *approval.Preview) bool {
			return strings.Contains(p.Patch, "*** Add File: a")
		}},
		{"codex patch in command", "apply_patch", `{"command":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch\n"}`, call.KindEdit, func(p *approval.Preview) bool {
			return strings.Contains(p.Patch, "+x")
		}},
		{"unknown fields", "Frobnicate", `{"x":1}`, call.KindEdit, func(p *approval.Preview) bool {
			return p.Input == `{"x":1}`
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := &Outcome{Call: call.Call{Tool: tc.tool, Kind: tc.kind, Input: json.RawMessage(tc.input),
				Paths: []call.Path{{Path: "/r/a", Op: call.OpWrite}}}}
			p := approvalPreview(o)
			if !tc.check(p) {
				t.Errorf("preview: %+v", p)
			}
		})
	}
}
