package importer

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// Policy renders the result as one toolguard policy file: a header that
// lists what could not be carried exactly and the findings, then each
// rule with a comment naming its source, its examples and its tests.
func (r *Result) Policy() []byte {
	var b bytes.Buffer
	b.WriteString("# toolguard policy imported by `toolguard import` from:\n")
	for _, s := range r.Sources {
		fmt.Fprintf(&b, "#   %s (%s, %s)\n", s.Path, s.Agent, s.Scope)
	}
	b.WriteString("#\n# Review it, then use it as a layer (e.g. ~/.config/toolguard/policy.toml) and\n")
	b.WriteString("# run `toolguard validate` on it: its [[test]]s are the import's checks.\n")
	b.WriteString("# Every rule has priority 0: between these rules and toolguard's defaults the\n")
	b.WriteString("# stricter decision wins, so no import can out-vote a default deny or ask.\n")
	writeNotes(&b, "Not carried exactly", r.Inexact)
	writeNotes(&b, "Findings (what the agent does not tell you)", r.Findings)
	b.WriteString("\nversion = 1\n")
	for _, rule := range r.Rules {
		b.WriteString("\n")
		writeRule(&b, rule)
	}
	return b.Bytes()
}

func writeNotes(b *bytes.Buffer, title string, ns []Note) {
	fmt.Fprintf(b, "#\n# %s: %d\n", title, len(ns))
	for _, n := range ns {
		fmt.Fprintf(b, "#   - %s\n", commentLine(n.String()))
	}
}

// NotesText renders both lists for stderr.
func (r *Result) NotesText() string {
	var b strings.Builder
	fmt.Fprintf(&b, "imported %d rules from %d files\n", len(r.Rules), len(r.Sources))
	for _, l := range []struct {
		title string
		ns    []Note
	}{{"not carried exactly", r.Inexact}, {"findings", r.Findings}} {
		fmt.Fprintf(&b, "%s: %d\n", l.title, len(l.ns))
		for _, n := range l.ns {
			fmt.Fprintf(&b, "  %s\n", n.String())
		}
	}
	return b.String()
}

func commentLine(s string) string { return strings.ReplaceAll(s, "\n", " ") }

func writeRule(b *bytes.Buffer, r *Rule) {
	fmt.Fprintf(b, "# %s: %s %s %s\n", r.Origin, r.Agent, r.List, commentLine(r.Text))
	b.WriteString("[[rule]]\n")
	kv(b, "id", r.ID)
	kv(b, "description", fmt.Sprintf("Imported from %s (%s %s %s).", r.Origin, r.Agent, r.List, r.Text))
	kv(b, "decision", r.Decision)
	if r.Justification != "" {
		kv(b, "justification", r.Justification)
	}
	list(b, "tool", r.Tool)
	list(b, "command", r.Command)
	if r.Regex != "" {
		fmt.Fprintf(b, "regex = %s\n", tomlString(r.Regex))
	}
	list(b, "path", r.Path)
	list(b, "op", r.Op)
	list(b, "mcp", r.MCP)
	list(b, "domain", r.Domain)
	list(b, "modes", r.Modes)
	list(b, "examples.match", r.Match)
	list(b, "examples.not_match", r.NotMatch)
	for _, in := range r.Input {
		b.WriteString("[[rule.input]]\n")
		kv(b, "field", in.Field)
		fmt.Fprintf(b, "regex = %s\n", tomlString(in.Regex))
	}
	for _, t := range r.Tests {
		b.WriteString("\n")
		if t.Note != "" {
			fmt.Fprintf(b, "# %s\n", commentLine(t.Note))
		}
		b.WriteString("[[test]]\n")
		name := t.Name
		if name == "" {
			name = r.ID
			if t.compound {
				name += " (compound)"
			}
		}
		kv(b, "name", name)
		if t.Command != "" {
			kv(b, "command", t.Command)
		}
		if t.MCP != "" {
			kv(b, "mcp", t.MCP)
		}
		if t.URL != "" {
			kv(b, "url", t.URL)
		}
		if t.Tool != "" {
			kv(b, "tool", t.Tool)
		}
		if t.Path != "" {
			kv(b, "path", t.Path)
		}
		if len(t.Input) > 0 {
			keys := make([]string, 0, len(t.Input))
			for k := range t.Input {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			parts := make([]string, len(keys))
			for i, k := range keys {
				parts[i] = fmt.Sprintf("%s = %s", k, tomlString(t.Input[k]))
			}
			fmt.Fprintf(b, "input = { %s }\n", strings.Join(parts, ", "))
		}
		kv(b, "expect", t.Expect)
	}
}

func kv(b *bytes.Buffer, k, v string) { fmt.Fprintf(b, "%s = %s\n", k, tomlString(v)) }

func list(b *bytes.Buffer, k string, vs []string) {
	if len(vs) == 0 {
		return
	}
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = tomlString(v)
	}
	fmt.Fprintf(b, "%s = [%s]\n", k, strings.Join(q, ", "))
}

// tomlString writes s as a TOML literal string when it can ('…': no
// escapes, which keeps regexes readable), else as a basic string.
func tomlString(s string) string {
	literal := !strings.ContainsAny(s, "'\n\r")
	for _, c := range s {
		if c < 0x20 && c != '\t' || c == 0x7f {
			literal = false
		}
	}
	if literal && strings.ContainsAny(s, `\"`) {
		return "'" + s + "'"
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\t':
			b.WriteString(`\t`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c == 0x7f {
				fmt.Fprintf(&b, `\u%04X`, c)
				continue
			}
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
