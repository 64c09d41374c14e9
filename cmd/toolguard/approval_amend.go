package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// amendPolicy shows the diff of the policy file with p appended, checks
// that the result validates with its new [[test]], asks the human (unless
// yes), and writes it. It returns whether the file was written.
func amendPolicy(sys *system, file string, p guard.Amendment, yes bool) (bool, error) {
	old, err := os.ReadFile(file)
	mode := os.FileMode(0o600)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old = []byte("version = 1\n")
	case err != nil:
		return false, err
	default:
		if fi, err := os.Stat(file); err == nil {
			mode = fi.Mode().Perm()
		}
	}
	text := string(old)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	updated := text + p.Snippet
	pol, err := policy.Load([]policy.Source{{Path: file, Data: []byte(updated)}}, policy.LoadOptions{})
	if err != nil {
		return false, fmt.Errorf("the amended policy does not load, nothing written: %w", err)
	}
	if probs := pol.Check(); len(probs) > 0 {
		var b strings.Builder
		for _, pr := range probs {
			b.WriteString("\n  " + pr.String())
		}
		return false, fmt.Errorf("the amended policy does not validate, nothing written:%s", b.String())
	}
	oldLines := strings.Count(text, "\n")
	add := strings.Split(strings.TrimSuffix(p.Snippet, "\n"), "\n")
	fmt.Fprintf(sys.stdout, "--- %s\n+++ %s\n@@ -%d,0 +%d,%d @@\n", file, file, oldLines, oldLines+1, len(add))
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
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".policy-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(updated); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	if err := os.Rename(tmp.Name(), file); err != nil {
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
