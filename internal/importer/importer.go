package importer

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Agent names a source format.
type Agent string

const (
	Claude Agent = "claude-code"
	Codex  Agent = "codex"
	Gemini Agent = "gemini"
)

// Source is one file to import.
type Source struct {
	Agent Agent
	// Path names the file in comments and findings (as the user knows it,
	// e.g. "~/.claude/settings.json").
	Path string
	// Scope is where the agent reads the file from: "user", "project",
	// "local" (Claude Code's settings.local.json) or "admin" (Gemini's
	// system policies). It decides how relative patterns are read and,
	// for Gemini, the priority tier.
	Scope string
	Data  []byte
}

// Rule is one imported toolguard rule and where it came from.
type Rule struct {
	ID       string
	Decision string // allow, ask or deny
	Agent    Agent
	Origin   string // file:line of the source rule
	Text     string // the source rule as written (Claude's string, Codex's pattern, …)
	List     string // the source's own decision word (permissions.allow, prompt, ask_user, …)
	// name is what the id is made from ("" takes Text).
	name string

	Justification string
	Tool          []string
	Command       []string
	Regex         string
	Path          []string
	Op            []string
	MCP           []string
	Domain        []string
	Modes         []string
	Input         []Input
	Match         []string // examples.match
	NotMatch      []string // examples.not_match

	Tests []*Test

	// shape is the source rule in a form the shadow analysis compares.
	shape shape
	// prefix marks a command allow that matches by prefix (compound finding).
	prefix bool
	// prio is the source's effective priority (Gemini; 0 elsewhere).
	prio float64
	// example is a command the rule matches, for the compound test.
	example string
}

// Input is one [[rule.input]] condition (a regex on a field).
type Input struct {
	Field string
	Regex string
}

// Test is one [[test]] of the imported policy.
type Test struct {
	Name    string
	Command string
	Tool    string
	Path    string
	MCP     string
	URL     string
	Input   map[string]string
	Expect  string
	// Note says why Expect differs from the rule's decision, or what the
	// test shows; it is written as a comment above the test.
	Note string
	// want is the decision the test exists to show; verify compares.
	want string
	// compound marks the test that shows a compound command is judged
	// part by part: it must not be allowed.
	compound bool
}

// Kinds of notes.
const (
	// Inexact: the rule could not be carried exactly (broadened, narrowed,
	// demoted, or not carried at all).
	KindBroadened  = "broadened"
	KindNarrowed   = "narrowed"
	KindNotCarried = "not carried"
	// KindLocked: a locked default rule decides less strictly than the
	// imported rule, and locked rules win over later layers.
	KindLocked = "weakened by a locked default"
	// Findings.
	KindNeverConsulted = "never consulted"
	KindShadowed       = "shadowed"
	KindOutvoted       = "priority"
	KindCompound       = "compound"
	KindDefaultWins    = "default stricter"
)

// Note is one entry of the lists Import returns.
type Note struct {
	Kind   string
	Origin string // file:line
	Text   string // the source rule
	Msg    string
}

func (n Note) String() string {
	return fmt.Sprintf("%s: %s %s: %s", n.Origin, n.Kind, n.Text, n.Msg)
}

// Result is what Import produced.
type Result struct {
	Sources  []Source
	Rules    []*Rule
	Inexact  []Note // rules not carried exactly, and why
	Findings []Note // what the source agent would never tell its user
}

// Error is an import failure: a file that does not parse, or a mapping
// that does not do what it says. Nothing is written.
type Error struct{ Problems []string }

func (e *Error) Error() string {
	if len(e.Problems) == 1 {
		return e.Problems[0]
	}
	return fmt.Sprintf("%d problems:\n  %s", len(e.Problems), strings.Join(e.Problems, "\n  "))
}

// Import reads every source, maps its rules and verifies the result
// against the embedded defaults. The sources are taken in the order given.
func Import(srcs []Source) (*Result, error) {
	res := &Result{Sources: srcs}
	var probs []string
	for _, s := range srcs {
		var err error
		switch s.Agent {
		case Claude:
			err = importClaude(res, s)
		case Codex:
			err = importCodex(res, s)
		case Gemini:
			err = importGemini(res, s)
		default:
			err = fmt.Errorf("%s: unknown agent %q (want claude-code, codex or gemini)", s.Path, s.Agent)
		}
		if err != nil {
			probs = append(probs, err.Error())
		}
	}
	if len(probs) > 0 {
		return nil, &Error{probs}
	}
	assignIDs(res.Rules)
	findShadows(res)
	if err := verify(res); err != nil {
		return nil, err
	}
	return res, nil
}

