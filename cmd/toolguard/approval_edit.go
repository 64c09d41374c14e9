package main

// approvals approve --edit: the human edits the command (shell), the
// content (Write) or the new string (Edit, NotebookEdit) before approving.
// The grant carries the edited input, signed (approval.Edit). The hook
// hands it to the agent as its rewrite field where that is proven
// (protocol.Rewrites); elsewhere it denies the original call and tells the
// model to run the edited one, which is then allowed by the same grant
// under its own call key — and only it. See docs/approvals.md.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/protocol"
)

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
	c, err := guard.RebuildCall(codec, sys.home(), r.Tool, r.Cwd, r.Session, mode, input)
	return c, codec, err
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
	field, text, err := guard.EditField(r.Kind, []byte(r.ToolInput))
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
	input, err := guard.WithField([]byte(r.ToolInput), field, edited)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: %v", id, err)
	}
	c, codec, err := editedCallOf(sys, r, input)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: %v", id, err)
	}
	// the edited call is judged by the policy, as the hook will judge it
	project := sys.env().Project(&c)
	ps, err := o.load(sys, project)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: the policy does not load, so the edited call cannot be judged: %w", id, err)
	}
	flags := &guard.Options{Selection: o.Selection, Mode: "interactive", DryRun: true}
	out := guard.Decide(context.Background(), sys.guardSys(), guard.Request{Options: flags, Set: ps, Codec: codec, Call: c, Project: project})
	// the policy's own decision: an ask the agent cannot put to a human is
	// a deny in out.verdict, but the human approving it is here
	if out.Err != nil || out.Res == nil {
		return nil, fmt.Errorf("approve --edit %s: the edited call cannot be judged (%v); nothing approved", id, out.Err)
	}
	if out.Res.Decision == call.Deny {
		return nil, fmt.Errorf("approve --edit %s: the policy denies the edited call: %s; nothing approved", id, out.Res.Reason)
	}
	key := approval.Key(c)
	if key == r.Key {
		fmt.Fprintf(sys.stderr, "toolguard: the edit does not change the call; approving it as it is\n")
		return nil, nil
	}
	fmt.Fprintf(sys.stdout, "edited %s: %s\n", field, audit.CallSummary(c, guard.SummaryMax))
	return &approval.Edit{Field: field, Input: input, Key: key}, nil
}
