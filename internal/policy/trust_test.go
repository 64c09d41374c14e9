package policy

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

func loadLayers(t *testing.T, srcs ...Source) (*Policy, error) {
	t.Helper()
	return Load(srcs, LoadOptions{Home: "/home/u"})
}

func shellCall(cmd string) call.Call {
	return call.Call{Tool: "Bash", Kind: call.KindShell, Cwd: "/home/u/proj", Command: cmd, Shell: "bash"}
}

var trustEnvForTests = Env{Home: "/home/u", Workspace: "/home/u/proj"}

// TestUntrustedSettings: each setting of an untrusted layer either
// applies (it tightens) or is ignored and listed in Ignored.
func TestUntrustedSettings(t *testing.T) {
	user := Source{Path: "/home/u/.config/toolguard/policy.toml", Name: "user",
		Data: []byte("version = 1\n[settings]\ndefault = \"ask\"\nmode = \"headless\"\naudit = \"all\"\n")}
	cases := []struct {
		name     string
		settings string
		check    func(s Settings) bool
		ignored  string // "" when the setting applies
	}{
		{"builtin-false", `builtin = false`, func(s Settings) bool { return s.Builtin }, "builtin = false ignored"},
		{"builtin-true", `builtin = true`, func(s Settings) bool { return s.Builtin }, ""},
		{"default-allow", `default = "allow"`, func(s Settings) bool { return s.Default == call.Ask }, `default = "allow" (looser than ask) ignored`},
		{"default-pass", `default = "pass"`, func(s Settings) bool { return s.Default == call.Ask }, `default = "pass"`},
		{"default-deny", `default = "deny"`, func(s Settings) bool { return s.Default == call.Deny }, ""},
		{"default-for-allow", "default_for.shell = \"allow\"", func(s Settings) bool { _, ok := s.DefaultFor[call.KindShell]; return !ok }, "default_for.shell"},
		{"default-for-deny", "default_for.web = \"deny\"", func(s Settings) bool { return s.DefaultFor[call.KindWeb] == call.Deny }, ""},
		{"on-error-allow", `on_error = "allow"`, func(s Settings) bool { return s.OnError == call.Deny }, "on_error"},
		{"on-unparsable-pass", `on_unparsable = "pass"`, func(s Settings) bool { return s.OnUnparsable == call.Ask }, "on_unparsable"},
		{"on-unparsable-deny", `on_unparsable = "deny"`, func(s Settings) bool { return s.OnUnparsable == call.Deny }, ""},
		{"on-dynamic-allow", `on_dynamic = "allow"`, func(s Settings) bool { return s.OnDynamic == call.Ask }, "on_dynamic"},
		{"mode-interactive", `mode = "interactive"`, func(s Settings) bool { return s.Mode == Headless }, "mode"},
		{"audit-off", `audit = "off"`, func(s Settings) bool { return s.Audit == "all" }, "audit"},
		{"safe-prefixes", `safe_prefixes = ["/"]`, func(s Settings) bool { return len(s.SafePrefixes) == 3 }, "safe_prefixes ignored"},
		{"workspace", `workspace = "/"`, func(s Settings) bool { return s.Workspace == "" }, "workspace ignored"},
		{"state-dir", `state_dir = "/tmp/x"`, func(s Settings) bool { return s.StateDir == "" }, "state_dir ignored"},
		{"audit-log", `audit_log = "/dev/null"`, func(s Settings) bool { return s.AuditLog == "" }, "audit_log ignored"},
		{"approvers", `approvers = ["ed25519:AAAA"]`, func(s Settings) bool { return len(s.Approvers) == 0 }, "approvers ignored"},
		{"disable", `disable = ["git-push-force"]`, func(Settings) bool { return true }, "disable ignored"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			proj := Source{Path: "/home/u/proj/.toolguard/policy.toml", Name: "project", Untrusted: true,
				Data: []byte("version = 1\n[settings]\n" + c.settings + "\n")}
			p, err := loadLayers(t, user, proj)
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(p.Settings) {
				t.Errorf("settings after the untrusted layer: %+v", p.Settings)
			}
			got := ""
			for _, ig := range p.Ignored {
				got += ig.String() + "\n"
			}
			switch {
			case c.ignored == "" && got != "":
				t.Errorf("ignored %q, want nothing", got)
			case c.ignored != "" && !strings.Contains(got, c.ignored):
				t.Errorf("ignored %q, want it to say %q", got, c.ignored)
			case c.ignored != "" && !strings.Contains(got, "policy.toml:3:1:"):
				t.Errorf("ignored %q lacks the position", got)
			}
			// Trusted, the same file applies as written.
			proj.Untrusted = false
			p, err = loadLayers(t, user, proj)
			if err != nil {
				t.Fatal(err)
			}
			if len(p.Ignored) != 0 {
				t.Errorf("trusted layer: ignored %v", p.Ignored)
			}
			if c.name == "disable" {
				if p.Rule("git-push-force") != nil {
					t.Error("trusted disable did not apply")
				}
			}
		})
	}
}

