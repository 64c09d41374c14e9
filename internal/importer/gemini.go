package importer

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/toolguard/toolguard/internal/protocol"
)

// Gemini CLI policy files: [[rule]] tables with toolName, mcpName,
// commandPrefix, commandRegex, argsPattern, decision (allow, deny,
// ask_user), priority (0-999 within a tier: the highest priority wins),
// and conditions toolguard has no counterpart for (modes, interactive,
// subagent, toolAnnotations).

type geminiDoc struct {
	Rule []geminiRule `toml:"rule"`
}

type geminiRule struct {
	ToolName         any            `toml:"toolName"`
	MCPName          *string        `toml:"mcpName"`
	Subagent         *string        `toml:"subagent"`
	ToolAnnotations  map[string]any `toml:"toolAnnotations"`
	ArgsPattern      *string        `toml:"argsPattern"`
	CommandPrefix    any            `toml:"commandPrefix"`
	CommandRegex     *string        `toml:"commandRegex"`
	Decision         string         `toml:"decision"`
	Priority         *float64       `toml:"priority"`
	DenyMessage      string         `toml:"denyMessage"`
	Modes            []string       `toml:"modes"`
	Interactive      *bool          `toml:"interactive"`
	AllowRedirection *bool          `toml:"allowRedirection"`
}

var geminiDecision = map[string]string{"allow": "allow", "ask_user": "ask", "deny": "deny"}

// geminiTier is the tier base of a policy file's location.
var geminiTier = map[string]float64{"project": 3, "user": 4, "admin": 5}

func importGemini(res *Result, s Source) error {
	var doc geminiDoc
	md, err := toml.Decode(string(s.Data), &doc)
	if err != nil {
		return fmt.Errorf("%s: %v", s.Path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return fmt.Errorf("%s: unknown key %s", s.Path, und[0])
	}
	lines := tableLines(s.Data, "rule")
	for i, gr := range doc.Rule {
		line := 0
		if i < len(lines) {
			line = lines[i]
		}
		if err := mapGemini(res, s, gr, line); err != nil {
			return fmt.Errorf("%s:%d: %v", s.Path, line, err)
		}
	}
	return nil
}

// tableLines finds the line of each [[name]] header.
func tableLines(data []byte, name string) []int {
	var out []int
	for i, l := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "[[") {
			h := strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(t, "]]", 2)[0], "[["), "]]"))
			if h == name {
				out = append(out, i+1)
			}
		}
	}
	return out
}

func stringOrList(v any, what string) ([]string, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case string:
		return []string{x}, nil
	case []any:
		var out []string
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s: want strings", what)
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s: want a string or a list of strings", what)
}

