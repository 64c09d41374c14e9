package main

import (
	"bufio"
	"errors"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/workspace"
)

// amendPolicy shows the diff of the policy file with p appended, checks
// that the result validates with its new [[test]] (guard.PlanAmend, as
// the server's inbox does), asks the human (unless yes), and writes it. It
// returns whether the file was written.
func amendPolicy(sys *system, file string, p guard.Amendment, yes bool) (bool, error) {
	plan, err := guard.PlanAmend(file, p)
	if err != nil {
		return false, err
	}
	add := strings.Split(strings.TrimSuffix(plan.Snippet, "\n"), "\n")
	fmt.Fprintf(sys.stdout, "--- %s\n+++ %s\n@@ -%d,0 +%d,%d @@\n", file, file, plan.OldLines, plan.OldLines+1, len(add))
	for _, l := range add {
		fmt.Fprintf(sys.stdout, "+%s\n", l)
	}
	if !yes {
		fmt.Fprint(sys.stdout, "write this to the policy? [y/N] ")
		line, _ := bufio.NewReader(sys.stdin).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
			fmt.Fprintln(sys.stdout, "not written")
			return false, nil
		}
	}
	if err := plan.Write(); err != nil {
		return false, err
	}
	fmt.Fprintf(sys.stdout, "wrote %s\n", file)
	return true, nil
}

// amendFor proposes, shows and (once confirmed) writes the allow rule for
// request id; nothing is approved unless it was written.
func amendFor(sys *system, st *approval.Store, id string, o *approvalsOptions) error {
	r, err := st.Get(id)
	if err != nil {
		return err
	}
	ps, err := o.load(sys, sys.env().CurrentProject())
	if err != nil {
		return fmt.Errorf("--amend: the policy does not load: %w", err)
	}
	prop, err := guard.ProposeAmend(r, ps.Pol)
	if err != nil {
		return fmt.Errorf("--amend %s: %w; nothing changed", id, err)
	}
	file := o.amendFile
	if file == "" {
		file = sys.env().UserPolicyFile()
	}
	if file == "" {
		return errors.New("--amend: no policy file: set --amend-file, XDG_CONFIG_HOME or HOME")
	}
	cwd, _ := sys.getwd()
	file = workspace.ArgPath(file, cwd, sys.home())
	written, err := amendPolicy(sys, file, prop, o.yes)
	if err != nil {
		return err
	}
	if !written {
		return &exitError{code: exitFailure, msg: "--amend: the policy was not changed and the request was not approved"}
	}
	return nil
}
