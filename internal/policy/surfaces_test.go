package policy

import (
	"testing"

	"github.com/toolguard/toolguard/internal/call"
)

// TestOnSurface pins the "@protected", "@protected-root" and "@secret"
// semantics: a surface, what is below a tree surface, the directories
// above a surface except /, the home directory and (for @protected) the
// workspace root and above; case folding on request.
func TestOnSurface(t *testing.T) {
	t.Parallel()
	surfaces := []Surface{
		{Path: "/home/u/src/p/.claude/settings.json"},
		{Path: "/home/u/.local/state/toolguard", Tree: true},
		{Path: "/home/u/.config/toolguard/approver.key", Secret: true},
		{Path: "/usr/local/bin/toolguard"},
	}
	for _, tc := range []struct {
		path                    string
		fold                    bool
		protected, root, secret bool
	}{
		{path: "/home/u/src/p/.claude/settings.json", protected: true},
		{path: "/home/u/src/p/.claude", protected: true},
		{path: "/home/u/src/p/.claude/agents/x.md"},
		{path: "/home/u/src/p/.claude/settings.json.bak"},
		{path: "/home/u/src/p", root: true},
		{path: "/home/u/src", root: true},
		{path: "/home/u"},
		{path: "/"},
		{path: "/home", root: true},
		{path: "/home/u/.local/state/toolguard/requests/req_x.json", protected: true},
		{path: "/home/u/.local/state", protected: true},
		{path: "/home/u/.local", protected: true},
		{path: "/home/u/.local/share"},
		{path: "/home/u/.config/toolguard/approver.key", protected: true, secret: true},
		{path: "/home/u/.config", protected: true},
		{path: "/usr/local/bin", protected: true},
		{path: "/usr/local/bin/git"},
		{path: "/home/u/src/p/.Claude/settings.json"},
		{path: "/home/u/src/p/.Claude/settings.json", fold: true, protected: true},
		{path: "/home/u/src/p/.CLAUDE", fold: true, protected: true},
		{path: "relative/.claude"},
	} {
		ev := &evalEnv{home: "/home/u", workspace: "/home/u/src/p", protected: func() []Surface { return surfaces }, foldCase: tc.fold}
		if got := ev.onSurface(tc.path, onSurface); got != tc.protected {
			t.Errorf("@protected %s (fold %v): %v, want %v", tc.path, tc.fold, got, tc.protected)
		}
		if got := ev.onSurface(tc.path, onRoot); got != tc.root {
			t.Errorf("@protected-root %s: %v, want %v", tc.path, got, tc.root)
		}
		if got := ev.onSurface(tc.path, onSecret); got != tc.secret {
			t.Errorf("@secret %s: %v, want %v", tc.path, got, tc.secret)
		}
	}
	if (&evalEnv{home: "/home/u"}).onSurface("/home/u/.claude", onSurface) {
		t.Error("no surfaces: nothing is protected")
	}
}

// TestSelfNames: a command run under the running binary's name is matched
// as toolguard; other commands are not renamed.
func TestSelfNames(t *testing.T) {
	p := loadDefaults(t)
	env := CheckEnv()
	env.SelfNames = []string{"tg"}
	for cmd, want := range map[string]call.Decision{
		"tg uninstall":         call.Deny,
		"tg check -- rm -rf /": call.Pass,
		"git init":             call.Pass,
	} {
		c := call.Call{Kind: call.KindShell, Tool: "Bash", Cwd: CheckWorkspace, Command: cmd}
		if got := p.Evaluate(c, env).Decision; got != want {
			t.Errorf("%s: %s, want %s", cmd, got, want)
		}
	}
}

// TestCaseInsensitivePathsSetting: true in any layer wins; a later false
// does not switch it off; a materialized policy keeps it.
func TestCaseInsensitivePathsSetting(t *testing.T) {
	on := Source{Layer: "user", Path: "user.toml", Data: []byte("version = 1\n[settings]\ncase_insensitive_paths = true\n")}
	off := Source{Layer: "project", Path: "project.toml", Data: []byte("version = 1\n[settings]\ncase_insensitive_paths = false\n")}
	if p := loadDefaults(t); p.Settings.CaseInsensitivePaths {
		t.Error("on by default")
	}
	p := loadDefaults(t, on, off)
	if !p.Settings.CaseInsensitivePaths {
		t.Fatal("a later false switched it off")
	}
	b, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	for _, lazy := range []bool{false, true} {
		m, err := Load([]Source{{Path: "policy.json", Data: b}}, LoadOptions{NoBuiltin: true, Lazy: lazy})
		if err != nil || !m.Settings.CaseInsensitivePaths {
			t.Errorf("materialized (lazy %v): %v, on %v", lazy, err, err == nil && m.Settings.CaseInsensitivePaths)
		}
	}
}

// TestOnSurfaceBinary: "@binary" is the binary surfaces themselves, not
// their directories.
func TestOnSurfaceBinary(t *testing.T) {
	t.Parallel()
	ev := &evalEnv{home: "/home/u", workspace: "/home/u/p", protected: func() []Surface {
		return []Surface{{Path: "/usr/local/bin/toolguard", Binary: true}, {Path: "/home/u/.claude/settings.json"}}
	}}
	for p, want := range map[string]bool{"/usr/local/bin/toolguard": true, "/usr/local/bin": false, "/home/u/.claude/settings.json": false} {
		if got := ev.onSurface(p, onBinary); got != want {
			t.Errorf("@binary %s: %v, want %v", p, got, want)
		}
	}
}

// TestSurfacesAskedOnce: Env.Protected is called the first time a path is
// tested against the surfaces and never again in that Evaluate; a call
// that tests no path (MCP, git status) never calls it. Its answer decides
// as an eager list did.
func TestSurfacesAskedOnce(t *testing.T) {
	p := loadDefaults(t)
	for _, tc := range []struct {
		name  string
		c     call.Call
		calls int
		want  call.Decision
	}{
		{"mcp", call.Call{Kind: call.KindMCP, Tool: "mcp__github__create_issue", MCPServer: "github", MCPTool: "create_issue"}, 0, call.Pass},
		{"git status", call.Call{Kind: call.KindShell, Tool: "Bash", Command: "git status"}, 0, call.Pass},
		{"write in the project", call.Call{Kind: call.KindWrite, Tool: "Write", Paths: []call.Path{{Path: CheckWorkspace + "/src/a.go", Op: call.OpWrite}}}, 1, call.Pass},
		{"write a surface", call.Call{Kind: call.KindWrite, Tool: "Write", Paths: []call.Path{{Path: CheckWorkspace + "/.claude/settings.json", Op: call.OpWrite}}}, 1, call.Deny},
		{"many targets", call.Call{Kind: call.KindShell, Tool: "Bash", Command: "cp a b c d /usr/local/bin/ && rm -rf build dist && mv x y"}, 1, call.Deny},
		{"move a binary's directory", call.Call{Kind: call.KindShell, Tool: "Bash", Command: "mv /usr/local/bin /tmp/b"}, 1, call.Deny},
	} {
		env := CheckEnv()
		n := 0
		env.Protected = func() []Surface { n++; return checkSurfaces() }
		tc.c.Cwd = CheckWorkspace
		res := p.Evaluate(tc.c, env)
		if n != tc.calls || res.Decision != tc.want {
			t.Errorf("%s: Protected called %d times, decision %s (%s); want %d, %s", tc.name, n, res.Decision, res.Reason, tc.calls, tc.want)
		}
	}
}