func (r *Result) inexact(rule *Rule, kind, format string, args ...any) {
	r.Inexact = append(r.Inexact, Note{Kind: kind, Origin: rule.Origin, Text: rule.Text, Msg: fmt.Sprintf(format, args...)})
}

func (r *Result) skip(origin, text, format string, args ...any) {
	r.Inexact = append(r.Inexact, Note{Kind: KindNotCarried, Origin: origin, Text: text, Msg: fmt.Sprintf(format, args...)})
}

func (r *Result) finding(rule *Rule, kind, format string, args ...any) {
	r.Findings = append(r.Findings, Note{Kind: kind, Origin: rule.Origin, Text: rule.Text, Msg: fmt.Sprintf(format, args...)})
}

// assignIDs gives each rule a stable kebab-case id from its agent, decision
// and text, made unique with a numeric suffix.
func assignIDs(rules []*Rule) {
	seen := map[string]int{}
	for _, r := range rules {
		name := r.name
		if name == "" {
			name = r.Text
		}
		base := fmt.Sprintf("%s-%s-%s", agentShort(r.Agent), r.Decision, slug(name))
		id := base
		seen[base]++
		if n := seen[base]; n > 1 {
			id = fmt.Sprintf("%s-%d", base, n)
		}
		r.ID = id
	}
}

func agentShort(a Agent) string {
	switch a {
	case Claude:
		return "claude"
	case Gemini:
		return "gemini"
	}
	return string(a)
}

// slug makes a short kebab-case word of s.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, c := range strings.ToLower(s) {
		if b.Len() >= 40 {
			break
		}
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(c)
		default:
			dash = true
		}
	}
	if b.Len() == 0 {
		return "rule"
	}
	return strings.TrimRight(b.String(), "-")
}

// lineOf returns the 1-based line of byte offset off in data.
func lineOf(data []byte, off int) int {
	if off > len(data) {
		off = len(data)
	}
	return 1 + strings.Count(string(data[:off]), "\n")
}

func origin(s Source, line int) string { return fmt.Sprintf("%s:%d", s.Path, line) }

// sortNotes orders notes by file, line, kind.
func sortNotes(ns []Note) {
	sort.SliceStable(ns, func(i, j int) bool {
		fi, li := splitOrigin(ns[i].Origin)
		fj, lj := splitOrigin(ns[j].Origin)
		if fi != fj {
			return fi < fj
		}
		if li != lj {
			return li < lj
		}
		return ns[i].Kind < ns[j].Kind
	})
}

func splitOrigin(o string) (string, int) {
	i := strings.LastIndexByte(o, ':')
	if i < 0 {
		return o, 0
	}
	n := 0
	fmt.Sscanf(o[i+1:], "%d", &n)
	return o[:i], n
}

// Discover lists the files each agent reads its rules from, for a user
// whose home is home and a project at project ("" for none), in the order
// the agents merge them. Only the paths are returned; the caller reads
// those that exist. Display is how the path is shown (~ for home).
func Discover(home, project string) []Location {
	var locs []Location
	add := func(a Agent, scope, dir, pattern string) {
		if dir == "" {
			return
		}
		locs = append(locs, Location{Agent: a, Scope: scope, Path: filepath.Join(dir, pattern)})
	}
	add(Claude, "user", home, ".claude/settings.json")
	add(Claude, "project", project, ".claude/settings.json")
	add(Claude, "local", project, ".claude/settings.local.json")
	add(Codex, "user", home, ".codex/rules/*.rules")
	add(Codex, "project", project, ".codex/rules/*.rules")
	add(Codex, "user", home, ".codex/policy/*.codexpolicy") // the earlier name and place, same syntax
	add(Gemini, "user", home, ".gemini/policies/*.toml")
	add(Gemini, "project", project, ".gemini/policies/*.toml")
	return locs
}

// Location is a file (or a glob of files) an agent reads rules from.
type Location struct {
	Agent Agent
	Scope string
	Path  string // may hold a * (a directory of rule files)
}
