package policy

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// DefaultsDocFile is docs/defaults.md, from this package's directory (where
// go generate runs).
const DefaultsDocFile = "../../docs/defaults.md"

// DefaultsDocMarker separates the hand-written part of docs/defaults.md
// (how the rules see commands, matching notes) from the list of rules that
// GenerateDefaultsDoc writes below it.
const DefaultsDocMarker = "<!-- Generated below this line from internal/policy/defaults.toml by `go generate ./internal/policy`: edit the rules there, and the text above this line here. -->"

// GenerateDefaultsDoc returns docs/defaults.md: the text of current up to
// and including DefaultsDocMarker, then every rule of the embedded
// defaults.toml, grouped under its "# --- section ---" comments, one item
// a rule (id, decision, locked, description, what to do instead, what it
// matches, its examples). TestDefaultsDocGenerated fails while the file in
// the repository is not what this returns.
func GenerateDefaultsDoc(current []byte) ([]byte, error) {
	head, _, ok := bytes.Cut(current, []byte(DefaultsDocMarker))
	if !ok {
		return nil, fmt.Errorf("%s: no generated-part marker line (%s)", DefaultsDocFile, DefaultsDocMarker)
	}
	ld, probs := decodeTOML(BuiltinSource())
	if ld == nil || len(probs) > 0 {
		return nil, fmt.Errorf("defaults.toml: %v", probs)
	}
	sections := defaultsSections(string(BuiltinSource().Data))

	var b strings.Builder
	b.Write(head)
	b.WriteString(DefaultsDocMarker)
	b.WriteString("\n\n## The rules\n\n")
	count := map[string]int{}
	locked := 0
	for _, r := range ld.doc.Rules {
		count[r.Decision]++
		if r.Locked {
			locked++
		}
	}
	fmt.Fprintf(&b, "%d rules: %d deny, %d ask, %d allow; %d of them locked (no later layer can disable or replace a locked rule). ",
		len(ld.doc.Rules), count["deny"], count["ask"], count["allow"], locked)
	b.WriteString("Each rule's examples run as tests (`go test ./internal/policy -run TestDefaultExamples`). ")
	b.WriteString("Matcher fields are those of docs/policy.md; every field a rule gives must hold, and a list holds when one of its entries does.\n")

	sec := -1
	for i, r := range ld.doc.Rules {
		line := ld.ix.lookup(fmt.Sprintf("rule.%d", i)).Line
		for sec+1 < len(sections) && sections[sec+1].line < line {
			sec++
			s := sections[sec]
			fmt.Fprintf(&b, "\n### %s\n", s.title)
			if s.intro != "" {
				fmt.Fprintf(&b, "\n%s\n", mdText(s.intro))
			}
		}
		writeDefaultsRule(&b, r)
	}
	return []byte(b.String()), nil
}

// defaultsSection is a "# --- title ---" comment of defaults.toml and the
// comment paragraph under it.
type defaultsSection struct {
	line  int
	title string
	intro string
}

var (
	sectionLine = regexp.MustCompile(`^# -{3} (.*?) -+\s*$`)
	issueRef    = regexp.MustCompile(` \(issue \d+\)$`) // a maintainer's note in a section title
)

func defaultsSections(src string) []defaultsSection {
	var out []defaultsSection
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		m := sectionLine.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		title := issueRef.ReplaceAllString(m[1], "")
		s := defaultsSection{line: i + 1, title: strings.ToUpper(title[:1]) + title[1:]}
		var para []string
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "#") && !sectionLine.MatchString(lines[i+1]) {
			i++
			text := strings.TrimSpace(strings.TrimPrefix(lines[i], "#"))
			if text == "" {
				text = "\n" // a bare "#": a paragraph break
			}
			para = append(para, text)
		}
		s.intro = strings.TrimSpace(strings.ReplaceAll(strings.Join(para, " "), " \n ", "\n\n"))
		out = append(out, s)
	}
	return out
}

