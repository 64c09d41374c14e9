package serve

import (
	"context"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/workspace"
)

// EditText is Config.EditText: the field of r's call a human may edit,
// and its text (guard.EditableText, as approvals approve --edit).
func (e *Engine) EditText(r approval.Request) (guard.Editable, error) {
	return guard.EditableText(e.Sys, r)
}

// JudgeEdit is Config.JudgeEdit: the edited call judged by the served
// policy (guard.JudgeEdit, as approvals approve --edit judges it by the
// policy in effect). The served policy is the one loaded at start: a
// project's own policy file is not looked for per call.
func (e *Engine) JudgeEdit(ctx context.Context, r approval.Request, text string) (guard.EditResult, error) {
	load := func(string) (*workspace.Set, error) { return e.Set, nil }
	return guard.JudgeEdit(ctx, e.Sys, e.Options.Selection, load, r, text)
}

// amender is Config.PlanAmend for the policy file of serve --amend-file:
// the rule approvals approve --amend proposes (guard.ProposeAmend, the
// priorities of the served policy), checked against that file
// (guard.PlanAmend). Nil without a file: the server never writes a file
// the operator did not name.
func (e *Engine) amender(file string) func(r approval.Request) (guard.AmendPlan, error) {
	if file == "" {
		return nil
	}
	return func(r approval.Request) (guard.AmendPlan, error) {
		a, err := guard.ProposeAmend(r, e.Set.Pol)
		if err != nil {
			return guard.AmendPlan{}, err
		}
		return guard.PlanAmend(file, a)
	}
}
