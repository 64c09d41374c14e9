package shellparse

import (
	"path"
	"slices"
)

// varState is what the analysis knows about one shell variable.
type varState struct {
	unset bool     // tombstone: unset in this layer
	known bool     // val is the literal value
	val   string   //
	list  []string // the words of $@ and $*, the elements of an array
	arr   bool     // an indexed array: list holds its elements, val the first
	srcs  []Source // sources of the value (X=$(curl …))
	epoch int      // the layer's forget count when it was set
}

// scope is the shell state the analysis tracks along a sequential list of
// statements: literal variables and the working directory. Layers form a
// chain so that a subshell or a conditional branch only records what it
// changes.
type scope struct {
	parent  *scope
	vars    map[string]varState
	exports []string // names exported in this layer (export X, declare -x X)

	// left is the analysis's budget of value bytes (analyzer.valueLeft),
	// shared by every layer: environ charges the NAME=value strings it
	// builds for each command.
	left *int

	cwd        string // "" is Options.Cwd itself when that is empty too
	cwdUnknown bool   // a cd whose target the analysis cannot know
	remote     bool   // commands run on another host or container
	// container is the file system of a docker/podman run container:
	// its paths are not the host's, but for the host directories mounted
	// into it (resolve translates them, or drops the path).
	container *containerFS

	// forgets counts the scripts the analysis cannot read (source FILE)
	// run in this layer: a variable set in this layer before the last of
	// them, or in an outer layer, may have been changed, so it is unknown.
	forgets int

	// stepped marks the layer of a && run: the run may stop after any of
	// its commands, so a variable that took two values in it ends unknown
	// (mergeSteps). steps holds the values taken, moved the variables that
	// took more than one; both are made on the first assignment.
	stepped bool
	steps   map[string]varState
	moved   map[string]bool
}

func newScope(opts Options, left *int) *scope {
	s := &scope{cwd: opts.Cwd, left: left}
	if opts.Home != "" {
		s.set("HOME", varState{known: true, val: opts.Home})
	}
	if path.IsAbs(opts.Cwd) {
		// The shell sets PWD to the directory it starts in: $PWD, "$(pwd)"
		// and ~+ name the working directory (cd keeps it up to date).
		s.set("PWD", varState{known: true, val: path.Clean(opts.Cwd)})
	}
	return s
}

// child returns a scope whose changes stay out of s until merged.
func (s *scope) child() *scope {
	return &scope{parent: s, left: s.left, cwd: s.cwd, cwdUnknown: s.cwdUnknown, remote: s.remote, container: s.container}
}

// lookup reports the state of name and whether it is set.
func (s *scope) lookup(name string) (varState, bool) {
	forgot := false
	for p := s; p != nil; p = p.parent {
		if v, ok := p.vars[name]; ok {
			if (forgot || v.epoch < p.forgets) && name != "HOME" {
				return varState{srcs: v.srcs, epoch: v.epoch}, true
			}
			return v, !v.unset
		}
		forgot = forgot || p.forgets > 0
	}
	if forgot && name != "HOME" {
		return varState{}, true // may have been set by the unread script
	}
	return varState{}, false
}

// forget records that a script the analysis cannot read ran here: every
// variable but HOME may have changed. O(1).
func (s *scope) forget() {
	s.forgets++
}

// unset reports whether name was unset by the script itself, so that it
// is known to be empty rather than coming from the environment.
func (s *scope) unset(name string) bool {
	forgot := false
	for p := s; p != nil; p = p.parent {
		if v, ok := p.vars[name]; ok {
			return v.unset && !forgot && v.epoch >= p.forgets
		}
		forgot = forgot || p.forgets > 0
	}
	return false
}

func (s *scope) set(name string, v varState) {
	if s.vars == nil {
		s.vars = make(map[string]varState)
	}
	v.epoch = s.forgets
	s.vars[name] = v
	if s.stepped {
		if old, ok := s.steps[name]; ok && !sameValue(old, v) {
			if s.moved == nil {
				s.moved = map[string]bool{}
			}
			s.moved[name] = true
		}
		if s.steps == nil {
			s.steps = map[string]varState{}
		}
		s.steps[name] = v
	}
}

// stepChild is child for the commands of a && run after its first:
// their intermediate values are recorded (mergeSteps).
func (s *scope) stepChild() *scope {
	c := s.child()
	c.stepped = true
	return c
}

// mergeSteps is mergeCond for a && run: besides what mergeCond does, a
// variable that took two values in the run is unknown, since the run may
// have stopped between them (X=”; true && X=a && false && X=”; X is a).
func (s *scope) mergeSteps(c *scope) {
	s.mergeCond(c)
	for name := range c.moved {
		old, _ := s.lookup(name)
		s.setUnknown(name, old.srcs)
	}
}

// sameValue reports two known states holding the same value.
func sameValue(a, b varState) bool {
	return a.known && b.known && a.val == b.val && a.arr == b.arr && slices.Equal(a.list, b.list)
}

func (s *scope) setUnknown(name string, srcs []Source) {
	s.set(name, varState{srcs: srcs})
}

// mergeCond folds the changes of a branch that may or may not have run into
// s: a variable keeps a literal value only if that is the only literal ever
// assigned to it; a changed working directory becomes unknown.
func (s *scope) mergeCond(c *scope) {
	for name, v := range c.vars {
		old, ok := s.lookup(name)
		switch {
		case v.unset:
			if ok {
				s.setUnknown(name, old.srcs)
			}
		case !ok:
			s.set(name, v)
		case sameValue(old, v):
		default:
			s.setUnknown(name, appendSources(old.srcs, v.srcs...))
		}
	}
	s.exports = append(s.exports, c.exports...)
	if c.forgets > 0 {
		s.forget()
	}
	if c.cwdUnknown || c.cwd != s.cwd {
		s.cwdUnknown = true
	}
}

// maxEnv bounds the exported variables reported per command.
const maxEnv = 32

// charge takes n bytes from the analysis's value budget and reports
// whether they were there (see maxValueTotal).
func (s *scope) charge(n int) bool {
	if s.left == nil {
		return true
	}
	if n > *s.left {
		*s.left = 0
		return false
	}
	*s.left -= n
	return true
}

func (s *scope) export(name string) {
	s.exports = append(s.exports, name)
}

// environ returns the environment assignments a command sees: base (its
// prefix assignments and those of its wrappers) after the variables the
// script exported, most recent last. A command on another host or in a
// container does not see the local exports.
func (s *scope) environ(base []string) []string {
	var names []string
	n := 0
layers:
	for p := s; p != nil; p = p.parent {
		for i := len(p.exports) - 1; i >= 0; i-- {
			if n++; n > maxEnv {
				break layers
			}
			if !slices.Contains(names, p.exports[i]) {
				names = append(names, p.exports[i])
			}
		}
		if p.remote && (p.parent == nil || !p.parent.remote) {
			break
		}
	}
	if len(names) == 0 {
		return base
	}
	out := make([]string, 0, len(names)+len(base))
	for i := len(names) - 1; i >= 0; i-- {
		v, ok := s.lookup(names[i])
		switch {
		case !ok:
			continue
		case v.known && s.charge(len(names[i])+1+len(v.val)):
			out = append(out, names[i]+"="+v.val)
		default:
			out = append(out, names[i]+"=$"+names[i])
		}
	}
	return append(out, base...)
}
