package policy

import (
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// Env is what Evaluate needs to know about the machine; the caller
// gathers it so that Evaluate stays free of I/O.
type Env struct {
	Home      string // expands ~ and $HOME
	Workspace string // the workspace root; "" uses the call's cwd
	// Resolve returns a path with the symlinks of its existing prefix
	// resolved. Rules are tested against both the written and the resolved
	// form. nil tests the written form only.
	Resolve func(string) string
	// Protected gives the guard's own surfaces, derived by the caller from
	// the configuration in effect (cmd/toolguard surfaces; docs/surfaces.md):
	// agent hook settings, policy files and discovery locations, the state
	// and config directories, the toolguard binaries. The "@protected" path
	// pattern matches a surface, anything below a Tree surface, and every
	// directory above a surface below the workspace root (removing, moving
	// or chmod-ing .claude does it to .claude/settings.json too);
	// "@protected-root" the workspace root and the directories above it
	// (never / or Home); "@secret" and "@binary" the Secret and Binary
	// surfaces. It is called once, the first time a path is tested
	// against the surfaces: deriving them reads files (the hook reads each
	// agent hook file for the binary it names), which a call that tests no
	// path — an MCP tool, git status — never pays. nil: no surfaces.
	Protected func() []Surface
	// FoldCase matches Protected case-insensitively, as a case-insensitive
	// file system (macOS, Windows, settings.case_insensitive_paths)
	// resolves .Claude/settings.json.
	FoldCase bool
	// SelfNames are program names that run toolguard besides "toolguard"
	// itself (the running binary's name, the binaries the hook commands
	// name): a command named so is matched as toolguard.
	SelfNames []string
	// TempDir is the hook's $TMPDIR, which the "$TMPDIR" safe prefix
	// stands for ("" leaves it out). A TempDir that is /, the home
	// directory or above it is ignored: it would make every write safe.
	TempDir string
	// Glob expands a path a shell command names with unexpanded
	// wildcards (cat .env*, cp ~/.ssh/* dst) to the existing paths it
	// names (the hook's is expandGlob, cmd/toolguard/glob.go: policy reads
	// no directory), each then a target of its own. As in bash, a glob that
	// names something stands for those paths only; one that names nothing,
	// or whose expansion was cut short, is also judged as written. nil
	// leaves every such path as written.
	Glob func(pattern string) (paths []string, complete bool)
	// ReadScript gives the shell analysis the text of a local script file
	// a command runs (shellparse.Options.ReadScript); nil reads none.
	ReadScript func(path string) (text string, err error)
}

// Surface is one path of the guard's own (Env.Protected).
type Surface struct {
	Path   string // absolute and clean
	Tree   bool   // a directory: every path below it belongs to the surface
	Secret bool   // private key material: reading it is guarded too ("@secret")
	Binary bool   // a toolguard binary: copying it is guarded too ("@binary")
}

// Result is the outcome of evaluating one call.
type Result struct {
	Decision call.Decision `json:"decision"`
	Reason   string        `json:"reason,omitempty"`
	Rule     *Rule         `json:"-"` // the rule behind Decision, nil for pass, defaults and parser verdicts
	Cause    string        `json:"cause,omitempty"`
	Targets  []Target      `json:"targets"`
	Matches  []Match       `json:"matches"`
	// Workspace is the root that relative patterns and scope rules used.
	Workspace string `json:"workspace,omitempty"`
	// Auto is, with settings.auto_allow = "read-only", whether the call
	// was auto-allowed: "yes", or "no — why" (autoallow.go).
	Auto string `json:"auto_read_only,omitempty"`
}

// Target is one thing a call does, with its own decision.
type Target struct {
	Kind     string        `json:"kind"` // "command", "path" or "call"
	Argv     []string      `json:"argv,omitempty"`
	Wrappers []string      `json:"wrappers,omitempty"`
	Path     string        `json:"path,omitempty"`
	Op       string        `json:"op,omitempty"`
	Tool     string        `json:"tool,omitempty"`
	Decision call.Decision `json:"decision"`
	Rule     string        `json:"rule,omitempty"`
	Note     string        `json:"note,omitempty"`

	required  bool // counts toward "allow only when every target is allowed"
	defaulted bool // decided by settings.default / default_for
	rule      *Rule
}

// Match is one rule that matched some target.
type Match struct {
	Rule     string        `json:"rule"`
	Decision call.Decision `json:"decision"`
	Layer    string        `json:"layer"`
	Source   string        `json:"source"`
	Locked   bool          `json:"locked,omitempty"`
}

// Causes of a decision that no rule made.
const (
	CauseUnparsable = "unparsable"
	CauseDynamic    = "dynamic"
	CauseDefault    = "default"
	CauseError      = "error"
)

// pathKey identifies a path target within one evaluation.
type pathKey struct {
	path string
	op   call.Op
}

// pathDecision is what pathTarget found for a path and op.
type pathDecision struct {
	rule    *Rule // the deciding rule, nil for none
	outside bool  // some form of the path is outside the workspace
}

type evalEnv struct {
	forms       map[string][]string      // pathForms memo
	paths       map[pathKey]pathDecision // pathTarget memo
	outsideNote string                   // a path target's note when outside the workspace
	home        string
	workspace   string
	exposed     bool // the workspace is /, the home directory or above it: nothing is inside it
	resolve     func(string) string
	safe        []string
	real        *realDirs        // the workspace, home and safe prefixes resolved (realDirs), on first need
	protected   func() []Surface // Env.Protected, called by surfaces
	surfaceList []Surface        // what protected returned, folded with foldCase
	gotSurfaces bool             // surfaceList is set
	foldCase    bool
	glob        func(string) ([]string, bool) // Env.Glob, for patternOnSurface
	lookups                                   // what this call looked up in the index (index.go)
	readScript  func(string) (string, error)  // Env.ReadScript (runnerDeclared)
	cwd         string                        // the call's directory: where runnerDeclared looks for manifests
	placeBases  [][]string                    // places' literal bases, ~ expanded (holdsPlace), on first need
	effCmd      *shellparse.Command           // the command effs are of (commandEffects)
	effs        []string
	strEff      map[*shellparse.Command]bool // commands shellStringEffects marks runs-remote-code
	err         error                        // the first rule that failed to decode or compile (lazy policies)
}

// callRules returns the call rules the call can match, computed once per
// Evaluate.
func (p *Policy) callRules(c *call.Call, ev *evalEnv) []int32 {
	return p.idx.callCandidates(c, &ev.lookups)
}

// pathForms returns the written path and, when it differs, its resolved
// form.
func (e *evalEnv) pathForms(p string) []string {
	if e.resolve == nil || !filepath.IsAbs(p) {
		return []string{p}
	}
	if f, ok := e.forms[p]; ok {
		return f
	}
	f := []string{p}
	if r := e.resolve(p); r != "" && r != p {
		f = append(f, r)
	}
	if e.forms == nil {
		e.forms = map[string][]string{}
	}
	e.forms[p] = f // one Resolve per distinct path per Evaluate
	return f
}

// exposedWorkspace reports a workspace that shelters nothing: the root,
// the home directory or a directory above it (an agent started in ~ with
// no project around it). Scope rules then treat every path outside the
// safe prefixes as outside: rm -r ~/Documents asks, as it would from a
// project.
func exposedWorkspace(ws, home string) bool {
	if ws == "" {
		return false
	}
	if ws == "/" {
		return true
	}
	home = filepath.Clean(home)
	_, above := relInside(ws, home)
	return home != "." && filepath.IsAbs(home) && above
}

// realDirs are the workspace, the home directory and the safe prefixes
// with their symbolic links resolved (env.Resolve), each "" when it
// resolves to itself: a workspace reached through a link
// (~/code -> /data/code, macOS /tmp -> /private/tmp) holds the resolved
// form of a path written inside it. A workspace or safe prefix that
// resolves to /, the home directory or above it is left out: a link to ~
// must not make all of home inside.
type realDirs struct {
	workspace, home string
	safe            []string
}

// realDirs resolves them once per Evaluate, and only when a resolved
// path form falls outside their written forms.
func (e *evalEnv) realDirs() *realDirs {
	if e.real != nil {
		return e.real
	}
	r := &realDirs{}
	if e.resolve != nil {
		one := func(d string) string {
			if d == "" || !filepath.IsAbs(d) {
				return ""
			}
			if x := e.resolve(d); x != "" && x != d && filepath.IsAbs(x) {
				return filepath.Clean(x)
			}
			return ""
		}
		r.home = one(filepath.Clean(e.home))
		shelters := func(x string) bool { // x is not /, home or above it
			return x != "" && !exposedWorkspace(x, e.home) && (r.home == "" || !exposedWorkspace(x, r.home))
		}
		if x := one(e.workspace); shelters(x) {
			r.workspace = x
		}
		for _, s := range e.safe {
			if x := one(s); shelters(x) {
				r.safe = append(r.safe, x)
			}
		}
	}
	e.real = r
	return r
}

// belowDir reports whether p is dir or below it (false for dir "").
func belowDir(dir, p string) bool {
	_, in := relInside(dir, p)
	return dir != "" && in
}

// outside reports whether any form of a path is outside the workspace (or
// the workspace is exposed) and not under a safe prefix. A form is inside
// when it is below the workspace or a safe prefix as written or as
// resolved: a path whose link inside the workspace points out of it is
// outside (its resolved form is below neither), a path written inside a
// workspace reached through a link is not.
func (e *evalEnv) outside(forms []string) bool {
	if e.workspace == "" {
		return false
	}
	for _, f := range forms {
		if !filepath.IsAbs(f) {
			continue
		}
		if _, in := relInside(e.workspace, f); in && !e.exposed {
			continue
		}
		safe := false
		for _, s := range e.safe {
			if _, in := relInside(s, f); in && s != "" {
				safe = true
				break
			}
		}
		if safe {
			continue
		}
		if e.resolve == nil {
			return true
		}
		r := e.realDirs()
		if !e.exposed && belowDir(r.workspace, f) {
			continue
		}
		for _, s := range r.safe {
			safe = safe || belowDir(s, f)
		}
		if !safe {
			return true
		}
	}
	return false
}

// outsideProject is outside for scope "outside-project": the same, except
// that an exposed workspace (an agent started in ~ or / with no project
// around it) shelters the home directory: only paths outside it and the
// safe prefixes are outside.
func (e *evalEnv) outsideProject(forms []string) bool {
	if !e.exposed {
		return e.outside(forms)
	}
	home := filepath.Clean(e.home)
	for _, f := range forms {
		if !filepath.IsAbs(f) {
			continue
		}
		if _, in := relInside(home, f); in && filepath.IsAbs(home) {
			continue
		}
		if e.resolve != nil && filepath.IsAbs(home) && belowDir(e.realDirs().home, f) {
			continue
		}
		if !e.outside([]string{f}) {
			continue
		}
		return true
	}
	return false
}

// Evaluate decides one call. It is a pure function of the policy, the
// call and env.
func (p *Policy) Evaluate(c call.Call, env Env) *Result {
	return p.evaluate(c, env)
}

func (p *Policy) evaluate(c call.Call, env Env) *Result {
	ws := env.Workspace
	if ws == "" {
		ws = p.Settings.Workspace
	}
	if ws == "" {
		ws = c.Cwd
	}
	ev := &evalEnv{home: env.Home, workspace: filepath.Clean(ws), resolve: env.Resolve, protected: env.Protected, foldCase: env.FoldCase, glob: env.Glob, readScript: env.ReadScript, cwd: c.Cwd}
	if ws == "" {
		ev.workspace = ""
	}
	ev.exposed = exposedWorkspace(ev.workspace, env.Home)
	for _, s := range p.Settings.SafePrefixes {
		if s == "$TMPDIR" {
			if t := filepath.Clean(env.TempDir); filepath.IsAbs(t) && !exposedWorkspace(t, env.Home) {
				ev.safe = append(ev.safe, t)
			}
			continue
		}
		if s = expandHome(s, env.Home); s != "" && filepath.IsAbs(s) {
			ev.safe = append(ev.safe, filepath.Clean(s))
		}
	}
	res := &Result{Workspace: ev.workspace, Targets: []Target{}, Matches: []Match{}}

	switch c.Kind {
	case call.KindShell:
		n, err := p.shellTargets(res, &c, env, ev)
		if err != nil {
			return p.unparsable(res, err)
		}
		if n == 0 {
			p.callTarget(res, &c, ev)
		}
	default:
		if c.Command == "" {
			c.Command = p.shellFieldCommand(&c) // settings.shell_fields
		}
		if c.Command != "" {
			// An MCP or unknown tool that runs a shell command
			// (protocol's shellKeys, settings.shell_fields): its commands
			// are judged too.
			if _, err := p.shellTargets(res, &c, env, ev); err != nil {
				return p.unparsable(res, err)
			}
		}
		paths := callPaths(&c)
		for _, pth := range paths {
			p.pathTarget(res, &c, pth.Path, pth.Op, true, ev)
		}
		if len(paths) == 0 {
			p.callTarget(res, &c, ev)
		}
	}
	p.decide(res, c.Kind)
	if ev.err != nil {
		return p.policyError(res, ev.err)
	}
	if p.Settings.AutoAllow == AutoAllowReadOnly { // off: this compare is all it costs
		if res.Decision == call.Pass {
			p.autoAllow(res, &c, env, ev)
		} else {
			res.Auto = "no — decided " + res.Decision.String() + " by " + cmp.Or(res.Cause, autoRuleID(res.Rule), "the policy")
		}
	}
	return res
}

func autoRuleID(r *Rule) string {
	if r == nil {
		return ""
	}
	return "rule " + r.ID
}

// shellTargets adds a target per command c.Command runs and per path
// those commands name; it returns how many commands there were.
func (p *Policy) shellTargets(res *Result, c *call.Call, env Env, ev *evalEnv) (int, error) {
	{
		an, err := shellparse.Analyze(c.Command, shellparse.Options{Cwd: c.Cwd, Home: env.Home, ReadScript: env.ReadScript})
		if err != nil {
			return 0, err
		}
		// One target per command and per path, and one more for a call
		// target or a policy error: a long script's targets are allocated
		// once, not grown.
		n := len(an.Commands) + 1
		for i := range an.Commands {
			n += len(an.Commands[i].Paths)
		}
		res.Targets = slices.Grow(res.Targets, n)
		if marks := shellStringEffects(c.Command, an.Commands, ev); len(marks) > 0 {
			ev.strEff = map[*shellparse.Command]bool{}
			for i := range marks {
				ev.strEff[&an.Commands[i]] = true
			}
		}
		for i := range an.Commands {
			cmd := &an.Commands[i]
			if !cmd.Dynamic && cmd.Name != "toolguard" && slices.Contains(env.SelfNames, cmd.Name) {
				cmd.Name = "toolguard" // a renamed toolguard is still toolguard
			}
			p.commandTarget(res, c, cmd, ev)
			for _, pr := range cmd.Paths {
				if env.Glob != nil && hasGlobMeta(pr.Path) {
					paths, complete := env.Glob(expandHome(pr.Path, env.Home))
					for _, m := range paths {
						p.pathTarget(res, c, m, pr.Op, pr.Op != call.OpRead, ev)
					}
					if len(paths) > 0 && complete && !pr.Pattern {
						continue // a find selection's pattern is matched as one too (onSurface)
					}
				}
				p.pathTarget(res, c, pr.Path, pr.Op, pr.Op != call.OpRead, ev)
			}
			// Its targets hold what they need: let go of the rest while
			// a long script's targets are made.
			*cmd = shellparse.Command{}
		}
		return len(an.Commands), nil
	}
}

// policyError fails a decision closed when a rule it reached could not be
// decoded or compiled: the call gets on_error, whatever the other rules
// said, never a decision that silently skipped the rule.
func (p *Policy) policyError(res *Result, err error) *Result {
	res.Decision, res.Cause, res.Rule = p.Settings.OnError, CauseError, nil
	res.Targets = append(res.Targets, Target{Kind: "call", Decision: res.Decision, Note: err.Error(), required: true})
	res.Reason = ""
	if res.Decision > call.Allow {
		res.Reason = fmt.Sprintf("toolguard: the policy could not be read (%v); on_error = %s.", err, res.Decision)
	}
	return res
}

func expandHome(s, home string) string {
	switch {
	case home != "" && (s == "~" || strings.HasPrefix(s, "~/")):
		return home + s[1:]
	case home != "" && (s == "$HOME" || strings.HasPrefix(s, "$HOME/")):
		return home + s[len("$HOME"):]
	}
	return s
}

func (p *Policy) unparsable(res *Result, err error) *Result {
	res.Decision = p.Settings.OnUnparsable
	res.Cause = CauseUnparsable
	what := "the command does not parse"
	var ie *shellparse.InternalError
	if errors.As(err, &ie) {
		res.Decision, res.Cause = p.Settings.OnError, CauseError
		res.Targets = append(res.Targets, Target{Kind: "call", Decision: res.Decision, Note: err.Error(), required: true})
		if res.Decision > call.Allow {
			res.Reason = fmt.Sprintf("toolguard: internal error while analyzing the command (%v); on_error = %s.", err, res.Decision)
		}
		return res
	}
	var le *shellparse.LimitError
	if errors.As(err, &le) {
		what = "the command is too large or too deeply nested to analyze"
	}
	res.Targets = append(res.Targets, Target{Kind: "call", Decision: res.Decision, Note: err.Error(), required: true})
	if res.Decision > call.Allow {
		res.Reason = fmt.Sprintf("toolguard: %s (%v); on_unparsable = %s. Rewrite it as plain commands toolguard can read.",
			what, err, res.Decision)
	}
	return res
}

func (p *Policy) commandTarget(res *Result, c *call.Call, cmd *shellparse.Command, ev *evalEnv) {
	t := Target{Kind: "command", Wrappers: cmd.Wrappers, required: true}
	if cmd.Dynamic {
		// A regex rule written for this text decides; otherwise on_dynamic,
		// unless a call-level rule is stricter.
		t.Argv = append([]string{cmd.DynamicText}, cmd.Args...)
		_, others := p.idx.commandCandidates(cmd, &ev.lookups)
		others = p.effectCandidates(catEffect, ev.commandEffects(cmd), others)
		if r := p.pick(res, c, ev, func(r *Rule) bool {
			return r.m.class == classCommand && r.m.matchCommand(cmd, ev)
		}, others); r != nil {
			t.Decision, t.Rule, t.rule = r.Decision, r.ID, r
			res.Targets = append(res.Targets, t)
			return
		}
		t.Decision = p.Settings.OnDynamic
		t.Note = CauseDynamic
		if r := p.pick(res, c, ev, func(*Rule) bool { return true }, p.callRules(c, ev)); r != nil && r.Decision >= t.Decision {
			t.Decision, t.Rule, t.rule, t.Note = r.Decision, r.ID, r, ""
		}
		res.Targets = append(res.Targets, t)
		return
	}
	t.Argv = append([]string{cmd.Name}, cmd.Args...)
	byName, others := p.idx.commandCandidates(cmd, &ev.lookups)
	others = p.effectCandidates(catEffect, ev.commandEffects(cmd), others)
	r := p.pick(res, c, ev, func(r *Rule) bool {
		return r.m.class == classCall || r.m.matchCommand(cmd, ev)
	}, byName, others, p.callRules(c, ev))
	p.settle(&t, r, c.Kind)
	res.Targets = append(res.Targets, t)
}

func (p *Policy) pathTarget(res *Result, c *call.Call, pth string, op call.Op, required bool, ev *evalEnv) {
	t := Target{Kind: "path", Path: pth, Op: op.String(), required: required}
	key := pathKey{pth, op}
	pd, seen := ev.paths[key]
	if !seen {
		// A path named again is decided once.
		forms := ev.pathForms(pth)
		pd.outside = ev.outside(forms)
		var calls []int32
		if c.Kind != call.KindShell { // shell calls answer call rules per command
			calls = p.callRules(c, ev)
		}
		pd.rule = p.pick(res, c, ev, func(r *Rule) bool {
			if r.m.class == classCall {
				return true
			}
			return r.m.matchPath(pth, op, ev)
		}, p.effectCandidates(catPathEff, ev.pathEffects(pth, op, forms), p.idx.pathCandidates(forms, ev)), calls)
		if ev.paths == nil {
			ev.paths = map[pathKey]pathDecision{}
		}
		ev.paths[key] = pd
	}
	if pd.outside {
		if ev.outsideNote == "" {
			ev.outsideNote = "outside the workspace " + ev.workspace
		}
		t.Note = ev.outsideNote
	}
	r := pd.rule
	if r == nil && !required {
		res.Targets = append(res.Targets, t) // a read by a shell command: only rules speak for it
		return
	}
	p.settle(&t, r, c.Kind)
	res.Targets = append(res.Targets, t)
}

func (p *Policy) callTarget(res *Result, c *call.Call, ev *evalEnv) {
	t := Target{Kind: "call", Tool: c.Tool, required: true}
	r := p.pick(res, c, ev, func(*Rule) bool { return true }, p.callRules(c, ev))
	p.settle(&t, r, c.Kind)
	res.Targets = append(res.Targets, t)
}

// settle gives a target the winning rule's decision, or the default.
func (p *Policy) settle(t *Target, r *Rule, kind call.Kind) {
	if r != nil {
		t.Decision, t.Rule, t.rule = r.Decision, r.ID, r
		return
	}
	d := p.Settings.Default
	if v, ok := p.Settings.DefaultFor[kind]; ok {
		d = v
	}
	t.Decision = d
	if d != call.Pass {
		t.defaulted = true
	}
}

// pick finds the deciding rule among the candidates (rule ordinals) that
// pass the call-level fields and the given test. A candidate that cannot
// be decoded is recorded in ev.err, which fails the decision closed.
func (p *Policy) pick(res *Result, c *call.Call, ev *evalEnv, test func(*Rule) bool, lists ...[]int32) *Rule {
	var locked, open *Rule // the best locked rule, the best unlocked one
	for _, list := range lists {
		for _, o := range list {
			r, err := p.rule(o)
			if err != nil {
				if ev.err == nil {
					ev.err = err
				}
				continue
			}
			if !r.m.matchCall(c) || !test(r) {
				continue
			}
			res.addMatch(r)
			if r.Locked {
				if better(r, locked) {
					locked = r
				}
			} else if better(r, open) {
				open = r
			}
		}
	}
	return winner(locked, open)
}

// winner is the deciding rule of a target: the locked rules set a floor
// that no unlocked rule can lower, whatever its priority, while a stricter
// unlocked rule still wins (a lock stops a later layer loosening a rule,
// not tightening it: a locked ask and a project's deny is a deny). On an
// equal decision the locked rule decides.
func winner(locked, open *Rule) *Rule {
	if locked == nil {
		return open
	}
	if open != nil && open.Decision > locked.Decision {
		return open
	}
	return locked
}

// better reports whether r beats best among rules of the same lock state:
// among locked rules the strictest, among unlocked ones the highest
// priority, then (both) the stricter decision, then the earlier rule.
func better(r, best *Rule) bool {
	if best == nil {
		return true
	}
	if r.Locked && r.Decision != best.Decision {
		return r.Decision > best.Decision
	}
	if r.Priority != best.Priority {
		return r.Priority > best.Priority
	}
	if r.Decision != best.Decision {
		return r.Decision > best.Decision
	}
	return r.ord < best.ord
}

func (res *Result) addMatch(r *Rule) {
	for _, m := range res.Matches {
		if m.Rule == r.ID {
			return
		}
	}
	res.Matches = append(res.Matches, Match{Rule: r.ID, Decision: r.Decision, Layer: r.Layer, Source: r.Source, Locked: r.Locked})
}

// decide folds the targets: the strictest wins, and allow only when every
// required target is allowed.
func (p *Policy) decide(res *Result, kind call.Kind) {
	d := call.Pass
	var why *Target
	allAllowed := true
	for i := range res.Targets {
		t := &res.Targets[i]
		if t.required && t.Decision != call.Allow {
			allAllowed = false
		}
		if t.Decision > d {
			d, why = t.Decision, t
		}
	}
	if d == call.Allow && !allAllowed {
		d, why = call.Pass, nil
	}
	res.Decision = d
	if why == nil {
		return
	}
	res.Rule = why.rule
	switch {
	case why.rule != nil:
		res.Reason = ruleReason(why.rule)
		if why.Kind == "path" && strings.HasPrefix(why.Note, "outside") && d > call.Allow {
			res.Reason += fmt.Sprintf(" (%s is %s)", why.Path, why.Note)
		}
	case why.Note == CauseDynamic:
		res.Cause = CauseDynamic
		if d > call.Allow {
			res.Reason = fmt.Sprintf("toolguard: the program %s is only known at run time, so toolguard cannot check it (on_dynamic = %s). Write the command out literally.",
				strings.TrimSpace(why.Argv[0]), d)
		}
	case why.defaulted:
		res.Cause = CauseDefault
		if d > call.Allow {
			res.Reason = fmt.Sprintf("toolguard: no rule allows this %s call and the policy default is %s. Ask the user, or use an allowed tool.", kind, d)
		}
	}
}

// ruleReason is the text the model reads: the rule id and what to do
// instead.
func ruleReason(r *Rule) string {
	j := r.Justification
	if j == "" {
		j = r.Description
	}
	verb := "denied"
	if r.Decision == call.Ask {
		verb = "approval required"
	}
	if r.Decision == call.Allow {
		verb = "allowed"
	}
	if j == "" {
		return fmt.Sprintf("toolguard: %s by rule %s", verb, r.ID)
	}
	return fmt.Sprintf("toolguard: %s by rule %s: %s", verb, r.ID, j)
}

// hasGlobMeta reports a path with shell wildcards: *, ? or [.
func hasGlobMeta(p string) bool {
	return strings.ContainsAny(p, "*?[")
}
