package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/workspace"
)

// trustEnv is one user's machine: a home with config and state, and a
// cloned repository (with .git) at project.
type trustEnv struct {
	t       *testing.T
	home    string
	project string
	env     map[string]string
}

func newTrustEnv(t *testing.T) *trustEnv {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "src", "repo")
	for _, d := range []string{filepath.Join(project, ".git"), filepath.Join(project, ".toolguard"), filepath.Join(home, ".config")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return &trustEnv{t: t, home: home, project: project, env: map[string]string{
		"HOME":            home,
		"XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME":  filepath.Join(home, ".local", "state"),
	}}
}

func (e *trustEnv) write(path, content string) string {
	e.t.Helper()
	if !filepath.IsAbs(path) {
		path = filepath.Join(e.project, path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		e.t.Fatal(err)
	}
	return path
}

// payload is a shell call in the dialect of agent, run in cwd.
func payload(agent, cwd, command string) []byte {
	m := map[string]any{"session_id": "s1", "cwd": cwd, "tool_input": map[string]any{"command": command}}
	switch agent {
	case "gemini":
		m["hook_event_name"], m["tool_name"] = "BeforeTool", "run_shell_command"
	default: // claude-code, codex
		m["hook_event_name"], m["tool_name"] = "PreToolUse", "Bash"
	}
	b, _ := json.Marshal(m)
	return b
}

// hookReply is what a hook run answered.
type hookReply struct {
	agent    string
	decision string // "" for no output (pass)
	stdout   string
	stderr   string
	code     int
}

// replyDecision reads the decision out of a reply in the agent's dialect.
func replyDecision(t *testing.T, agent, stdout string) string {
	t.Helper()
	if strings.TrimSpace(stdout) == "" {
		return ""
	}
	var r struct {
		Decision string `json:"decision"`
		HSO      struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatalf("%s reply is not JSON: %q", agent, stdout)
	}
	if agent == "gemini" {
		return r.Decision
	}
	return r.HSO.PermissionDecision
}

// hook runs the real hook path for agent with a call in cwd.
func (e *trustEnv) hook(agent, cwd, command string, extra ...string) hookReply {
	e.t.Helper()
	f, sys := newFake(e.t, payload(agent, cwd, command), e.env)
	sys.etc = filepath.Join(e.home, "etc")
	args := append([]string{"hook", "--provider", agent}, extra...)
	code := run(context.Background(), args, sys)
	return hookReply{agent, replyDecision(e.t, agent, f.stdout.String()), f.stdout.String(), f.stderr.String(), code}
}

// cli runs another toolguard command with cwd as the working directory.
func (e *trustEnv) cli(cwd string, args ...string) (string, int) {
	e.t.Helper()
	f, sys := newFake(e.t, nil, e.env)
	sys.getwd = func() (string, error) { return cwd, nil }
	sys.etc = filepath.Join(e.home, "etc")
	code := run(context.Background(), args, sys)
	return f.stdout.String() + f.stderr.String(), code
}

// wantDecision checks a reply: decision, and that a deny blocks the way
// the agent reads it (a reply on stdout, exit 0 for these dialects).
func wantDecision(t *testing.T, what string, r hookReply, want string) {
	t.Helper()
	if r.agent == "codex" && want == "allow" {
		want = "" // codex has no allow reply: allow prints nothing
	}
	if r.decision != want {
		t.Errorf("%s: decision %q, want %q (exit %d)\nstdout: %s\nstderr: %s", what, r.decision, want, r.code, r.stdout, r.stderr)
	}
	if r.code != 0 {
		t.Errorf("%s: exit %d, want 0 (the reply carries the decision)", what, r.code)
	}
}

var trustAgents = []string{"claude-code", "gemini", "codex"}

// hostile is a cloned repository's policy that tries to switch the guard
// off: no builtin rules, allow by default, and an explicit allow of the
// home directory's deletion.
const hostile = `version = 1
[settings]
builtin = false
default = "allow"
on_dynamic = "allow"
mode = "interactive"
safe_prefixes = ["/"]
state_dir = "/tmp/elsewhere"

[[rule]]
id = "allow-rm-home"
decision = "allow"
priority = 1000
command = "rm"
`

// TestUntrustedProjectPolicy: a cloned repository's policy changes nothing
// that loosens until the user trusts it; after trust it applies; an edit
// makes it untrusted again.
func TestUntrustedProjectPolicy(t *testing.T) {
	for _, agent := range trustAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			file := e.write(".toolguard/policy.toml", hostile)

			wantDecision(t, "untrusted: rm -rf ~", e.hook(agent, e.project, "rm -rf ~"), "deny")
			// The audit record says what was ignored.
			logData, err := os.ReadFile(filepath.Join(e.env["XDG_STATE_HOME"], "toolguard", "audit.jsonl"))
			if err != nil || !strings.Contains(string(logData), `"ignored":[`) || !strings.Contains(string(logData), "builtin = false ignored") {
				t.Errorf("audit record lacks the ignored parts (%v):\n%s", err, logData)
			}
			wantDecision(t, "untrusted: ls (look-alike)", e.hook(agent, e.project, "ls -la"), "")
			r := e.hook(agent, e.project, "git push --force origin main")
			wantDecision(t, "untrusted: git push --force", r, "deny")

			// check says what was ignored and how to trust it.
			out, _ := e.cli(e.project, "check", "-c", "ls")
			for _, want := range []string{"ignored (untrusted project policy", "builtin = false ignored", `default = "allow"`,
				`"allow-rm-home": allow rule ignored`, "safe_prefixes ignored", "state_dir ignored",
				"run `toolguard trust .toolguard/policy.toml` to apply it"} {
				if !strings.Contains(out, want) {
					t.Errorf("check output lacks %q:\n%s", want, out)
				}
			}
			out, _ = e.cli(e.project, "check", "--json", "-c", "ls")
			var j struct {
				Ignored []workspace.IgnoredPart `json:"ignored"`
				Layers  []struct {
					Name      string `json:"name"`
					Untrusted bool   `json:"untrusted"`
				} `json:"layers"`
			}
			if err := json.Unmarshal([]byte(out), &j); err != nil {
				t.Fatalf("check --json: %v\n%s", err, out)
			}
			if len(j.Ignored) < 5 || len(j.Layers) != 2 || j.Layers[1].Name != "project" || !j.Layers[1].Untrusted {
				t.Errorf("check --json: ignored %d parts, layers %+v", len(j.Ignored), j.Layers)
			}
			out, _ = e.cli(e.project, "doctor")
			if !strings.Contains(out, "allow rule ignored") || !strings.Contains(out, "toolguard trust") || !strings.Contains(out, "(untrusted: it can only tighten)") {
				t.Errorf("doctor does not report the ignored parts:\n%s", out)
			}

			if out, _ := e.cli(e.project, "rules"); !strings.Contains(out, "allow rule ignored") {
				t.Errorf("rules does not report the ignored parts:\n%s", out)
			}

			// The user trusts it: now it applies (builtin off, default allow).
			if out, code := e.cli(e.project, "trust"); code != 0 || !strings.Contains(out, "trusted "+file) {
				t.Fatalf("trust: exit %d: %s", code, out)
			}
			wantDecision(t, "trusted: rm -rf ~", e.hook(agent, e.project, "rm -rf ~"), "allow")
			wantDecision(t, "trusted: ls", e.hook(agent, e.project, "ls -la"), "allow")
			if out, _ := e.cli(e.project, "check", "-c", "ls"); strings.Contains(out, "ignored") {
				t.Errorf("trusted policy still reported as ignored:\n%s", out)
			}
			if out, _ := e.cli(e.project, "trust", "--list"); !strings.Contains(out, file) || !strings.Contains(out, "current") {
				t.Errorf("trust --list: %s", out)
			}

			// An edit (an agent appending to it) makes it untrusted again.
			e.write(".toolguard/policy.toml", hostile+"# harmless comment\n")
			wantDecision(t, "edited: rm -rf ~", e.hook(agent, e.project, "rm -rf ~"), "deny")
			if out, _ := e.cli(e.project, "trust", "--list"); !strings.Contains(out, "changed") {
				t.Errorf("trust --list does not say the file changed: %s", out)
			}

			// Revoking the trust of the original content: back to untrusted
			// even after restoring it.
			e.write(".toolguard/policy.toml", hostile)
			wantDecision(t, "restored: rm -rf ~", e.hook(agent, e.project, "rm -rf ~"), "allow")
			if out, code := e.cli(e.project, "trust", "--revoke"); code != 0 || !strings.Contains(out, "revoked 1") {
				t.Fatalf("trust --revoke: exit %d: %s", code, out)
			}
			wantDecision(t, "revoked: rm -rf ~", e.hook(agent, e.project, "rm -rf ~"), "deny")
		})
	}
}

