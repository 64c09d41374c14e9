package policy

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Glob limits: a shell glob in a hook call is expanded to at most
// globMaxMatches paths, reading at most globMaxNames directory entries in
// all; past them the paths found so far are the targets (and the glob's
// own text, as always).
const (
	globMaxMatches = 256
	globMaxNames   = 20000
)

// ExpandGlob expands an absolute path holding shell wildcards (*, ?,
// [...]) to the existing paths it names, the way bash does without
// dotglob or globstar: a wildcard at the start of a name does not match a
// leading dot, ** is *, and [!…] negates. It reads the directories the
// pattern walks through, bounded (globMaxMatches, globMaxNames); complete
// is false when a bound cut the expansion short. A pattern that names
// nothing gives nil (bash then passes the pattern itself). This is
// Env.Glob for the hook.
func ExpandGlob(pattern string) (paths []string, complete bool) {
	if !filepath.IsAbs(pattern) || !hasGlobMeta(pattern) {
		return nil, true
	}
	parts := strings.Split(strings.TrimPrefix(filepath.Clean(pattern), "/"), "/")
	g := globber{names: globMaxNames}
	g.walk("/", parts)
	return g.out, !g.cut
}

// hasGlobMeta reports a path with shell wildcards: *, ? or [.
func hasGlobMeta(p string) bool {
	return strings.ContainsAny(p, "*?[")
}

type globber struct {
	out   []string
	names int  // directory entries still allowed to read
	cut   bool // a bound stopped the expansion
}

func (g *globber) walk(dir string, parts []string) {
	if len(parts) == 0 {
		return
	}
	if len(g.out) >= globMaxMatches || g.names <= 0 {
		g.cut = true
		return
	}
	part, rest := parts[0], parts[1:]
	if !hasGlobMeta(part) {
		next := filepath.Join(dir, unescapeGlob(part))
		if len(rest) == 0 {
			if _, err := os.Lstat(next); err == nil {
				g.out = append(g.out, next)
			}
			return
		}
		g.walk(next, rest)
		return
	}
	f, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := f.Readdirnames(g.names)
	f.Close()
	g.names -= len(names)
	if g.names <= 0 {
		g.cut = true // this directory may hold more
	}
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
			g.out = append(g.out, next)
			continue
		}
		if st, err := os.Stat(next); err == nil && st.IsDir() {
			g.walk(next, rest)
		}
	}
}

// bashClass turns bash's [!…] into filepath.Match's [^…].
func bashClass(p string) string {
	return strings.ReplaceAll(p, "[!", "[^")
}

// unescapeGlob removes the backslashes of a name without wildcards.
func unescapeGlob(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