func mapGemini(res *Result, s Source, gr geminiRule, line int) error {
	dec, ok := geminiDecision[gr.Decision]
	if !ok {
		return fmt.Errorf("decision %q (want allow, deny or ask_user)", gr.Decision)
	}
	tools, err := stringOrList(gr.ToolName, "toolName")
	if err != nil {
		return err
	}
	prefixes, err := stringOrList(gr.CommandPrefix, "commandPrefix")
	if err != nil {
		return err
	}
	for _, p := range prefixes {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("an empty commandPrefix")
		}
	}
	if len(prefixes) > 0 && gr.CommandRegex != nil {
		return fmt.Errorf("commandPrefix and commandRegex in one rule")
	}
	prio := 0.0
	if gr.Priority != nil {
		prio = *gr.Priority
	}
	r := &Rule{Agent: Gemini, Origin: origin(s, line), Text: geminiText(gr, tools, prefixes), List: gr.Decision, Decision: dec,
		name: geminiName(gr, tools, prefixes),
		prio: geminiTier[s.Scope] + prio/1000, Justification: gr.DenyMessage}
	if r.Justification == "" && dec != "allow" {
		r.Justification = fmt.Sprintf("Your Gemini CLI policy (%s) says %s for this.", r.Origin, gr.Decision)
	}
	// Conditions toolguard has no counterpart for: an ask or deny is
	// carried without them (broader); an allow is not carried.
	var extra []string
	if len(gr.Modes) > 0 {
		extra = append(extra, "modes = "+strings.Join(gr.Modes, ", "))
	}
	if gr.Interactive != nil {
		extra = append(extra, fmt.Sprintf("interactive = %v", *gr.Interactive))
	}
	if gr.Subagent != nil {
		extra = append(extra, "subagent = "+*gr.Subagent)
	}
	if len(gr.ToolAnnotations) > 0 {
		extra = append(extra, "toolAnnotations")
	}
	if len(extra) > 0 {
		if dec == "allow" {
			res.skip(r.Origin, r.Text, "toolguard cannot see %s in a hook payload; the allow is left to Gemini CLI", strings.Join(extra, ", "))
			return nil
		}
		res.inexact(r, KindBroadened, "toolguard cannot see %s in a hook payload: carried whatever they are", strings.Join(extra, ", "))
	}
	shell := len(prefixes) > 0 || gr.CommandRegex != nil
	for _, t := range tools {
		if t == "run_shell_command" {
			shell = true
		}
	}
	switch {
	case shell:
		if len(tools) > 1 || len(tools) == 1 && tools[0] != "run_shell_command" && tools[0] != "*" {
			return fmt.Errorf("commandPrefix/commandRegex with toolName %v (want run_shell_command)", tools)
		}
		if !geminiShell(res, r, gr, prefixes) {
			return nil
		}
	case gr.MCPName != nil || anyMCP(tools):
		if !geminiMCP(res, r, gr, tools) {
			return nil
		}
	default:
		if len(tools) == 0 {
			return fmt.Errorf("no toolName (Gemini CLI requires one; \"*\" for every tool)")
		}
		if !geminiTools(res, r, gr, tools) {
			return nil
		}
	}
	res.Rules = append(res.Rules, r)
	return nil
}

func anyMCP(tools []string) bool {
	for _, t := range tools {
		if strings.HasPrefix(t, "mcp_") {
			return true
		}
	}
	return false
}

func geminiText(gr geminiRule, tools, prefixes []string) string {
	var parts []string
	if len(tools) > 0 {
		if len(tools) == 1 {
			parts = append(parts, "toolName="+tools[0])
		} else {
			parts = append(parts, "toolName=["+strings.Join(tools, ", ")+"]")
		}
	}
	if gr.MCPName != nil {
		parts = append(parts, "mcpName="+*gr.MCPName)
	}
	if len(prefixes) > 0 {
		if len(prefixes) == 1 {
			parts = append(parts, fmt.Sprintf("commandPrefix=%q", prefixes[0]))
		} else {
			q := make([]string, len(prefixes))
			for i, p := range prefixes {
				q[i] = fmt.Sprintf("%q", p)
			}
			parts = append(parts, "commandPrefix=["+strings.Join(q, ", ")+"]")
		}
	}
	if gr.CommandRegex != nil {
		parts = append(parts, fmt.Sprintf("commandRegex=%q", *gr.CommandRegex))
	}
	if gr.ArgsPattern != nil {
		parts = append(parts, fmt.Sprintf("argsPattern=%q", *gr.ArgsPattern))
	}
	return strings.Join(parts, " ")
}

// geminiName is what a Gemini rule's id is made from: its command
// prefixes or regex, else its MCP server and tool names.
func geminiName(gr geminiRule, tools, prefixes []string) string {
	switch {
	case len(prefixes) > 0:
		return strings.Join(prefixes, " ")
	case gr.CommandRegex != nil:
		return *gr.CommandRegex
	case gr.MCPName != nil:
		return "mcp " + *gr.MCPName + " " + strings.Join(tools, " ")
	}
	return strings.Join(tools, " ")
}