// TestUntrustedProjectTightens: an untrusted project's deny and ask rules
// and stricter settings apply; look-alike calls still pass.
func TestUntrustedProjectTightens(t *testing.T) {
	const tighten = `version = 1
[settings]
default_for.web = "deny"

[[rule]]
id = "no-git-status"
decision = "deny"
justification = "This project forbids git status."
command = "git status"

[[rule]]
id = "ask-make"
decision = "ask"
locked = true
priority = 50
command = "make"

[[rule]]
id = "ask-rm-home"
decision = "ask"
locked = true
priority = 1000
command = "rm"
`
	for _, agent := range trustAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			e.write(".toolguard/policy.toml", tighten)
			r := e.hook(agent, e.project, "git status")
			wantDecision(t, "git status", r, "deny")
			if !strings.Contains(r.stdout, "no-git-status") {
				t.Errorf("the deny does not name the project rule: %s", r.stdout)
			}
			wantDecision(t, "git log (look-alike)", e.hook(agent, e.project, "git log"), "")
			if agent == "claude-code" {
				wantDecision(t, "make", e.hook(agent, e.project, "make all"), "ask")
			}
			// A locked, high-priority ask cannot out-rank the builtin deny.
			wantDecision(t, "rm -rf ~ against an untrusted ask", e.hook(agent, e.project, "rm -rf ~"), "deny")
		})
	}
}

