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
	"github.com/toolguard/toolguard/internal/workspace"
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

// editRequest opens the editor on request id's command or content, judges
// the edited call by the policy (guard.JudgeEdit, as the server's inbox
// does) and returns the edit to sign; nil when the human changed nothing
// (the call is approved as it is).
func editRequest(sys *system, st *approval.Store, id string, o *approvalsOptions) (*approval.Edit, error) {
	r, err := st.Get(id)
	if err != nil {
		return nil, err
	}
	ed, err := guard.EditableText(sys.guardSys(), r)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: %w", id, err)
	}
	field, text := ed.Field, ed.Text
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
	load := func(project string) (*workspace.Set, error) { return o.load(sys, project) }
	res, err := guard.JudgeEdit(context.Background(), sys.guardSys(), o.Selection, load, r, edited)
	if err != nil {
		return nil, fmt.Errorf("approve --edit %s: %w", id, err)
	}
	if res.Edit == nil {
		fmt.Fprintf(sys.stderr, "toolguard: the edit does not change the %s; approving the call as it is\n", field)
		return nil, nil
	}
	fmt.Fprintf(sys.stdout, "edited %s: %s\n", field, audit.CallSummary(res.Call, guard.SummaryMax))
	return res.Edit, nil
}