// geminiShell maps run_shell_command rules. Gemini checks each sub-command
// of a compound against the rules, as toolguard does.
func geminiShell(res *Result, r *Rule, gr geminiRule, prefixes []string) bool {
	if gr.ArgsPattern != nil {
		if r.Decision == "allow" {
			res.skip(r.Origin, r.Text, "argsPattern is a regex over the arguments' JSON, which toolguard does not match; the allow is left to Gemini CLI")
			return false
		}
		res.inexact(r, KindBroadened, "argsPattern is a regex over the arguments' JSON, which toolguard does not match: carried without it")
	}
	if gr.AllowRedirection != nil && *gr.AllowRedirection && r.Decision == "allow" {
		res.inexact(r, KindNarrowed, "allowRedirection: toolguard judges a redirection's target path on its own, so a redirected command is allowed only where a rule allows that path")
	}
	switch {
	case len(prefixes) > 0:
		var shapes []shape
		var regexes []string
		var cmds []string
		for _, p := range prefixes {
			words, ok := shellWords(p)
			if !ok || len(words) == 0 {
				if r.Decision == "allow" {
					res.skip(r.Origin, r.Text, "the prefix %q holds shell syntax toolguard matches per command; the allow is left to Gemini CLI", p)
					return false
				}
				prog := programOf(p)
				if prog == "" || strings.Contains(prog, "*") {
					r.Regex, r.Command, r.Tests = "", nil, nil
					r.Tool = []string{"shell"}
					r.shape = shape{kind: "tool", tool: "shell"}
					r.Tests = []*Test{{Command: "echo imported", want: r.Decision}}
					res.inexact(r, KindBroadened, "the prefix %q holds shell syntax and no program toolguard can read: carried for every shell command", p)
					return true
				}
				words = []string{prog}
				res.inexact(r, KindBroadened, "the prefix %q holds shell syntax: carried for every %s command", p, prog)
			}
			if !carryProgram(res, r, &words) {
				return false
			}
			tmp := &Rule{}
			commandRule(tmp, single(words), false)
			shapes = append(shapes, tmp.shape)
			regexes = append(regexes, strings.TrimSuffix(strings.TrimPrefix(tmp.Regex, "^"), "( |$)"))
			cmds = append(cmds, tmp.Command...)
			if r.example == "" {
				r.example = strings.Join(quoteWords(words), " ")
			}
			r.Tests = append(r.Tests, &Test{Command: strings.Join(quoteWords(words), " "), want: r.Decision})
		}
		r.Regex = "^" + groupRaw(regexes) + "( |$)"
		if len(cmds) == len(prefixes) {
			r.Command = dedupe(cmds)
		}
		r.shape = shapes[0]
		r.shape.alts = shapes[1:]
		r.prefix = true
	case gr.CommandRegex != nil:
		re := *gr.CommandRegex
		if _, err := regexp.Compile(re); err != nil {
			if r.Decision == "allow" {
				res.skip(r.Origin, r.Text, "the regex is not RE2 (%v); the allow is left to Gemini CLI", err)
				return false
			}
			res.inexact(r, KindBroadened, "the regex is not RE2 (%v): carried for every shell command", err)
			r.Tool = []string{"shell"}
			r.shape = shape{kind: "tool", tool: "shell"}
			r.Tests = []*Test{{Command: "echo imported", want: r.Decision}}
			return true
		}
		r.Regex = "^(?:" + re + ")"
		res.inexact(r, KindNarrowed, "commandRegex reads the command as Gemini's JSON text; toolguard matches it against each command's normalized line (program base name, quotes removed)")
		r.shape = shape{kind: "cmd", glob: true, tokens: [][]string{{re}}}
		ex := regexExample(re)
		if ex == "" {
			return failExample(res, r)
		}
		r.example = ex
		r.prefix = r.Decision == "allow"
		r.Tests = []*Test{{Command: ex, want: r.Decision}}
	default:
		r.Tool = []string{"shell"}
		r.shape = shape{kind: "tool", tool: "shell"}
		r.Tests = []*Test{{Command: "echo imported", want: r.Decision}}
	}
	return true
}

func failExample(res *Result, r *Rule) bool {
	if r.Decision == "allow" {
		res.skip(r.Origin, r.Text, "no example command could be made from the regex to test the import; the allow is left to Gemini CLI")
		return false
	}
	r.Regex, r.Command = "", nil
	r.Tool = []string{"shell"}
	r.shape = shape{kind: "tool", tool: "shell"}
	r.Tests = []*Test{{Command: "echo imported", want: r.Decision}}
	res.inexact(r, KindBroadened, "no example command could be made from the regex: carried for every shell command")
	return true
}