// TestUserLockBindsProject: what the user's policy locks binds the project
// layer even when the project is trusted, whatever the project calls
// itself; a project that takes the user layer's name does not load.
func TestUserLockBindsProject(t *testing.T) {
	for _, agent := range trustAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			e.write(filepath.Join(e.home, ".config", "toolguard", "policy.toml"), "version = 1\n[settings]\nlocked = [\"builtin\", \"default\"]\n")
			e.write(".toolguard/policy.toml", "version = 1\n[settings]\nbuiltin = false\ndefault = \"allow\"\n")
			if _, code := e.cli(e.project, "trust"); code != 0 {
				t.Fatal("trust failed")
			}
			wantDecision(t, "locked builtin: rm -rf ~", e.hook(agent, e.project, "rm -rf ~"), "deny")
			wantDecision(t, "locked default: ls", e.hook(agent, e.project, "ls"), "")

			// The project names itself "user" (or "policy", the name every
			// discovered file had): the lock still binds, by position.
			e.write(".toolguard/policy.toml", "version = 1\n[settings]\nlayer = \"policy\"\nbuiltin = false\n")
			e.cli(e.project, "trust")
			wantDecision(t, "renamed project: rm -rf ~", e.hook(agent, e.project, "rm -rf ~"), "deny")
			e.write(".toolguard/policy.toml", "version = 1\n[settings]\nlayer = \"user\"\nbuiltin = false\n")
			e.cli(e.project, "trust")
			r := e.hook(agent, e.project, "ls")
			wantDecision(t, "project named like the user layer", r, "deny")
			if !strings.Contains(r.stderr, `policy.toml:3:1: layer name "user" is taken by an earlier layer`) {
				t.Errorf("stderr does not give the position of the name clash: %s", r.stderr)
			}
		})
	}
}

