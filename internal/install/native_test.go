package install

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/policy"
)

func loadInfo(t *testing.T, toml string, noBuiltin bool) []policy.RuleInfo {
	t.Helper()
	var srcs []policy.Source
	if toml != "" {
		srcs = []policy.Source{{Layer: "test", Path: "test.toml", Data: []byte(toml)}}
	}
	p, err := policy.Load(srcs, policy.LoadOptions{NoBuiltin: noBuiltin})
	if err != nil {
		t.Fatal(err)
	}
	return p.Info()
}

// TestClaudeDenies: which locked denies become Claude Code rules, and how.
// A native rule may be narrower than the toolguard rule, never broader.
func TestClaudeDenies(t *testing.T) {
	cases := []struct {
		name, rule string
		scope      string
		want       []string // native rules
		skip       string   // a substring of the reason it is left to the hook
	}{
		{"command", `command = ["terraform destroy", "rm"]`, ScopeProject,
			[]string{"Bash(terraform destroy)", "Bash(terraform destroy *)", "Bash(rm)", "Bash(rm *)"}, ""},
		{"command on shell", `tool = "shell"` + "\n" + `command = ["npm publish"]`, ScopeProject,
			[]string{"Bash(npm publish)", "Bash(npm publish *)"}, ""},
		{"command with args", `command = ["git push"]` + "\n" + `args = ["--force"]`, ScopeProject, nil, "args"},
		{"command glob", `command = ["mkfs*"]`, ScopeProject, nil, "glob"},
		{"command regex", `command = ["git"]` + "\n" + `regex = "^git push"`, ScopeProject, nil, "regex"},
		{"path write", `path = ["~/.ssh/**", "/etc/passwd", "secrets/**", "*.pem"]` + "\n" + `op = ["write"]`, ScopeProject,
			[]string{"Edit(~/.ssh/**)", "Edit(//etc/passwd)", "Edit(//home/user/project/secrets/**)", "Edit(**/*.pem)"}, ""},
		{"path read and write", `path = ["~/.aws/credentials"]`, ScopeProject,
			[]string{"Edit(~/.aws/credentials)", "Read(~/.aws/credentials)"}, ""},
		{"path relative, user scope", `path = ["secrets/**", "~/.netrc"]` + "\n" + `op = ["read"]`, ScopeUser,
			[]string{"Read(~/.netrc)"}, "workspace-relative"},
		{"path delete only", `path = ["~/x"]` + "\n" + `op = ["delete"]`, ScopeProject, nil, "op [delete]"},
		{"path set", `path = ["@protected"]` + "\n" + `op = ["write"]`, ScopeProject, nil, "@protected"},
		{"path_none", `path = ["**/.env*"]` + "\n" + `path_none = ["**/.env.example"]`, ScopeProject, nil, "path_none"},
		{"mcp", `mcp = ["github/delete_repository", "untrusted/*", "x/del*"]`, ScopeProject,
			[]string{"mcp__github__delete_repository", "mcp__untrusted"}, `MCP pattern "x/del*"`},
		{"modes", `command = ["rm"]` + "\n" + `modes = ["bypassPermissions"]`, ScopeProject, nil, "modes"},
		{"tool only", `tool = "WebFetch"`, ScopeProject, nil, `tool "WebFetch"`},
		{"path on a tool", `tool = "Write"` + "\n" + `path = ["~/x"]`, ScopeProject, nil, `tool "Write"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			toml := fmt.Sprintf("version = 1\n[[rule]]\nid = \"x\"\ndecision = \"deny\"\nlocked = true\n%s\n", c.rule)
			rules, skips := ClaudeDenies(loadInfo(t, toml, true), c.scope, "/home/user/project")
			var got []string
			for _, r := range rules {
				got = append(got, r.Text)
				if r.From != "x" {
					t.Errorf("%s from %q", r.Text, r.From)
				}
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %q, want %q", got, c.want)
			}
			var why []string
			for _, s := range skips {
				why = append(why, s.Why)
			}
			j := strings.Join(why, " | ")
			if c.skip == "" && len(skips) > 0 || c.skip != "" && !strings.Contains(j, c.skip) {
				t.Errorf("skips %q, want %q", j, c.skip)
			}
		})
	}
	// Only locked denies: an unlocked deny, a locked ask are not written.
	toml := "version = 1\n[[rule]]\nid = \"a\"\ndecision = \"deny\"\ncommand = [\"rm\"]\n[[rule]]\nid = \"b\"\ndecision = \"ask\"\nlocked = true\ncommand = [\"rm\"]\n"
	if rules, _ := ClaudeDenies(loadInfo(t, toml, true), ScopeProject, "/p"); len(rules) != 0 {
		t.Errorf("unlocked deny or locked ask written: %v", rules)
	}
}

// TestClaudeDeniesGolden pins what the embedded defaults give a project.
func TestClaudeDeniesGolden(t *testing.T) {
	rules, skips := ClaudeDenies(loadInfo(t, "", false), ScopeProject, "/home/user/project")
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "%s\t%s\n", r.Text, r.From)
	}
	for _, s := range skips {
		fmt.Fprintf(&b, "left to the hook\t%s\t%s\n", s.From, s.Why)
	}
	nativeGolden(t, "testdata/golden/native/claude-code.defaults", b.String())
}

func nativeGolden(t *testing.T, path, got string) {
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
	if want := string(mustRead(t, path)); want != got {
		t.Errorf("%s differs (run with -update and review):\n%s", path, got)
	}
}

// TestNativeInstall: install writes the rules into permissions.deny next
// to everything else, records them, and uninstall removes exactly those:
// the user's own entries — one equal to a native rule included — stay,
// and the file comes back byte for byte.
func TestNativeInstall(t *testing.T) {
	rules := []NativeRule{
		{Text: "Bash(gemini hooks disable)", From: "agent-hooks-cli-gemini"},
		{Text: "Bash(gemini hooks disable *)", From: "agent-hooks-cli-gemini"},
		{Text: "Edit(~/.claude/settings.json)", From: "toolguard-self-protect"},
	}
	// In the layout the encoder writes, so that the round trip is byte for byte.
	existing := "{\n  \"model\": \"opus\",\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(ls)\"\n    ],\n    \"deny\": [\n      \"Read(./.env)\",\n      \"Bash(gemini hooks disable)\"\n    ]\n  },\n  \"hooks\": {}\n}\n"
	for _, c := range []struct {
		name, before string
	}{{"no-file", ""}, {"existing", existing}, {"no-permissions", "{\n  \"model\": \"opus\"\n}\n"}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := Options{Provider: "claude-code", Scope: ScopeProject, Dir: t.TempDir()}
			file, _ := SettingsPath("claude-code", o.Scope, o.Dir, o.Home)
			if c.before != "" {
				writeFile(t, file, []byte(c.before))
			}
			res, err := InstallNative(o, rules)
			if err != nil || !res.Changed {
				t.Fatalf("install: %v, changed %v", err, res.Changed)
			}
			nativeGolden(t, "testdata/golden/native/"+c.name+".json", string(mustRead(t, file)))
			marker := string(mustRead(t, file+NativeMarkerSuffix))
			if c.name == "existing" && strings.Contains(marker, `"Bash(gemini hooks disable)"`) {
				t.Errorf("the user's own entry was recorded as toolguard's: %s", marker)
			}
			if res, err := InstallNative(o, rules); err != nil || res.Changed {
				t.Errorf("second install: %v, changed %v (%s)", err, res.Changed, res.Summary)
			}
			if _, err := UninstallNative(o); err != nil {
				t.Fatal(err)
			}
			if exists(file + NativeMarkerSuffix) {
				t.Error("marker left after uninstall")
			}
			switch {
			case c.before == "":
				if exists(file) {
					t.Errorf("file left after uninstall: %s", mustRead(t, file))
				}
			default:
				if got := mustRead(t, file); !bytes.Equal(got, []byte(c.before)) {
					t.Errorf("after uninstall:\n%s\nwant\n%s", got, c.before)
				}
			}
			if exists(file + BackupSuffix) {
				t.Errorf("backup left after uninstall restored the file")
			}
			if res, err := UninstallNative(o); err != nil || res.Changed {
				t.Errorf("second uninstall: %v, changed %v", err, res.Changed)
			}
		})
	}
}

// TestNativeReinstall: a re-install with fewer rules removes what it no
// longer writes, and uninstall then removes only what is recorded.
func TestNativeReinstall(t *testing.T) {
	t.Parallel()
	o := Options{Provider: "claude-code", Scope: ScopeProject, Dir: t.TempDir()}
	file, _ := SettingsPath("claude-code", o.Scope, o.Dir, o.Home)
	writeFile(t, file, []byte(`{"permissions": {"deny": ["Read(./.env)"]}}`))
	all := []NativeRule{{Text: "Bash(rm)", From: "a"}, {Text: "Bash(rm *)", From: "a"}, {Text: "Read(~/.netrc)", From: "b"}}
	if _, err := InstallNative(o, all); err != nil {
		t.Fatal(err)
	}
	res, err := InstallNative(o, all[:2])
	if err != nil || res.Summary != "remove permissions.deny Read(~/.netrc) (no longer a locked deny)" {
		t.Fatalf("narrower install: %v, %q", err, res.Summary)
	}
	if got := string(mustRead(t, file)); got != `{"permissions":{"deny":["Read(./.env)","Bash(rm)","Bash(rm *)"]}}` {
		t.Errorf("after the narrower install: %s", got)
	}
	if _, err := UninstallNative(o); err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, file)); got != `{"permissions":{"deny":["Read(./.env)"]}}` {
		t.Errorf("after uninstall: %s", got)
	}
}

func TestNativeRefuses(t *testing.T) {
	for _, c := range []struct{ name, before, want string }{
		{"deny not a list", `{"permissions": {"deny": "Bash"}}`, "permissions.deny is a string"},
		{"permissions not an object", `{"permissions": []}`, "permissions is an array"},
		{"not json", `{"permissions": `, "nothing was changed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			o := Options{Provider: "claude-code", Scope: ScopeProject, Dir: t.TempDir()}
			file, _ := SettingsPath("claude-code", o.Scope, o.Dir, o.Home)
			writeFile(t, file, []byte(c.before))
			_, err := InstallNative(o, []NativeRule{{Text: "Bash(rm)", From: "x"}})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err %v, want %q", err, c.want)
			}
			if got := string(mustRead(t, file)); got != c.before || exists(file+NativeMarkerSuffix) {
				t.Errorf("file changed or marker written: %q", got)
			}
		})
	}
	if _, err := InstallNative(Options{Provider: "codex", Scope: ScopeProject, Dir: t.TempDir()}, nil); err == nil {
		t.Error("codex accepted")
	}
}
