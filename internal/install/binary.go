package install

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// BinaryOptions are what Binary needs from the process: the install
// command's --portable and --command, and where this binary runs from.
type BinaryOptions struct {
	Portable bool
	Command  string // --command: absolute, relative to Cwd, ~/…, or a name on PATH
	Cwd      string
	Home     string
	// Executable is os.Executable; Argv0 the name the process was started
	// by (os.Args[0]).
	Executable func() (string, error)
	Argv0      string
	// Caches are the Go build caches a binary must not lie in ($GOCACHE,
	// <user cache dir>/go-build).
	Caches []string
}

// Binary is the program the hook command runs: "toolguard" with
// --portable; --command as given (absolute, or found on PATH); else the
// path this binary was started by. Anything but --portable must answer
// `version` as toolguard, and must not be in Go's build cache.
func Binary(o BinaryOptions) (string, error) {
	if o.Portable {
		return "toolguard", nil
	}
	var bin string
	if o.Command != "" {
		bin = o.Command
		if o.Home != "" && (bin == "~" || strings.HasPrefix(bin, "~/")) {
			bin = o.Home + bin[1:]
		}
		if !strings.ContainsRune(bin, filepath.Separator) {
			p, err := exec.LookPath(bin)
			if err != nil {
				return "", fmt.Errorf("--command %s: not found on PATH: %v", o.Command, err)
			}
			bin = p
		}
		if !filepath.IsAbs(bin) {
			bin = filepath.Join(o.Cwd, bin)
		}
	} else {
		exe, err := o.Executable()
		if err != nil {
			return "", fmt.Errorf("cannot find this binary's path (%v); pass --command", err)
		}
		bin = StableBinary(exe, o.Argv0, o.Cwd)
	}
	if cache := buildCache(bin, o.Caches); cache != "" {
		return "", fmt.Errorf("%s is in Go's build cache or a `go run` work directory (%s): `go run` builds a binary that is deleted later, and the hook would then fail open in most agents; "+
			"build or install toolguard (go build -o ~/bin/toolguard ./cmd/toolguard, go install …) and run install with that binary, or pass --command PATH", bin, cache)
	}
	if _, err := AskVersion(bin); err != nil {
		return "", fmt.Errorf("%s is not a working toolguard, nothing was written: %v", bin, err)
	}
	return bin, nil
}

// StableBinary prefers the path this process was started by (argv0,
// looked up on PATH when it is a bare name) over os.Executable's, when
// both are the same file: a package manager's symlink
// (/usr/local/bin/toolguard -> ../Cellar/toolguard/1.2/bin/toolguard)
// survives upgrades, its versioned target does not.
func StableBinary(exe, argv0, cwd string) string {
	a := argv0
	if a == "" {
		return exe
	}
	if !strings.ContainsRune(a, filepath.Separator) {
		p, err := exec.LookPath(a)
		if err != nil {
			return exe
		}
		a = p
	}
	if !filepath.IsAbs(a) {
		a = filepath.Join(cwd, a)
	}
	a = filepath.Clean(a)
	fa, err1 := os.Stat(a)
	fe, err2 := os.Stat(exe)
	if err1 == nil && err2 == nil && os.SameFile(fa, fe) {
		return a
	}
	return exe
}

// buildCache returns the Go build cache or go-build work directory bin
// (or its target) lies in, or "".
func buildCache(bin string, caches []string) string {
	paths := []string{bin}
	if r, err := filepath.EvalSymlinks(bin); err == nil && r != bin {
		paths = append(paths, r)
	}
	for _, p := range paths {
		for _, c := range caches {
			if rel, err := filepath.Rel(c, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return c
			}
		}
		for _, part := range strings.Split(filepath.ToSlash(p), "/") {
			if isGoBuildDir(part) {
				return part
			}
		}
	}
	return ""
}

// isGoBuildDir: the build cache's "go-build", or a `go run` work directory
// ("go-build" and digits, in the temp dir).
func isGoBuildDir(name string) bool {
	rest, ok := strings.CutPrefix(name, "go-build")
	return ok && strings.Trim(rest, "0123456789") == ""
}

// AskVersion runs `bin version` and returns its first line when it is
// toolguard's ("toolguard …"); a missing binary, a failure or another
// answer is an error.
func AskVersion(bin string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "version")
	cmd.Stdin = nil
	out, err := cmd.Output()
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	if ctx.Err() != nil {
		return "", fmt.Errorf("`%s version` did not answer within 10 s", bin)
	}
	if err != nil {
		return "", fmt.Errorf("`%s version`: %v", bin, err)
	}
	if !strings.HasPrefix(line, "toolguard ") {
		return "", fmt.Errorf("`%s version` answered %q, not toolguard's version line", bin, TruncateLine(line, 80))
	}
	return line, nil
}

// TruncateLine cuts s to n bytes, marking the cut with "…".
func TruncateLine(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
