package main

import (
	"errors"

	"github.com/toolguard/toolguard/internal/workspace"
)

// Exit codes of the commands other than hook (whose exit code is part of
// each agent's protocol and comes from the codec).
const (
	exitOK      = 0
	exitFailure = 1 // usage, validation or runtime failure
	exitAsk     = 3 // check --exit-code: the decision is ask
	exitDeny    = 4 // check --exit-code: the decision is deny
)

// exitError ends a command with a specific exit code and, optionally, a
// message for stderr.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

// usageError is a command line that cannot be run as given.
type usageError = workspace.UsageError

// hookUsageError is a hook command line that cannot be run as given (an
// unknown flag, provider or mode, extra arguments). It never ends in a
// bare exit 1 — which most agents treat as "go ahead" — but in the
// agent's deny (hookUsage).
type hookUsageError struct{ msg string }

func (e *hookUsageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return workspace.Usagef(format, a...) }

// exitCode maps an error returned by a command to the process exit code.
// It is the one place where errors become exit codes.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitFailure
}