// regexExample makes a command a simple regex matches: literal text with
// groups of alternatives (first taken), optional parts and .* dropped.
// "" when the regex is not that simple.
func regexExample(re string) string {
	var b strings.Builder
	for i := 0; i < len(re); i++ {
		c := re[i]
		switch c {
		case '\\':
			if i+1 >= len(re) {
				return ""
			}
			i++
			switch re[i] {
			case 's':
				b.WriteByte(' ')
			case '.', '-', '/', '\\', '(', ')', '[', ']', '+', '*', '?', '|', '^', '$', '{', '}':
				b.WriteByte(re[i])
			default:
				return ""
			}
		case '(':
			j := strings.IndexByte(re[i:], ')')
			if j < 0 {
				return ""
			}
			inner := strings.TrimPrefix(re[i+1:i+j], "?:")
			alt, _, _ := strings.Cut(inner, "|")
			if strings.ContainsAny(alt, `\()[]*+?.{}^$`) {
				return ""
			}
			b.WriteString(alt)
			i += j
			if i+1 < len(re) && (re[i+1] == '?' || re[i+1] == '+') {
				i++
			}
		case '.':
			if i+1 < len(re) && (re[i+1] == '*' || re[i+1] == '+') {
				if re[i+1] == '+' {
					b.WriteByte('x')
				}
				i++
				continue
			}
			b.WriteByte('x')
		case '^', '$':
		case '[', '{', '*', '+', '?', '|':
			return ""
		default:
			b.WriteByte(c)
		}
	}
	ex := strings.Join(strings.Fields(b.String()), " ")
	if ok, _ := regexp.MatchString("^(?:"+re+")", ex); !ok {
		return ""
	}
	return ex
}

func groupRaw(parts []string) string {
	if len(parts) == 1 {
		return parts[0]
	}
	return "(" + strings.Join(parts, "|") + ")"
}

