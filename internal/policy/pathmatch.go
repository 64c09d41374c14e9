// Path patterns: a rule's path and path_none globs, the named patterns
// (@surface, @secret, …), and the guard's own surfaces.

package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// pathPattern is one compiled path glob.
type pathPattern struct {
	raw  string
	glob string
	kind patternKind
}

type patternKind int

const (
	patAbs           patternKind = iota // absolute (or ~ expanded): matched against the absolute path
	patBase                             // no slash: matched against the base name, anywhere
	patAnywhere                         // leading **/: matched against the absolute path
	patRel                              // workspace-relative
	patHome                             // ~/…: relative to the home directory
	patProtected                        // "@protected": the guard's surfaces (Env.Protected), what is below a tree, and their ancestors below the workspace root
	patProtectedRoot                    // "@protected-root": the workspace root and the directories above it, when a surface is below them
	patSecret                           // "@secret": the surfaces that hold private key material
	patSecretDir                        // "@secret-dir": a directory above a Secret surface, below the home directory
	patBinary                           // "@binary": the toolguard binaries among the surfaces
	patWorkspace                        // "@workspace": the workspace root and every directory above it
)

// namedPatterns are the path patterns that name a set the caller derives
// (Env.Protected, the workspace) rather than a glob.
var namedPatterns = map[string]patternKind{
	"@protected":      patProtected,
	"@protected-root": patProtectedRoot,
	"@secret":         patSecret,
	"@secret-dir":     patSecretDir,
	"@binary":         patBinary,
	"@workspace":      patWorkspace,
}

func compilePath(p string) (pathPattern, error) {
	pp := pathPattern{raw: p}
	if k, ok := namedPatterns[p]; ok {
		pp.kind = k
		return pp, nil
	}
	g := p
	switch {
	case p == "":
		return pp, fmt.Errorf("empty path pattern")
	case p == "~" || p == "$HOME":
		g, pp.kind = ".", patHome
	case strings.HasPrefix(p, "~/"):
		g, pp.kind = p[2:], patHome
	case strings.HasPrefix(p, "$HOME/"):
		g, pp.kind = p[len("$HOME/"):], patHome
	case strings.HasPrefix(p, "/"):
		pp.kind = patAbs
	case strings.HasPrefix(p, "**/"):
		g = "/" + p
		pp.kind = patAnywhere
	case !strings.Contains(strings.TrimSuffix(p, "/"), "/"):
		g = strings.TrimSuffix(p, "/")
		pp.kind = patBase
	default:
		g = strings.TrimPrefix(p, "./")
		pp.kind = patRel
	}
	if len(g) > 1 {
		g = strings.TrimSuffix(g, "/")
	}
	if g == "" {
		g = "."
	}
	if !doublestar.ValidatePattern(g) {
		return pp, fmt.Errorf("bad glob %q", p)
	}
	pp.glob = g
	return pp, nil
}

// match tests an absolute (or, without a workspace, relative) path.
func (pp *pathPattern) match(p string, env *evalEnv) bool {
	var target string
	switch pp.kind {
	case patProtected:
		return env.onSurface(p, onSurface)
	case patProtectedRoot:
		return env.onSurface(p, onRoot)
	case patSecret:
		return env.onSurface(p, onSecret)
	case patSecretDir:
		return env.onSurface(p, onSecretDir)
	case patBinary:
		return env.onSurface(p, onBinary)
	case patWorkspace:
		if env.workspace == "" || !strings.HasPrefix(p, "/") {
			return false
		}
		_, in := relInside(p, env.workspace) // p is the root or above it
		return in
	case patBase:
		target = path.Base(p)
	case patHome:
		if env.home == "" {
			return false
		}
		r, ok := relInside(env.home, p)
		if !ok {
			return false
		}
		target = r
	case patRel:
		target = p
		if env.workspace != "" && strings.HasPrefix(p, "/") {
			r, ok := relInside(env.workspace, p)
			if !ok {
				return false
			}
			target = r
		}
	default:
		target = p
	}
	ok := doublestar.MatchUnvalidated(pp.glob, target)
	return ok
}

// What onSurface looks for.
const (
	onSurface   = iota // a surface, below a tree surface, or a directory above one below the workspace root
	onRoot             // the workspace root or a directory above it, with a surface below
	onSecret           // a Secret surface or below one
	onSecretDir        // a directory above a Secret surface (not / or the home directory)
	onBinary           // a Binary surface
)

