package policy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// The fixed world that examples and [[test]]s are evaluated in, so that
// they give the same answer on every machine.
const (
	CheckHome      = "/home/user"
	CheckWorkspace = "/home/user/project"
)

// CheckEnv is that world as an Env, with the guard surfaces a user of
// Claude Code and Codex with the default locations would have.
func CheckEnv() Env {
	return Env{Home: CheckHome, Workspace: CheckWorkspace, SelfNames: []string{"tg", "toolguard-serve"}, Protected: checkSurfaces}
}

// checkSurfaces are CheckEnv's guard surfaces.
func checkSurfaces() []Surface {
	return []Surface{
		{Path: CheckWorkspace + "/.claude/settings.json"},
		{Path: CheckWorkspace + "/.claude/settings.local.json"},
		{Path: CheckWorkspace + "/.toolguard", Tree: true},
		{Path: CheckWorkspace + "/.github/hooks", Tree: true},
		{Path: CheckHome + "/.claude/settings.json"},
		{Path: CheckHome + "/.codex/hooks.json"},
		{Path: CheckHome + "/.codex/config.toml"},
		{Path: CheckHome + "/.config/toolguard", Tree: true},
		{Path: CheckHome + "/.config/toolguard/approver.key", Secret: true},
		{Path: CheckHome + "/.local/state/toolguard", Tree: true},
		{Path: "/usr/local/bin/toolguard", Binary: true},
		{Path: "/usr/local/bin/toolguard-serve", Binary: true},
	}
}

type test struct {
	spec fileTest
	file string
	pos  srcPos
}

// Check runs every rule's examples against that rule alone and every
// [[test]] against the whole merged policy, and returns one problem per
// failure, positioned at the rule or test. It also returns the layer
// conflicts found while merging (p.Warnings).
func (p *Policy) Check() []Problem {
	return append(append([]Problem(nil), p.Warnings...), p.RunTests()...)
}

// RunTests runs the rules' examples and the [[test]]s only.
func (p *Policy) RunTests() []Problem {
	var probs []Problem
	rules, err := p.Rules()
	if err != nil {
		probs = append(probs, Problem{Msg: err.Error()})
	}
	for _, r := range rules {
		probs = append(probs, p.checkExamples(r)...)
	}
	for _, t := range p.tests {
		if prob, ok := p.runTest(t); !ok {
			probs = append(probs, prob)
		}
	}
	return probs
}

// checkExamples tests a rule's examples against the rule alone: match
// examples must match some target, not_match examples none.
func (p *Policy) checkExamples(r *Rule) []Problem { return p.checkExamplesAt(r, nil) }

// checkExamplesAt is checkExamples with each failing example positioned
// at its own line by locate (when it finds it: line > 0), else at the rule.
func (p *Policy) checkExamplesAt(r *Rule, locate func(ex string) (line, col int)) []Problem {
	var probs []Problem
	file, line := r.Source, 0
	if i := strings.LastIndexByte(r.Source, ':'); i > 0 {
		file, line = r.Source[:i], posLine(r.Source)
	}
	solo := &Policy{Settings: DefaultSettings(), rules: compiledRules{r}}
	solo.Settings.OnDynamic, solo.Settings.OnUnparsable = call.Pass, call.Pass
	solo.idx = buildIndex([]*Rule{r})
	for _, want := range []bool{true, false} {
		list := r.spec.Examples.Match
		if !want {
			list = r.spec.Examples.NotMatch
		}
		for _, ex := range list {
			line, col := line, 1
			if locate != nil {
				if l, c := locate(ex); l > 0 {
					line, col = l, c
				}
			}
			c, err := exampleCall(r, ex)
			if err != nil {
				probs = append(probs, Problem{File: file, Line: line, Col: col, Rule: r.ID, Msg: fmt.Sprintf("example %q: %v", ex, err)})
				continue
			}
			res := solo.Evaluate(c, CheckEnv())
			got := false
			for _, m := range res.Matches {
				got = got || m.Rule == r.ID
			}
			if got != want {
				verb := "should match but does not"
				if !want {
					verb = "should not match but does"
				}
				probs = append(probs, Problem{File: file, Line: line, Col: col, Rule: r.ID,
					Msg: fmt.Sprintf("example %q %s", ex, verb)})
			}
		}
	}
	return probs
}

// exampleCall builds the call an example stands for. An example may say
// its kind with a prefix ("read: ~/.ssh/id_rsa", "mcp: github/delete_repo",
// "tool: WebFetch", "url: https://x"); without one it is a shell command
// for command rules, a written path for path rules, and a tool name or
// server/tool for call rules.
func exampleCall(r *Rule, ex string) (call.Call, error) {
	kind, text := "", ex
	if i := strings.Index(ex, ": "); i > 0 && !strings.ContainsAny(ex[:i], " \t\"'") {
		kind, text = ex[:i], strings.TrimSpace(ex[i+2:])
	}
	if kind == "" {
		switch r.m.class {
		case classCommand:
			kind = "shell"
		case classPath:
			kind = "write"
			if len(r.m.ops) > 0 {
				kind = opKind(r.m.ops[0])
			}
		default:
			switch {
			case len(r.m.mcp) > 0:
				kind = "mcp"
			case len(r.m.domains) > 0:
				kind = "url"
			default:
				kind = "tool"
			}
		}
	}
	return buildCall(kind, text, r.m.tools)
}

