package guard

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/workspace"
)

// The human's edit of a request before approving it, shared by the CLI
// (approvals approve --edit, in an editor) and the server (the inbox's
// Edit action, POST /v1/approvals/{id}/approve with "edit").

// ErrEditDenied is the cause of JudgeEdit's error when the policy denies
// the edited call.
var ErrEditDenied = errors.New("the policy denies the edited call")

// Editable is the part of a request's call a human may edit.
type Editable struct {
	Field string // the tool input's field: command, content, new_string, …
	Text  string
	// Call is the request's call, rebuilt from its recorded input and
	// checked against its key: what the edit changes, whatever the
	// request's (agent-writable) preview says.
	Call call.Call
}

// EditableText returns the field of r's call a human may edit and its
// text. It refuses a request without a recorded tool input, and one whose
// recorded input is not the input of its call: the request file is
// agent-writable, and the edit would start from a swapped text.
func EditableText(sys System, r approval.Request) (Editable, error) {
	if r.ToolInput == "" {
		return Editable{}, fmt.Errorf("the request holds no editable input (only shell commands, Write content and a single edit's new text, without secrets, up to %d KiB, recorded by this version of the hook); approve or reject it as it is", approval.MaxToolInput>>10)
	}
	field, text, err := EditField(r.Kind, []byte(r.ToolInput))
	if err != nil {
		return Editable{}, err
	}
	c0, _, err := editedCallOf(sys, r, r.ToolInput)
	if err != nil {
		return Editable{}, err
	}
	if approval.Key(c0) != r.Key {
		return Editable{}, errors.New("the request's recorded input is not the input of its call (the request file was changed?); nothing approved")
	}
	return Editable{Field: field, Text: text, Call: c0}, nil
}

// editedCallOf builds the call the input makes, in r's context (provider,
// tool, cwd, session, permission mode), decoded by the provider's own
// codec so that its call key is the one the hook computes when the model
// makes that call.
func editedCallOf(sys System, r approval.Request, input string) (call.Call, protocol.Codec, error) {
	codec, err := protocol.Lookup(r.Provider)
	if err != nil {
		return call.Call{}, nil, err
	}
	mode := ""
	if r.Preview != nil {
		mode = r.Preview.PermissionMode
	}
	c, err := RebuildCall(codec, sys.Home(), r.Tool, r.Cwd, r.Session, mode, input)
	return c, codec, err
}

// EditResult is what JudgeEdit made of a human's edit.
type EditResult struct {
	// Edit is the edit to sign (approval.Store.ApproveEdited); nil when
	// the edit changes nothing, and the call is approved as it is.
	Edit  *approval.Edit
	Field string
	Call  call.Call // the edited call (zero when Edit is nil)
}

// JudgeEdit builds the call request r makes with edited in place of its
// editable field and judges it by the policy load returns for the call's
// project, as the hook will judge it (sel: the policy selection; the
// decision is a dry run in interactive mode, so an ask passes — the human
// approving it is here). A denied edit is an error wrapping ErrEditDenied
// with the rule's reason; nothing is signed.
func JudgeEdit(ctx context.Context, sys System, sel workspace.Selection, load func(project string) (*workspace.Set, error), r approval.Request, edited string) (EditResult, error) {
	ed, err := EditableText(sys, r)
	if err != nil {
		return EditResult{}, err
	}
	field, text := ed.Field, ed.Text
	if strings.TrimSpace(edited) == "" && strings.TrimSpace(text) != "" {
		return EditResult{}, fmt.Errorf("the edited %s is empty; nothing approved", field)
	}
	if edited == text {
		return EditResult{Field: field}, nil
	}
	input, err := WithField([]byte(r.ToolInput), field, edited)
	if err != nil {
		return EditResult{}, err
	}
	if len(input) > approval.MaxToolInput {
		return EditResult{}, fmt.Errorf("the edited input is larger than %d KiB; nothing approved", approval.MaxToolInput>>10)
	}
	c, codec, err := editedCallOf(sys, r, input)
	if err != nil {
		return EditResult{}, err
	}
	project := sys.Project(&c)
	ps, err := load(project)
	if err != nil {
		return EditResult{}, fmt.Errorf("the policy does not load, so the edited call cannot be judged: %w", err)
	}
	flags := &Options{Selection: sel, Mode: "interactive", DryRun: true}
	out := Decide(ctx, sys, Request{Options: flags, Set: ps, Codec: codec, Call: c, Project: project})
	// the policy's own decision: an ask the agent cannot put to a human is
	// a deny in out.Verdict, but the human approving it is here
	if out.Err != nil || out.Res == nil {
		return EditResult{}, fmt.Errorf("the edited call cannot be judged (%v); nothing approved", out.Err)
	}
	if out.Res.Decision == call.Deny {
		return EditResult{}, fmt.Errorf("%w: %s; nothing approved", ErrEditDenied, out.Res.Reason)
	}
	key := approval.Key(c)
	if key == r.Key {
		return EditResult{Field: field}, nil
	}
	return EditResult{Edit: &approval.Edit{Field: field, Input: input, Key: key}, Field: field, Call: c}, nil
}
