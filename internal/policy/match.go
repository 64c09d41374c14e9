package policy

import (
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/knowledge"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// ruleClass says which targets a rule is tested against.
type ruleClass int

const (
	classCall    ruleClass = iota // the tool call itself: tool, mcp, domain, input
	classPath                     // each path a call names
	classCommand                  // each command a shell string runs
)

// matcher is the compiled form of a rule's match fields. Every field a
// rule sets must match (AND); within a field, alternatives are OR-ed.
type matcher struct {
	class ruleClass

	tools    []toolPattern
	commands [][]string // alternatives, each a token prefix; token 0 matches the program name (glob)
	args     []string   // any of these matches some argument
	argsAll  []string   // each of these matches some argument
	argsNone []string   // none of these matches any argument
	paths    []pathPattern
	pathNone []pathPattern
	ops      []call.Op
	mcp      []string // server/tool globs
	regex    *lazyRegexp
	// stdinToo lets regex also match the line followed by the text fed on
	// stdin (Command.Stdin): set for ask and deny rules and for effects,
	// never for allow, so stdin text can only make a call stricter.
	stdinToo bool
	fedBy    []string // source classes or program names
	via      []string // wrapper globs ("xargs", "find -exec", "sudo")
	env      []string // NAME=value globs over the command's assignments
	envNone  []string // … none of which may match
	code     *lazyRegexp
	modes    []string
	domains  []string
	inputs   []inputCond
	scope    string   // "inside" | "outside" (workspace)
	effects  []string // any of these effects (effects.go)
}

type toolPattern struct {
	kind  call.Kind
	isKnd bool
	glob  string
}

type fieldErr struct{ field, msg string }

// compileMatcher compiles a rule's match fields. Regexes are checked now
// and compiled on first use; trusted skips the check (the build-time
// decoded defaults, whose regexes the tests compile).
func compileMatcher(fr fileRule, trusted bool) (matcher, []fieldErr) {
	var m matcher
	var errs []fieldErr
	add := func(field, format string, a ...any) {
		errs = append(errs, fieldErr{field, fmt.Sprintf(format, a...)})
	}
	for _, t := range fr.Tool {
		if k, ok := call.ParseKind(t); ok {
			m.tools = append(m.tools, toolPattern{kind: k, isKnd: true})
			continue
		}
		if _, err := globMatch(t, ""); err != nil || t == "" {
			add("tool", "bad tool pattern %q (want a kind — %s — or a tool-name glob)", t, strings.Join(call.Kinds(), ", "))
			continue
		}
		m.tools = append(m.tools, toolPattern{glob: t})
	}
	for _, c := range fr.Command {
		toks := strings.Fields(c)
		if len(toks) == 0 {
			add("command", "empty command prefix")
			continue
		}
		for _, tok := range toks {
			if _, err := globMatch(tok, ""); err != nil {
				add("command", "bad glob %q in command %q", tok, c)
			}
		}
		m.commands = append(m.commands, toks)
	}
	for _, f := range []struct {
		name string
		src  []string
		dst  *[]string
	}{{"args", fr.Args, &m.args}, {"args_all", fr.ArgsAll, &m.argsAll}, {"args_none", fr.ArgsNone, &m.argsNone}} {
		for _, a := range f.src {
			if _, err := globMatch(a, ""); err != nil || a == "" {
				add(f.name, "bad argument pattern %q", a)
				continue
			}
			*f.dst = append(*f.dst, a)
		}
	}
	for _, f := range []struct {
		name string
		src  []string
		dst  *[]pathPattern
	}{{"path", fr.Path, &m.paths}, {"path_none", fr.PathNone, &m.pathNone}} {
		if len(f.src) > 0 {
			*f.dst = make([]pathPattern, 0, len(f.src)) // write-outside-workspace's 40 exempt globs: no regrowth
		}
		for _, p := range f.src {
			pp, err := compilePath(p)
			if err != nil {
				add(f.name, "%v", err)
				continue
			}
			*f.dst = append(*f.dst, pp)
		}
	}
	for _, o := range fr.Op {
		ops, ok := ruleOps(o)
		if !ok {
			add("op", "unknown op %q (want write, modify, create, delete or read)", o)
			continue
		}
		m.ops = append(m.ops, ops...)
	}
	switch fr.Scope {
	case "", "inside", "outside", "outside-project":
		m.scope = fr.Scope
	default:
		add("scope", "unknown scope %q (want inside, outside or outside-project)", fr.Scope)
	}
	for _, s := range fr.MCP {
		if !strings.Contains(s, "/") {
			s += "/*"
		}
		if _, err := globMatch(s, ""); err != nil {
			add("mcp", "bad mcp pattern %q (want server/tool globs)", s)
			continue
		}
		m.mcp = append(m.mcp, s)
	}
	if fr.Regex != "" {
		re, err := newLazyRegexp(fr.Regex, trusted)
		if err != nil {
			add("regex", "bad regex: %v", err)
		}
		m.regex = re
	}
	if fr.Code != "" {
		re, err := newLazyRegexp(fr.Code, trusted)
		if err != nil {
			add("code", "bad regex: %v", err)
		}
		m.code = re
	}
	for _, f := range fr.FedBy {
		if _, err := globMatch(f, ""); err != nil || f == "" {
			add("fed_by", "bad fed_by pattern %q (want network, decoder, other or a program glob)", f)
			continue
		}
		m.fedBy = append(m.fedBy, f)
	}
	for _, f := range []struct {
		name string
		src  []string
		dst  *[]string
	}{{"via", fr.Via, &m.via}, {"env", fr.Env, &m.env}, {"env_none", fr.EnvNone, &m.envNone}} {
		for _, g := range f.src {
			if _, err := globMatch(g, ""); err != nil || g == "" {
				add(f.name, "bad %s pattern %q", f.name, g)
				continue
			}
			*f.dst = append(*f.dst, g)
		}
	}
	for _, mo := range fr.Modes {
		if !knownModes[mo] {
			add("modes", "unknown permission mode %q (want one of default, plan, acceptEdits, auto, dontAsk, bypassPermissions)", mo)
			continue
		}
		m.modes = append(m.modes, mo)
	}
	for _, d := range fr.Domain {
		d = strings.ToLower(strings.TrimSpace(d))
		if _, err := globMatch(d, ""); err != nil || d == "" {
			add("domain", "bad domain pattern %q", d)
			continue
		}
		m.domains = append(m.domains, d)
	}
	for j, in := range fr.Input {
		c, err := compileInput(in)
		if err != nil {
			add(fmt.Sprintf("input.%d", j), "%v", err)
			continue
		}
		m.inputs = append(m.inputs, c)
	}
	for _, e := range fr.Effect {
		if !knowledge.KnownEffect(e) {
			add("effect", "unknown effect %q (want one of %s)", e, effectNames())
			continue
		}
		m.effects = append(m.effects, e)
	}

	switch {
	case len(m.effects) > 0 && len(m.commands) == 0 && (len(m.mcp) > 0 || len(m.domains) > 0 || (len(m.tools) > 0 && onlyCallKinds(m.tools))):
		m.class = classCall // effects of a web or MCP call (effects.go)
	case len(m.commands) > 0 || len(m.args) > 0 || len(m.argsAll) > 0 || len(m.argsNone) > 0 ||
		m.regex != nil || len(m.fedBy) > 0 || m.code != nil || len(m.via) > 0 || len(m.env) > 0 || len(m.envNone) > 0:
		m.class = classCommand
	case len(m.effects) > 0 && len(m.paths) == 0 && len(m.pathNone) == 0 && len(m.ops) == 0 && m.scope == "":
		m.class = classCommand // effect alone: the effects of each command
	case len(m.paths) > 0 || len(m.pathNone) > 0 || len(m.ops) > 0 || m.scope != "":
		m.class = classPath
	default:
		m.class = classCall
	}
	if m.class == classCommand && (len(m.mcp) > 0 || len(m.domains) > 0) {
		add("mcp", "a rule cannot match both shell commands and mcp/web calls")
	}
	return m, errs
}

// ruleOps are the call ops an op field's value o stands for: "write" is
// every write, creating a file included; "modify" only a write that can
// change what a file holds (call.OpCreate is not one): rules about a
// file's content (secrets) use it.
func ruleOps(o string) ([]call.Op, bool) {
	if o == "modify" {
		return []call.Op{call.OpWrite}, true
	}
	op, ok := call.ParseOp(o)
	switch {
	case !ok:
		return nil, false
	case op == call.OpWrite:
		return []call.Op{call.OpWrite, call.OpCreate}, true
	}
	return []call.Op{op}, true
}

var knownModes = map[string]bool{
	"default": true, "plan": true, "acceptEdits": true, "auto": true, "dontAsk": true, "bypassPermissions": true,
}

// --- call-level fields ---------------------------------------------------

// matchCall tests the fields that describe the whole call: tool, modes,
// mcp, domain and input. They apply to every class of rule.
func (m *matcher) matchCall(c *call.Call) bool {
	if len(m.tools) > 0 && !anyTool(m.tools, c) {
		return false
	}
	if len(m.modes) > 0 && !contains(m.modes, c.PermissionMode) {
		return false
	}
	if len(m.mcp) > 0 {
		if c.Kind != call.KindMCP {
			return false
		}
		id := c.MCPServer + "/" + c.MCPTool
		if !anyGlob(m.mcp, id) {
			return false
		}
	}
	if len(m.domains) > 0 && !matchDomain(m.domains, c) {
		return false
	}
	for i := range m.inputs {
		if !m.inputs[i].match(c.Input) {
			return false
		}
	}
	if m.class == classCall && len(m.effects) > 0 && !anyEffect(m.effects, callEffects(c)) {
		return false
	}
	return true
}

func anyTool(ps []toolPattern, c *call.Call) bool {
	for _, p := range ps {
		if p.isKnd {
			if p.kind == c.Kind {
				return true
			}
		} else if ok, _ := globMatch(p.glob, c.Tool); ok {
			return true
		}
	}
	return false
}

func anyGlob(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := globMatch(g, s); ok {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// --- commands ------------------------------------------------------------

// matchCommand tests the command fields against one shell command.
func (m *matcher) matchCommand(cmd *shellparse.Command, env *evalEnv) bool {
	line := ""
	if cmd.Dynamic {
		// A program known only at run time can be matched by a regex rule
		// (with no command field) over its text: `eval "$(brew shellenv)"`
		// gives the dynamic command `$(brew shellenv)`.
		if m.regex == nil || len(m.commands) > 0 {
			return false
		}
		line = dynamicLine(cmd)
	}
	rest := cmd.Args
	if len(m.commands) > 0 {
		ok := false
		for _, prefix := range m.commands {
			if r, hit := matchPrefix(prefix, cmd.Name, cmd.Args); hit {
				rest, ok = r, true
				break
			}
		}
		if !ok {
			return false
		}
	}
	args := argList{rest, optionsEnd(cmd.Name, rest), endsOptions[cmd.Name], noneValues()[cmd.Name]}
	if len(m.args) > 0 && !args.any(m.args) {
		return false
	}
	for _, a := range m.argsAll {
		if !args.any([]string{a}) {
			return false
		}
	}
	if len(m.argsNone) > 0 && args.anyKept(m.argsNone) {
		return false
	}
	if m.regex != nil {
		if !cmd.Dynamic {
			line = cmd.Line() // built only for a rule that reads it
		}
		// For ask and deny rules, the text fed on stdin counts as part of
		// the command line when the string spells it out: `echo 'DROP
		// TABLE t' | psql` is `psql -c 'DROP TABLE t'`. Tried second, so
		// a regex anchored at the line's end still matches the line alone.
		if !m.regex.MatchString(line) && (!m.stdinToo || cmd.Stdin == "" || !m.regex.MatchString(line+" "+cmd.Stdin)) {
			return false
		}
	}
	if m.code != nil && (cmd.Inline == "" || !m.code.MatchString(cmd.Inline)) {
		return false
	}
	if len(m.effects) > 0 && !anyEffect(m.effects, env.commandEffects(cmd)) {
		return false
	}
	if len(m.fedBy) > 0 && !fedBy(m.fedBy, cmd.Sources) {
		return false
	}
	if len(m.via) > 0 && !anyWild(m.via, cmd.Wrappers) {
		return false
	}
	if len(m.env) > 0 && !anyWild(m.env, cmd.Env) {
		return false
	}
	if len(m.envNone) > 0 && anyWild(m.envNone, cmd.Env) {
		return false
	}
	if len(m.paths) > 0 || len(m.pathNone) > 0 || len(m.ops) > 0 || m.scope != "" {
		hit := false
		for _, p := range cmd.Paths {
			if m.matchPath(p.Path, p.Op, env) {
				hit = true
				break
			}
		}
		if !hit {
			return false
		}
	}
	return true
}

// dynamicLine is a dynamic command's text followed by its arguments.
func dynamicLine(cmd *shellparse.Command) string {
	if len(cmd.Args) == 0 {
		return cmd.DynamicText
	}
	return cmd.DynamicText + " " + strings.Join(cmd.Args, " ")
}

func (m *matcher) matchPath(p string, op call.Op, env *evalEnv) bool {
	if len(m.ops) > 0 {
		ok := false
		for _, o := range m.ops {
			ok = ok || o == op
		}
		if !ok {
			return false
		}
	}
	forms := env.pathForms(p)
	if len(m.effects) > 0 && !anyEffect(m.effects, env.pathEffects(p, op, forms)) {
		return false
	}
	if len(m.paths) > 0 {
		hit := false
		for _, f := range forms {
			for i := range m.paths {
				if m.paths[i].match(f, env) {
					hit = true
				}
			}
		}
		if !hit {
			return false
		}
	}
	if len(m.pathNone) > 0 {
		// A path is exempt only when every form of it is: a symlink named
		// like an exempt file but pointing at a protected one stays matched.
		exempt := true
		for _, f := range forms {
			hit := false
			for i := range m.pathNone {
				hit = hit || m.pathNone[i].match(f, env)
			}
			exempt = exempt && hit
		}
		if exempt {
			return false
		}
	}
	if m.scope != "" {
		var outside bool
		if m.scope == "outside-project" {
			outside = env.outsideProject(forms)
		} else {
			outside = env.outside(forms)
		}
		if (m.scope != "inside") != outside {
			return false
		}
	}
	return true
}
