package importer

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/policy"
)

var update = flag.Bool("update", false, "rewrite testdata/import/golden")

const fixtures = "../../testdata/import"

// fixture names a fixture file with its agent and scope.
type fixture struct {
	agent Agent
	scope string
	path  string // under testdata/import
}

var (
	claudeFixtures = []fixture{
		{Claude, "user", "claude/home/.claude/settings.json"},
		{Claude, "project", "claude/project/.claude/settings.json"},
		{Claude, "local", "claude/project/.claude/settings.local.json"},
	}
	codexFixtures  = []fixture{{Codex, "user", "codex/default.rules"}}
	geminiFixtures = []fixture{{Gemini, "user", "gemini/policies.toml"}}
)

var fixtureSets = []struct {
	name  string
	files []fixture
	rules int // at least this many source rules
}{
	{"claude", claudeFixtures, 30},
	{"codex", codexFixtures, 30},
	{"gemini", geminiFixtures, 30},
	{"all", slices.Concat(claudeFixtures, codexFixtures, geminiFixtures), 90},
}

func load(t *testing.T, fs []fixture) []Source {
	t.Helper()
	var srcs []Source
	for _, f := range fs {
		data, err := os.ReadFile(filepath.Join(fixtures, f.path))
		if err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, Source{Agent: f.agent, Scope: f.scope, Path: f.path, Data: data})
	}
	return srcs
}

// TestGolden pins the imported policy and the notes for each fixture set
// (go test ./internal/importer -run TestGolden -update rewrites them).
func TestGolden(t *testing.T) {
	for _, set := range fixtureSets {
		t.Run(set.name, func(t *testing.T) {
			t.Parallel()
			res, err := Import(load(t, set.files))
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join(fixtures, "golden", set.name+".toml"), string(res.Policy()))
			golden(t, filepath.Join(fixtures, "golden", set.name+".notes"), res.NotesText())
		})
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the import (run with -update and review the diff)", path)
	}
}

// sourceRules counts the rules in the fixtures as the agents see them.
func sourceRules(t *testing.T, srcs []Source) int {
	n := 0
	for _, s := range srcs {
		switch s.Agent {
		case Claude:
			es, err := claudeEntries(s.Data)
			if err != nil {
				t.Fatal(err)
			}
			n += len(es)
		case Codex:
			n += strings.Count(string(s.Data), "prefix_rule(")
		case Gemini:
			n += len(tableLines(s.Data, "rule"))
		}
	}
	return n
}

// TestRoundTrip imports each fixture set and runs the result through the
// code path of `toolguard validate` (policy.Validate: examples and
// [[test]]s against the defaults plus the imported layer): no problem,
// every carried rule tested, every source rule either carried or listed.
func TestRoundTrip(t *testing.T) {
	for _, set := range fixtureSets {
		t.Run(set.name, func(t *testing.T) {
			t.Parallel()
			srcs := load(t, set.files)
			if n := sourceRules(t, srcs); n < set.rules {
				t.Fatalf("the fixtures hold %d rules, want at least %d", n, set.rules)
			}
			res, err := Import(srcs)
			if err != nil {
				t.Fatal(err)
			}
			out := res.Policy()
			pol, probs := policy.Validate([]policy.Source{{Path: "imported.toml", Data: out}}, policy.LoadOptions{})
			for _, p := range probs {
				t.Errorf("validate: %s", p)
			}
			if pol == nil {
				t.Fatal("no policy")
			}
			tests := 0
			for _, r := range res.Rules {
				if len(r.Tests) == 0 {
					t.Errorf("rule %s (%s) has no [[test]]", r.ID, r.Origin)
				}
				tests += len(r.Tests)
				if pol.Rule(r.ID) == nil {
					t.Errorf("rule %s is not in the validated policy", r.ID)
				}
			}
			if got := pol.TestCount(); got != tests {
				t.Errorf("validate ran %d tests, the import wrote %d", got, tests)
			}
			// Every source rule is carried or listed as not carried.
			carried := map[string]bool{}
			for _, r := range res.Rules {
				carried[r.Origin] = true
			}
			for _, n := range res.Inexact {
				if n.Kind == KindNotCarried {
					carried[n.Origin] = true
				}
			}
			if n := sourceRules(t, srcs); len(carried) < n-countNonRules(res) {
				t.Errorf("%d source rules, %d carried or listed", n, len(carried))
			}
		})
	}
}

