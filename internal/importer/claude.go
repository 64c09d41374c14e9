package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/toolguard/toolguard/internal/protocol"
)

// Claude Code settings: permissions.allow, permissions.ask and
// permissions.deny, each a list of rule strings: "Tool" or
// "Tool(specifier)". Precedence is fixed, whatever file a rule is in:
// deny, then ask, then allow.

// claudeEntry is one rule string with its position.
type claudeEntry struct {
	list string // allow, ask, deny
	text string
	line int
}

func importClaude(res *Result, s Source) error {
	entries, err := claudeEntries(s.Data)
	if err != nil {
		return fmt.Errorf("%s: %v", s.Path, err)
	}
	for _, e := range entries {
		mapClaude(res, s, e)
	}
	return nil
}

// claudeEntries walks the settings JSON with a token decoder, so that each
// rule string keeps its line.
func claudeEntries(data []byte) ([]claudeEntry, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []claudeEntry
	// path holds the keys of the objects we are in; "" for array levels.
	type frame struct {
		obj  bool
		key  string // the current key (objects)
		want bool   // objects: the next string token is a key
	}
	var stack []frame
	where := func() (string, bool) {
		// In permissions.<list>: the stack is [root obj, permissions obj, list array].
		if len(stack) != 3 || !stack[0].obj || !stack[1].obj || stack[2].obj {
			return "", false
		}
		if stack[0].key != "permissions" {
			return "", false
		}
		switch stack[1].key {
		case "allow", "ask", "deny":
			return stack[1].key, true
		}
		return "", false
	}
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", lineOf(data, int(off)), err)
		}
		top := len(stack) - 1
		isValue := top >= 0 && !(stack[top].obj && stack[top].want)
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{', '[':
				if top >= 0 && stack[top].obj {
					stack[top].want = true // after this value, a key
				}
				stack = append(stack, frame{obj: t == '{', want: t == '{'})
			case '}', ']':
				stack = stack[:top]
			}
			continue
		case string:
			if top >= 0 && stack[top].obj && stack[top].want {
				stack[top].key, stack[top].want = t, false
				continue
			}
			if list, ok := where(); ok {
				// The token ends at the decoder's offset; its line is where it starts.
				out = append(out, claudeEntry{list: list, text: t, line: lineOf(data, int(off)+leadingSpace(data[off:]))})
			}
		default:
			if len(stack) == 3 && stack[0].key == "permissions" {
				if _, ok := where(); ok {
					return nil, fmt.Errorf("line %d: permissions.%s holds %v, want rule strings", lineOf(data, int(off)), stack[1].key, tok)
				}
			}
		}
		if isValue && top >= 0 && stack[top].obj {
			stack[top].want = true
		}
	}
	// A permissions list that is not an array is an error too.
	var probe struct {
		Permissions map[string]json.RawMessage `json:"permissions"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, err
	}
	for _, k := range []string{"allow", "ask", "deny"} {
		raw, ok := probe.Permissions[k]
		if !ok {
			continue
		}
		var list []string
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, fmt.Errorf("permissions.%s: want a list of rule strings: %v", k, err)
		}
	}
	return out, nil
}

// leadingSpace counts the whitespace and separators before a token.
func leadingSpace(b []byte) int {
	n := 0
	for n < len(b) && (b[n] == ' ' || b[n] == '\t' || b[n] == '\n' || b[n] == '\r' || b[n] == ',' || b[n] == ':') {
		n++
	}
	return n
}

var claudeDecision = map[string]string{"allow": "allow", "ask": "ask", "deny": "deny"}

func mapClaude(res *Result, s Source, e claudeEntry) {
	r := &Rule{Agent: Claude, Origin: origin(s, e.line), Text: e.text, List: "permissions." + e.list, Decision: claudeDecision[e.list]}
	if r.Decision != "allow" {
		r.Justification = fmt.Sprintf("Your Claude Code settings (%s) %s %s.", r.Origin, map[string]string{"ask": "ask before", "deny": "deny"}[e.list], e.text)
	}
	tool, spec, hasSpec := splitClaudeRule(e.text)
	switch {
	case tool == "":
		res.skip(r.Origin, e.text, "not a permission rule (want Tool or Tool(specifier))")
		return
	case strings.HasPrefix(tool, "mcp__"):
		if hasSpec {
			claudeWhole(res, r, tool, "a specifier on an MCP tool is not a Claude Code rule form")
			break
		}
		claudeMCP(res, r, tool)
	case tool == "Bash" || tool == "PowerShell":
		if !hasSpec || spec == "*" || spec == "" {
			r.Tool = []string{"shell"}
			r.shape = shape{kind: "tool", tool: "shell"}
			r.Tests = []*Test{{Command: "echo imported", want: r.Decision}}
			break
		}
		claudeBash(res, r, spec)
	case tool == "Read" || tool == "Edit" || tool == "Write" || tool == "NotebookEdit" || tool == "MultiEdit":
		if !hasSpec || spec == "**" {
			claudeBareTool(res, r, tool)
			break
		}
		claudePath(res, s, r, tool, spec)
	case tool == "WebFetch":
		if !hasSpec {
			claudeBareTool(res, r, tool)
			break
		}
		claudeWebFetch(res, r, spec)
	default:
		if hasSpec {
			claudeWhole(res, r, tool, fmt.Sprintf("toolguard has no mapping for %s(...) specifiers", tool))
			break
		}
		if !claudeBareTool(res, r, tool) {
			return
		}
	}
	if r.Tool == nil && r.Command == nil && r.Regex == "" && r.Path == nil && r.MCP == nil && r.Domain == nil && r.Input == nil {
		return // not carried (already listed)
	}
	res.Rules = append(res.Rules, r)
}

// splitClaudeRule splits "Tool(spec)" into its parts.
func splitClaudeRule(s string) (tool, spec string, hasSpec bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexByte(s, '(')
	if i < 0 {
		if !validToolName(strings.TrimSuffix(s, "__*")) {
			return "", "", false
		}
		return s, "", false
	}
	if !strings.HasSuffix(s, ")") || !validToolName(s[:i]) {
		return "", "", false
	}
	return s[:i], s[i+1 : len(s)-1], true
}

func validToolName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// claudeToolKinds are the toolguard kinds a bare Claude Code file tool
// stands for: Read rules cover Read, Grep and Glob; Edit rules every tool
// that edits a file.
var claudeToolKinds = map[string][]string{
	"Read": {"read", "search"},
	"Edit": {"write", "edit"},
}

// claudeBareTool maps a rule naming a whole tool; false when not carried.
func claudeBareTool(res *Result, r *Rule, tool string) bool {
	if k, ok := claudeToolKinds[tool]; ok {
		r.Tool = k
		r.shape = shape{kind: "tool", tool: strings.ToLower(tool)}
		kind := k[0]
		if kind == "write" {
			kind = "edit"
		}
		r.Tests = []*Test{{Tool: kind, Path: "src/imported.txt", want: r.Decision}}
		return true
	}
	if !protocol.KnownTool(tool) {
		if r.Decision == "allow" {
			res.skip(r.Origin, r.Text, "toolguard does not know a tool called %s; an allow for it is left to Claude Code", tool)
			return false
		}
		r.Tool = []string{tool + "*"}
		res.inexact(r, KindBroadened, "toolguard does not know a tool called %s: carried as the glob %s*", tool, tool)
	} else {
		r.Tool = []string{tool}
	}
	r.shape = shape{kind: "tool", tool: strings.ToLower(tool)}
	if tool == "WebFetch" {
		r.Tests = []*Test{{URL: "https://imported.example/page", want: r.Decision}}
	} else {
		r.Tests = []*Test{{Tool: tool, want: r.Decision}}
	}
	return true
}

// claudeWhole carries a rule whose specifier toolguard cannot read as the
// whole tool when it asks or denies; an allow is not carried (its fields
// stay empty, and mapClaude does not add it).
func claudeWhole(res *Result, r *Rule, tool, why string) {
	if r.Decision == "allow" {
		res.skip(r.Origin, r.Text, "%s; the allow is left to Claude Code", why)
		return
	}
	res.inexact(r, KindBroadened, "%s: carried for every %s call", why, tool)
	if strings.HasPrefix(tool, "mcp__") {
		claudeMCP(res, r, tool)
	} else {
		claudeBareTool(res, r, tool)
	}
}

// claudeMCP maps mcp__server, mcp__server__* and mcp__server__tool.
func claudeMCP(res *Result, r *Rule, tool string) {
	rest := strings.TrimPrefix(tool, "mcp__")
	server, name, ok := strings.Cut(rest, "__")
	if !ok || name == "" {
		name = "*"
	}
	if server == "" {
		res.skip(r.Origin, r.Text, "an MCP rule without a server name")
		return
	}
	r.MCP = []string{server + "/" + name}
	r.shape = shape{kind: "tool", tool: "mcp:" + server + "/" + name}
	ex := name
	if ex == "*" {
		ex = "imported_tool"
	}
	r.Tests = []*Test{{MCP: server + "/" + ex, want: r.Decision}}
}

// claudeBash maps Bash(spec): "cmd args" (exact), "prefix:*" and
// "prefix *" (a prefix at a word boundary), or a pattern with * elsewhere
// (a wildcard over the whole command).
func claudeBash(res *Result, r *Rule, spec string) {
	prefix := false
	p := spec
	switch {
	case strings.HasSuffix(p, ":*"):
		p, prefix = strings.TrimSuffix(p, ":*"), true
	case strings.HasSuffix(p, " *") && !strings.Contains(strings.TrimSuffix(p, " *"), "*"):
		p, prefix = strings.TrimSuffix(p, " *"), true
	}
	if strings.Contains(p, "*") {
		claudeBashGlob(res, r, p)
		return
	}
	words, ok := shellWords(p)
	if !ok || len(words) == 0 {
		if r.Decision == "allow" {
			res.skip(r.Origin, r.Text, "the command holds shell syntax (operators, quotes, $) toolguard matches per command; the allow is left to Claude Code")
			return
		}
		broadenToProgram(res, r, p)
		return
	}
	if !carryProgram(res, r, &words) {
		return
	}
	commandRule(r, single(words), !prefix)
	r.prefix = prefix
	r.example = strings.Join(quoteWords(words), " ")
	r.Tests = []*Test{{Command: r.example, want: r.Decision}}
}

// carryProgram handles a program named by a path: toolguard matches the
// program's base name, so the rule would also match that name elsewhere.
func carryProgram(res *Result, r *Rule, words *[]string) bool {
	w := *words
	if !strings.Contains(w[0], "/") {
		return true
	}
	if r.Decision == "allow" {
		res.skip(r.Origin, r.Text, "toolguard matches a program by its base name (%s), so the allow would cover any %s; it is left to the agent", baseName(w[0]), baseName(w[0]))
		return false
	}
	res.inexact(r, KindBroadened, "toolguard matches a program by its base name: carried for any %s", baseName(w[0]))
	w[0] = baseName(w[0])
	return true
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}

// claudeBashGlob maps a wildcard pattern to a regex over the normalized
// command line (quotes removed, words joined by one space).
func claudeBashGlob(res *Result, r *Rule, p string) {
	if strings.ContainsAny(p, ";&|<>$`()\\\"'") {
		if r.Decision == "allow" {
			res.skip(r.Origin, r.Text, "the pattern holds shell syntax toolguard matches per command; the allow is left to Claude Code")
			return
		}
		broadenToProgram(res, r, p)
		return
	}
	parts := strings.Split(p, "*")
	for i, part := range parts {
		parts[i] = quoteMeta(collapseSpaces(part))
	}
	r.Regex = "^" + strings.Join(parts, ".*") + "$"
	r.shape = shape{kind: "cmd", glob: true}
	ex := strings.ReplaceAll(p, "*", "x")
	r.prefix = r.Decision == "allow"
	r.example = ex
	r.Tests = []*Test{{Command: ex, want: r.Decision}}
	first := strings.Fields(p)
	if len(first) > 0 && !strings.ContainsAny(first[0], "*/") {
		r.Command = []string{first[0]}
	}
}

