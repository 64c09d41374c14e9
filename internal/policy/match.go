package policy

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toolguard/toolguard/internal/call"
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
	fedBy    []string // source classes or program names
	via      []string // wrapper globs ("xargs", "find -exec", "sudo")
	env      []string // NAME=value globs over the command's assignments
	envNone  []string // … none of which may match
	code     *lazyRegexp
	modes    []string
	domains  []string
	inputs   []inputCond
	scope    string // "inside" | "outside" (workspace)
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
		if _, err := path.Match(t, ""); err != nil || t == "" {
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
			if _, err := path.Match(tok, ""); err != nil {
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
			if _, err := path.Match(a, ""); err != nil || a == "" {
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
		// "write" is every write, creating a file included; "modify" only
		// a write that can change what a file holds (call.OpCreate is not
		// one): rules about a file's content (secrets) use it.
		if o == "modify" {
			m.ops = append(m.ops, call.OpWrite)
			continue
		}
		op, ok := call.ParseOp(o)
		if !ok {
			add("op", "unknown op %q (want write, modify, create, delete or read)", o)
			continue
		}
		m.ops = append(m.ops, op)
		if op == call.OpWrite {
			m.ops = append(m.ops, call.OpCreate)
		}
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
		if _, err := path.Match(s, ""); err != nil {
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
		if _, err := path.Match(f, ""); err != nil || f == "" {
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
			if _, err := path.Match(g, ""); err != nil || g == "" {
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
		if _, err := path.Match(d, ""); err != nil || d == "" {
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

	switch {
	case len(m.commands) > 0 || len(m.args) > 0 || len(m.argsAll) > 0 || len(m.argsNone) > 0 ||
		m.regex != nil || len(m.fedBy) > 0 || m.code != nil || len(m.via) > 0 || len(m.env) > 0 || len(m.envNone) > 0:
		m.class = classCommand
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
	return true
}

func anyTool(ps []toolPattern, c *call.Call) bool {
	for _, p := range ps {
		if p.isKnd {
			if p.kind == c.Kind {
				return true
			}
		} else if ok, _ := path.Match(p.glob, c.Tool); ok {
			return true
		}
	}
	return false
}

func anyGlob(globs []string, s string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, s); ok {
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
	args := argList{rest, optionsEnd(cmd.Name, rest), endsOptions[cmd.Name], noneValues[cmd.Name]}
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
		if !m.regex.MatchString(line) {
			return false
		}
	}
	if m.code != nil && (cmd.Inline == "" || !m.code.MatchString(cmd.Inline)) {
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

// matchPrefix matches rule tokens against a command: token 0 against the
// program name, the others against the next positional words, skipping
// options (and the values of options known to take one). It returns the
// arguments after the matched prefix.
func matchPrefix(prefix []string, name string, args []string) ([]string, bool) {
	if ok, _ := path.Match(prefix[0], name); !ok {
		return nil, false
	}
	valued := valueOptions[name]
	i := 0
	for _, tok := range prefix[1:] {
		for {
			if i >= len(args) {
				return nil, false
			}
			a := args[i]
			if a == "--" {
				i++
				if i >= len(args) {
					return nil, false
				}
				a = args[i]
				break
			}
			if len(a) > 1 && a[0] == '-' {
				i++
				if valued[a] && i < len(args) {
					i++ // the option's value
				}
				continue
			}
			break
		}
		if ok, _ := path.Match(tok, args[i]); !ok {
			return nil, false
		}
		i++
	}
	return args[i:], true
}

// valueOptions lists, per program, the global options that take their
// value as the next word, so that `git -C dir push` is `git push`.
var valueOptions = map[string]map[string]bool{
	"git":       set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--exec-path", "--list-cmds"),
	"kubectl":   set("-n", "--namespace", "--context", "--cluster", "--kubeconfig", "--user", "-s", "--server", "--token", "--as", "--as-group", "--request-timeout", "--certificate-authority", "--client-certificate", "--client-key", "--cache-dir", "-v"),
	"helm":      set("-n", "--namespace", "--kube-context", "--kubeconfig", "--repository-config", "--repository-cache", "--registry-config", "--burst-limit", "--kube-apiserver", "--kube-as-user", "--kube-token"),
	"docker":    set("-c", "--context", "-H", "--host", "--config", "-l", "--log-level", "--tlscacert", "--tlscert", "--tlskey"),
	"podman":    set("-c", "--connection", "--url", "--root", "--runroot", "--log-level", "--storage-driver"),
	"aws":       set("--profile", "--region", "--output", "--endpoint-url", "--query", "--color", "--cli-read-timeout", "--cli-connect-timeout", "--ca-bundle"),
	"gcloud":    set("--project", "--account", "--configuration", "--format", "--verbosity", "--impersonate-service-account", "--billing-project", "--flatten", "--filter"),
	"az":        set("--subscription", "-o", "--output", "--query"),
	"npm":       set("--prefix", "-w", "--workspace", "--registry", "--userconfig", "--cache", "--otp", "--tag", "--access"),
	"pnpm":      set("-C", "--dir", "--filter", "-F", "-w", "--workspace"),
	"yarn":      set("--cwd"),
	"cargo":     set("--manifest-path", "-Z", "--config", "-C", "--color", "--target-dir"),
	"pulumi":    set("-C", "--cwd", "-s", "--stack"),
	"terraform": set(),
	"redis-cli": set("-h", "-p", "-a", "-n", "-u", "--user", "--pass", "-s", "-r", "-i"),
	"gh":        set("-R", "--repo"),
	"systemctl": set("-H", "--host", "-M", "--machine"),
	// toolguard's own value flags, so that `toolguard approvals --state-dir
	// D approve ID` is `toolguard approvals approve` (cobra finds the
	// subcommand past flags and their values).
	"toolguard": toolguardValueFlags,
}

// toolguardValueFlags are toolguard's options that take the next word as
// their value (cobra/pflag take it even when it starts with "-").
var toolguardValueFlags = set("--policy", "--layer", "--state-dir", "--provider", "--scope", "--dir", "--command",
	"--preset", "--reason", "--older-than", "-o", "--output", "--mode", "--workspace", "--audit-log", "--file",
	"--since", "--key", "--grants-dir", "--listen", "--socket", "--tool", "--path", "--mcp", "--url", "--payload",
	"--cwd", "-c")

// argList is a command's arguments after the matched prefix; for programs
// that end their options at "--" (endsOptions), the words from optEnd on
// are operands, which option patterns do not match: `git rm -f -- file`
// is forced, `git rm -- -f` removes a file named -f.
type argList struct {
	args     []string
	optEnd   int
	lastWins bool            // --no-X switches an earlier --X off for args too (git's parse-options)
	values   map[string]bool // options whose next word is their value, not an option (args_none only)
}

// noneValues lists, per program, options that take the next word as
// their value, for args_none: the value is not an option, so `chmod -R
// --reference --help /` is a recursive chmod of /, not a help request.
// (args and args_all still see every word: a wrong entry here can only
// make a rule match more.)
var noneValues = map[string]map[string]bool{
	// `toolguard approvals reject ID --reason -h` rejects: -h is the reason.
	"toolguard": toolguardValueFlags,
	"go":        toolguardValueFlags, // go run ./cmd/toolguard install --command --dry-run
	"chmod":     set("--reference"),
	"chown":     set("--reference", "--from"),
	"chgrp":     set("--reference"),
	"git": set("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path",
		"--replace-text", "--replace-message", "--replace-refs", "--paths-from-file", "--path", "--path-glob",
		"--path-regex", "--path-rename", "--subdirectory-filter", "--to-subdirectory-filter", "--refs",
		"-m", "--message", "-o", "--push-option", "--repo", "--receive-pack", "--exec", "--source", "-s"),
	"http":  set("-o", "--output", "-a", "--auth", "--session", "--session-read-only"),
	"https": set("-o", "--output", "-a", "--auth", "--session", "--session-read-only"),
	"xh":    set("-o", "--output", "-a", "--auth", "--session"),
}

// endsOptions are the programs whose option parsing stops at "--"
// wherever it stands. (find and the wrappers are not among them: `find --
// . -delete` still deletes.)
var endsOptions = set("git")

func optionsEnd(name string, args []string) int {
	if endsOptions[name] {
		if i := slices.Index(args, "--"); i >= 0 {
			return i
		}
	}
	return len(args)
}

// any reports whether some argument matches some pattern.
//
// A pattern like "-f" (one short flag) also matches inside a cluster of
// short flags ("-fu", "-rf"); a long option "--force" also matches
// "--force=value"; anything else is a glob over the whole argument.
func (l argList) any(patterns []string) bool {
	return l.match(patterns, false)
}

// anyKept is any for args_none: a long option that a later --no-OPTION
// switches off again (`git rm --cached --no-cached --force`; the last one
// wins in git and GNU tools) does not count as present. For args, that is
// only trusted for git, whose option parser gives every boolean option
// its --no- form (`git rm --force --no-force`); elsewhere a --no-X that
// a program does not know would let the rule be dodged.
func (l argList) anyKept(patterns []string) bool {
	return l.match(patterns, true)
}

func (l argList) match(patterns []string, kept bool) bool {
	for i, a := range l.args {
		if kept && i > 0 && i < l.optEnd && l.values[l.args[i-1]] {
			continue // chmod -R --reference --help /: --help names the reference file
		}
		for _, p := range patterns {
			if i >= l.optEnd && strings.HasPrefix(p, "-") && !(i == l.optEnd && p == "--") {
				continue // an operand; only a "--" pattern matches the "--" itself
			}
			if argMatch(p, a) && !((kept || l.lastWins) && i < l.optEnd && negatedLater(a, l.args[i+1:l.optEnd])) {
				return true
			}
		}
	}
	return false
}

// negatedLater reports whether a long option --X (or --X=value) is
// followed by --no-X.
func negatedLater(a string, later []string) bool {
	name, _, _ := strings.Cut(a, "=")
	if !strings.HasPrefix(name, "--") || strings.HasPrefix(name, "--no-") || len(name) < 3 {
		return false
	}
	return slices.Contains(later, "--no-"+name[2:])
}

func argMatch(p, a string) bool {
	if p == a {
		return true
	}
	if len(p) == 2 && p[0] == '-' && p[1] != '-' && len(a) > 2 && len(a) <= maxCluster && a[0] == '-' && a[1] != '-' && isFlagCluster(a[1:]) {
		return strings.IndexByte(a[1:], p[1]) >= 0
	}
	if strings.HasPrefix(p, "--") && strings.HasPrefix(a, p+"=") {
		return true
	}
	return wildMatch(p, a)
}

// anyWild reports whether some value matches some glob.
func anyWild(globs, values []string) bool {
	for _, v := range values {
		for _, g := range globs {
			if wildMatch(g, v) {
				return true
			}
		}
	}
	return false
}

// maxCluster bounds what counts as a cluster of short flags: "-rf",
// "-fdx", "-xzvf" are clusters; "-bfeature" (git checkout -b feature) or
// "-Command" (PowerShell) are not.
const maxCluster = 5

// wildMatch is path.Match where '*' and '?' also match '/': arguments are
// not paths (`+*` matches `+refs/heads/main`).
func wildMatch(p, s string) bool {
	if !strings.ContainsAny(p, "*?[\\") {
		return p == s
	}
	ok, _ := path.Match(strings.ReplaceAll(p, "/", "\x00"), strings.ReplaceAll(s, "/", "\x00"))
	return ok
}

func isFlagCluster(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func fedBy(patterns []string, sources []shellparse.Source) bool {
	for _, s := range sources {
		for _, p := range patterns {
			if p == s.Class.String() {
				return true
			}
			if ok, _ := path.Match(p, s.Name); ok {
				return true
			}
		}
	}
	return false
}

// --- paths ---------------------------------------------------------------

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
	if len(e.protected) == 0 || !strings.HasPrefix(p, "/") {
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
	for i := range e.protected {
		s := &e.protected[i]
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