// countNonRules counts listed statements that are not rules (Codex
// host_executable and network_rule), which sourceRules does not count.
func countNonRules(res *Result) int {
	n := 0
	for _, x := range res.Inexact {
		if strings.HasSuffix(x.Text, "(…)") {
			n++
		}
	}
	return n
}

// TestFindingsExact pins the findings of each agent's fixtures: every
// shadowed, never-consulted and priority-reversed rule, and every rule a
// default decides more strictly, no more, no less.
func TestFindingsExact(t *testing.T) {
	want := map[string][]string{
		"claude": {
			"shadowed claude/home/.claude/settings.json:14",                 // WebFetch(domain:docs.anthropic.com) < ask WebFetch
			"shadowed claude/home/.claude/settings.json:15",                 // WebFetch(domain:github.com) < ask WebFetch
			"shadowed claude/home/.claude/settings.json:17",                 // mcp__github__get_issue < ask mcp__github
			"never consulted claude/home/.claude/settings.json:19",          // allow Write(./notes/**)
			"never consulted claude/home/.claude/settings.json:32",          // deny Write(~/.bashrc)
			"shadowed claude/project/.claude/settings.json:10",              // allow Read(./secrets/**) < deny Read(./secrets/**)
			"never consulted claude/project/.claude/settings.json:13",       // allow NotebookEdit(./notebooks/**)
			"shadowed claude/project/.claude/settings.json:14",              // Bash(git push origin main) < ask Bash(git push:*)
			"never consulted claude/project/.claude/settings.json:27",       // deny NotebookEdit(./data/**)
			"default stricter claude/project/.claude/settings.local.json:7", // Bash(git clean -fdx): git-clean-force asks
		},
		"codex": {
			"shadowed codex/default.rules:140", // git push origin main < prompt git push|fetch
			"shadowed codex/default.rules:141", // sudo -n true < forbidden sudo
		},
		"gemini": {
			"priority gemini/policies.toml:4",   // ask git: never applied where git status / git diff… allows win
			"priority gemini/policies.toml:10",  // allow git status (200) over ask git (100)
			"priority gemini/policies.toml:16",  // allow git diff/log/show (200) over ask git (100)
			"shadowed gemini/policies.toml:22",  // allow git branch (50) < ask git (100)
			"priority gemini/policies.toml:45",  // allow my-jira-server/search (200) over ask every MCP tool (10)
			"priority gemini/policies.toml:57",  // ask every MCP tool: never applied where the jira allow matches
			"priority gemini/policies.toml:108", // ask docker: never applied where docker ps (300) allows
			"priority gemini/policies.toml:114", // allow docker ps (300) over ask docker (100)
			"shadowed gemini/policies.toml:150", // allow curl -s … (100) < deny curl (900)
		},
	}
	for _, set := range fixtureSets[:3] {
		t.Run(set.name, func(t *testing.T) {
			t.Parallel()
			res, err := Import(load(t, set.files))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range res.Findings {
				switch f.Kind {
				case KindShadowed, KindNeverConsulted, KindOutvoted, KindDefaultWins:
					got = append(got, f.Kind+" "+f.Origin)
				}
			}
			got = slices.Compact(got)
			w := want[set.name]
			if !slices.Equal(got, w) {
				t.Errorf("findings:\n got  %q\n want %q", got, w)
			}
			// Each prefix allow has a compound finding and a compound test
			// that is not allowed.
			for _, r := range res.Rules {
				if !r.prefix || r.Decision != "allow" {
					continue
				}
				has := slices.ContainsFunc(res.Findings, func(n Note) bool { return n.Kind == KindCompound && n.Origin == r.Origin })
				if !has {
					t.Errorf("%s: prefix allow %s has no compound finding", r.Origin, r.Text)
				}
				for _, tc := range r.Tests {
					if tc.compound && (tc.Expect == "allow" || tc.Expect == "pass") {
						t.Errorf("%s: compound %q expects %s", r.Origin, tc.Command, tc.Expect)
					}
				}
			}
		})
	}
}

