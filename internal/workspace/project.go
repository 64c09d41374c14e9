package workspace

import (
	"os"
	"path/filepath"

	"github.com/toolguard/toolguard/internal/call"
)

// CurrentProject is the project of the current directory: its git top
// level, else the directory itself.
func (e Env) CurrentProject() string { return ProjectOf(e.Cwd()) }

// ProjectOf is the project a directory belongs to: its git top level, else
// the directory itself.
func ProjectOf(dir string) string {
	if top := GitTop(dir); top != "" {
		return top
	}
	return dir
}

// projectDirVar is the first absolute project directory an agent put in
// the environment (ProjectDirVars), cleaned, or "".
func (e Env) projectDirVar() string {
	for _, name := range ProjectDirVars {
		if w := e.Var(name); w != "" && filepath.IsAbs(w) {
			return filepath.Clean(w)
		}
	}
	return ""
}

// Project is the project whose policy a call is decided by — the
// workspace root, never the call's cwd itself: the agent's project
// directory (payload, then environment), else the git top level above the
// call's cwd, else that cwd (else toolguard's own). A .toolguard/ below
// the root (a planted sub/.toolguard/policy.toml, then `cd sub`) is not
// discovered.
func (e Env) Project(c *call.Call) string {
	if c.ProjectDir != "" && filepath.IsAbs(c.ProjectDir) {
		return filepath.Clean(c.ProjectDir)
	}
	if w := e.projectDirVar(); w != "" {
		return w
	}
	dir := c.ProjectDir
	if dir == "" {
		dir = c.Cwd
	}
	if dir == "" {
		dir = e.Cwd()
	}
	return ProjectOf(dir)
}

// Root picks the workspace of a call: the flag, the setting, the agent's
// project directory (payload, then environment), the git top level above
// cwd, else cwd. project is Project(c), which holds that last step
// already when the payload names no project directory.
func (e Env) Root(flag, setting string, c *call.Call, project string) string {
	home := e.Home()
	for _, w := range []string{flag, setting, c.ProjectDir} {
		if w != "" {
			return filepath.Clean(ArgPath(w, c.Cwd, home))
		}
	}
	if w := e.projectDirVar(); w != "" {
		return w
	}
	if c.Cwd == "" {
		return ""
	}
	return filepath.Clean(project)
}

// GitTop returns the nearest directory at or above dir that holds .git.
func GitTop(dir string) string {
	dir = filepath.Clean(dir)
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