// broadenToProgram carries an ask or deny whose command holds shell syntax
// (operators, substitutions, quotes toolguard would split on) for every
// command of its program — toolguard judges each command of a compound on
// its own, so a pattern across operators would never match — or, when no
// program can be read from it, for every shell command.
func broadenToProgram(res *Result, r *Rule, p string) {
	prog := programOf(p)
	if prog == "" || strings.Contains(prog, "*") {
		r.Tool = []string{"shell"}
		r.shape = shape{kind: "tool", tool: "shell"}
		r.Tests = []*Test{{Command: "echo imported", want: r.Decision}}
		res.inexact(r, KindBroadened, "the command holds shell syntax and no program toolguard can read: carried for every shell command")
		return
	}
	commandRule(r, [][]string{{prog}}, false)
	r.example = prog
	r.Tests = []*Test{{Command: prog, want: r.Decision}}
	res.inexact(r, KindBroadened, "the command holds shell syntax toolguard matches per command: carried for every %s command", prog)
}

// programOf reads the program a command starts with: its first word up to
// any shell character, base name.
func programOf(p string) string {
	p = strings.TrimSpace(p)
	end := strings.IndexAny(p, " \t;&|<>()$`'\"\\{}!#")
	if end >= 0 {
		p = p[:end]
	}
	return baseName(p)
}