func opKind(op call.Op) string {
	switch op {
	case call.OpDelete:
		return "delete"
	case call.OpRead:
		return "read"
	}
	return "write"
}

// buildCall makes a call of the named kind in the check world.
func buildCall(kind, text string, tools []toolPattern) (call.Call, error) {
	c := call.Call{Provider: "check", Cwd: CheckWorkspace}
	switch kind {
	case "shell", "command":
		c.Kind, c.Tool, c.Command = call.KindShell, "Bash", text
	case "write", "edit", "read", "delete", "search":
		op := call.OpWrite
		c.Kind, c.Tool = call.KindWrite, "Write"
		switch kind {
		case "edit":
			c.Kind, c.Tool = call.KindEdit, "Edit"
		case "read":
			c.Kind, c.Tool, op = call.KindRead, "Read", call.OpRead
		case "search":
			c.Kind, c.Tool, op = call.KindSearch, "Grep", call.OpRead
		case "delete":
			c.Kind, c.Tool, op = call.KindEdit, "Delete", call.OpDelete
		}
		c.Paths = []call.Path{{Path: call.JoinAbs(text, CheckWorkspace, CheckHome), Op: op}}
	case "mcp":
		srv, tool, ok := strings.Cut(text, "/")
		if !ok {
			return c, fmt.Errorf("want mcp: server/tool")
		}
		c.Kind, c.Tool, c.MCPServer, c.MCPTool = call.KindMCP, "mcp__"+srv+"__"+tool, srv, tool
	case "url":
		c.Kind, c.Tool, c.URL = call.KindWeb, "WebFetch", text
	case "tool":
		c.Kind, c.Tool = call.KindOther, text
		if k, ok := call.ParseKind(text); ok {
			c.Kind = k
		}
		for _, t := range tools {
			if t.isKnd {
				c.Kind = t.kind
			}
		}
	default:
		return c, fmt.Errorf("unknown example kind %q (want shell, write, edit, read, delete, search, mcp, url or tool)", kind)
	}
	return c, nil
}

// runTest evaluates one [[test]] against the merged policy.
func (p *Policy) runTest(t test) (Problem, bool) {
	s := t.spec
	name := s.Name
	c := call.Call{Provider: "check", Cwd: CheckWorkspace}
	if s.Cwd != "" {
		c.Cwd = call.JoinAbs(s.Cwd, CheckWorkspace, CheckHome)
	}
	var err error
	switch {
	case s.Command != "":
		c.Kind, c.Tool, c.Command = call.KindShell, "Bash", s.Command
		if name == "" {
			name = s.Command
		}
	case s.MCP != "":
		c, err = buildCall("mcp", s.MCP, nil)
		if name == "" {
			name = "mcp " + s.MCP
		}
	case s.URL != "":
		c, err = buildCall("url", s.URL, nil)
		if name == "" {
			name = "url " + s.URL
		}
	default:
		kind := s.Tool
		if kind == "" {
			kind = "write"
		}
		if s.Path == "" {
			c, err = buildCall("tool", kind, nil)
		} else {
			c, err = buildCall(kind, s.Path, nil)
		}
		if name == "" {
			name = strings.TrimSpace(kind + " " + s.Path)
		}
	}
	if s.Tool != "" && c.Kind != call.KindOther {
		if _, isKind := call.ParseKind(s.Tool); !isKind {
			c.Tool = s.Tool
		}
	}
	c.PermissionMode = s.Mode
	if s.Input != nil {
		c.Input, _ = json.Marshal(s.Input)
		call.AddMCPPaths(&c) // the paths an MCP input names, as the hook's decode adds them
	}
	prob := Problem{File: t.file, Line: t.pos.Line, Col: t.pos.Col}
	if err != nil {
		prob.Msg = fmt.Sprintf("test %q: %v", name, err)
		return prob, false
	}
	res := p.Evaluate(c, CheckEnv())
	want, _ := call.ParseDecision(s.Expect)
	if res.Decision == want {
		return prob, true
	}
	who := "no rule matched"
	if res.Rule != nil {
		who = fmt.Sprintf("rule %s (%s)", res.Rule.ID, res.Rule.Source)
	} else if res.Cause != "" {
		who = res.Cause
	}
	prob.Msg = fmt.Sprintf("test %q: want %s, got %s (%s)", name, want, res.Decision, who)
	return prob, false
}
