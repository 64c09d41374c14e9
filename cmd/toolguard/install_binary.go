package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/workspace"
)

// installBinary is the program the hook command runs: "toolguard" with
// --portable; --command as given (absolute, or found on PATH); else the
// path this binary was started by. Anything but --portable must answer
// `version` as toolguard, and must not be in Go's build cache.
func installBinary(sys *system, o *installOptions) (string, error) {
	if o.portable {
		return "toolguard", nil
	}
	var bin string
	if o.command != "" {
		cwd, _ := sys.getwd()
		bin = workspace.ExpandTilde(o.command, sys.home())
		if !strings.ContainsRune(bin, filepath.Separator) {
			p, err := exec.LookPath(bin)
			if err != nil {
				return "", fmt.Errorf("--command %s: not found on PATH: %v", o.command, err)
			}
			bin = p
		}
		bin = workspace.AbsFrom(cwd, bin)
	} else {
		exe, err := sys.executable()
		if err != nil {
			return "", fmt.Errorf("cannot find this binary's path (%v); pass --command", err)
		}
		bin = stableBinary(sys, exe)
	}
	if cache := buildCache(sys, bin); cache != "" {
		return "", fmt.Errorf("%s is in Go's build cache or a `go run` work directory (%s): `go run` builds a binary that is deleted later, and the hook would then fail open in most agents; "+
			"build or install toolguard (go build -o ~/bin/toolguard ./cmd/toolguard, go install …) and run install with that binary, or pass --command PATH", bin, cache)
	}
	if _, err := askVersion(bin); err != nil {
		return "", fmt.Errorf("%s is not a working toolguard, nothing was written: %v", bin, err)
	}
	return bin, nil
}

// stableBinary prefers the path this process was started by (argv[0],
// looked up on PATH when it is a bare name) over os.Executable's, when
// both are the same file: a package manager's symlink
// (/usr/local/bin/toolguard -> ../Cellar/toolguard/1.2/bin/toolguard)
// survives upgrades, its versioned target does not.
func stableBinary(sys *system, exe string) string {
	a := argv0()
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
	cwd, _ := sys.getwd()
	a = filepath.Clean(workspace.AbsFrom(cwd, a))
	fa, err1 := os.Stat(a)
	fe, err2 := os.Stat(exe)
	if err1 == nil && err2 == nil && os.SameFile(fa, fe) {
		return a
	}
	return exe
}

// argv0 is the name this process was started by (tests replace it).
var argv0 = func() string {
	if len(os.Args) == 0 {
		return ""
	}
	return os.Args[0]
}

// buildCache returns the Go build cache or go-build work directory bin
// (or its target) lies in, or "".
func buildCache(sys *system, bin string) string {
	paths := []string{bin}
	if r, err := filepath.EvalSymlinks(bin); err == nil && r != bin {
		paths = append(paths, r)
	}
	var caches []string
	if c := sys.getenv("GOCACHE"); c != "" && c != "off" {
		caches = append(caches, c)
	}
	if d, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(d, "go-build"))
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

// askVersion runs `bin version` and returns its first line when it is
// toolguard's ("toolguard …"); a missing binary, a failure or another
// answer is an error.
func askVersion(bin string) (string, error) {
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
		return "", fmt.Errorf("`%s version` answered %q, not toolguard's version line", bin, truncateLine(line, 80))
	}
	return line, nil
}

func truncateLine(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
