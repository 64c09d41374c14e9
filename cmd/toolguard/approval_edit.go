package main

// approvals approve --edit: the human edits the command (shell), the
// content (Write) or the new string (Edit, NotebookEdit) before approving.
// The grant carries the edited input, signed (approval.Edit). The hook
// hands it to the agent as its rewrite field where that is proven
// (protocol.Rewrites); elsewhere it denies the original call and tells the
// model to run the edited one, which is then allowed by the same grant
// under its own call key — and only it. See docs/approvals.md.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	if _, _, err := editField(c.Kind.String(), raw); err != nil {
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

// editField finds the one field of a tool input a human edits: the
// command of a shell call, the content of a write, the new string of a
// single edit. MultiEdit (a list of edits) and patches are refused: each
// of their parts must match the file as it is, and a hand-edited list or
// patch fails to apply more often than not; reject them with a reason
// the model can act on instead.
func editField(kind string, raw []byte) (field, text string, err error) {
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

// withField returns the JSON object raw with field set to text, every
// other field kept as it is.
func withField(raw []byte, field, text string) (string, error) {
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

// editorCommand is what approve --edit runs: $VISUAL, else $EDITOR, else
// vi; "" when there is neither a terminal nor an editor set.
func editorCommand(sys *system) string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(sys.getenv(v)); e != "" {
			return e
		}
	}
	if sys.isTerminal() {
		return "vi"
	}
	return ""
}

// runEditor lets the human edit text in a temporary file (suffix: the
// file's extension, for the editor's syntax highlighting) and returns what
// was saved. The editor runs through sh, as git runs it, so EDITOR may
// hold arguments ("code --wait"). A failing editor is an error.
func runEditor(sys *system, editor, text, suffix string) (string, error) {
	f, err := os.CreateTemp("", "toolguard-edit-*"+suffix)
	if err != nil {
		return "", err
	}
	path := f.Name()
	defer os.Remove(path)
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	cmd := exec.Command("/bin/sh", "-c", editor+` "$@"`, editor, path)
	cmd.Stdout, cmd.Stderr = sys.stderr, sys.stderr
	if sys.isTerminal() {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("the editor (%s) failed: %v; nothing approved", editor, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	out := string(data)
	// editors end the file with a newline the text did not have
	if !strings.HasSuffix(text, "\n") {
		out = strings.TrimSuffix(strings.TrimSuffix(out, "\n"), "\r")
	}
	return out, nil
}

// editedCallOf builds the call the edited input makes, in r's context
// (provider, tool, cwd, session, permission mode), decoded by the
// provider's own codec so that its call key is the one the hook computes
// when the model makes that call.
func editedCallOf(sys *system, r approval.Request, input string) (call.Call, protocol.Codec, error) {
	codec, err := protocol.Lookup(r.Provider)
	if err != nil {
		return call.Call{}, nil, err
	}
	mode := ""
	if r.Preview != nil {
		mode = r.Preview.PermissionMode
	}
	c, err := rebuildCall(codec, sys.home(), r.Tool, r.Cwd, r.Session, mode, input)
	return c, codec, err
}

// rebuildCall decodes a hook payload of the snake_case dialects (Claude
// Code, CodeBuddy, Codex, Qwen Code, toolguard's opencode plugin, Gemini)
// made of these fields. Other dialects are refused.
func rebuildCall(codec protocol.Codec, home, tool, cwd, session, mode, input string) (call.Call, error) {
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

// editRequest opens the editor on request id's command or content, judges
// the edited call by the policy and returns the edit to sign; nil when
// the human changed nothing (the call is approved as it is).
func editRequest(sys *system, st *approval.Store, id string, o *approvalsOptions) (*approval.Edit, error) {
	r, err := st.Get(id)
	if err != nil {
		return nil, err
	}
	if r.ToolInput == "" {
		return nil, fmt.Errorf("approve --edit %s: the request holds no editable input (only shell commands, Write content and a single edit's new text, without secrets, up to %d KiB, recorded by this version of the hook); approve or reject it as it is", id, approval.MaxToolInput>>10)
	}
	field, text, err := editField(r.Kind, []byte(r.ToolInput))
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: %v", id, err)
	}
	// the recorded input must be the call's own: the request file is
	// agent-writable, and the editor would start from a swapped text
	if c0, _, err := editedCallOf(sys, r, r.ToolInput); err != nil {
		return nil, fmt.Errorf("approve --edit %s: %v", id, err)
	} else if approval.Key(c0) != r.Key {
		return nil, fmt.Errorf("approve --edit %s: the request's recorded input is not the input of its call (the request file was changed?); nothing approved", id)
	}
	editor := editorCommand(sys)
	if editor == "" {
		return nil, fmt.Errorf("approve --edit %s: stdin is not a terminal and neither $VISUAL nor $EDITOR is set: nothing to edit with", id)
	}
	suffix := ".txt"
	if r.Kind == call.KindShell.String() {
		suffix = ".sh"
	} else if r.Preview != nil && r.Preview.Path != "" {
		if ext := filepath.Ext(r.Preview.Path); ext != "" && len(ext) <= 10 {
			suffix = ext
		}
	}
	edited, err := runEditor(sys, editor, text, suffix)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: %w", id, err)
	}
	if strings.TrimSpace(edited) == "" && strings.TrimSpace(text) != "" {
		return nil, fmt.Errorf("approve --edit %s: the edited %s is empty; nothing approved", id, field)
	}
	if edited == text {
		fmt.Fprintf(sys.stderr, "toolguard: the %s is unchanged; approving the call as it is\n", field)
		return nil, nil
	}
	input, err := withField([]byte(r.ToolInput), field, edited)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: %v", id, err)
	}
	c, codec, err := editedCallOf(sys, r, input)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: %v", id, err)
	}
	// the edited call is judged by the policy, as the hook will judge it
	project := callProject(sys, &c)
	ps, err := o.load(sys, project)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: the policy does not load, so the edited call cannot be judged: %w", id, err)
	}
	flags := &decideFlags{policyFlags: o.policyFlags, mode: "interactive", dryRun: true}
	out := decideCall(context.Background(), sys, flags, ps, codec, c, project)
	// the policy's own decision: an ask the agent cannot put to a human is
	// a deny in out.verdict, but the human approving it is here
	if out.err != nil || out.res == nil {
		return nil, fmt.Errorf("approve --edit %s: the edited call cannot be judged (%v); nothing approved", id, out.err)
	}
	if out.res.Decision == call.Deny {
		return nil, fmt.Errorf("approve --edit %s: the policy denies the edited call: %s; nothing approved", id, out.res.Reason)
	}
	key := approval.Key(c)
	if key == r.Key {
		fmt.Fprintf(sys.stderr, "toolguard: the edit does not change the call; approving it as it is\n")
		return nil, nil
	}
	fmt.Fprintf(sys.stdout, "edited %s: %s\n", field, audit.CallSummary(c, summaryMax))
	return &approval.Edit{Field: field, Input: input, Key: key}, nil
}

