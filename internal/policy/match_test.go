package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

func mcpCall(srv, tool string, input any) call.Call {
	b, _ := json.Marshal(input)
	c := call.Call{Kind: call.KindMCP, Tool: "mcp__" + srv + "__" + tool, MCPServer: srv, MCPTool: tool,
		Input: b, Cwd: "/home/user/project"}
	protocol.AddMCPPaths(&c) // as the hook's decode does
	return c
}

func decide(t *testing.T, policyText string, c call.Call) call.Decision {
	t.Helper()
	p, err := Load([]Source{{Path: "p.toml", Data: []byte(policyText)}}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return p.Evaluate(c, Env{Home: "/home/user", Workspace: "/home/user/project"}).Decision
}

func TestInputMatchers(t *testing.T) {
	t.Parallel()
	rule := func(cond string) string {
		return "[[rule]]\nid = \"r\"\ndecision = \"deny\"\nmcp = \"gh/*\"\n[[rule.input]]\n" + cond + "\n"
	}
	tests := []struct {
		name  string
		cond  string
		input any
		want  call.Decision
	}{
		{"exact hit", `field = "repo"` + "\nexact = \"acme/app\"", map[string]any{"repo": "acme/app"}, call.Deny},
		{"exact miss", `field = "repo"` + "\nexact = \"acme/app\"", map[string]any{"repo": "acme/app2"}, call.Pass},
		{"input. prefix on the field", `field = "input.repo"` + "\nexact = \"a\"", map[string]any{"repo": "a"}, call.Deny},
		{"prefix", `field = "repo"` + "\nprefix = \"acme/\"", map[string]any{"repo": "acme/x"}, call.Deny},
		{"prefix miss", `field = "repo"` + "\nprefix = \"acme/\"", map[string]any{"repo": "other/acme/"}, call.Pass},
		{"glob", `field = "repo"` + "\nglob = \"sandbox/*\"", map[string]any{"repo": "sandbox/s1"}, call.Deny},
		{"glob does not cross /", `field = "repo"` + "\nglob = \"sandbox/*\"", map[string]any{"repo": "sandbox/a/b"}, call.Pass},
		{"regex", `field = "repo"` + "\nregex = '^prod-'", map[string]any{"repo": "prod-db"}, call.Deny},
		{"not: holds when no match", `field = "repo"` + "\nglob = \"sandbox/*\"\nnot = true", map[string]any{"repo": "acme/prod"}, call.Deny},
		{"not: fails on a match", `field = "repo"` + "\nglob = \"sandbox/*\"\nnot = true", map[string]any{"repo": "sandbox/x"}, call.Pass},
		{"missing field never matches", `field = "repo"` + "\nglob = \"*\"", map[string]any{"name": "x"}, call.Pass},
		{"missing field with not holds", `field = "repo"` + "\nglob = \"sandbox/*\"\nnot = true", map[string]any{}, call.Deny},
		{"nested object", `field = "target.repo"` + "\nexact = \"x\"", map[string]any{"target": map[string]any{"repo": "x"}}, call.Deny},
		{"array: any element", `field = "items.newPath"` + "\nprefix = \"/etc\"",
			map[string]any{"items": []any{map[string]any{"newPath": "/tmp/a"}, map[string]any{"newPath": "/etc/b"}}}, call.Deny},
		{"array: no element", `field = "items.newPath"` + "\nprefix = \"/etc\"",
			map[string]any{"items": []any{map[string]any{"newPath": "/tmp/a"}}}, call.Pass},
		{"array of strings", `field = "tags"` + "\nexact = \"prod\"", map[string]any{"tags": []any{"dev", "prod"}}, call.Deny},
		{"number compared as text", `field = "count"` + "\nexact = \"42\"", map[string]any{"count": 42}, call.Deny},
		{"bool compared as text", `field = "force"` + "\nexact = \"true\"", map[string]any{"force": true}, call.Deny},
		{"null is missing", `field = "repo"` + "\nglob = \"*\"", map[string]any{"repo": nil}, call.Pass},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := decide(t, rule(tc.cond), mcpCall("gh", "delete_repository", tc.input)); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	// Conditions apply to any tool, not only MCP.
	agent := call.Call{Kind: call.KindAgent, Tool: "Agent", Input: json.RawMessage(`{"subagent_type":"deployer"}`)}
	if got := decide(t, "[[rule]]\nid = \"r\"\ndecision = \"ask\"\ntool = \"agent\"\n[[rule.input]]\nfield = \"subagent_type\"\nexact = \"deployer\"\n", agent); got != call.Ask {
		t.Errorf("agent input: got %v", got)
	}
	other := call.Call{Kind: call.KindOther, Tool: "Frobnicate", Input: json.RawMessage(`{"level":"max"}`)}
	if got := decide(t, "[[rule]]\nid = \"r\"\ndecision = \"deny\"\ntool = \"Frob*\"\n[[rule.input]]\nfield = \"level\"\nexact = \"max\"\n", other); got != call.Deny {
		t.Errorf("unknown tool input: got %v", got)
	}
}

func TestInputConditionErrors(t *testing.T) {
	t.Parallel()
	for _, cond := range []string{"field = \"x\"", "field = \"x\"\nexact = \"a\"\nglob = \"b\"", "exact = \"a\"", "field = \"x\"\nregex = '('"} {
		_, err := Load([]Source{{Path: "p.toml", Data: []byte("[[rule]]\nid = \"r\"\ndecision = \"deny\"\n[[rule.input]]\n" + cond + "\n")}}, LoadOptions{NoBuiltin: true})
		if err == nil {
			t.Errorf("%q: loaded", cond)
		}
	}
}

func TestDomain(t *testing.T) {
	t.Parallel()
	pol := "[[rule]]\nid = \"r\"\ndecision = \"deny\"\ndomain = [\"example.com\", \"*.internal.test\"]\n"
	for url, want := range map[string]call.Decision{
		"https://example.com/x":          call.Deny,
		"https://EXAMPLE.com./x":         call.Deny,
		"https://docs.example.com:8443/": call.Deny,
		"https://example.com.evil.net/":  call.Pass,
		"https://notexample.com/":        call.Pass,
		"https://a.internal.test/":       call.Deny,
		"https://internal.test/":         call.Pass,
		"not a url":                      call.Pass,
	} {
		c := call.Call{Kind: call.KindWeb, Tool: "WebFetch", URL: url}
		if got := decide(t, pol, c); got != want {
			t.Errorf("%s: got %v, want %v", url, got, want)
		}
	}
}

func TestModes(t *testing.T) {
	t.Parallel()
	pol := "[[rule]]\nid = \"r\"\ndecision = \"ask\"\ncommand = \"git push\"\nmodes = [\"bypassPermissions\", \"dontAsk\"]\n" +
		"[[rule]]\nid = \"any\"\ndecision = \"deny\"\ncommand = \"git reset\"\n"
	for _, tc := range []struct {
		mode, cmd string
		want      call.Decision
	}{
		{"bypassPermissions", "git push", call.Ask},
		{"dontAsk", "git push", call.Ask},
		{"default", "git push", call.Pass},
		{"", "git push", call.Pass}, // no mode reported: only rules without modes apply
		{"", "git reset --hard", call.Deny},
		{"plan", "git reset --hard", call.Deny},
	} {
		c := shell(tc.cmd)
		c.PermissionMode = tc.mode
		if got := decide(t, pol, c); got != tc.want {
			t.Errorf("%s in mode %q: got %v, want %v", tc.cmd, tc.mode, got, tc.want)
		}
	}
	if _, err := Load([]Source{{Path: "p.toml", Data: []byte("[[rule]]\nid = \"r\"\ndecision = \"ask\"\nmodes = \"yolo\"\n")}}, LoadOptions{NoBuiltin: true}); err == nil {
		t.Error("unknown mode accepted")
	}
}

func TestDefaultFor(t *testing.T) {
	t.Parallel()
	pol := "[settings]\ndefault = \"pass\"\n[settings.default_for]\nmcp = \"ask\"\nother = \"deny\"\n" +
		"[[rule]]\nid = \"ok\"\ndecision = \"allow\"\nmcp = \"docs/*\"\n"
	for _, tc := range []struct {
		c    call.Call
		want call.Decision
	}{
		{mcpCall("github", "create_issue", map[string]any{}), call.Ask},
		{mcpCall("docs", "search", map[string]any{}), call.Allow},
		{call.Call{Kind: call.KindOther, Tool: "Mystery"}, call.Deny},
		{shell("ls"), call.Pass},
		{call.Call{Kind: call.KindWrite, Tool: "Write", Cwd: "/w", Paths: []call.Path{{Path: "/w/x"}}}, call.Pass},
	} {
		if got := decide(t, pol, tc.c); got != tc.want {
			t.Errorf("%s: got %v, want %v", tc.c.Tool, got, tc.want)
		}
	}
}

func TestArgsAndPrefix(t *testing.T) {
	t.Parallel()
	pol := "[[rule]]\nid = \"r\"\ndecision = \"deny\"\ncommand = [\"git push\", \"kubectl delete\"]\nargs = [\"--force\", \"-f\", \"+*\"]\nargs_none = [\"--dry-run\"]\n"
	for cmd, want := range map[string]call.Decision{
		"git push --force":                        call.Deny,
		"git push --force=true":                   call.Deny,
		"git push -fu origin x":                   call.Deny,
		"git -C /repo -c a=b push -f":             call.Deny,
		"git --git-dir=/x push origin +main":      call.Deny,
		"git push --force --dry-run":              call.Pass,
		"git push --force-with-lease":             call.Pass, // a different option
		"git pull -f":                             call.Pass,
		"git log push -f":                         call.Pass, // push is not the subcommand
		"kubectl -n prod --context c delete -f x": call.Deny,
		"kubectl get pods -f":                     call.Pass,
	} {
		if got := decide(t, pol, shell(cmd)); got != want {
			t.Errorf("%s: got %v, want %v", cmd, got, want)
		}
	}
}

// TestOptionsEndAndNegation: git's options end at "--" and a later
// --no-X switches --X off; args_none honours --no-X for every program,
// args only for git.
func TestOptionsEndAndNegation(t *testing.T) {
	t.Parallel()
	pol := `
[[rule]]
id = "r"
decision = "deny"
command = ["git rm", "tool"]
args = ["-f", "--force", "+*"]
args_none = ["--cached", "--dry-run"]
`
	for cmd, want := range map[string]call.Decision{
		"git rm -f -- file.txt":                       call.Deny, // -f before -- is an option
		"git rm -- -f":                                call.Pass, // a file named -f
		"git rm -- --force":                           call.Pass,
		"git rm -f -- --cached":                       call.Deny, // --cached after -- is a file
		"git rm --cached -f file":                     call.Pass,
		"git rm --cached --no-cached -f file":         call.Deny, // --no-cached wins
		"git rm --no-cached --cached -f file":         call.Pass, // --cached wins
		"git rm --force --no-force file":              call.Pass, // git: --no-force wins
		"git rm --no-force --force file":              call.Deny,
		"git rm --force=yes --no-force file":          call.Pass,
		"git rm -- +x":                                call.Deny, // not an option pattern: still matched
		"tool --force --no-force":                     call.Deny, // not git: --no-force is not trusted
		"tool -- --force":                             call.Deny, // not git: "--" is not trusted either
		"tool --force --dry-run --no-dry-run":         call.Deny,
		"tool --force --dry-run":                      call.Pass,
		"git -C repo rm --cached --no-cached -f -- x": call.Deny,
	} {
		if got := decide(t, pol, shell(cmd)); got != want {
			t.Errorf("%s: got %v, want %v", cmd, got, want)
		}
	}
}

// TestArgsNoneSkipsOptionValues: the word after an option that takes a
// value is that value, not an option, for args_none (chmod --reference
// --help names a file); args still see it.
func TestArgsNoneSkipsOptionValues(t *testing.T) {
	t.Parallel()
	pol := `
[[rule]]
id = "r"
decision = "deny"
command = ["chmod", "git push"]
args = ["-R", "--force"]
args_none = ["--help", "--dry-run"]
`
	for cmd, want := range map[string]call.Decision{
		"chmod -R --reference --help /":             call.Deny,
		"chmod -R --reference=x --help /":           call.Pass, // --help is an option again
		"chmod -R --help /":                         call.Pass,
		"git push -o --dry-run --force origin main": call.Deny,
		"git push --dry-run --force origin main":    call.Pass,
		"chmod --reference -R x":                    call.Deny, // args see every word
	} {
		if got := decide(t, pol, shell(cmd)); got != want {
			t.Errorf("%s: got %v, want %v", cmd, got, want)
		}
	}
}

func TestAllowOnlyWhenEveryTargetIsAllowed(t *testing.T) {
	t.Parallel()
	pol := "[[rule]]\nid = \"st\"\ndecision = \"allow\"\ncommand = \"git status\"\n"
	for cmd, want := range map[string]call.Decision{
		"git status":             call.Allow,
		"git status && git log":  call.Pass,
		"git status; git status": call.Allow,
		"git status > out.txt":   call.Pass, // the write has no rule
	} {
		if got := decide(t, pol, shell(cmd)); got != want {
			t.Errorf("%s: got %v, want %v", cmd, got, want)
		}
	}
}

func TestPathPatternsAndScope(t *testing.T) {
	t.Parallel()
	pol := `
[[rule]]
id = "wf"
decision = "ask"
path = ".github/workflows/**"

[[rule]]
id = "env"
decision = "deny"
path = [".env", ".env.*"]
path_none = [".env.example"]

[[rule]]
id = "ssh"
decision = "deny"
path = "~/.ssh/**"

[[rule]]
id = "outside"
decision = "ask"
path = "/**"
op = ["write", "delete"]
scope = "outside"
priority = -1
`
	write := func(p string) call.Call {
		return call.Call{Kind: call.KindWrite, Tool: "Write", Cwd: "/home/user/project", Paths: []call.Path{{Path: p}}}
	}
	read := func(p string) call.Call {
		return call.Call{Kind: call.KindRead, Tool: "Read", Cwd: "/home/user/project", Paths: []call.Path{{Path: p, Op: call.OpRead}}}
	}
	for _, tc := range []struct {
		c    call.Call
		want call.Decision
	}{
		{write("/home/user/project/.github/workflows/ci.yml"), call.Ask},
		{write("/home/user/project/sub/.github/workflows/ci.yml"), call.Pass}, // relative = workspace-relative
		{write("/home/user/project/.env"), call.Deny},
		{read("/home/user/project/config/.env.local"), call.Deny},
		{read("/home/user/project/.env.example"), call.Pass},
		{read("/home/user/.ssh/id_ed25519"), call.Deny},
		{write("/etc/hosts"), call.Ask},
		{write("/tmp/scratch"), call.Pass}, // safe prefix
		{read("/etc/hosts"), call.Pass},    // op read is not covered
		{write("/home/user/project/src/main.go"), call.Pass},
	} {
		if got := decide(t, pol, tc.c); got != tc.want {
			t.Errorf("%s %s: got %v, want %v", tc.c.Tool, tc.c.Paths[0].Path, got, tc.want)
		}
	}
}

func TestWorkspacePattern(t *testing.T) {
	t.Parallel()
	pol := "[[rule]]\nid = \"r\"\ndecision = \"deny\"\ncommand = \"rm\"\npath = \"@workspace\"\n"
	for cmd, want := range map[string]call.Decision{
		"rm -rf .":                     call.Deny,
		"rm -rf ..":                    call.Deny,
		"rm -rf /home/user/project":    call.Deny,
		"rm -rf /home/user/project/":   call.Deny,
		"rm -rf /home":                 call.Deny,
		"rm -rf ./build":               call.Pass,
		"rm -rf /home/user/project-x":  call.Pass,
		"rm -rf /home/user/project/.a": call.Pass,
	} {
		if got := decide(t, pol, shell(cmd)); got != want {
			t.Errorf("%s: got %v, want %v", cmd, got, want)
		}
	}
}

func TestArgGlobsAndClusters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p, a string
		want bool
	}{
		{"+*", "+refs/heads/main", true},
		{"-f", "-rf", true},
		{"-f", "-xzvf", true},
		{"-f", "-bfeature", false},
		{"-n", "-Command", false},
		{"--force", "--force=yes", true},
		{"--force", "--forceful", false},
		{"--force-with-lease*", "--force-with-lease=main:abc", true},
		{"-[f]", "-f", true},
	} {
		if got := argMatch(tc.p, tc.a); got != tc.want {
			t.Errorf("argMatch(%q, %q) = %v, want %v", tc.p, tc.a, got, tc.want)
		}
	}
}

