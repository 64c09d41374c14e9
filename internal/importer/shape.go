package importer

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// shape is a source rule in the form the shadow analysis compares: a
// whole tool, a command pattern (words or alternatives at each position,
// by prefix or exact), a path pattern, or something only equal to itself.
type shape struct {
	kind   string // "tool", "cmd", "path", "other"; "" never covers nor is covered
	tool   string // tool family: shell, read, edit, write, notebook, webfetch, mcp:server/tool, *
	tokens [][]string
	exact  bool
	glob   bool // a wildcard command pattern: compared only for equality
	path   string
	alts   []shape // more shapes the rule has (Gemini commandPrefix lists)
}

func (s shape) all() []shape {
	out := []shape{s}
	for _, a := range s.alts {
		out = append(out, a)
	}
	return out
}

// family is the tool family a shape belongs to.
func (s shape) family() string {
	if s.kind == "cmd" {
		return "shell"
	}
	return s.tool
}

// covers reports whether every call a matches, b matches too.
func covers(b, a shape) bool {
	for _, as := range a.all() {
		ok := false
		for _, bs := range b.all() {
			if covers1(bs, as) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

func covers1(b, a shape) bool {
	if b.kind == "" || a.kind == "" {
		return false
	}
	if b.kind == "tool" {
		switch {
		case b.tool == "*":
			return true
		case b.tool == a.family():
			return true
		case b.tool == "edit" && (a.family() == "write" || a.family() == "notebook"):
			return true // Claude Code: Edit rules cover every tool that edits a file
		case b.tool == "mcp:":
			return strings.HasPrefix(a.family(), "mcp:") // every MCP tool
		case strings.HasPrefix(b.tool, "mcp:") && strings.HasSuffix(b.tool, "/*"):
			return strings.HasPrefix(a.family(), strings.TrimSuffix(b.tool, "*"))
		}
		return false
	}
	if b.kind != a.kind {
		return false
	}
	switch b.kind {
	case "cmd":
		if b.glob || a.glob {
			return b.glob && a.glob && slices.EqualFunc(b.tokens, a.tokens, slices.Equal)
		}
		if len(b.tokens) > len(a.tokens) || b.exact && (!a.exact || len(b.tokens) != len(a.tokens)) {
			return false
		}
		for i, bt := range b.tokens {
			for _, w := range a.tokens[i] {
				if !slices.Contains(bt, w) {
					return false
				}
			}
		}
		return true
	case "path", "other":
		return b.tool == a.tool && b.path == a.path || b.kind == "path" && b.path == "**" && b.tool == a.tool
	}
	return false
}

// single turns words into one alternative per position.
func single(ws []string) [][]string {
	out := make([][]string, len(ws))
	for i, w := range ws {
		out[i] = []string{w}
	}
	return out
}

// commandRule sets a command rule's fields from the words (alternatives
// at each position) a command must start with, exactly or as a prefix at
// a word boundary. The regex reads toolguard's normalized command line
// (program base name and arguments, quotes removed, one space between),
// so the rule matches exactly what the words say: `command` narrows the
// index to the program and its leading positional words.
func commandRule(r *Rule, toks [][]string, exact bool) {
	var b strings.Builder
	b.WriteByte('^')
	for i, alts := range toks {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(group(alts))
	}
	if exact {
		b.WriteByte('$')
	} else {
		b.WriteString("( |$)")
	}
	r.Regex = b.String()
	r.Command = prefixes(toks)
	r.shape = shape{kind: "cmd", tokens: toks, exact: exact}
}

func group(alts []string) string {
	q := make([]string, len(alts))
	for i, a := range alts {
		q[i] = quoteMeta(a)
	}
	if len(q) == 1 {
		return q[0]
	}
	return "(" + strings.Join(q, "|") + ")"
}

func quoteMeta(s string) string { return regexp.QuoteMeta(s) }

// prefixes lists toolguard command prefixes for the leading positional
// words (no option, no glob character), at most 32 of them.
func prefixes(toks [][]string) []string {
	var out []string
	n := 0
	for _, alts := range toks {
		ok := true
		for _, a := range alts {
			if a == "" || strings.HasPrefix(a, "-") || strings.ContainsAny(a, "*?[]{}\\ \t") {
				ok = false
			}
		}
		if !ok {
			break
		}
		n++
	}
	if n == 0 {
		return nil
	}
	out = []string{""}
	for _, alts := range toks[:n] {
		if len(out)*len(alts) > 32 {
			break
		}
		var next []string
		for _, p := range out {
			for _, a := range alts {
				next = append(next, strings.TrimSpace(p+" "+a))
			}
		}
		out = next
	}
	return out
}

var rank = map[string]int{"allow": 1, "ask": 2, "deny": 3}

// findShadows reports, per agent, the rules a stricter rule of the same
// agent always overrides, the Gemini rules whose priority reverses that,
// and the prefix allows a compound command would defeat in a plain prefix
// reading.
func findShadows(res *Result) {
	for _, a := range res.Rules {
		for _, b := range res.Rules {
			if a == b || a.Agent != b.Agent || rank[b.Decision] <= rank[a.Decision] || !covers(b.shape, a.shape) {
				continue
			}
			if a.Agent == Gemini && a.prio > b.prio {
				res.finding(a, KindOutvoted, "Gemini lets this %s (priority %s) win over the %s %q at %s (priority %s); toolguard keeps the stricter rule, so these calls are %s after import",
					a.List, fmtPrio(a.prio), b.List, b.Text, b.Origin, fmtPrio(b.prio), b.Decision+"ed")
				res.finding(b, KindOutvoted, "Gemini never applies this %s where the %s %q at %s (priority %s) matches; toolguard applies it there (stricter wins)",
					b.List, a.List, a.Text, a.Origin, fmtPrio(a.prio))
				break
			}
			res.finding(a, KindShadowed, "never takes effect: the %s %q at %s matches every call this rule matches and wins", b.List, b.Text, b.Origin)
			break
		}
	}
	for _, r := range res.Rules {
		if !r.prefix || r.Decision != "allow" || r.example == "" {
			continue
		}
		cmd := r.example + "; rm -rf ~"
		r.Tests = append(r.Tests, &Test{Command: cmd, compound: true, want: "deny",
			Note: "a compound command: the allow covers its first command only"})
		var how string
		switch r.Agent {
		case Claude:
			how = "Claude Code splits on shell operators"
		case Codex:
			how = "Codex splits a bash -lc script of plain words and operators, else matches it whole"
		case Gemini:
			how = "Gemini CLI checks each sub-command"
		}
		res.finding(r, KindCompound, "a plain prefix reading lets %q through (%s); toolguard judges each command, including those inside $(…), sh -c and xargs, and each written path, so the rm decides (a test shows it)", cmd, how)
	}
}

func fmtPrio(p float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.3f", p), "0"), ".")
}