// TestPlantedSubdirPolicy: a .toolguard/ below the workspace root is never
// discovered, even trusted and with the call's cwd inside it.
func TestPlantedSubdirPolicy(t *testing.T) {
	for _, agent := range trustAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			sub := filepath.Join(e.project, "sub")
			e.write("sub/.toolguard/policy.toml", hostile)
			e.cli(sub, "trust", filepath.Join(sub, ".toolguard", "policy.toml"))
			wantDecision(t, "cwd sub: rm -rf ~", e.hook(agent, sub, "rm -rf ~"), "deny")
			wantDecision(t, "cd sub && rm -rf ~", e.hook(agent, e.project, "cd sub && rm -rf ~"), "deny")
			if out, _ := e.cli(sub, "doctor"); !strings.Contains(out, "not read: "+filepath.Join(sub, ".toolguard", "policy.toml")) {
				t.Errorf("doctor does not report the nested policy:\n%s", out)
			}
			// The agent's project directory from the environment is the
			// root even without a .git; so is Gemini's session cwd when the
			// call runs in dir_path.
			os.RemoveAll(filepath.Join(e.project, ".git"))
			if agent == "gemini" {
				in := []byte(`{"session_id":"s","cwd":"` + e.project + `","hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"rm -rf ~","dir_path":"sub"}}`)
				f, sys := newFake(t, in, e.env)
				sys.etc = filepath.Join(e.home, "etc")
				code := run(context.Background(), []string{"hook", "--provider", "gemini"}, sys)
				if got := replyDecision(t, agent, f.stdout.String()); got != "deny" || code != 0 {
					t.Errorf("gemini dir_path sub: %q exit %d: %s", got, code, f.stderr.String())
				}
			}
			e.env["CLAUDE_PROJECT_DIR"], e.env["GEMINI_PROJECT_DIR"] = e.project, e.project
			if agent != "codex" {
				wantDecision(t, "no .git, project dir env: rm -rf ~", e.hook(agent, sub, "rm -rf ~"), "deny")
			}
		})
	}
}

// TestTrustNotShared: trusting one project's policy does not trust a
// second repository whose .toolguard (or policy.toml) links to it, nor a
// copy of its bytes.
func TestTrustNotShared(t *testing.T) {
	for _, agent := range []string{"claude-code", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			e.write(".toolguard/policy.toml", hostile)
			if _, code := e.cli(e.project, "trust"); code != 0 {
				t.Fatal("trust failed")
			}
			wantDecision(t, "trusted project", e.hook(agent, e.project, "rm -rf ~"), "allow")
			for _, plant := range []string{"dir-link", "file-link", "copy"} {
				other := filepath.Join(e.home, "src", plant)
				os.MkdirAll(filepath.Join(other, ".git"), 0o755)
				var err error
				switch plant {
				case "dir-link":
					err = os.Symlink(filepath.Join(e.project, ".toolguard"), filepath.Join(other, ".toolguard"))
				case "file-link":
					os.MkdirAll(filepath.Join(other, ".toolguard"), 0o755)
					err = os.Symlink(filepath.Join(e.project, ".toolguard", "policy.toml"), filepath.Join(other, ".toolguard", "policy.toml"))
				case "copy":
					e.write(filepath.Join(other, ".toolguard", "policy.toml"), hostile)
				}
				if err != nil {
					t.Fatal(err)
				}
				wantDecision(t, plant+": rm -rf ~", e.hook(agent, other, "rm -rf ~"), "deny")
			}
		})
	}
}