// TestClaudeMapping is a table of single Claude Code rules and what each
// becomes.
func TestClaudeMapping(t *testing.T) {
	cases := []struct {
		list, rule string
		scope      string
		// want: the rule's fields as "key=value" (empty: not carried)
		want []string
		note string // a substring of the one inexact note, if any
	}{
		{"allow", "Bash(git status:*)", "user", []string{"allow", "command=git status", `regex=^git status( |$)`}, ""},
		{"allow", "Bash(npm run test *)", "user", []string{"allow", "command=npm run test", `regex=^npm run test( |$)`}, ""},
		{"allow", "Bash(npm run lint)", "user", []string{"allow", "command=npm run lint", `regex=^npm run lint$`}, ""},
		{"allow", "Bash(ls -la)", "user", []string{"allow", "command=ls", `regex=^ls -la$`}, ""},
		{"allow", "Bash(git * main)", "user", []string{"allow", "command=git", `regex=^git .* main$`}, ""},
		{"deny", "Bash", "user", []string{"deny", "tool=shell"}, ""},
		{"allow", "Bash(./deploy.sh)", "user", nil, "base name"},
		{"deny", "Bash(/usr/bin/curl:*)", "user", []string{"deny", "command=curl", `regex=^curl( |$)`}, "base name"},
		{"allow", "Bash(echo hi && rm x)", "user", nil, "shell syntax"},
		{"deny", "Bash(echo hi && rm x)", "user", []string{"deny", "command=echo", `regex=^echo( |$)`}, "every echo command"},
		{"deny", "Bash(curl * | sh)", "user", []string{"deny", "command=curl", `regex=^curl( |$)`}, "every curl command"},
		{"ask", "Bash($(cat cmd.txt))", "user", []string{"ask", "tool=shell"}, "every shell command"},
		{"deny", "Read(./.env)", "project", []string{"deny", "path=./.env,./.env/**", "op=read"}, ""},
		{"deny", "Read(.env)", "project", []string{"deny", "path=.env,.env/**", "op=read"}, "any depth"},
		{"allow", "Read(.env.example)", "project", []string{"allow", "tool=read,search", "path=./.env.example", "op=read"}, "workspace root only"},
		{"deny", "Read(//etc/shadow)", "user", []string{"deny", "path=/etc/shadow,/etc/shadow/**", "op=read"}, ""},
		{"deny", "Read(~/.ssh/**)", "user", []string{"deny", "path=~/.ssh/**", "op=read"}, ""},
		{"allow", "Edit(/src/**/*.ts)", "project", []string{"allow", "tool=write,edit", "path=./src/**/*.ts", "op=write"}, ""},
		{"allow", "Edit(/src/**)", "user", nil, "relative to the settings file"},
		{"deny", "Edit(/src/**)", "user", []string{"deny", "path=**/src/**", "op=write"}, "relative to the settings file"},
		{"allow", "Write(./out/**)", "project", nil, "never consulted"},
		{"deny", "Write(./out/**)", "project", []string{"deny", "path=./out/**", "op=write"}, ""},
		{"allow", "WebFetch(domain:example.com)", "user", []string{"allow", "tool=WebFetch", `input=url:^(?i)https?://example\.com(:[0-9]+)?([/?#]|$)`}, ""},
		{"deny", "WebFetch(domain:example.com)", "user", []string{"deny", "tool=WebFetch", "domain=example.com"}, "subdomains"},
		{"allow", "mcp__github__get_issue", "user", []string{"allow", "mcp=github/get_issue"}, ""},
		{"deny", "mcp__github", "user", []string{"deny", "mcp=github/*"}, ""},
		{"ask", "mcp__github__*", "user", []string{"ask", "mcp=github/*"}, ""},
		{"allow", "WebSearch", "user", []string{"allow", "tool=WebSearch"}, ""},
		{"deny", "Read", "user", []string{"deny", "tool=read,search"}, ""},
		{"allow", "Agent(Explore)", "user", nil, "no mapping"},
		{"deny", "Agent(Explore)", "user", []string{"deny", "tool=Agent"}, "no mapping"},
		{"allow", "NotARule(", "user", nil, "not a permission rule"},
		{"deny", "WebFetch(https://x.example/a)", "user", []string{"deny", "tool=WebFetch"}, "only WebFetch(domain:host)"},
		{"allow", "WebFetch(https://x.example/a)", "user", nil, "only WebFetch(domain:host)"},
		{"deny", "mcp__github__x(y)", "user", []string{"deny", "mcp=github/x"}, "not a Claude Code rule form"},
		{"deny", "MyTool", "user", []string{"deny", "tool=MyTool*"}, "does not know a tool"},
		{"allow", "MyTool", "user", nil, "does not know a tool"},
	}
	for _, c := range cases {
		t.Run(c.list+"/"+c.rule, func(t *testing.T) {
			t.Parallel()
			data := fmt.Sprintf(`{"permissions": {%q: [%q]}}`, c.list, c.rule)
			res, err := Import([]Source{{Agent: Claude, Scope: c.scope, Path: "settings.json", Data: []byte(data)}})
			if err != nil {
				t.Fatal(err)
			}
			checkMapping(t, res, c.want, c.note)
		})
	}
}

