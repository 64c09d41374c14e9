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
// that exist (/etc, the user's config dir, the project's .toolguard/).
func (f *policyFlags) sources(sys *system, project string) ([]policy.Source, error) {
	type named struct{ layer, path string }
	var list []named
	for _, p := range f.files {
		list = append(list, named{"", p})
	}
	for _, l := range f.layers {
		name, file, ok := strings.Cut(l, "=")
		if !ok || name == "" || file == "" {
			return nil, usagef("--layer wants NAME=FILE, got %q", l)
		}
		list = append(list, named{name, file})
	}
	explicit := len(list) > 0
	if !explicit {
		if env := sys.getenv("TOOLGUARD_POLICY"); env != "" {
			explicit = true
			for _, p := range filepath.SplitList(env) {
				if p != "" {
					list = append(list, named{"", p})
				}
			}
		}
	}
	if !explicit {
		for _, p := range discoveryPaths(sys, project) {
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				list = append(list, named{"", p})
			}
		}
	}
	cwd, _ := sys.getwd()
	out := make([]policy.Source, 0, len(list))
	for _, n := range list {
		path := expandTilde(n.path, sys.home())
		path = absFrom(cwd, path)
		src, err := policy.ReadSource(n.layer, path)
		if err != nil {
			return nil, fmt.Errorf("policy %s: %w", n.path, err)
		}
		out = append(out, src)
	}
	return out, nil
}

// discoveryPaths are the places a policy is looked for when none is named.
func discoveryPaths(sys *system, project string) []string {
	var paths []string
	if sys.etc != "" {
		paths = append(paths, filepath.Join(sys.etc, "toolguard", "policy.toml"))
	}
	cfg := sys.getenv("XDG_CONFIG_HOME")
	if cfg == "" && sys.home() != "" {
		cfg = filepath.Join(sys.home(), ".config")
	}
	if cfg != "" {
		paths = append(paths, filepath.Join(cfg, "toolguard", "policy.toml"))
	}
	if project != "" {
		paths = append(paths, filepath.Join(project, ".toolguard", "policy.toml"))
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