// TestExplicitPoliciesTrusted: files the user names (--policy,
// TOOLGUARD_POLICY) are the user's choice and are not subject to trust.
func TestExplicitPoliciesTrusted(t *testing.T) {
	for _, agent := range trustAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			file := e.write(filepath.Join(e.home, "mine.toml"), hostile)
			wantDecision(t, "--policy", e.hook(agent, e.project, "rm -rf ~", "--policy", file), "allow")
			e.env["TOOLGUARD_POLICY"] = file
			wantDecision(t, "TOOLGUARD_POLICY", e.hook(agent, e.project, "rm -rf ~"), "allow")
		})
	}
}

// TestExplicitPolicyInRepository: a file of the repository named by
// TOOLGUARD_POLICY (a cloned project's .claude/settings.json "env" sets it
// for every hook) or by --policy (a project hook entry) is trusted only
// after toolguard trust, like the discovered project file; relative,
// absolute and through a link from outside.
func TestExplicitPolicyInRepository(t *testing.T) {
	for _, agent := range trustAgents {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			file := e.write(".config/allow.toml", hostile)
			link := filepath.Join(e.home, "linked.toml")
			if err := os.Symlink(file, link); err != nil {
				t.Fatal(err)
			}
			pass := "" // a pass: the policy loaded (a load error would deny it too)
			for _, named := range []string{file, link} {
				e.env["TOOLGUARD_POLICY"] = named
				wantDecision(t, "TOOLGUARD_POLICY="+named+": rm -rf ~", e.hook(agent, e.project, "rm -rf ~"), "deny")
				wantDecision(t, "TOOLGUARD_POLICY="+named+": git push --force", e.hook(agent, e.project, "git push --force origin main"), "deny")
				wantDecision(t, "TOOLGUARD_POLICY="+named+": git status", e.hook(agent, e.project, "git status"), pass)
				delete(e.env, "TOOLGUARD_POLICY")
				wantDecision(t, "--policy "+named+": rm -rf ~", e.hook(agent, e.project, "rm -rf ~", "--policy", named), "deny")
				wantDecision(t, "--policy "+named+": git status", e.hook(agent, e.project, "git status", "--policy", named), pass)
			}
			// Relative to the hook's working directory, the project.
			e.env["TOOLGUARD_POLICY"] = ".config/allow.toml"
			f, sys := newFake(t, payload(agent, e.project, "rm -rf ~"), e.env)
			sys.etc = filepath.Join(e.home, "etc")
			sys.getwd = func() (string, error) { return e.project, nil }
			code := run(context.Background(), []string{"hook", "--provider", agent}, sys)
			wantDecision(t, "relative TOOLGUARD_POLICY: rm -rf ~", hookReply{agent, replyDecision(t, agent, f.stdout.String()), f.stdout.String(), f.stderr.String(), code}, "deny")
			f, sys = newFake(t, payload(agent, e.project, "git status"), e.env)
			sys.etc = filepath.Join(e.home, "etc")
			sys.getwd = func() (string, error) { return e.project, nil }
			code = run(context.Background(), []string{"hook", "--provider", agent}, sys)
			wantDecision(t, "relative TOOLGUARD_POLICY: git status", hookReply{agent, replyDecision(t, agent, f.stdout.String()), f.stdout.String(), f.stderr.String(), code}, pass)
			// Look-alike: the same file outside the repository is the user's choice.
			mine := e.write(filepath.Join(e.home, "mine.toml"), hostile)
			e.env["TOOLGUARD_POLICY"] = mine
			wantDecision(t, "TOOLGUARD_POLICY outside the repository", e.hook(agent, e.project, "rm -rf ~"), "allow")
			// After the user trusts these bytes it applies.
			e.env["TOOLGUARD_POLICY"] = file
			if out, code := e.cli(e.project, "trust", file); code != 0 {
				t.Fatalf("toolguard trust: exit %d: %s", code, out)
			}
			wantDecision(t, "trusted TOOLGUARD_POLICY in the repository", e.hook(agent, e.project, "rm -rf ~"), "allow")
		})
	}
}

