package guard

// approvals approve --edit: the human edits the command (shell), the
// content (Write) or the new string (Edit, NotebookEdit) before approving.
// The grant carries the edited input, signed (approval.Edit). The hook
// hands it to the agent as its rewrite field where that is proven
// (protocol.Rewrites); elsewhere it denies the original call and tells the
// model to run the edited one, which is then allowed by the same grant
// under its own call key — and only it. See docs/approvals.md.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

// Fields a human may edit, by kind, in the order they are looked for.
var (
	editShellFields = []string{"command"}
	editWriteFields = []string{"content", "file_text", "contents", "text"}
	editEditFields  = []string{"new_string", "new_str", "newText", "new_source"}
)

// editableInput returns the tool input of c to record on its request for
// approve --edit, or "" when c cannot be edited: not a shell, write or
// single edit; too large; or holding something the audit redactor masks
// (a secret is never written to the request file).
func editableInput(c call.Call) string {
	raw := bytes.TrimSpace(c.Input)
	if len(raw) == 0 || len(raw) > approval.MaxToolInput {
		return ""
	}
	if _, _, err := EditField(c.Kind.String(), raw); err != nil {
		return ""
	}
	s := string(raw)
	if audit.Redact(s) != s || hasSecret(raw) {
		return ""
	}
	return s
}

// hasSecret reports whether a string of the JSON value raw, decoded (a
// JSON escape can hide a secret from a redactor that reads the raw text),
// holds something the audit redactor masks.
func hasSecret(raw []byte) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return true
	}
	var walk func(v any) bool
	walk = func(v any) bool {
		switch x := v.(type) {
		case string:
			return audit.Redact(x) != x
		case []any:
			for _, e := range x {
				if walk(e) {
					return true
				}
			}
		case map[string]any:
			for k, e := range x {
				if audit.Redact(k) != k || walk(e) {
					return true
				}
			}
		}
		return false
	}
	return walk(v)
}

// EditField finds the one field of a tool input a human edits: the
// command of a shell call, the content of a write, the new string of a
// single edit. MultiEdit (a list of edits) and patches are refused: each
// of their parts must match the file as it is, and a hand-edited list or
// patch fails to apply more often than not; reject them with a reason
// the model can act on instead.
func EditField(kind string, raw []byte) (field, text string, err error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return "", "", errors.New("the tool input is not a JSON object")
	}
	var fields []string
	switch kind {
	case call.KindShell.String():
		fields = editShellFields
	case call.KindWrite.String():
		fields = editWriteFields
	case call.KindEdit.String():
		if _, ok := in["edits"]; ok {
			return "", "", errors.New("a MultiEdit cannot be edited (its edits must each match the file in turn); reject it with a reason instead")
		}
		fields = editEditFields
	default:
		return "", "", fmt.Errorf("a %s call cannot be edited (only shell commands, written content and a single edit's new text)", kind)
	}
	for _, f := range fields {
		v, ok := in[f]
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return "", "", fmt.Errorf("the tool input's %q is not a string", f)
		}
		return f, s, nil
	}
	if kind == call.KindEdit.String() {
		return "", "", errors.New("a patch cannot be edited (its hunks must apply as written); reject it with a reason instead")
	}
	return "", "", fmt.Errorf("the tool input has none of the fields %s", strings.Join(fields, ", "))
}

// WithField returns the JSON object raw with field set to text, every
// other field kept as it is.
func WithField(raw []byte, field, text string) (string, error) {
	var in map[string]json.RawMessage
	if err := json.Unmarshal(raw, &in); err != nil {
		return "", err
	}
	var v bytes.Buffer
	venc := json.NewEncoder(&v)
	venc.SetEscapeHTML(false)
	if err := venc.Encode(text); err != nil {
		return "", err
	}
	in[field] = bytes.TrimSuffix(v.Bytes(), []byte("\n"))
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(in); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// RebuildCall decodes a hook payload of the snake_case dialects (Claude
// Code, CodeBuddy, Codex, Qwen Code, toolguard's opencode plugin, Gemini)
// made of these fields. Other dialects are refused.
func RebuildCall(codec protocol.Codec, home, tool, cwd, session, mode, input string) (call.Call, error) {
	event := "PreToolUse"
	switch codec.Name() {
	case protocol.NameClaude, protocol.NameCodeBuddy, protocol.NameCodex, protocol.NameQwen, protocol.NameOpencode:
	case protocol.NameGemini:
		event = "BeforeTool"
	default:
		return call.Call{}, fmt.Errorf("--edit is not supported for %s calls", codec.Name())
	}
	payload, err := json.Marshal(map[string]any{"hook_event_name": event, "session_id": session, "cwd": cwd,
		"tool_name": tool, "tool_input": json.RawMessage(input), "permission_mode": mode})
	if err != nil {
		return call.Call{}, err
	}
	return protocol.DecodeWith(codec, payload, protocol.DecodeOptions{Home: home})
}

// applyEditedGrant turns a grant made with approve --edit into o's
// verdict for the call it was found by (res: Granted or Redirect).
func applyEditedGrant(home string, o *Outcome, res approval.Outcome) {
	e := res.Edit
	o.Approval = res.ID
	if res.Kind == approval.Granted && !res.Rewrite {
		// the model ran the edited call itself
		o.Verdict = call.Verdict{Decision: call.Allow,
			Reason: fmt.Sprintf("toolguard: allowed by approval %s (the call as a human edited it)", res.ID)}
		return
	}
	_, text, _ := EditField(o.Call.Kind.String(), []byte(e.Input))
	if res.Kind == approval.Granted {
		// the hook hands the agent the edited input; the policy judges it
		// again first (it may have changed since the approval)
		if c, err := RebuildCall(o.Codec, home, o.Call.Tool, o.Call.Cwd, o.Call.SessionID, o.Call.PermissionMode, e.Input); err != nil {
			o.Verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: approval %s edited this call, but the edited call cannot be read (%v), so it was stopped.", res.ID, err)}
			return
		} else if o.Set != nil && o.Set.Pol != nil {
			if v := o.Set.Pol.Evaluate(c, o.Env); v.Decision == call.Deny {
				o.Verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: approval %s edited this call, but the policy denies the edited call: %s", res.ID, v.Reason)}
				return
			}
		}
		o.Verdict = call.Verdict{Decision: call.Allow, UpdatedInput: json.RawMessage(e.Input),
			Reason: fmt.Sprintf("toolguard: allowed once by approval %s, as a human edited it", res.ID)}
		return
	}
	what := "run exactly this command instead, as a new call, with nothing added, removed or changed:\n" + text
	if o.Call.Kind != call.KindShell {
		what = fmt.Sprintf("make the same %s call again with %s set to exactly this text, nothing else changed:\n%s", o.Call.Tool, e.Field, text)
	}
	o.Verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: a human approved request %s with changes. "+
		"Do not retry this call as it is; %s", res.ID, what)}
}

// EditOf is the human's edit of r's grant, or nil.
func EditOf(r approval.Request) *approval.Edit {
	if r.Grant == nil {
		return nil
	}
	return r.Grant.Edit
}
