package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
)

// ImportedLayer is the name the imported file is checked under.
const ImportedLayer = "import"

// verify settles each test's expectation by evaluating it against the
// embedded defaults plus the imported layer, in the world `toolguard
// validate` uses, then validates the rendered file as `toolguard validate`
// would. A test the imported rule does not decide (looser than the rule
// says) is a mapping error.
func verify(res *Result) error {
	for _, r := range res.Rules {
		for _, t := range r.Tests {
			t.Expect = t.want
		}
	}
	pol, err := policy.Load([]policy.Source{{Layer: ImportedLayer, Path: ImportedLayer + ".toml", Data: res.Policy()}}, policy.LoadOptions{Home: policy.CheckHome})
	if err != nil {
		return &Error{[]string{fmt.Sprintf("the imported policy does not load: %v", err)}}
	}
	var probs []string
	defaultNoted := map[*Rule]bool{}
	for _, r := range res.Rules {
		for _, t := range r.Tests {
			c, err := testCall(t)
			if err != nil {
				probs = append(probs, fmt.Sprintf("%s: rule %s: test: %v", r.Origin, r.ID, err))
				continue
			}
			out := pol.Evaluate(c, policy.CheckEnv())
			got := out.Decision.String()
			want, _ := call.ParseDecision(t.want)
			by := "no rule"
			if out.Rule != nil {
				by = "rule " + out.Rule.ID
				if out.Rule.Layer == "builtin" {
					by = "toolguard's default rule " + out.Rule.ID
				}
			} else if out.Cause != "" {
				by = "on_" + out.Cause
			}
			switch {
			case t.compound:
				if out.Decision <= call.Allow {
					probs = append(probs, fmt.Sprintf("%s: rule %s: the compound %q is %s, want it judged part by part", r.Origin, r.ID, t.Command, got))
				}
				t.Expect = got
				t.Note += fmt.Sprintf("; here %s by %s", got, by)
			case out.Decision == want:
				if out.Rule != nil && out.Rule != pol.Rule(r.ID) && out.Rule.Layer == "builtin" {
					t.Note = fmt.Sprintf("%s here by %s as well", got, by)
				}
			case out.Decision > want:
				t.Expect = got
				t.Note = fmt.Sprintf("%s, not %s: %s is stricter (the stricter decision wins)", got, t.want, by)
				if out.Rule != nil && out.Rule.Layer == "builtin" && !defaultNoted[r] {
					defaultNoted[r] = true
					res.finding(r, KindDefaultWins, "toolguard's default rule %s decides %s for %s, where this rule says %s", out.Rule.ID, got, testWhat(t), t.want)
				} else if out.Rule != nil && out.Rule.Layer == ImportedLayer {
					other := ruleByID(res, out.Rule.ID)
					if other != nil && other.Agent != r.Agent {
						res.finding(r, KindShadowed, "after import the %s rule %q at %s decides %s for %s: toolguard applies every imported rule to every agent", other.Agent, other.Text, other.Origin, got, testWhat(t))
					}
				}
			case out.Rule != nil && out.Rule.Layer == "builtin" && out.Rule.Locked:
				// A locked default wins over every later layer, even a
				// stricter rule: the import cannot carry this decision.
				t.Expect = got
				t.Note = fmt.Sprintf("%s, not %s: %s is locked, and a locked rule wins over any later layer", got, t.want, by)
				res.inexact(r, KindLocked, "toolguard's locked default rule %s decides %s for %s, and a locked rule wins over a later layer even when that is stricter: the %s is carried as %s there", out.Rule.ID, got, testWhat(t), r.Decision, got)
			case t.want == "allow" && matched(out, r.ID):
				// The rule allowed its command, but the call does more
				// (writes a path, runs another command) that no rule
				// allows: toolguard passes it to the agent's own flow.
				t.Expect = got
				t.Note = fmt.Sprintf("%s, not allow: the rule allows its part, and the call does more that no rule allows", got)
				res.inexact(r, KindNarrowed, "toolguard passes %s: the rule allows its command, but the call does more (a path it writes, another command) that no rule allows", testWhat(t))
			default:
				probs = append(probs, fmt.Sprintf("%s: rule %s: %s is %s (%s), want %s: the imported rule does not decide its own example", r.Origin, r.ID, testWhat(t), got, by, t.want))
			}
		}
	}
	if len(probs) > 0 {
		return &Error{probs}
	}
	sortNotes(res.Inexact)
	sortNotes(res.Findings)
	return nil
}