// collapseSpaces turns each run of blanks into one space, as the
// normalized command line has them.
func collapseSpaces(s string) string {
	var b strings.Builder
	blank := false
	for _, c := range s {
		if c == ' ' || c == '\t' {
			if !blank {
				b.WriteByte(' ')
			}
			blank = true
			continue
		}
		blank = false
		b.WriteRune(c)
	}
	return b.String()
}

// claudePath maps Read(path), Edit(path), Write(path), NotebookEdit(path).
func claudePath(res *Result, s Source, r *Rule, tool, spec string) {
	never := tool == "Write" || tool == "NotebookEdit"
	if never {
		if r.Decision == "allow" {
			res.finding(r, KindNeverConsulted, "Claude Code accepts %s(path) rules but never consults them: this allow has never allowed anything, and it is not imported", tool)
			res.skip(r.Origin, r.Text, "never consulted by Claude Code (see findings): not imported")
			return
		}
		res.finding(r, KindNeverConsulted, "Claude Code accepts %s(path) rules but never consults them: this %s has never held; toolguard enforces it after import", tool, r.Decision)
	}
	pat, note, ok := claudePattern(s, spec, r.Decision)
	if !ok {
		if r.Decision == "allow" {
			res.skip(r.Origin, r.Text, "%s; the allow is left to Claude Code", note)
			return
		}
		res.skip(r.Origin, r.Text, "%s", note)
		return
	}
	if note != "" {
		kind := KindBroadened
		if r.Decision == "allow" {
			kind = KindNarrowed
		}
		res.inexact(r, kind, "%s", note)
	}
	r.Path = []string{pat}
	if r.Decision != "allow" && !strings.ContainsAny(baseName(pat), "*?[{") {
		// A directory named alone: gitignore-style, its contents too.
		r.Path = append(r.Path, strings.TrimSuffix(pat, "/")+"/**")
	}
	family := "edit"
	switch tool {
	case "Read":
		r.Op = []string{"read"}
		family = "read"
		if r.Decision == "allow" {
			r.Tool = []string{"read", "search"}
		}
	default:
		r.Op = []string{"write"}
		if r.Decision == "allow" {
			r.Tool = []string{"write", "edit"}
		}
		switch tool {
		case "Write":
			family = "write"
		case "NotebookEdit":
			family = "notebook"
		}
	}
	r.shape = shape{kind: "path", tool: family, path: spec}
	testTool := map[string]string{"read": "read", "edit": "edit", "write": "write", "notebook": "write"}[family]
	t := &Test{Tool: testTool, Path: examplePath(pat), want: r.Decision}
	r.Tests = []*Test{t}
}