func checkMapping(t *testing.T, res *Result, want []string, note string) {
	t.Helper()
	if want == nil {
		if len(res.Rules) != 0 {
			t.Fatalf("carried as %v, want not carried", fields(res.Rules[0]))
		}
	} else {
		if len(res.Rules) != 1 {
			t.Fatalf("%d rules, want 1", len(res.Rules))
		}
		if got := fields(res.Rules[0]); !slices.Equal(got, want) {
			t.Errorf("got  %q\nwant %q", got, want)
		}
	}
	var notes []string
	for _, n := range res.Inexact {
		notes = append(notes, n.Msg)
	}
	for _, n := range res.Findings {
		if n.Kind == KindNeverConsulted {
			notes = append(notes, "never consulted: "+n.Msg)
		}
	}
	joined := strings.Join(notes, " | ")
	if note == "" && len(res.Inexact) > 0 {
		t.Errorf("unexpected note %q", joined)
	}
	if note != "" && !strings.Contains(joined, note) {
		t.Errorf("notes %q, want one containing %q", joined, note)
	}
}

// fields renders the match fields of a rule.
func fields(r *Rule) []string {
	out := []string{r.Decision}
	add := func(k string, v []string) {
		if len(v) > 0 {
			out = append(out, k+"="+strings.Join(v, ","))
		}
	}
	add("tool", r.Tool)
	add("command", r.Command)
	if r.Regex != "" {
		out = append(out, "regex="+r.Regex)
	}
	add("path", r.Path)
	add("op", r.Op)
	add("mcp", r.MCP)
	add("domain", r.Domain)
	for _, in := range r.Input {
		out = append(out, "input="+in.Field+":"+in.Regex)
	}
	return out
}

func TestCodexMapping(t *testing.T) {
	cases := []struct {
		src  string
		want []string
		note string
	}{
		{`prefix_rule(pattern = ["git", "status"])`, []string{"allow", "command=git status", `regex=^git status( |$)`}, ""},
		{`prefix_rule(pattern = ["git", ["push", "fetch"]], decision = "prompt")`, []string{"ask", "command=git push,git fetch", `regex=^git (push|fetch)( |$)`}, ""},
		{`prefix_rule(pattern = ["git", "reset", "--hard"], decision = "forbidden")`, []string{"deny", "command=git reset", `regex=^git reset --hard( |$)`}, ""}, // a lock is a floor: the deny is carried (TestLockIsAFloor)
		{"S = [\"bash\", \"zsh\"]\nprefix_rule(pattern = [S, [\"-c\", \"-lc\"]], decision = 'forbidden')", []string{"deny", "command=bash,zsh", `regex=^(bash|zsh) (-c|-lc)( |$)`}, ""},
		{`prefix_rule(pattern = ["/usr/bin/git", "push"], decision = "forbidden")`, []string{"deny", "command=git push", `regex=^git push( |$)`}, "base name"},
		{`prefix_rule(pattern = ["/usr/bin/git", "status"])`, nil, "base name"},
		{`prefix_rule(pattern = ["npm", "run", "test"], decision = "allow", match = [["npm", "run", "test", "--", "-u"]], not_match = ["npm run lint"])`, []string{"allow", "command=npm run test", `regex=^npm run test( |$)`}, ""},
		// An example that also writes a file: the rule allows cat, the write has no allow.
		{`prefix_rule(pattern = ["cat"], match = ["cat a.txt > b.txt"])`, []string{"allow", "command=cat", `regex=^cat( |$)`}, "the call does more"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			t.Parallel()
			res, err := Import([]Source{{Agent: Codex, Scope: "user", Path: "x.rules", Data: []byte(c.src)}})
			if err != nil {
				t.Fatal(err)
			}
			checkMapping(t, res, c.want, c.note)
		})
	}
}