func writeDefaultsRule(b *strings.Builder, r fileRule) {
	label := r.Decision
	if r.Locked {
		label += ", locked"
	}
	fmt.Fprintf(b, "\n#### `%s` — %s\n\n", r.ID, label)
	if r.Description != "" {
		fmt.Fprintf(b, "%s\n\n", mdText(r.Description))
	}
	if r.Justification != "" {
		fmt.Fprintf(b, "*Instead:* %s\n\n", mdText(r.Justification))
	}
	b.WriteString("Matches:\n\n")
	list := func(name string, l []string) {
		if len(l) == 0 {
			return
		}
		spans := make([]string, len(l))
		for i, s := range l {
			spans[i] = codeSpan(s)
		}
		fmt.Fprintf(b, "- %s: %s\n", name, strings.Join(spans, ", "))
	}
	one := func(name, s string) {
		if s != "" {
			fmt.Fprintf(b, "- %s: %s\n", name, codeSpan(s))
		}
	}
	list("tool", r.Tool)
	list("command", r.Command)
	list("args", r.Args)
	list("args_all", r.ArgsAll)
	list("args_none", r.ArgsNone)
	list("path", r.Path)
	list("path_none", r.PathNone)
	list("op", r.Op)
	one("scope", r.Scope)
	list("mcp", r.MCP)
	list("domain", r.Domain)
	list("fed_by", r.FedBy)
	list("via", r.Via)
	list("env", r.Env)
	list("env_none", r.EnvNone)
	list("modes", r.Modes)
	for _, in := range r.Input {
		var conds []string
		for _, c := range []struct {
			name string
			v    *string
		}{{"exact", in.Exact}, {"prefix", in.Prefix}, {"glob", in.Glob}, {"regex", in.Regex}} {
			if c.v != nil {
				conds = append(conds, c.name+" "+codeSpan(*c.v))
			}
		}
		not := ""
		if in.Not {
			not = " (not)"
		}
		fmt.Fprintf(b, "- input %s: %s%s\n", codeSpan(in.Field), strings.Join(conds, ", "), not)
	}
	if r.Priority != 0 {
		fmt.Fprintf(b, "- priority: %d\n", r.Priority)
	}
	for _, re := range []struct{ name, src string }{{"regex", r.Regex}, {"code", r.Code}} {
		if re.src == "" {
			continue
		}
		fence := "```"
		for strings.Contains(re.src, fence) {
			fence += "`"
		}
		fmt.Fprintf(b, "- %s:\n\n  %stext\n  %s\n  %s\n", re.name, fence, re.src, fence)
	}
	spans := func(l []string) string {
		out := make([]string, len(l))
		for i, s := range l {
			out[i] = codeSpan(s)
		}
		return strings.Join(out, ", ")
	}
	if len(r.Examples.Match) > 0 {
		fmt.Fprintf(b, "\nExamples that match: %s\n", spans(r.Examples.Match))
	}
	if len(r.Examples.NotMatch) > 0 {
		fmt.Fprintf(b, "\nExamples that do not: %s\n", spans(r.Examples.NotMatch))
	}
}

// mdText escapes the characters of prose that Markdown would read as markup
// (git checkout -- <paths> is an HTML tag to it, remote.*.url an emphasis),
// outside the code spans the text writes itself in backticks.
func mdText(s string) string {
	var b strings.Builder
	for i, part := range strings.Split(s, "`") {
		if i%2 == 1 {
			b.WriteString("`" + part + "`")
			continue
		}
		for _, c := range part {
			if strings.ContainsRune(`\*_<>[]`, c) {
				b.WriteByte('\\')
			}
			b.WriteRune(c)
		}
	}
	return b.String()
}

// codeSpan writes s as a Markdown code span, with a delimiter longer than
// any run of backticks in s (and the padding CommonMark strips) when it
// holds one.
func codeSpan(s string) string {
	longest, run := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	if longest == 0 && s != "" && s[0] != ' ' && s[len(s)-1] != ' ' {
		return "`" + s + "`"
	}
	delim := strings.Repeat("`", longest+1)
	return delim + " " + s + " " + delim
}
