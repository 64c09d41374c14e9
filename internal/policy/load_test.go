package policy

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

func load(t *testing.T, opts LoadOptions, files ...string) *Policy {
	t.Helper()
	var srcs []Source
	for i, f := range files {
		srcs = append(srcs, Source{Path: []string{"platform.toml", "project.toml", "agent.toml", "extra.toml"}[i], Data: []byte(f)})
	}
	p, err := Load(srcs, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

func loadErr(t *testing.T, file string) string {
	t.Helper()
	_, err := Load([]Source{{Path: "p.toml", Data: []byte(file)}}, LoadOptions{NoBuiltin: true})
	var perr *Error
	if !errors.As(err, &perr) {
		t.Fatalf("Load: got %v, want *Error", err)
	}
	return err.Error()
}

func TestLoadErrorsArePositioned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, want string
	}{
		{"unknown top-level key", "version = 1\nrules = []\n",
			`p.toml:2:1: unknown key "rules"`},
		{"unknown rule key", "[[rule]]\nid = \"a\"\ndecision = \"deny\"\ncommand = \"x\"\ncomand = \"y\"\n",
			`p.toml:5:1: unknown key "rule.0.comand"`},
		{"unknown key in second rule", "[[rule]]\nid = \"a\"\ndecision = \"deny\"\ncommand = \"x\"\n\n[[rule]]\nid = \"b\"\n  decison = \"deny\"\n",
			`p.toml:8:3: unknown key "rule.1.decison"`},
		{"unknown settings key", "[settings]\nmode = \"headless\"\non_eror = \"deny\"\n",
			`p.toml:3:1: unknown key "settings.on_eror"`},
		{"bad decision", "[[rule]]\nid = \"git-push-force\"\ndecision = \"block\"\ncommand = \"git push\"\n",
			`p.toml:3:1: rule "git-push-force": unknown decision "block" (want allow, ask or deny)`},
		{"missing decision", "[[rule]]\nid = \"a\"\ncommand = \"git push\"\n",
			`p.toml:1:1: rule "a": missing decision (want allow, ask or deny)`},
		{"bad glob", "[[rule]]\nid = \"a\"\ndecision = \"deny\"\npath = [\"src/[a-\"]\n",
			`p.toml:4:1: rule "a": bad glob "src/[a-"`},
		{"bad regex", "[[rule]]\nid = \"a\"\ndecision = \"deny\"\nregex = 'git (push'\n",
			`p.toml:4:1: rule "a": bad regex: error parsing regexp: missing closing ): ` + "`git (push`"},
		{"duplicate id", "[[rule]]\nid = \"a\"\ndecision = \"deny\"\ncommand = \"x\"\n[[rule]]\nid = \"a\"\ndecision = \"ask\"\ncommand = \"y\"\n",
			`p.toml:6:1: rule "a": duplicate id (first defined at line 1)`},
		{"bad setting decision", "[settings]\non_error = \"maybe\"\n",
			`p.toml:2:1: on_error: unknown decision "maybe" (want pass, allow, ask or deny)`},
		{"wrong type", "[[rule]]\nid = \"a\"\ndecision = \"deny\"\npriority = \"high\"\n",
			`p.toml:4:1: key "rule.priority": got a string, want an integer`},
		{"syntax error", "[[rule]\nid = 1\n",
			`p.toml:2:7: expected end of table array name delimiter ']'`},
		{"unknown op", "[[rule]]\nid = \"a\"\ndecision = \"deny\"\npath = \"x\"\nop = \"erase\"\n",
			`p.toml:5:1: rule "a": unknown op "erase" (want write, modify, create, delete or read)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := loadErr(t, tc.file)
			if !strings.Contains(got, tc.want) {
				t.Errorf("error:\n%s\nwant it to contain:\n%s", got, tc.want)
			}
		})
	}
}

func TestLoadReportsEveryProblem(t *testing.T) {
	t.Parallel()
	got := loadErr(t, "[[rule]]\nid = \"a\"\ndecision = \"block\"\n[[rule]]\nid = \"b\"\ndecision = \"deny\"\nregex = '('\n")
	if n := strings.Count(got, "\n") + 1; n != 2 {
		t.Fatalf("want 2 problems, got %d:\n%s", n, got)
	}
}

const platform = `
[settings]
layer = "platform"
locked = ["on_error"]

[[rule]]
id = "git-push-force"
decision = "deny"
locked = true
justification = "platform says no"
command = "git push"
args = ["--force", "-f"]

[[rule]]
id = "npm-publish"
decision = "deny"
command = "npm publish"
`

func TestMergeLockedRules(t *testing.T) {
	t.Parallel()
	project := `
[settings]
disable = ["git-push-force", "npm-publish"]
on_error = "allow"

[[rule]]
id = "allow-push"
decision = "allow"
priority = 1000
command = "git push"
`
	agent := `
[[rule]]
id = "git-push-force"
decision = "allow"
command = "git push"

[[rule]]
id = "ask-tag"
decision = "ask"
command = "git tag"
`
	p := load(t, LoadOptions{NoBuiltin: true}, platform, project, agent)
	if r := p.Rule("git-push-force"); r == nil || r.Decision != call.Deny || r.Layer != "platform" {
		t.Fatalf("locked rule replaced or removed: %+v", r)
	}
	if p.Rule("npm-publish") != nil {
		t.Errorf("npm-publish should be disabled")
	}
	if p.Settings.OnError != call.Deny {
		t.Errorf("locked on_error was changed to %v", p.Settings.OnError)
	}
	var msgs []string
	for _, w := range p.Warnings {
		msgs = append(msgs, w.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		`project.toml:3:1: rule "git-push-force": cannot disable: locked by layer platform (platform.toml:6)`,
		`project.toml:4:1: on_error is locked by layer platform; this value is ignored`,
		`agent.toml:2:1: rule "git-push-force": cannot replace: locked by layer platform (platform.toml:6); this definition is ignored`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("warnings:\n%s\nwant:\n%s", all, want)
		}
	}

	for _, tc := range []struct {
		cmd  string
		want call.Decision
		rule string
	}{
		{"git push --force origin main", call.Deny, "git-push-force"}, // locked deny beats priority-1000 allow
		{"git push origin main", call.Allow, "allow-push"},
		{"git tag v1", call.Ask, "ask-tag"},
		{"npm publish", call.Pass, ""},
	} {
		res := p.Evaluate(shell(tc.cmd), Env{})
		if res.Decision != tc.want || ruleID(res) != tc.rule {
			t.Errorf("%s: got %v by %q, want %v by %q", tc.cmd, res.Decision, ruleID(res), tc.want, tc.rule)
		}
	}
}

func TestMergeReplaceAndOrder(t *testing.T) {
	t.Parallel()
	a := `
[[rule]]
id = "r1"
decision = "deny"
command = "make"
[[rule]]
id = "r2"
decision = "ask"
command = "make install"
`
	b := `
[[rule]]
id = "r1"
decision = "allow"
command = "make"
`
	p := load(t, LoadOptions{NoBuiltin: true}, a, b)
	if len(allRules(p)) != 2 || allRules(p)[0].ID != "r1" || allRules(p)[1].ID != "r2" {
		t.Fatalf("rules: %v", ids(p))
	}
	if allRules(p)[0].Decision != call.Allow || allRules(p)[0].Layer != "project" {
		t.Errorf("r1 not replaced by the later layer: %+v", allRules(p)[0])
	}
	if got := p.Evaluate(shell("make"), Env{}).Decision; got != call.Allow {
		t.Errorf("make: %v", got)
	}
	// Equal priority: the stricter decision wins.
	if got := p.Evaluate(shell("make install"), Env{}).Decision; got != call.Ask {
		t.Errorf("make install: %v", got)
	}
}

func TestSettingsMerge(t *testing.T) {
	t.Parallel()
	a := "[settings]\nmode = \"headless\"\non_dynamic = \"deny\"\naudit_log = \"/a.log\"\n"
	b := "[settings]\non_dynamic = \"pass\"\ndefault = \"ask\"\n[settings.default_for]\nmcp = \"deny\"\n"
	p := load(t, LoadOptions{NoBuiltin: true}, a, b)
	s := p.Settings
	if s.Mode != Headless || s.OnDynamic != call.Pass || s.Default != call.Ask || s.AuditLog != "/a.log" ||
		s.OnError != call.Deny || s.OnUnparsable != call.Ask || s.DefaultFor[call.KindMCP] != call.Deny {
		t.Errorf("merged settings: %+v", s)
	}
}

func TestBuiltinFalseIsANoOp(t *testing.T) {
	t.Parallel()
	p := load(t, LoadOptions{}, "[settings]\nbuiltin = false\n")
	if len(allRules(p)) != 0 {
		t.Fatalf("rules left: %v", ids(p))
	}
	for _, c := range []call.Call{
		shell("git push --force origin main"), shell("rm -rf /"),
		{Kind: call.KindWrite, Tool: "Write", Cwd: "/w", Paths: []call.Path{{Path: "/w/.claude/settings.json"}}},
	} {
		if res := p.Evaluate(c, Env{Home: "/home/u"}); res.Decision != call.Pass {
			t.Errorf("%+v: got %v, want pass", c, res.Decision)
		}
	}
}

func TestDisableOneDefault(t *testing.T) {
	t.Parallel()
	p := load(t, LoadOptions{}, "[settings]\ndisable = [\"git-push-force\"]\n")
	if p.Rule("git-push-force") != nil || p.Rule("git-push-delete") == nil {
		t.Fatalf("rules: %v", ids(p))
	}
	// A locked default cannot be disabled.
	p = load(t, LoadOptions{}, "[settings]\ndisable = [\"toolguard-self-protect\"]\n")
	if p.Rule("toolguard-self-protect") == nil {
		t.Fatal("locked self-protection was disabled")
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0].Msg, "locked by layer builtin") {
		t.Errorf("warnings: %v", p.Warnings)
	}
}

func TestBuiltinExamples(t *testing.T) {
	t.Parallel()
	p := load(t, LoadOptions{})
	if probs := p.Check(); len(probs) > 0 {
		for _, pr := range probs {
			t.Error(pr.String())
		}
	}
	if p.Examples() < 20 {
		t.Errorf("only %d examples", p.Examples())
	}
}

func TestCheckReportsFailingExamplesAndTests(t *testing.T) {
	t.Parallel()
	f := `
[[rule]]
id = "no-make"
decision = "deny"
command = "make"
examples.match = ["make all", "cmake ."]
examples.not_match = ["make -n"]

[[test]]
command = "make all"
expect = "deny"

[[test]]
command = "ls"
expect = "deny"
`
	p := load(t, LoadOptions{NoBuiltin: true}, f)
	var got []string
	for _, pr := range p.Check() {
		got = append(got, pr.String())
	}
	want := []string{
		`platform.toml:2:1: rule "no-make": example "cmake ." should match but does not`,
		`platform.toml:2:1: rule "no-make": example "make -n" should not match but does`,
		`platform.toml:13:1: test "ls": want deny, got pass (no rule matched)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestMaterializedMatchesLayers(t *testing.T) {
	t.Parallel()
	project := "[[rule]]\nid = \"ask-tag\"\ndecision = \"ask\"\ncommand = \"git tag\"\n[[rule]]\nid = \"wf\"\ndecision = \"deny\"\npath = \".github/**\"\n"
	p := load(t, LoadOptions{}, platform, project)
	b, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	calls := []call.Call{shell("git push -f"), shell("git tag v1"), shell("npm publish"), shell("ls"),
		shell("curl x | sh"), shell("rm -rf /"),
		{Kind: call.KindWrite, Tool: "Write", Cwd: "/w", Paths: []call.Path{{Path: "/w/.github/x.yml"}}}}
	calls = append(calls, corpusCalls(t)...)
	if len(calls) < 400 {
		t.Fatalf("only %d calls", len(calls))
	}
	// The full decode (validate, rules, check) and the hook's lazy one.
	for _, lazy := range []bool{false, true} {
		m, err := Load([]Source{{Path: "policy.json", Data: b}}, LoadOptions{Lazy: lazy})
		if err != nil {
			t.Fatalf("loading materialized (lazy %v): %v", lazy, err)
		}
		if (lazyOf(m) != nil) != lazy {
			t.Fatalf("lazy %v: loaded lazily = %v", lazy, lazyOf(m) != nil)
		}
		if m.Hash() != p.Hash() {
			t.Errorf("lazy %v: hash %s != %s", lazy, m.Hash(), p.Hash())
		}
		for _, c := range calls {
			a, b := p.Evaluate(c, Env{Home: "/h"}), m.Evaluate(c, Env{Home: "/h"})
			if a.Decision != b.Decision || ruleID(a) != ruleID(b) || a.Reason != b.Reason || matchIDs(a) != matchIDs(b) {
				t.Errorf("lazy %v: %+v: layers %v/%s %s, materialized %v/%s %s", lazy, c, a.Decision, ruleID(a), matchIDs(a), b.Decision, ruleID(b), matchIDs(b))
			}
		}
		if lazy && lazyOf(m) != nil {
			decoded := 0
			for _, r := range lazyOf(m).got {
				if r != nil {
					decoded++
				}
			}
			t.Logf("lazy: %d of %d rules decoded by %d calls", decoded, m.RuleCount(), len(calls))
		}
		if strings.Join(ids(m), ",") != strings.Join(ids(p), ",") {
			t.Errorf("lazy %v: rules %v != %v", lazy, ids(m), ids(p))
		}
		for _, r := range allRules(m) {
			if o := p.Rule(r.ID); o.Source != r.Source || o.Layer != r.Layer {
				t.Errorf("%s provenance %s/%s, want %s/%s", r.ID, r.Layer, r.Source, o.Layer, o.Source)
			}
		}
	}
}

func matchIDs(r *Result) string {
	var out []string
	for _, m := range r.Matches {
		out = append(out, m.Rule)
	}
	return strings.Join(out, ",")
}

func shell(cmd string) call.Call {
	return call.Call{Kind: call.KindShell, Tool: "Bash", Command: cmd, Cwd: "/home/user/project"}
}

func ruleID(r *Result) string {
	if r.Rule == nil {
		return ""
	}
	return r.Rule.ID
}

func ids(p *Policy) []string {
	var out []string
	for _, r := range allRules(p) {
		out = append(out, r.ID)
	}
	return out
}

// corpusCalls are the calls of every payload under testdata/payloads and
// every command of the dodge table.
func corpusCalls(t *testing.T) []call.Call {
	t.Helper()
	var out []call.Call
	files, _ := filepath.Glob("../../testdata/payloads/*/*.json")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		codec, err := protocol.Lookup(filepath.Base(filepath.Dir(f)))
		if err != nil {
			t.Fatal(err)
		}
		c, err := protocol.DecodeWith(codec, data, protocol.DecodeOptions{Home: "/h"})
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, c)
	}
	data, err := os.ReadFile("testdata/dodges.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var rec struct{ Cmd string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		out = append(out, call.Call{Kind: call.KindShell, Tool: "Bash", Command: rec.Cmd, Cwd: "/h/project"})
	}
	return out
}

// TestValidID: the hand-written id check agrees with the documented
// pattern ^[a-z0-9][a-z0-9._-]*$.
func TestValidID(t *testing.T) {
	re := regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)
	cases := []string{"", "a", "0", "git-push-force", "a.b_c-d", "-a", ".a", "_a", "A", "aB", "a b", "a/b", "é", "a\n", "a-", "9.9"}
	for c := byte(0); c < 128; c++ {
		cases = append(cases, string(c), "x"+string(c))
	}
	for _, id := range cases {
		if got, want := validID(id), re.MatchString(id); got != want {
			t.Errorf("validID(%q) = %v, want %v", id, got, want)
		}
	}
}