func dedupe(l []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range l {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// geminiMCP maps mcpName (+ toolName) and mcp_server_tool names.
func geminiMCP(res *Result, r *Rule, gr geminiRule, tools []string) bool {
	if gr.ArgsPattern != nil {
		if r.Decision == "allow" {
			res.skip(r.Origin, r.Text, "argsPattern is a regex over the arguments' JSON, which toolguard does not match; the allow is left to Gemini CLI")
			return false
		}
		res.inexact(r, KindBroadened, "argsPattern is a regex over the arguments' JSON: carried without it")
	}
	var pats []string
	switch {
	case gr.MCPName != nil && *gr.MCPName == "*":
		r.Tool = []string{"mcp"}
		r.shape = shape{kind: "tool", tool: "mcp:"}
		r.Tests = []*Test{{MCP: "imported/tool", want: r.Decision}}
		return true
	case gr.MCPName != nil:
		names := tools
		if len(names) == 0 || len(names) == 1 && names[0] == "*" {
			names = []string{"*"}
		}
		for _, n := range names {
			pats = append(pats, *gr.MCPName+"/"+n)
		}
	default:
		for _, t := range tools {
			rest := strings.TrimPrefix(t, "mcp_")
			if rest == "*" {
				pats = append(pats, "*/*")
				continue
			}
			server, tool, ok := strings.Cut(rest, "_")
			if !ok || server == "" || tool == "" {
				return geminiNotMCP(res, r, t)
			}
			pats = append(pats, server+"/"+tool)
		}
	}
	r.MCP = pats
	r.shape = shape{kind: "tool", tool: "mcp:" + pats[0]}
	for _, p := range pats[1:] {
		r.shape.alts = append(r.shape.alts, shape{kind: "tool", tool: "mcp:" + p})
	}
	ex := strings.ReplaceAll(pats[0], "*", "imported")
	r.Tests = []*Test{{MCP: ex, want: r.Decision}}
	return true
}

func geminiNotMCP(res *Result, r *Rule, t string) bool {
	res.skip(r.Origin, r.Text, "the MCP name %s has no server_tool part toolguard can read", t)
	return false
}

// geminiTool maps Gemini's built-in tool names to toolguard kinds where
// toolguard's kind is the same set of calls.
var geminiKinds = map[string]string{
	"write_file":        "write",
	"replace":           "edit",
	"read_file":         "read",
	"read_many_files":   "read",
	"glob":              "search",
	"grep_search":       "search",
	"list_directory":    "search",
	"web_fetch":         "web",
	"google_web_search": "web",
}

func geminiTools(res *Result, r *Rule, gr geminiRule, tools []string) bool {
	if gr.ArgsPattern != nil {
		if in, ok := argsField(*gr.ArgsPattern); ok {
			r.Input = []Input{in}
			res.inexact(r, KindNarrowed, "argsPattern read as a regex on the field %s (the JSON escaping of its value is not reproduced)", in.Field)
		} else if r.Decision == "allow" {
			res.skip(r.Origin, r.Text, "argsPattern is a regex over the arguments' JSON, which toolguard does not match; the allow is left to Gemini CLI")
			return false
		} else {
			res.inexact(r, KindBroadened, "argsPattern is a regex over the arguments' JSON, which toolguard does not match: carried without it")
		}
	}
	for _, t := range tools {
		if t == "*" {
			if r.Decision == "allow" {
				res.skip(r.Origin, r.Text, "an allow for every tool is left to Gemini CLI (toolguard would allow every call no stricter rule matches)")
				return false
			}
			r.Tool = []string{"*"}
			r.shape = shape{kind: "tool", tool: "*"}
			r.Tests = []*Test{{Tool: "write", Path: "src/imported.txt", want: r.Decision}}
			return true
		}
		if !protocol.KnownTool(t) {
			if r.Decision == "allow" {
				res.skip(r.Origin, r.Text, "toolguard does not know a tool called %s; the allow is left to Gemini CLI", t)
				return false
			}
			r.Tool = append(r.Tool, t+"*")
			res.inexact(r, KindBroadened, "toolguard does not know a tool called %s: carried as the glob %s*", t, t)
			continue
		}
		r.Tool = append(r.Tool, t)
	}
	r.shape = shape{kind: "tool", tool: tools[0]}
	for _, t := range tools[1:] {
		r.shape.alts = append(r.shape.alts, shape{kind: "tool", tool: t})
	}
	t := &Test{Tool: tools[0], want: r.Decision}
	switch k := geminiKinds[tools[0]]; k {
	case "write", "edit", "read", "search":
		t.Input = map[string]string{"file_path": "src/imported.txt"}
		if k == "search" {
			t.Input = map[string]string{"dir_path": "src"}
		}
	}
	if len(r.Input) > 0 {
		ex := regexExample(strings.TrimPrefix(r.Input[0].Regex, "^"))
		if ex == "" {
			res.Inexact = res.Inexact[:len(res.Inexact)-1]
			if r.Decision == "allow" {
				res.skip(r.Origin, r.Text, "no example could be made from argsPattern to test the import; the allow is left to Gemini CLI")
				return false
			}
			r.Input = nil
			res.inexact(r, KindBroadened, "argsPattern is a regex over the arguments' JSON that toolguard could not read: carried without it")
		} else {
			if t.Input == nil {
				t.Input = map[string]string{}
			}
			t.Input[r.Input[0].Field] = ex
		}
	}
	r.Tests = []*Test{t}
	return true
}

// argsField reads an argsPattern of the form "field":"regex… as a regex
// on that field's value.
func argsField(p string) (Input, bool) {
	m := regexp.MustCompile(`^"([A-Za-z_][A-Za-z0-9_]*)":"(.*)$`).FindStringSubmatch(p)
	if m == nil {
		return Input{}, false
	}
	body := m[2]
	if strings.HasSuffix(body, `"`) && !strings.HasSuffix(body, `\"`) {
		body = strings.TrimSuffix(body, `"`) + "$" // the value's closing quote
	}
	re := "^" + body
	if _, err := regexp.Compile(re); err != nil {
		return Input{}, false
	}
	return Input{Field: m[1], Regex: re}, true
}