// claudePattern converts a Claude Code path specifier (gitignore-style:
// //abs, ~/home, /relative-to-the-settings-file, ./relative or a bare
// name) to a toolguard path pattern. note says how it differs.
func claudePattern(s Source, spec, decision string) (pat, note string, ok bool) {
	switch {
	case strings.HasPrefix(spec, "//"):
		return spec[1:], "", true
	case strings.HasPrefix(spec, "~/"):
		return spec, "", true
	case strings.HasPrefix(spec, "/"):
		if s.Scope == "project" || s.Scope == "local" {
			return "./" + strings.TrimPrefix(spec, "/"), "", true
		}
		// In user settings, /path is relative to a directory toolguard
		// does not know the project's place of.
		if decision == "allow" {
			return "", "a /path in user settings is relative to the settings file, which toolguard cannot place", false
		}
		return "**" + spec, "a /path in user settings is relative to the settings file: carried for that path anywhere (**" + spec + ")", true
	case strings.HasPrefix(spec, "./"):
		return spec, "", true
	}
	if !strings.Contains(strings.TrimSuffix(spec, "/"), "/") {
		if decision == "allow" {
			return "./" + spec, "a name without a slash may match at any depth in Claude Code: the allow is carried for the workspace root only (./" + spec + ")", true
		}
		return spec, "a name without a slash: carried for that name at any depth", true
	}
	return "./" + spec, "", true
}