func TestViaAndEnv(t *testing.T) {
	t.Parallel()
	pol := "[[rule]]\nid = \"via\"\ndecision = \"ask\"\ncommand = [\"bash\", \"python*\"]\nvia = [\"xargs\", \"parallel\"]\n" +
		"[[rule]]\nid = \"env\"\ndecision = \"deny\"\nenv = [\"GIT_SSH_COMMAND=*\", \"BASH_ENV=*\", \"GIT_CONFIG_COUNT=*\"]\nenv_none = [\"GIT_CONFIG_COUNT=0\"]\n"
	for cmd, want := range map[string]call.Decision{
		"find . -name '*.py' | xargs python3": call.Ask,
		"xargs bash":                          call.Ask,
		"bash script.sh":                      call.Pass,
		"xargs grep foo":                      call.Pass,
		"GIT_SSH_COMMAND='sh -c x' git fetch": call.Deny,
		"env BASH_ENV=/tmp/x bash -c true":    call.Deny,
		"GIT_AUTHOR_NAME=x git commit":        call.Pass,
		"GIT_CONFIG_COUNT=1 git status":       call.Deny,
		"GIT_CONFIG_COUNT=0 git status":       call.Pass,
	} {
		if got := decide(t, pol, shell(cmd)); got != want {
			t.Errorf("%s: got %v, want %v", cmd, got, want)
		}
	}
}

func TestRegexPrograms(t *testing.T) {
	t.Parallel()
	for src, want := range map[string]string{
		`^git (.* )?checkout`:           "git",
		`^rm (.* )?-r|^find .* -delete`: "rm,find",
		`^nc\s+-e`:                      "nc",
		`^(xargs|parallel) rm`:          "",
		`(?i)^ssh -o`:                   "",
		`^git(-lfs)? push`:              "",
		`\bdrop\s+table`:                "",
		`^rm [a|b]|^cp x`:               "rm,cp",
		`^\$\(brew shellenv\)`:          "",
		`^mkfs.ext4 `:                   "",
	} {
		names, ok := regexPrograms(src)
		got := strings.Join(names, ",")
		if !ok {
			got = ""
		}
		if got != want {
			t.Errorf("%s: got %q, want %q", src, got, want)
		}
	}
}