// TestUntrustedRules: deny and new ask rules apply, allow rules and
// replacements do not, an ask never out-ranks a deny.
func TestUntrustedRules(t *testing.T) {
	proj := Source{Path: "/p/.toolguard/policy.toml", Name: "project", Untrusted: true, Data: []byte(`version = 1
[[rule]]
id = "allow-rm"
decision = "allow"
priority = 100
command = "rm"

[[rule]]
id = "git-push-force"
decision = "ask"
command = "git push"

[[rule]]
id = "deny-status"
decision = "deny"
command = "git status"

[[rule]]
id = "ask-rm"
decision = "ask"
locked = true
priority = 100
command = "rm"
`)}
	p, err := loadLayers(t, proj)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ cmd, want, rule string }{
		{"rm -rf ~", "deny", "rm-recursive-root"},
		{"rm -rf ./build", "ask", "ask-rm"},
		{"git push --force origin main", "deny", "git-push-force"},
		{"git status", "deny", "deny-status"},
		{"git log", "pass", ""},
	} {
		r := p.Evaluate(shellCall(c.cmd), trustEnvForTests)
		rule := ""
		if r.Rule != nil {
			rule = r.Rule.ID
		}
		if r.Decision.String() != c.want || rule != c.rule {
			t.Errorf("%s: %s by %q, want %s by %q", c.cmd, r.Decision, rule, c.want, c.rule)
		}
	}
	if rr := p.Rule("git-push-force"); rr == nil || rr.Layer != "builtin" || rr.Decision != call.Deny {
		t.Errorf("git-push-force was replaced by the untrusted layer: %+v", rr)
	}
	if rr := p.Rule("ask-rm"); rr == nil || rr.Locked || rr.Priority != 0 {
		t.Errorf("ask-rm: %+v, want unlocked and priority capped at 0", rr)
	}
	var msgs []string
	for _, ig := range p.Ignored {
		msgs = append(msgs, ig.String())
	}
	all := strings.Join(msgs, "\n")
	for _, want := range []string{
		`/p/.toolguard/policy.toml:2:1: rule "allow-rm": allow rule ignored`,
		`:8:1: rule "git-push-force": rule ignored: it replaces rule "git-push-force" of layer builtin`,
		`rule "ask-rm": locked ignored on an ask rule`,
		`rule "ask-rm": priority 100 lowered to 0`,
	} {
		if !strings.Contains(all, want) {
			t.Errorf("ignored lacks %q:\n%s", want, all)
		}
	}
}

// TestLockByPosition: a lock binds every later layer whatever its name;
// no layer takes an earlier layer's name.
func TestLockByPosition(t *testing.T) {
	user := Source{Path: "/u/policy.toml", Name: "user", Data: []byte("version = 1\n[settings]\nlocked = [\"builtin\", \"disable\"]\n")}
	for _, name := range []string{"", "policy", "project", "other"} {
		t.Run("project named "+name, func(t *testing.T) {
			doc := "version = 1\n[settings]\n"
			if name != "" {
				doc += "layer = \"" + name + "\"\n"
			}
			doc += "builtin = false\ndisable = [\"git-push-force\"]\n"
			p, err := loadLayers(t, user, Source{Path: "/p/.toolguard/policy.toml", Name: "project", Data: []byte(doc)})
			if err != nil {
				t.Fatal(err)
			}
			if !p.Settings.Builtin || p.Rule("git-push-force") == nil {
				t.Errorf("the user's lock did not bind: builtin %v, git-push-force %v", p.Settings.Builtin, p.Rule("git-push-force"))
			}
			if len(p.Warnings) == 0 {
				t.Error("no warning about the locked setting")
			}
		})
	}
	// Two discovered files both called policy.toml used to share the name
	// "policy", and a lock bound by name: it now binds by position even
	// for files with no given names.
	p, err := loadLayers(t,
		Source{Path: "/u/policy.toml", Data: []byte("version = 1\n[settings]\nlocked = [\"builtin\"]\n")},
		Source{Path: "/p/policy.toml", Data: []byte("version = 1\n[settings]\nbuiltin = false\n")})
	if err != nil {
		t.Fatal(err)
	}
	if !p.Settings.Builtin || p.Layers[1].Name != "policy" || p.Layers[2].Name != "policy-2" {
		t.Errorf("builtin %v, layers %+v", p.Settings.Builtin, p.Layers)
	}
	// Explicit names that repeat an earlier layer's are errors with the
	// position.
	for _, c := range []struct {
		src  Source
		want string
	}{
		{Source{Path: "/p/policy.toml", Data: []byte("version = 1\n[settings]\nlayer = \"user\"\n")}, `/p/policy.toml:3:1: layer name "user" is taken by an earlier layer (/u/policy.toml)`},
		{Source{Path: "/p/policy.toml", Data: []byte("version = 1\n[settings]\nlayer = \"builtin\"\n")}, `layer name "builtin" is taken`},
		{Source{Path: "/p/x.toml", Layer: "user", Data: []byte("version = 1\n")}, `/p/x.toml:1:1: layer name "user" is taken`},
	} {
		_, err := loadLayers(t, user, c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.src.Data, err, c.want)
		}
	}
}

// TestMaterializedLocksBind: the settings a layer locked stay locked in
// its materialized form, binding layers loaded after the JSON.
func TestMaterializedLocksBind(t *testing.T) {
	platform := Source{Path: "/etc/platform.toml", Data: []byte("version = 1\n[settings]\ndefault = \"ask\"\nlocked = [\"default\", \"on_error\"]\n")}
	p, err := loadLayers(t, platform)
	if err != nil {
		t.Fatal(err)
	}
	data, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	project := Source{Path: "/p/project.toml", Layer: "project", Data: []byte("version = 1\n[settings]\ndefault = \"allow\"\non_error = \"allow\"\n")}
	for _, lazy := range []bool{false, true} {
		q, err := Load([]Source{{Path: "/etc/policy.json", Data: data}, project}, LoadOptions{NoBuiltin: true, Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		if q.Settings.Default != call.Ask || q.Settings.OnError != call.Deny || len(q.Warnings) != 2 {
			t.Errorf("lazy %v: default %s, on_error %s, warnings %v; want the platform's locks to bind", lazy, q.Settings.Default, q.Settings.OnError, q.Warnings)
		}
	}
}
