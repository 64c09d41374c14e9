package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/policy"
)

// Selection names the policy to load: files and layers named explicitly
// (--policy, --layer), else TOOLGUARD_POLICY, else discovery.
type Selection struct {
	Files     []string // --policy FILE (repeatable)
	Layers    []string // --layer NAME=FILE (repeatable)
	NoBuiltin bool
	Lazy      bool // decode a materialized policy's rules on demand (the hook only evaluates)
}

// Set is a loaded policy with the files it came from.
type Set struct {
	Pol   *policy.Policy
	Files []string // absolute paths of the files in effect
	// Bundle is the hash of the managed policy bundle whose layers are in
	// effect after Files ("" for none; docs/bundles.md).
	Bundle string
}

// UsageError is a selection, flag or request that cannot be used as
// given: the command line's fault, not the files'.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a UsageError.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }

// sources lists the policy files in effect, in order: --policy and
// --layer when given, else TOOLGUARD_POLICY, else the discovery paths
// that exist (/etc, the user's config dir, the project's .toolguard/ at
// the workspace root). Files named explicitly and the system and user
// files are trusted; the project file, and any file named explicitly that
// lies in the project, is untrusted (it only tightens) unless the user ran
// `toolguard trust` on these exact bytes.
func (e Env) Sources(f Selection, project string) ([]policy.Source, error) {
	type named struct {
		layer, name, path string
		project           bool
	}
	var list []named
	for _, p := range f.Files {
		list = append(list, named{path: p})
	}
	for _, l := range f.Layers {
		name, file, ok := strings.Cut(l, "=")
		if !ok || name == "" || file == "" {
			return nil, Usagef("--layer wants NAME=FILE, got %q", l)
		}
		list = append(list, named{layer: name, path: file})
	}
	explicit := len(list) > 0
	if !explicit {
		if env := e.Var("TOOLGUARD_POLICY"); env != "" {
			explicit = true
			for _, p := range filepath.SplitList(env) {
				if p != "" {
					list = append(list, named{path: p})
				}
			}
		}
	}
	if !explicit {
		for _, d := range e.Discovery(project) {
			// Lstat: a symlink is read (and refused unless it leads to a
			// regular file), so that a link to /dev/zero is an error, not
			// a file that is silently not there.
			if _, err := os.Lstat(d.Path); err == nil {
				list = append(list, named{name: d.Name, path: d.Path, project: d.Name == "project"})
			}
		}
	}
	cwd, home := e.Cwd(), e.Home()
	out := make([]policy.Source, 0, len(list))
	for _, n := range list {
		path := ArgPath(n.path, cwd, home)
		if !n.project && InRepository(path, project, home) {
			// Named explicitly, but a file of the repository: a cloned
			// project's settings can name it (Claude Code's "env" sets
			// TOOLGUARD_POLICY for every hook, the user's too; a project
			// hook entry can pass --policy). It is trusted like the
			// discovered project file: only after `toolguard trust`.
			n.project = true
		}
		var src policy.Source
		var err error
		if n.project {
			// Trust is over the bytes: a project file is read in full.
			src.Data, err = ReadPolicyFile(path)
			src.Untrusted = err == nil && !e.IsTrusted(path, src.Data)
		} else {
			src, err = PolicySource(path)
		}
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", n.path, err)
		}
		src.Layer, src.Name, src.Path = n.layer, n.name, path
		out = append(out, src)
	}
	return out, nil
}

// InRepository reports whether path, as named or where its links lead, is
// in the project directory (the workspace root). A project that is the
// home directory or above it (no repository: a command run from ~) has no
// files of its own: the user's files there are the user's.
func InRepository(path, project, home string) bool {
	if project == "" || !filepath.IsAbs(path) || home != "" && Above(project, home) {
		return false
	}
	if Above(project, path) {
		return true
	}
	if r, err := filepath.EvalSymlinks(path); err == nil && Above(project, r) {
		return true
	}
	if r, err := filepath.EvalSymlinks(project); err == nil && Above(r, path) {
		return true
	}
	return false
}

// Discovered is one place a policy is looked for, with the name its
// layer takes unless the file names itself.
type Discovered struct{ Name, Path string }

// Discovery lists the places a policy is looked for when none is named:
// the system's, the user's, and the project's at the workspace root
// (never below it, never at the call's cwd).
func (e Env) Discovery(project string) []Discovered {
	var paths []Discovered
	if e.Etc != "" {
		paths = append(paths, Discovered{"system", filepath.Join(e.Etc, "toolguard", "policy.toml")})
	}
	if p := e.UserPolicyFile(); p != "" {
		paths = append(paths, Discovered{"user", p})
	}
	if project != "" {
		paths = append(paths, Discovered{"project", filepath.Join(project, ".toolguard", "policy.toml")})
	}
	return paths
}

// Load reads and compiles the policy in effect for a project directory.
func (e Env) Load(f Selection, project string) (*Set, error) {
	srcs, err := e.Sources(f, project)
	if err != nil {
		return nil, err
	}
	return LoadSources(f, srcs)
}

// LoadSources compiles srcs (Env.Sources, and the layers of a managed
// policy bundle after them: internal/guard's LoadPolicy) as Load does.
func LoadSources(f Selection, srcs []policy.Source) (*Set, error) {
	pol, err := policy.Load(srcs, policy.LoadOptions{NoBuiltin: f.NoBuiltin, Lazy: f.Lazy})
	if err != nil {
		return nil, err
	}
	ps := &Set{Pol: pol}
	for _, s := range srcs {
		ps.Files = append(ps.Files, s.Path)
	}
	return ps, nil
}

// Above reports whether dir is p or a directory above it.
func Above(dir, p string) bool {
	if p == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