// examplePath makes a concrete path a glob matches.
func examplePath(pat string) string {
	p := strings.TrimPrefix(pat, "./")
	p = strings.ReplaceAll(p, "**/", "")
	p = strings.ReplaceAll(p, "/**", "/sub/file.txt")
	p = strings.ReplaceAll(p, "**", "file.txt")
	p = strings.ReplaceAll(p, "*", "x")
	p = strings.ReplaceAll(p, "?", "x")
	for {
		i := strings.IndexByte(p, '{')
		j := strings.IndexByte(p, '}')
		if i < 0 || j < i {
			break
		}
		alt, _, _ := strings.Cut(p[i+1:j], ",")
		p = p[:i] + alt + p[j+1:]
	}
	for {
		i := strings.IndexByte(p, '[')
		j := strings.IndexByte(p, ']')
		if i < 0 || j < i+2 {
			break
		}
		p = p[:i] + p[i+1:i+2] + p[j+1:]
	}
	if p == "" || p == "/" {
		p = "file.txt"
	}
	return p
}

// claudeWebFetch maps WebFetch(domain:host) to the exact host in the
// fetched URL for an allow, and to the host and its subdomains for an ask
// or deny.
func claudeWebFetch(res *Result, r *Rule, spec string) {
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok || host == "" || strings.ContainsAny(host, "/ ") {
		claudeWhole(res, r, "WebFetch", "only WebFetch(domain:host) is read")
		return
	}
	r.Tool = []string{"WebFetch"}
	r.shape = shape{kind: "other", tool: "webfetch", path: host}
	url := "https://" + strings.TrimPrefix(host, "*.") + "/page"
	if strings.HasPrefix(host, "*.") {
		url = "https://www." + strings.TrimPrefix(host, "*.") + "/page"
	}
	if r.Decision == "allow" {
		h := quoteMeta(host)
		if strings.HasPrefix(host, "*.") {
			h = `[^/:@]+\.` + quoteMeta(host[2:])
		}
		r.Input = []Input{{Field: "url", Regex: `^(?i)https?://` + h + `(:[0-9]+)?([/?#]|$)`}}
		r.Tests = []*Test{{URL: url, Input: map[string]string{"url": url}, want: r.Decision}}
		return
	}
	r.Domain = []string{host}
	if !strings.HasPrefix(host, "*.") {
		res.inexact(r, KindBroadened, "toolguard's domain matches %s and its subdomains", host)
	}
	r.Tests = []*Test{{URL: url, want: r.Decision}}
}

// shellWords splits a command into words the way a plain shell line reads
// (quotes removed); false when it holds operators, substitutions,
// variables or redirections that toolguard would judge per command.
func shellWords(s string) ([]string, bool) {
	var words []string
	var cur strings.Builder
	in := false
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
				continue
			}
			if quote == '"' && (c == '$' || c == '`' || c == '\\') {
				return nil, false
			}
			cur.WriteByte(c)
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == ' ' || c == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case strings.IndexByte(";&|<>$`()\\\n{}!#~", c) >= 0 && !(c == '~' && in) && !(c == '#' && in) && !(c == '!' && in) && !(c == '{' && in) && !(c == '}' && in):
			return nil, false
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if quote != 0 {
		return nil, false
	}
	if in {
		words = append(words, cur.String())
	}
	return words, true
}

// quoteWords quotes the words that need it for a shell.
func quoteWords(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = shellQuote(w)
	}
	return out
}

func shellQuote(w string) string {
	if w == "" {
		return "''"
	}
	for _, c := range w {
		if !(c == '-' || c == '_' || c == '.' || c == '/' || c == '=' || c == ':' || c == ',' || c == '+' || c == '@' || c == '%' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return w
}
