package policy

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/shellparse"
)

func autoPolicy(t *testing.T, extra string) *Policy {
	t.Helper()
	src := "[settings]\nauto_allow = \"read-only\"\n" + extra
	p, err := Load([]Source{{Path: "auto.toml", Data: []byte(src)}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Settings.AutoAllow != AutoAllowReadOnly {
		t.Fatalf("auto_allow = %q", p.Settings.AutoAllow)
	}
	return p
}

// TestAutoAllowNeverAllowsHarm runs every block record of the dodge table
// and every example of a default ask or deny rule with auto_allow =
// "read-only": none may be allowed, and a decision the defaults make
// (anything but pass) must not change.
func TestAutoAllowNeverAllowsHarm(t *testing.T) {
	t.Parallel()
	auto := autoPolicy(t, "")
	off := loadDefaults(t)
	env := Env{Home: "/home/user", Workspace: "/home/user/project"}

	fh, err := os.Open("testdata/dodges.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	n := 0
	for line := 1; sc.Scan(); line++ {
		var rec struct{ Cmd, Want string }
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d: %v", line, err)
		}
		if rec.Want != "deny" {
			continue
		}
		n++
		if ro := shellparse.ProveReadOnly(rec.Cmd, shellparse.Options{Cwd: "/home/user/project", Home: "/home/user"}); ro.OK {
			t.Errorf("dodges.jsonl:%d: %q proven read-only", line, rec.Cmd)
		}
		c := call.Call{Kind: call.KindShell, Tool: "Bash", Command: rec.Cmd, Cwd: "/home/user/project"}
		if res := auto.Evaluate(c, env); res.Decision == call.Allow {
			t.Errorf("dodges.jsonl:%d: %q allowed (%s)", line, rec.Cmd, res.Reason)
		}
	}
	if n < 150 {
		t.Errorf("only %d dodges", n)
	}

	examples := 0
	for _, r := range allRules(off) {
		for _, ex := range r.spec.Examples.Match {
			c, err := exampleCall(r, ex)
			if err != nil {
				t.Fatalf("%s: %q: %v", r.ID, ex, err)
			}
			examples++
			before, after := off.Evaluate(c, CheckEnv()), auto.Evaluate(c, CheckEnv())
			if r.Decision >= call.Ask && after.Decision == call.Allow {
				t.Errorf("rule %s example %q: allowed with auto_allow (%s)", r.ID, ex, after.Reason)
			}
			if before.Decision != call.Pass && after.Decision != before.Decision {
				t.Errorf("rule %s example %q: %s became %s with auto_allow", r.ID, ex, before.Decision, after.Decision)
			}
		}
	}
	if examples < 200 {
		t.Errorf("only %d examples", examples)
	}
}

// TestAutoAllowPolicy: only a pass becomes an allow; rules still decide;
// the secrets rules still ask for a read; paths outside the workspace and
// symlinks out of it are not proven.
func TestAutoAllowPolicy(t *testing.T) {
	t.Parallel()
	p := autoPolicy(t, `
[[rule]]
id = "no-grep-secret"
decision = "deny"
command = "grep"
args = "secret"
`)
	ws := "/home/user/project"
	links := map[string]string{ws + "/innocent-key": "/home/user/.ssh/id_rsa"}
	env := Env{Home: "/home/user", Workspace: ws, Resolve: func(s string) string {
		if r, ok := links[s]; ok {
			return r
		}
		return s
	}}
	for _, tc := range []struct {
		cmd  string
		want call.Decision
		auto string
	}{
		{"git status && git diff | head", call.Allow, "yes"},
		{"ls src; grep -rn foo src | wc -l", call.Allow, "yes"},
		{"cat /etc/os-release", call.Allow, "yes"},
		{"grep secret src", call.Deny, "no — decided deny by rule no-grep-secret"},
		{"cat .env", call.Ask, "no — decided ask"},
		{"cat innocent-key", call.Deny, "no — decided deny"},
		{"cat ~/notes.txt", call.Pass, "no — /home/user/notes.txt is outside the workspace"},
		{"cat ../other/x", call.Pass, "outside the workspace"},
		{"sed -i s/a/b/ src/a.go", call.Pass, "no — sed -i writes src/a.go"},
		{"git diff > out.txt", call.Pass, "no — a redirection writes out.txt"},
		{"rm -rf build", call.Pass, "rm is not in the read-only table"},
		// issue 33: a program an interpreter reads from its standard input is never proven read-only.
		{"node <<'EOF'\nconst fs=require('fs');fs.writeFileSync('x','y')\nEOF", call.Pass, "standard input"},
		{"echo 'print(1)' | python3", call.Pass, "standard input"},
		{"node --version", call.Allow, "yes"},
	} {
		res := p.Evaluate(call.Call{Kind: call.KindShell, Tool: "Bash", Command: tc.cmd, Cwd: ws}, env)
		if res.Decision != tc.want || !strings.Contains(res.Auto, tc.auto) {
			t.Errorf("%q: got %s, auto %q; want %s, auto containing %q", tc.cmd, res.Decision, res.Auto, tc.want, tc.auto)
		}
		if res.Decision == call.Allow && (res.Cause != AutoReadOnly || !strings.Contains(res.Reason, AutoReadOnly)) {
			t.Errorf("%q: allowed without %s: cause %q, reason %q", tc.cmd, AutoReadOnly, res.Cause, res.Reason)
		}
	}
	for _, tc := range []struct {
		kind call.Kind
		path string
		want call.Decision
	}{
		{call.KindRead, ws + "/src/a.go", call.Allow},
		{call.KindRead, "/home/user/notes.txt", call.Pass},
		{call.KindRead, ws + "/.env", call.Ask},
		{call.KindRead, ws + "/${CODEX_HOME}/config.toml", call.Pass},
		{call.KindWrite, ws + "/src/a.go", call.Pass},
	} {
		c := call.Call{Kind: tc.kind, Tool: "Read", Cwd: ws, Paths: []call.Path{{Path: tc.path, Op: call.OpRead}}}
		if tc.kind == call.KindWrite {
			c.Tool, c.Paths[0].Op = "Write", call.OpWrite
		}
		if res := p.Evaluate(c, env); res.Decision != tc.want {
			t.Errorf("%s %s: got %s (%s), want %s", tc.kind, tc.path, res.Decision, res.Auto, tc.want)
		}
	}
}

// TestAutoAllowSetting: off by default and costs nothing; an untrusted
// project layer cannot switch it on; a bad value is an error.
func TestAutoAllowSetting(t *testing.T) {
	t.Parallel()
	if p := loadDefaults(t); p.Settings.AutoAllow != AutoAllowOff {
		t.Fatalf("default auto_allow = %q", p.Settings.AutoAllow)
	} else if res := p.Evaluate(call.Call{Kind: call.KindShell, Command: "ls", Cwd: "/w"}, Env{Workspace: "/w"}); res.Decision != call.Pass || res.Auto != "" {
		t.Fatalf("ls with auto_allow off: %s %q", res.Decision, res.Auto)
	}
	on := Source{Path: "user.toml", Data: []byte("[settings]\nauto_allow = \"read-only\"\n")}
	proj := Source{Path: "proj.toml", Data: []byte("[settings]\nauto_allow = \"read-only\"\n"), Untrusted: true}
	p, err := Load([]Source{proj}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Settings.AutoAllow != AutoAllowOff || len(p.Ignored) == 0 || !strings.Contains(p.Ignored[0].Msg, "auto_allow") {
		t.Errorf("untrusted layer: auto_allow = %q, ignored %v", p.Settings.AutoAllow, p.Ignored)
	}
	offProj := Source{Path: "proj.toml", Data: []byte("[settings]\nauto_allow = \"off\"\n"), Untrusted: true}
	if p, err := Load([]Source{on, offProj}, LoadOptions{}); err != nil || p.Settings.AutoAllow != AutoAllowOff {
		t.Errorf("untrusted off over a user on: %v %q", err, p.Settings.AutoAllow)
	}
	if _, err := Load([]Source{{Path: "bad.toml", Data: []byte("[settings]\nauto_allow = \"all\"\n")}}, LoadOptions{}); err == nil {
		t.Error("auto_allow = \"all\" loaded")
	}
	if p, err := Load([]Source{on}, LoadOptions{}); err != nil || p.Settings.AutoAllow != AutoAllowReadOnly {
		t.Errorf("user layer: %v", err)
	}
}
