package guard

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/policy"
)

// AmendPlan is an amendment checked against the policy file it goes to:
// the file with the rule appended loads and validates, its new [[test]]
// included. The CLI shows it and asks before Write; the server writes it
// at once (the human confirmed the rule in the page).
type AmendPlan struct {
	File    string
	Rule    string // the new rule's id
	Snippet string // what is appended
	// OldLines is how many lines the file had (the diff's hunk header).
	OldLines int
	old      []byte // the file as read (nil: it did not exist)
	updated  string
	mode     os.FileMode
}

// PlanAmend reads the policy file (a missing one starts as "version = 1")
// and checks that it loads and validates with a's rule and [[test]]
// appended. Nothing is written.
func PlanAmend(file string, a Amendment) (AmendPlan, error) {
	old, err := os.ReadFile(file)
	mode := os.FileMode(0o600)
	text := ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		old, text = nil, "version = 1\n"
	case err != nil:
		return AmendPlan{}, err
	default:
		fi, err := os.Stat(file)
		if err != nil {
			return AmendPlan{}, err
		}
		if !fi.Mode().IsRegular() {
			return AmendPlan{}, fmt.Errorf("%s is not a regular file", file)
		}
		mode = fi.Mode().Perm()
		text = string(old)
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	updated := text + a.Snippet
	pol, err := policy.Load([]policy.Source{{Path: file, Data: []byte(updated)}}, policy.LoadOptions{})
	if err != nil {
		return AmendPlan{}, fmt.Errorf("the amended policy does not load, nothing written: %w", err)
	}
	if probs := pol.Check(); len(probs) > 0 {
		var b strings.Builder
		for _, pr := range probs {
			b.WriteString("\n  " + pr.String())
		}
		return AmendPlan{}, fmt.Errorf("the amended policy does not validate, nothing written:%s", b.String())
	}
	return AmendPlan{File: file, Rule: a.Rule, Snippet: a.Snippet, OldLines: strings.Count(text, "\n"), old: old, updated: updated, mode: mode}, nil
}

// ErrAmendRace is Write's error when the policy file changed after
// PlanAmend read it.
var ErrAmendRace = errors.New("the policy file changed since the amendment was checked; nothing written")

// Write replaces the policy file with the amended text, atomically (a
// temporary file in the same directory, renamed), keeping the file's
// mode. It refuses, with ErrAmendRace, when the file is no longer what
// PlanAmend read: someone else changed it in between.
func (p AmendPlan) Write() error {
	now, err := os.ReadFile(p.File)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if p.old != nil {
			return ErrAmendRace
		}
	case err != nil:
		return err
	case p.old == nil || !bytes.Equal(now, p.old):
		return ErrAmendRace
	}
	if err := os.MkdirAll(filepath.Dir(p.File), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p.File), ".policy-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(p.updated); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(p.mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), p.File)
}
