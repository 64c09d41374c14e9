package guard

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/shellparse"
)

// Glob limits: a shell glob in a hook call is expanded to at most
// globMaxMatches paths, reading at most globMaxNames directory entries
// and globMaxBytes bytes of names and paths in all (directories are read
// globChunk names at a time); past them the paths found so far are the
// targets (and the glob's own text, as always).
const (
	globMaxMatches = 256
	globMaxNames   = 20000
	globMaxBytes   = 2 << 20
	globChunk      = 512
)

// ExpandGlob expands an absolute path holding shell wildcards (*, ?,
// [...]) to the existing paths it names, the way bash does without
// dotglob or globstar: a wildcard at the start of a name does not match a
// leading dot, ** is *, and [!…] negates. It reads the directories the
// pattern walks through, bounded (globMaxMatches, globMaxNames); complete
// is false when a bound cut the expansion short. A pattern that names
// nothing gives nil (bash then passes the pattern itself). This is
// policy.Env.Glob for the hook (decide.go): the policy package reads no
// directory itself.
func ExpandGlob(pattern string) (paths []string, complete bool) {
	if !filepath.IsAbs(pattern) || !hasGlobMeta(pattern) {
		return nil, true
	}
	parts := strings.Split(strings.TrimPrefix(filepath.Clean(pattern), "/"), "/")
	g := globber{names: globMaxNames, bytes: globMaxBytes}
	g.walk("/", parts)
	return g.out, !g.cut
}

// hasGlobMeta reports a path with shell wildcards: *, ? or [ (as
// policy's hasGlobMeta, which decides when Evaluate calls Env.Glob).
func hasGlobMeta(p string) bool {
	return strings.ContainsAny(p, "*?[")
}

type globber struct {
	out   []string
	names int  // directory entries still allowed to read
	bytes int  // bytes of names and paths still allowed
	cut   bool // a bound stopped the expansion
}

func (g *globber) walk(dir string, parts []string) {
	if len(parts) == 0 {
		return
	}
	if len(g.out) >= globMaxMatches || g.names <= 0 || g.bytes <= 0 {
		g.cut = true
		return
	}
	part, rest := parts[0], parts[1:]
	if !hasGlobMeta(part) {
		next := filepath.Join(dir, shellparse.Unbackslash(part))
		if len(rest) == 0 {
			if _, err := os.Lstat(next); err == nil {
				g.add(next)
			}
			return
		}
		g.walk(next, rest)
		return
	}
	names := g.readNames(dir)
	pat := bashClass(strings.ReplaceAll(part, "**", "*"))
	dotOK := strings.HasPrefix(part, ".")
	slices.Sort(names) // as bash sorts an expansion: a bounded one keeps the first names
	for _, name := range names {
		if len(g.out) >= globMaxMatches {
			g.cut = true
			return
		}
		if name[0] == '.' && !dotOK {
			continue
		}
		if ok, err := filepath.Match(pat, name); err != nil || !ok {
			continue
		}
		next := filepath.Join(dir, name)
		if len(rest) == 0 {
			g.add(next)
			continue
		}
		if st, err := os.Stat(next); err == nil && st.IsDir() {
			g.walk(next, rest)
		}
	}
}

// add records a match, within the byte bound.
func (g *globber) add(p string) {
	if g.bytes -= len(p); g.bytes < 0 {
		g.cut = true
		return
	}
	g.out = append(g.out, p)
}

// readNames reads dir's entry names, globChunk at a time, within the name
// and byte bounds (a directory of a million long names costs no more).
func (g *globber) readNames(dir string) []string {
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	var names []string
	for g.names > 0 && g.bytes > 0 {
		chunk, err := f.Readdirnames(min(globChunk, g.names))
		for _, n := range chunk {
			g.names--
			if g.bytes -= len(n); g.bytes < 0 {
				break
			}
			names = append(names, n)
		}
		if err != nil || len(chunk) == 0 {
			return names
		}
	}
	g.cut = true // this directory may hold more
	return names
}

// bashClass turns bash's [!…] into filepath.Match's [^…].
func bashClass(p string) string {
	return strings.ReplaceAll(p, "[!", "[^")
}