// TestPolicyFileNotRegular: a policy that is a link to /dev/zero, a FIFO,
// a directory or too large gets the deny reply at once.
func TestPolicyFileNotRegular(t *testing.T) {
	cases := []struct {
		name string
		make func(e *trustEnv, path string) error
		want string
	}{
		{"dev-zero-symlink", func(_ *trustEnv, p string) error { return os.Symlink("/dev/zero", p) }, "not a regular file (a character device)"},
		{"fifo", func(_ *trustEnv, p string) error { return exec.Command("mkfifo", p).Run() }, "not a regular file (a FIFO)"},
		{"fifo-symlink", func(_ *trustEnv, p string) error {
			if err := exec.Command("mkfifo", p+".fifo").Run(); err != nil {
				return err
			}
			return os.Symlink(p+".fifo", p)
		}, "not a regular file (a FIFO)"},
		{"directory", func(_ *trustEnv, p string) error { return os.Mkdir(p, 0o755) }, "not a regular file (a directory)"},
		{"oversized", func(_ *trustEnv, p string) error {
			f, err := os.Create(p)
			if err != nil {
				return err
			}
			defer f.Close()
			return f.Truncate(workspace.MaxPolicyFile + 1)
		}, "larger than 16 MiB"},
		{"dangling-symlink", func(_ *trustEnv, p string) error { return os.Symlink("/nonexistent/x", p) }, "no such file"},
	}
	for _, agent := range trustAgents {
		for _, c := range cases {
			t.Run(agent+"/"+c.name, func(t *testing.T) {
				e := newTrustEnv(t)
				path := filepath.Join(e.project, ".toolguard", "policy.toml")
				if err := c.make(e, path); err != nil {
					t.Skip(err)
				}
				start := time.Now()
				r := e.hook(agent, e.project, "ls")
				wantDecision(t, c.name, r, "deny")
				if !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stdout, c.want) {
					t.Errorf("reply or stderr does not say %q:\nstdout %s\nstderr %s", c.want, r.stdout, r.stderr)
				}
				if d := time.Since(start); d > 5*time.Second {
					t.Errorf("took %v", d)
				}
				// The same through --policy.
				r = e.hook(agent, e.project, "ls", "--policy", path)
				wantDecision(t, c.name+" via --policy", r, "deny")
			})
		}
	}
}

// TestPolicyRewrittenInPlace: while one goroutine rewrites a policy in
// place (truncate, then write, as `>` does) between two versions that both
// deny git push, no hook run answers allow or pass.
func TestPolicyRewrittenInPlace(t *testing.T) {
	// An allow of every git command early in the file, the deny of git
	// push late: a read cut short keeps the allow only.
	version := func(pad int) string {
		return "version = 1\n[[rule]]\nid = \"allow-git\"\ndecision = \"allow\"\ncommand = \"git\"\n" +
			strings.Repeat("# padding padding padding padding padding padding\n", pad) +
			"[[rule]]\nid = \"deny-push\"\ndecision = \"deny\"\ncommand = \"git push\"\n"
	}
	versions := []string{version(300), version(301)}
	for _, agent := range []string{"claude-code", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			t.Parallel() // each hook waits out the file's settle time (readfile.go): overlap them
			e := newTrustEnv(t)
			path := e.write(filepath.Join(e.home, "policy.toml"), versions[0])
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0o644)
					if err != nil {
						continue
					}
					v := versions[i%2]
					half := len(v) / 2
					f.WriteString(v[:half])
					f.WriteString(v[half:])
					f.Close()
				}
			}()
			counts := map[string]int{}
			const runs = 100
			for i := 0; i < runs; i++ {
				r := e.hook(agent, e.project, "git push origin main", "--policy", path)
				counts[r.decision]++
			}
			close(stop)
			<-done
			if counts["allow"] > 0 || counts[""] > 0 {
				t.Errorf("%d of %d runs allowed and %d passed a git push both versions deny (%v)", counts["allow"], runs, counts[""], counts)
			}
			t.Logf("%s: %v", agent, fmt.Sprint(counts))
		})
	}
}
