package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
)

// Bounds of what a preview keeps of a call's texts.
const (
	previewEnds  = 200     // Write content: characters kept at each end
	previewEdit  = 1000    // each old or new string of an edit: characters kept at each end
	PreviewPatch = 4000    // a patch, an MCP input: characters kept at each end
	previewEdits = 20      // edits of a MultiEdit shown
	previewInput = 1 << 20 // inputs larger than this are not decoded for a preview
)

// approvalPreview is what the human sees of o's call: the command, the
// content written, the edits, the patch or the input, and the rules that
// asked. Every text is redacted as in the audit log and cut in the middle.
func approvalPreview(o *Outcome) *approval.Preview {
	c := o.Call
	p := &approval.Preview{Workspace: o.Workspace, PermissionMode: c.PermissionMode}
	in := previewFields(c.Input)
	switch c.Kind {
	case call.KindShell:
		p.Command = CutMiddle(audit.Redact(c.Command), PreviewPatch)
		p.Description = CutMiddle(audit.Redact(str(in, "description")), previewEnds)
	case call.KindWrite, call.KindEdit:
		if len(c.Paths) > 0 {
			p.Path = c.Paths[0].Path
		}
		previewFile(p, c, in)
	case call.KindMCP:
		p.MCPServer, p.MCPTool = c.MCPServer, c.MCPTool
		p.Input = CutMiddle(audit.Redact(string(bytes.TrimSpace(c.Input))), PreviewPatch)
	default:
		p.Input = CutMiddle(audit.Redact(string(bytes.TrimSpace(c.Input))), PreviewPatch)
	}
	if o.Res != nil {
		seen := map[string]bool{}
		for _, m := range o.Res.Matches {
			if m.Decision < call.Ask || seen[m.Rule] {
				continue
			}
			seen[m.Rule] = true
			rp := approval.RulePreview{ID: m.Rule, Decision: m.Decision.String(), Layer: m.Layer, Source: m.Source}
			if o.Set != nil && o.Set.Pol != nil {
				if r := o.Set.Pol.Rule(m.Rule); r != nil {
					rp.Justification = r.Justification
				}
			}
			p.Rules = append(p.Rules, rp)
		}
		if len(p.Rules) == 0 && o.Res.Rule != nil {
			r := o.Res.Rule
			p.Rules = append(p.Rules, approval.RulePreview{ID: r.ID, Decision: r.Decision.String(),
				Justification: r.Justification, Layer: r.Layer, Source: r.Source})
		}
	}
	return p
}

// previewFile fills in what a write or edit puts in the file, whatever
// the agent calls the fields.
func previewFile(p *approval.Preview, c call.Call, in map[string]any) {
	if content, ok := first(in, "content", "file_text", "contents", "text"); ok {
		p.Size = len(content)
		p.Content = CutMiddle(audit.Redact(content), previewEnds)
		return
	}
	edit := func(m map[string]any) (approval.EditPreview, bool) {
		old, ok1 := first(m, "old_string", "old_str", "oldText")
		new, ok2 := first(m, "new_string", "new_str", "newText", "new_source")
		if !ok1 && !ok2 {
			return approval.EditPreview{}, false
		}
		all, _ := m["replace_all"].(bool)
		return approval.EditPreview{Old: CutMiddle(audit.Redact(old), previewEdit),
			New: CutMiddle(audit.Redact(new), previewEdit), ReplaceAll: all}, true
	}
	if e, ok := edit(in); ok {
		p.Edits = append(p.Edits, e)
		return
	}
	if list, ok := in["edits"].([]any); ok {
		for i, v := range list {
			m, _ := v.(map[string]any)
			if i == previewEdits {
				p.Edits = append(p.Edits, approval.EditPreview{Old: fmt.Sprintf("…(%d more edits)", len(list)-i)})
				break
			}
			if e, ok := edit(m); ok {
				p.Edits = append(p.Edits, e)
			}
		}
		return
	}
	if patch, ok := first(in, "", "command", "patch", "input", "patchText", "diff"); ok {
		p.Patch = CutMiddle(audit.Redact(patch), PreviewPatch)
		return
	}
	p.Input = CutMiddle(audit.Redact(string(bytes.TrimSpace(c.Input))), PreviewPatch)
}

// previewFields decodes a tool input: an object's fields, or a bare string
// under "". Anything else (or too large) gives no fields.
func previewFields(raw json.RawMessage) map[string]any {
	if len(raw) == 0 || len(raw) > previewInput {
		return nil
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch v := v.(type) {
	case map[string]any:
		return v
	case string:
		return map[string]any{"": v}
	}
	return nil
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// first returns the first string field of m named in keys.
func first(m map[string]any, keys ...string) (string, bool) {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			return s, true
		}
	}
	return "", false
}

// CutMiddle keeps the first and last n characters of s and says, in the
// middle, how much was left out.
func CutMiddle(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= 2*n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + fmt.Sprintf("\n…(%d characters in all, %d not shown)…\n", total, total-2*n) + string(r[total-n:])
}
