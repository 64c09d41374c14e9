package guard

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// maxScriptFile is the largest local script file the analysis reads: the
// analysis folds at most 64 KiB into one value, and a larger file is left
// unread (judged as before: the command that runs it, not its text).
const maxScriptFile = 64 << 10

// scriptReader gives the shell analysis the text of a local script file a
// command runs (bash c.sh, ./c.sh, source c.sh, python3 x.py): an agent
// writes c.sh with one tool call and runs it with the next, and the text
// is judged like the same commands given inline. It reads only what the
// policy lets the agent read itself (a Read of the file is pass or allow:
// no secret, no guard's key) — the analysis must not become a way to learn
// what a file holds — and only regular, text files of at most
// maxScriptFile bytes, opened without blocking. A script too large, or a
// FIFO or device, makes the command dynamic (on_dynamic). A file changed
// after the hook ran is not seen again.
func scriptReader(pol *policy.Policy, c *call.Call, env policy.Env) func(string) (string, error) {
	return func(path string) (string, error) {
		rc := call.Call{Kind: call.KindRead, Tool: "Read", Cwd: c.Cwd, SessionID: c.SessionID,
			Provider: c.Provider, ProjectDir: c.ProjectDir, PermissionMode: c.PermissionMode,
			Paths: []call.Path{{Path: path, Op: call.OpRead}}}
		if pol.Evaluate(rc, env).Decision > call.Allow {
			return "", shellparse.ErrNoScript // the read itself is the rules' to judge
		}
		return readScriptFile(path)
	}
}

// readScriptFile reads path if it is a regular file of at most
// maxScriptFile bytes. A missing file, or one with a NUL byte (a compiled
// program is no script), is shellparse.ErrNoScript; a file too large, or
// not a regular file, is an error that makes the command Dynamic.
func readScriptFile(path string) (string, error) {
	b, err := readRegular(path, maxScriptFile)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrPermission) {
		return "", shellparse.ErrNoScript // nothing a shell could run either
	}
	if err != nil {
		return "", err
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return "", shellparse.ErrNoScript
	}
	return string(b), nil
}

// readRegular reads path if it is a regular file of at most max bytes. It
// opens without blocking (a FIFO or device cannot hang the hook) and
// checks the file it opened, not the name, so a swap between a stat and
// the open changes nothing.
func readRegular(path string, max int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is larger than %d bytes", path, max)
	}
	return b, nil
}