// Check runs the rendered policy through `toolguard validate`'s code path
// (policy.Validate: syntax, lints, every rule's examples and every
// [[test]] against the embedded defaults plus the imported layer). Import
// has already settled each test; Check is the proof, kept apart because
// it also runs every default rule's examples (a few hundred ms).
func (r *Result) Check() error {
	_, vprobs := policy.Validate([]policy.Source{{Layer: ImportedLayer, Path: ImportedLayer + ".toml", Data: r.Policy()}}, policy.LoadOptions{})
	var probs []string
	for _, p := range vprobs {
		if !p.Warning { // an imported allow that outranks a built-in deny is the user's rule, said by validate
			probs = append(probs, "the imported policy does not validate: "+p.String())
		}
	}
	if len(probs) > 0 {
		return &Error{probs}
	}
	return nil
}

// matched reports whether the rule id matched some target of the call.
func matched(out *policy.Result, id string) bool {
	for _, m := range out.Matches {
		if m.Rule == id {
			return true
		}
	}
	return false
}

func ruleByID(res *Result, id string) *Rule {
	for _, r := range res.Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

func testWhat(t *Test) string {
	switch {
	case t.Command != "":
		return fmt.Sprintf("%q", t.Command)
	case t.MCP != "":
		return "mcp " + t.MCP
	case t.URL != "":
		return "url " + t.URL
	}
	return strings.TrimSpace(t.Tool + " " + t.Path)
}

// testCall builds the call a [[test]] stands for, as toolguard validate
// does (policy's runTest): the fixed world of policy.CheckEnv.
func testCall(t *Test) (call.Call, error) {
	c := call.Call{Provider: "check", Cwd: policy.CheckWorkspace}
	switch {
	case t.Command != "":
		c.Kind, c.Tool, c.Command = call.KindShell, "Bash", t.Command
	case t.MCP != "":
		srv, tool, ok := strings.Cut(t.MCP, "/")
		if !ok {
			return c, fmt.Errorf("want mcp server/tool")
		}
		c.Kind, c.Tool, c.MCPServer, c.MCPTool = call.KindMCP, "mcp__"+srv+"__"+tool, srv, tool
	case t.URL != "":
		c.Kind, c.Tool, c.URL = call.KindWeb, "WebFetch", t.URL
	case t.Path != "":
		op := call.OpWrite
		switch t.Tool {
		case "", "write":
			c.Kind, c.Tool = call.KindWrite, "Write"
		case "edit":
			c.Kind, c.Tool = call.KindEdit, "Edit"
		case "read":
			c.Kind, c.Tool, op = call.KindRead, "Read", call.OpRead
		case "search":
			c.Kind, c.Tool, op = call.KindSearch, "Grep", call.OpRead
		default:
			return c, fmt.Errorf("unknown test tool %q", t.Tool)
		}
		c.Paths = []call.Path{{Path: protocol.JoinAbs(t.Path, policy.CheckWorkspace, policy.CheckHome), Op: op}}
	case t.Tool != "":
		c.Kind, c.Tool = call.KindOther, t.Tool
		if k, ok := call.ParseKind(t.Tool); ok {
			c.Kind = k
		}
	default:
		return c, fmt.Errorf("a test names no call")
	}
	if len(t.Input) > 0 {
		in := map[string]any{}
		for k, v := range t.Input {
			in[k] = v
		}
		c.Input, _ = json.Marshal(in)
		protocol.AddMCPPaths(&c)
	}
	return c, nil
}
