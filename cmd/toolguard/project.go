package main

import (
	"path/filepath"

	"github.com/toolguard/toolguard/internal/call"
)

// projectDir is the project of the current directory: its git top level,
// else the directory itself.
func projectDir(sys *system) string {
	wd, _ := sys.getwd()
	return projectOf(wd)
}

// projectOf is the project a directory belongs to: its git top level, else
// the directory itself.
func projectOf(dir string) string {
	if top := gitTop(dir); top != "" {
		return top
	}
	return dir
}

// callProject is the project whose policy a call is decided by — the
// workspace root, never the call's cwd itself: the agent's project
// directory (payload, then environment), else the git top level above the
// call's cwd, else that cwd (else toolguard's own). A .toolguard/ below
// the root (a planted sub/.toolguard/policy.toml, then `cd sub`) is not
// discovered.
func callProject(sys *system, c *call.Call) string {
	if c.ProjectDir != "" && filepath.IsAbs(c.ProjectDir) {
		return filepath.Clean(c.ProjectDir)
	}
	for _, name := range []string{"CLAUDE_PROJECT_DIR", "CODEBUDDY_PROJECT_DIR", "GEMINI_PROJECT_DIR", "DEVIN_PROJECT_DIR"} {
		if w := sys.getenv(name); w != "" && filepath.IsAbs(w) {
			return filepath.Clean(w)
		}
	}
	dir := c.ProjectDir
	if dir == "" {
		dir = c.Cwd
	}
	if dir == "" {
		dir, _ = sys.getwd()
	}
	return projectOf(dir)
}