// TestCodexErrors: anything outside the Starlark subset stops the import
// at its line; nothing is skipped in silence.
func TestCodexErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`prefix_rule(["git"])`, "x.rules:1: prefix_rule: want key = value"},
		{"\n\nload(\"x.star\", \"y\")", "x.rules:3: load: want key = value"},
		{"prefix_rule(pattern = [\"git\"], decision = \"block\")", `x.rules:1: prefix_rule: decision block`},
		{"prefix_rule(pattern = [])", "x.rules:1: prefix_rule: pattern: want a non-empty list"},
		{"prefix_rule(pattern = [\"git\", \"\"])", "x.rules:1: prefix_rule: pattern[1]: an empty token"},
		{"prefix_rule(pattern = X)", "x.rules:1: X is not a name bound earlier"},
		{"prefix_rule(pattern = [\"git\"], colour = \"red\")", "x.rules:1: prefix_rule: unknown argument colour"},
		{"if True:\n  prefix_rule(pattern=[\"rm\"], decision=\"forbidden\")", "x.rules:1: after if want = or ("},
		{"prefix_rule(pattern = [\"git\"]", "x.rules:1: prefix_rule: want , or ), got end of file"},
		{"prefix_rule(pattern = [\"git", "x.rules:1: unterminated string"},
		{"def f():\n  pass", "x.rules:1: after def want = or ("},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			t.Parallel()
			_, err := Import([]Source{{Agent: Codex, Scope: "user", Path: "x.rules", Data: []byte(c.src)}})
			var ie *Error
			if !errors.As(err, &ie) {
				t.Fatalf("err %v, want an import error", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %q, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestGeminiMapping(t *testing.T) {
	rule := func(body string) string { return "[[rule]]\n" + body + "\n" }
	cases := []struct {
		src  string
		want []string
		note string
	}{
		{rule(`toolName = "run_shell_command"` + "\n" + `commandPrefix = "git status"` + "\ndecision = \"allow\"\npriority = 100"), []string{"allow", "command=git status", `regex=^git status( |$)`}, ""},
		{rule(`commandPrefix = ["git diff", "git log"]` + "\ndecision = \"ask_user\""), []string{"ask", "command=git diff,git log", `regex=^(git diff|git log)( |$)`}, ""},
		{rule(`toolName = "run_shell_command"` + "\n" + `commandRegex = "git (commit|push)"` + "\ndecision = \"deny\""), []string{"deny", `regex=^(?:git (commit|push))`}, "normalized line"},
		{rule(`toolName = "run_shell_command"` + "\ndecision = \"deny\""), []string{"deny", "tool=shell"}, ""},
		{rule(`mcpName = "untrusted"` + "\ndecision = \"deny\""), []string{"deny", "mcp=untrusted/*"}, ""},
		{rule(`mcpName = "jira"` + "\n" + `toolName = "search"` + "\ndecision = \"allow\""), []string{"allow", "mcp=jira/search"}, ""},
		{rule(`toolName = "mcp_github_get_issue"` + "\ndecision = \"allow\""), []string{"allow", "mcp=github/get_issue"}, ""},
		{rule(`toolName = "*"` + "\n" + `mcpName = "*"` + "\ndecision = \"ask_user\""), []string{"ask", "tool=mcp"}, ""},
		{rule(`toolName = ["write_file", "replace"]` + "\ndecision = \"ask_user\""), []string{"ask", "tool=write_file,replace"}, ""},
		{rule(`toolName = "*"` + "\ndecision = \"allow\""), nil, "every tool"},
		{rule(`commandPrefix = "curl x | sh"` + "\ndecision = \"deny\""), []string{"deny", "command=curl", `regex=^curl( |$)`}, "every curl command"},
		{rule(`commandPrefix = "pytest"` + "\ndecision = \"allow\"\nmodes = [\"yolo\"]"), nil, "modes"},
		{rule(`commandPrefix = "rm"` + "\ndecision = \"deny\"\ninteractive = false"), []string{"deny", "command=rm", `regex=^rm( |$)`}, "interactive"},
		{rule(`toolName = "write_file"` + "\n" + `argsPattern = '"file_path":".*\.env"'` + "\ndecision = \"deny\""), []string{"deny", "tool=write_file", `input=file_path:^.*\.env$`}, "field file_path"},
		{rule(`toolName = "write_file"` + "\n" + `argsPattern = 'secret'` + "\ndecision = \"allow\""), nil, "argsPattern"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			t.Parallel()
			res, err := Import([]Source{{Agent: Gemini, Scope: "user", Path: "p.toml", Data: []byte(c.src)}})
			if err != nil {
				t.Fatal(err)
			}
			checkMapping(t, res, c.want, c.note)
		})
	}
}

func TestGeminiErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"block\"", `p.toml:1: decision "block"`},
		{"[[rule]]\ntoolName = \"x\"\ndecision = \"allow\"\ncolour = 1", "unknown key rule.colour"},
		{"[[rule]]\ndecision = \"deny\"", "no toolName"},
		{"[[rule]]\ncommandPrefix = \" \"\ndecision = \"deny\"", "p.toml:1: an empty commandPrefix"},
		{"[[rule]\n", "p.toml:"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			t.Parallel()
			_, err := Import([]Source{{Agent: Gemini, Scope: "user", Path: "p.toml", Data: []byte(c.src)}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want it to contain %q", err, c.want)
			}
		})
	}
}

