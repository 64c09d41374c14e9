package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/policy"
)

// TestClaudeAllows: which allow rules become exact Bash(...) rules in
// permissions.allow. An allow is written only when the policy allows
// exactly that command (and its wrapped forms) with nothing the native
// rule cannot see; never a prefix form.
func TestClaudeAllows(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, toml string
		want       []string // native allows
		skip       string   // a substring of a reason some rule is left to the hook
	}{
		{"exact read-only commands",
			"[[rule]]\nid = \"ro\"\ndecision = \"allow\"\ncommand = [\"git status\", \"git diff\"]\n",
			[]string{"Bash(git status)", "Bash(git diff)"}, ""},
		{"flags the rule does not match as written",
			"[[rule]]\nid = \"ro\"\ndecision = \"allow\"\ncommand = [\"git log --oneline\"]\n",
			nil, "toolguard decides pass"},
		{"a path in the command",
			"[[rule]]\nid = \"cat\"\ndecision = \"allow\"\ncommand = [\"cat ~/.ssh/id_rsa\"]\n",
			nil, "path, glob, quote or shell character"},
		{"a glob",
			"[[rule]]\nid = \"g\"\ndecision = \"allow\"\ncommand = [\"git log*\"]\n",
			nil, "path, glob, quote or shell character"},
		{"an allow the policy overrides",
			"[[rule]]\nid = \"push\"\ndecision = \"allow\"\ncommand = [\"npm publish\"]\n[[rule]]\nid = \"nopub\"\ndecision = \"deny\"\nlocked = true\ncommand = [\"npm publish\"]\n",
			nil, "toolguard decides deny"},
		{"a deny that depends on the mode",
			"[[rule]]\nid = \"st\"\ndecision = \"allow\"\ncommand = [\"git status\"]\n[[rule]]\nid = \"nogit\"\ndecision = \"deny\"\ncommand = [\"git\"]\nmodes = [\"plan\"]\n",
			nil, "depends on modes"},
		{"a bare word that may name a secret file",
			"[[rule]]\nid = \"cat\"\ndecision = \"allow\"\ncommand = [\"cat notes\"]\n[[rule]]\nid = \"sec\"\ndecision = \"ask\"\npath = [\"@secret\"]\n",
			nil, "toolguard decides ask"},
		{"a conditioned allow",
			"[[rule]]\nid = \"a\"\ndecision = \"allow\"\ncommand = [\"make\"]\nargs = [\"test\"]\n",
			nil, "args: Claude Code has no counterpart"},
		{"a path allow",
			"[[rule]]\nid = \"p\"\ndecision = \"allow\"\npath = [\"src/**\"]\n",
			nil, "only exact commands"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := policy.Load([]policy.Source{{Layer: "test", Path: "test.toml", Data: []byte(tc.toml)}}, policy.LoadOptions{NoBuiltin: true})
			if err != nil {
				t.Fatal(err)
			}
			rules, skips := ClaudeAllows(p, policy.CheckEnv())
			var got []string
			for _, r := range rules {
				if r.List != "allow" || strings.Contains(r.Text, "*") {
					t.Errorf("rule %+v: not an exact allow", r)
				}
				got = append(got, r.Text)
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("allows = %q, want %q (skips %+v)", got, tc.want, skips)
			}
			if tc.skip != "" {
				found := false
				for _, s := range skips {
					found = found || strings.Contains(s.Why, tc.skip)
				}
				if !found {
					t.Errorf("no skip saying %q: %+v", tc.skip, skips)
				}
			}
		})
	}
}

// TestClaudeAllowsBuiltin: with the built-in rules loaded, every allow
// written is one the whole policy allows; a built-in ask that depends on
// the environment keeps git's allows with the hook.
func TestClaudeAllowsBuiltin(t *testing.T) {
	t.Parallel()
	toml := "[[rule]]\nid = \"ro\"\ndecision = \"allow\"\ncommand = [\"git status\", \"git push\", \"ls\"]\n"
	p, err := policy.Load([]policy.Source{{Layer: "test", Path: "test.toml", Data: []byte(toml)}}, policy.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rules, skips := ClaudeAllows(p, policy.CheckEnv())
	for _, r := range rules {
		if r.Text == "Bash(git push)" {
			t.Errorf("%s written: git push writes to a remote", r.Text)
		}
		if strings.ContainsAny(r.Text, "*") {
			t.Errorf("%s: a wildcard in a native allow", r.Text)
		}
	}
	// The built-in git-env-exec asks on an environment the native rule
	// cannot see (GIT_SSH_COMMAND=…): no git allow can be proven.
	found := false
	for _, s := range skips {
		found = found || (s.From == "ro" && strings.Contains(s.Why, "git-env-exec"))
	}
	if !found {
		t.Errorf("no skip naming git-env-exec: %+v", skips)
	}
}

// TestNativeAllowInstall: allows and denies are written, recorded,
// re-installed idempotently, and removed exactly (the user's own entries
// stay).
func TestNativeAllowInstall(t *testing.T) {
	t.Parallel()
	o := Options{Provider: "claude-code", Scope: ScopeProject, Dir: t.TempDir()}
	file, _ := SettingsPath("claude-code", o.Scope, o.Dir, o.Home)
	orig := `{"permissions": {"allow": ["Bash(npm test)", "Bash(git status)"], "deny": ["Read(./.env)"]}}`
	writeFile(t, file, []byte(orig))
	rules := []NativeRule{{Text: "Bash(rm *)", From: "a"}, {Text: "Bash(git status)", From: "b", List: "allow"}, {Text: "Bash(git diff)", From: "b", List: "allow"}}
	if _, err := InstallNative(o, rules); err != nil {
		t.Fatal(err)
	}
	want := `{"permissions":{"allow":["Bash(npm test)","Bash(git status)","Bash(git diff)"],"deny":["Read(./.env)","Bash(rm *)"]}}`
	if got := string(mustRead(t, file)); got != want {
		t.Errorf("after install:\n got %s\nwant %s", got, want)
	}
	res, err := InstallNative(o, rules)
	if err != nil || res.Changed {
		t.Errorf("re-install changed something: %v %+v", err, res)
	}
	m, _ := os.ReadFile(file + NativeMarkerSuffix)
	if strings.Contains(string(m), "git status") {
		t.Errorf("the user's own Bash(git status) was recorded as toolguard's: %s", m)
	}
	if _, err := UninstallNative(o); err != nil {
		t.Fatal(err)
	}
	if got := string(mustRead(t, file)); !strings.Contains(got, `"Bash(git status)"`) || strings.Contains(got, "git diff") || strings.Contains(got, "rm *") {
		t.Errorf("after uninstall: %s", got)
	}
	res, err = UninstallNative(o)
	if err != nil || res.Changed {
		t.Errorf("second uninstall: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(file + NativeMarkerSuffix)); !os.IsNotExist(err) {
		t.Errorf("marker left: %v", err)
	}
}