// onSurface reports whether an absolute path is on the guard's surfaces
// (what). Deleting, moving or chmod-ing a directory does the same to the
// surfaces below it, so every directory above a surface counts, except /
// and the home directory (other rules cover them). The workspace root and
// the directories above it are kept apart (onRoot): unpacking an archive
// or a chmod -R there is everyday work, which the builtin rules ask
// about rather than deny.
func (e *evalEnv) onSurface(p string, what int) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	surfaces := e.surfaces()
	if len(surfaces) == 0 {
		return false
	}
	home, ws := strings.TrimSuffix(e.home, "/"), e.workspace
	if e.foldCase {
		p, home, ws = strings.ToLower(p), strings.ToLower(home), strings.ToLower(ws)
	}
	if p == "/" || p == home {
		return false
	}
	_, atRoot := relInside(p, ws) // p is the workspace root or above it
	atRoot = atRoot && ws != "" && strings.HasPrefix(ws, "/")
	if what == onRoot && !atRoot {
		return false
	}
	if what == onSurface && hasGlobMeta(p) && !atRoot {
		if e.patternOnSurface(p, surfaces) {
			return true
		}
	}
	for i := range surfaces {
		s := &surfaces[i]
		if (what == onSecret || what == onSecretDir) && !s.Secret || what == onBinary && !s.Binary {
			continue
		}
		q := s.Path // already folded (evaluate)
		if what == onSecretDir {
			// A recursive read of a directory holding the key (tar -c,
			// cp -r, grep -r, zip -r, rsync) reads the key.
			if _, above := relInside(p, q); above && p != q {
				return true
			}
			continue
		}
		if what != onRoot {
			if _, in := relInside(q, p); in && (p == q || s.Tree) {
				return true
			}
		}
		if what == onSecret || what == onBinary || p == q {
			continue
		}
		if _, above := relInside(p, q); above && (what == onRoot || !atRoot) {
			return true
		}
	}
	return false
}

// surfaces returns the guard's surfaces (Env.Protected), asked for once
// per Evaluate and folded to lower case once when paths fold.
func (e *evalEnv) surfaces() []Surface {
	if e.gotSurfaces {
		return e.surfaceList
	}
	e.gotSurfaces = true
	if e.protected == nil {
		return nil
	}
	e.surfaceList = e.protected()
	if e.foldCase && len(e.surfaceList) > 0 {
		e.surfaceList = slices.Clone(e.surfaceList)
		for i := range e.surfaceList {
			e.surfaceList[i].Path = strings.ToLower(e.surfaceList[i].Path)
		}
	}
	return e.surfaceList
}

// relInside returns p relative to dir when p is dir or below it.
func relInside(dir, p string) (string, bool) {
	dir = strings.TrimSuffix(dir, "/")
	if p == dir {
		return ".", true
	}
	if dir == "" {
		return strings.TrimPrefix(p, "/"), true
	}
	if len(p) > len(dir) && p[len(dir)] == '/' && strings.HasPrefix(p, dir) {
		return p[len(dir)+1:], true
	}
	return "", false
}

// patternOnSurface reports a wildcard path (rm .claude/*, or the
// selection of find . -name 'settings*.json' -delete, which shellparse
// gives as ./**/settings*.json) that can name a surface: a surface, or a
// directory above one below the pattern's literal part (find -name
// .claude -exec rm -rf {} +), matches it whether it exists or not; for a
// tree surface (the state directory) the files that exist in it, two
// levels deep, are asked of Env.Glob — what is not there cannot be
// deleted — and a listing cut short counts as a match.
func (e *evalEnv) patternOnSurface(p string, surfaces []Surface) bool {
	lit := p
	if i := strings.IndexAny(p, "*?["); i >= 0 {
		lit = path.Dir(p[:i] + "x")
	}
	last := path.Base(p)
	for i := range surfaces {
		q := surfaces[i].Path
		for a := q; ; a = path.Dir(a) {
			if _, below := relInside(lit, a); !below || a == lit {
				break
			}
			if ok, _ := doublestar.Match(p, a); ok {
				return true
			}
		}
		if !surfaces[i].Tree || e.glob == nil {
			continue
		}
		_, inside := relInside(lit, q)
		_, holds := relInside(q, lit)
		if !inside && !holds {
			continue
		}
		for _, g := range []string{q + "/" + last, q + "/*/" + last} {
			found, complete := e.glob(g)
			for _, f := range found {
				if e.foldCase {
					f = strings.ToLower(f)
				}
				if ok, _ := doublestar.Match(p, f); ok {
					return true
				}
			}
			if !complete {
				return true
			}
		}
	}
	return false
}
