package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/policy"
)

// policyFlags are the flags every command that loads a policy shares.
type policyFlags struct {
	files     []string // --policy FILE (repeatable)
	layers    []string // --layer NAME=FILE (repeatable)
	noBuiltin bool
	lazy      bool // decode a materialized policy's rules on demand (the hook only evaluates)
}

func (f *policyFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringArrayVar(&f.files, "policy", nil, "policy file (TOML, or materialized JSON); repeat for layers, in order")
	cmd.Flags().StringArrayVar(&f.layers, "layer", nil, "named policy layer `NAME=FILE`; repeat, in order (after --policy files)")
	cmd.Flags().BoolVar(&f.noBuiltin, "no-builtin", false, "leave out the embedded default rules")
}

// policySet is a loaded policy with the files it came from.
type policySet struct {
	pol   *policy.Policy
	files []string // absolute paths of the files in effect
}

// sources lists the policy files in effect, in order: --policy and
// --layer when given, else TOOLGUARD_POLICY, else the discovery paths
// that exist (/etc, the user's config dir, the project's .toolguard/ at
// the workspace root). Files named explicitly and the system and user
// files are trusted; the project file, and any file named explicitly that
// lies in the project, is untrusted (it only tightens) unless the user ran
// `toolguard trust` on these exact bytes.
func (f *policyFlags) sources(sys *system, project string) ([]policy.Source, error) {
	type named struct {
		layer, name, path string
		project           bool
	}
	var list []named
	for _, p := range f.files {
		list = append(list, named{path: p})
	}
	for _, l := range f.layers {
		name, file, ok := strings.Cut(l, "=")
		if !ok || name == "" || file == "" {
			return nil, usagef("--layer wants NAME=FILE, got %q", l)
		}
		list = append(list, named{layer: name, path: file})
	}
	explicit := len(list) > 0
	if !explicit {
		if env := sys.getenv("TOOLGUARD_POLICY"); env != "" {
			explicit = true
			for _, p := range filepath.SplitList(env) {
				if p != "" {
					list = append(list, named{path: p})
				}
			}
		}
	}
	if !explicit {
		for _, d := range discoveryPaths(sys, project) {
			// Lstat: a symlink is read (and refused unless it leads to a
			// regular file), so that a link to /dev/zero is an error, not
			// a file that is silently not there.
			if _, err := os.Lstat(d.path); err == nil {
				list = append(list, named{name: d.name, path: d.path, project: d.name == "project"})
			}
		}
	}
	cwd, _ := sys.getwd()
	out := make([]policy.Source, 0, len(list))
	for _, n := range list {
		path := argPath(n.path, cwd, sys.home())
		if !n.project && inRepository(path, project, sys.home()) {
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
			src.Data, err = readPolicyFile(path)
			src.Untrusted = err == nil && !isTrusted(sys, path, src.Data)
		} else {
			src, err = policySource(path)
		}
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", n.path, err)
		}
		src.Layer, src.Name, src.Path = n.layer, n.name, path
		out = append(out, src)
	}
	return out, nil
}

// inRepository reports whether path, as named or where its links lead, is
// in the project directory (the workspace root). A project that is the
// home directory or above it (no repository: a command run from ~) has no
// files of its own: the user's files there are the user's.
func inRepository(path, project, home string) bool {
	if project == "" || !filepath.IsAbs(path) || home != "" && above(project, home) {
		return false
	}
	if above(project, path) {
		return true
	}
	if r, err := filepath.EvalSymlinks(path); err == nil && above(project, r) {
		return true
	}
	if r, err := filepath.EvalSymlinks(project); err == nil && above(r, path) {
		return true
	}
	return false
}

// discovered is one place a policy is looked for, with the name its
// layer takes unless the file names itself.
type discovered struct{ name, path string }

// discoveryPaths are the places a policy is looked for when none is named:
// the system's, the user's, and the project's at the workspace root
// (never below it, never at the call's cwd).
func discoveryPaths(sys *system, project string) []discovered {
	var paths []discovered
	if sys.etc != "" {
		paths = append(paths, discovered{"system", filepath.Join(sys.etc, "toolguard", "policy.toml")})
	}
	cfg := sys.getenv("XDG_CONFIG_HOME")
	if cfg == "" && sys.home() != "" {
		cfg = filepath.Join(sys.home(), ".config")
	}
	if cfg != "" {
		paths = append(paths, discovered{"user", filepath.Join(cfg, "toolguard", "policy.toml")})
	}
	if project != "" {
		paths = append(paths, discovered{"project", filepath.Join(project, ".toolguard", "policy.toml")})
	}
	return paths
}

// load reads and compiles the policy in effect for a project directory.
func (f *policyFlags) load(sys *system, project string) (*policySet, error) {
	srcs, err := f.sources(sys, project)
	if err != nil {
		return nil, err
	}
	pol, err := policy.Load(srcs, policy.LoadOptions{NoBuiltin: f.noBuiltin, Lazy: f.lazy})
	if err != nil {
		return nil, err
	}
	ps := &policySet{pol: pol}
	for _, s := range srcs {
		ps.files = append(ps.files, s.Path)
	}
	return ps, nil
}

func expandTilde(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return home + p[1:]
	}
	return p
}