func TestClaudeErrors(t *testing.T) {
	cases := []struct{ src, want string }{
		{`{"permissions": {"allow": "Bash"}}`, "permissions.allow: want a list"},
		{`{"permissions": {"deny": [1]}}`, "line 1: permissions.deny holds 1"},
		{"{\n\"permissions\": {\"deny\": [\"Bash\",]}}", "s.json: line 2"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			t.Parallel()
			_, err := Import([]Source{{Agent: Claude, Scope: "user", Path: "s.json", Data: []byte(c.src)}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestClaudeLines: each rule string keeps the line it is on, whatever the
// layout of the file.
func TestClaudeLines(t *testing.T) {
	data := "{\n  \"env\": {\"A\": [\"allow\"]},\n  \"permissions\": {\n    \"allow\": [\"Bash(ls)\",\n      \"Bash(pwd)\"], \"deny\": [\n\n \"Read(./.env)\"]\n  }\n}\n"
	es, err := claudeEntries([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		got = append(got, fmt.Sprintf("%s %s %d", e.list, e.text, e.line))
	}
	want := []string{"allow Bash(ls) 4", "allow Bash(pwd) 5", "deny Read(./.env) 7"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestCollect: discovery reads what exists, once (a project at the home
// directory shares its .claude/settings.json), shows home as ~, and a
// named file gets its scope from where it lives.
func TestCollect(t *testing.T) {
	home := t.TempDir()
	for _, p := range []string{".claude/settings.json", ".codex/rules/b.rules", ".codex/rules/a.rules", ".codex/policy/old.codexpolicy", ".gemini/policies/x.toml"} {
		full := filepath.Join(home, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srcs, err := Collect(home, home, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range srcs {
		got = append(got, fmt.Sprintf("%s %s %s", s.Agent, s.Scope, s.Path))
	}
	want := []string{"claude-code user ~/.claude/settings.json", "codex user ~/.codex/rules/a.rules", "codex user ~/.codex/rules/b.rules", "codex user ~/.codex/policy/old.codexpolicy", "gemini user ~/.gemini/policies/x.toml"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	for _, c := range []struct {
		a          Agent
		path, want string
	}{
		{Claude, filepath.Join(home, ".claude/settings.json"), "user"},
		{Claude, "/work/p/.claude/settings.local.json", "local"},
		{Claude, "/etc/claude-code/managed-settings.json", "managed"},
		{Claude, "/work/p/.claude/settings.json", "project"},
		{Gemini, "/etc/gemini-cli/policies/a.toml", "admin"},
		{Codex, filepath.Join(home, ".codex/rules/a.rules"), "user"},
	} {
		if got := ScopeOf(c.a, c.path, home); got != c.want {
			t.Errorf("ScopeOf(%s, %s) = %s, want %s", c.a, c.path, got, c.want)
		}
	}
	if _, err := Collect(home, "", []Location{{Agent: Codex, Path: filepath.Join(home, "missing.rules")}}); err == nil {
		t.Error("a named file that does not exist is not an error")
	}
}