// applyEditedGrant turns a grant made with approve --edit into o's
// verdict for the call it was found by (res: Granted or Redirect).
func applyEditedGrant(sys *system, o *outcome, res approval.Outcome) {
	e := res.Edit
	o.approval = res.ID
	if res.Kind == approval.Granted && !res.Rewrite {
		// the model ran the edited call itself
		o.verdict = call.Verdict{Decision: call.Allow,
			Reason: fmt.Sprintf("toolguard: allowed by approval %s (the call as a human edited it)", res.ID)}
		return
	}
	_, text, _ := editField(o.call.Kind.String(), []byte(e.Input))
	if res.Kind == approval.Granted {
		// the hook hands the agent the edited input; the policy judges it
		// again first (it may have changed since the approval)
		if c, err := rebuildCall(o.codec, sys.home(), o.call.Tool, o.call.Cwd, o.call.SessionID, o.call.PermissionMode, e.Input); err != nil {
			o.verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: approval %s edited this call, but the edited call cannot be read (%v), so it was stopped.", res.ID, err)}
			return
		} else if o.ps != nil && o.ps.pol != nil {
			if v := o.ps.pol.Evaluate(c, o.env); v.Decision == call.Deny {
				o.verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: approval %s edited this call, but the policy denies the edited call: %s", res.ID, v.Reason)}
				return
			}
		}
		o.verdict = call.Verdict{Decision: call.Allow, UpdatedInput: json.RawMessage(e.Input),
			Reason: fmt.Sprintf("toolguard: allowed once by approval %s, as a human edited it", res.ID)}
		return
	}
	what := "run exactly this command instead, as a new call, with nothing added, removed or changed:\n" + text
	if o.call.Kind != call.KindShell {
		what = fmt.Sprintf("make the same %s call again with %s set to exactly this text, nothing else changed:\n%s", o.call.Tool, e.Field, text)
	}
	o.verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: a human approved request %s with changes. "+
		"Do not retry this call as it is; %s", res.ID, what)}
}

// editOf is the human's edit of r's grant, or nil.
func editOf(r approval.Request) *approval.Edit {
	if r.Grant == nil {
		return nil
	}
	return r.Grant.Edit
}
