package importer

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// maxFile bounds one source file: settings and rule files are small.
const maxFile = 4 << 20

// Collect reads the sources: the files named (each with its agent) when
// there are any, else every file Discover lists that exists. A named file
// that cannot be read is an error; a discovered location that does not
// exist is skipped. Paths under home are shown with ~.
func Collect(home, project string, named []Location) ([]Source, error) {
	var srcs []Source
	var probs []string
	show := func(p string) string {
		if home != "" {
			if rel, err := filepath.Rel(home, p); err == nil && !strings.HasPrefix(rel, "..") {
				return filepath.Join("~", rel)
			}
		}
		return p
	}
	if len(named) > 0 {
		for _, l := range named {
			data, err := readSmall(l.Path)
			if err != nil {
				probs = append(probs, err.Error())
				continue
			}
			scope := l.Scope
			if scope == "" {
				scope = ScopeOf(l.Agent, l.Path, home)
			}
			srcs = append(srcs, Source{Agent: l.Agent, Scope: scope, Path: show(l.Path), Data: data})
		}
	} else {
		seen := map[string]bool{}
		for _, l := range Discover(home, project) {
			paths := []string{l.Path}
			if strings.Contains(l.Path, "*") {
				m, err := filepath.Glob(l.Path)
				if err != nil {
					probs = append(probs, err.Error())
					continue
				}
				sort.Strings(m)
				paths = m
			}
			for _, p := range paths {
				// A project at the home directory: its .claude/settings.json
				// is the user's, read once.
				if seen[p] {
					continue
				}
				seen[p] = true
				data, err := readSmall(p)
				if errors.Is(err, fs.ErrNotExist) {
					continue
				}
				if err != nil {
					probs = append(probs, err.Error())
					continue
				}
				srcs = append(srcs, Source{Agent: l.Agent, Scope: l.Scope, Path: show(p), Data: data})
			}
		}
	}
	if len(probs) > 0 {
		return nil, &Error{probs}
	}
	return srcs, nil
}

func readSmall(p string) ([]byte, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", p)
	}
	if st.Size() > maxFile {
		return nil, fmt.Errorf("%s: %d bytes, more than a rules file holds (%d)", p, st.Size(), maxFile)
	}
	return os.ReadFile(p)
}

// ScopeOf guesses where an agent reads a named file from: under the
// agent's directory in home it is the user's, Claude Code's
// settings.local.json is local, Gemini's system directory is admin,
// Claude Code's managed settings are managed, the
// rest is the project's.
func ScopeOf(a Agent, path, home string) string {
	dir := map[Agent]string{Claude: ".claude", Codex: ".codex", Gemini: ".gemini"}[a]
	abs, _ := filepath.Abs(path)
	switch {
	case a == Claude && filepath.Base(path) == "settings.local.json":
		return "local"
	case home != "" && strings.HasPrefix(abs, filepath.Join(home, dir)+string(filepath.Separator)):
		return "user"
	case a == Gemini && strings.HasPrefix(abs, "/etc/gemini-cli/"):
		return "admin"
	case a == Claude && strings.HasPrefix(abs, "/etc/claude-code/"):
		return "managed"
	}
	return "project"
}
