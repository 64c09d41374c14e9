package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"toolguard": func() { os.Exit(run(context.Background(), os.Args[1:], realSystem())) },
	})
}

// TestScripts runs the CLI scenarios under testdata/script, each against the
// real run function in a fresh process with HOME and the state, config and
// policy directories inside the script's work dir.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("HOME", env.WorkDir+"/home")
			env.Setenv("XDG_CONFIG_HOME", env.WorkDir+"/home/.config")
			env.Setenv("XDG_STATE_HOME", env.WorkDir+"/home/.local/state")
			env.Setenv("TOOLGUARD_POLICY", "")
			return os.MkdirAll(env.WorkDir+"/home", 0o755)
		},
	})
}

// fakeSystem runs commands in-process with fixed streams and environment.
type fakeSystem struct {
	stdout, stderr bytes.Buffer
	env            map[string]string
}

func newFake(t *testing.T, stdin []byte, env map[string]string) (*fakeSystem, *system) {
	t.Helper()
	f := &fakeSystem{env: env}
	home := t.TempDir()
	if f.env == nil {
		f.env = map[string]string{}
	}
	if _, ok := f.env["HOME"]; !ok {
		f.env["HOME"] = home
	}
	sys := &system{
		stdin:      bytes.NewReader(stdin),
		stdout:     &f.stdout,
		stderr:     &f.stderr,
		getenv:     func(k string) string { return f.env[k] },
		now:        func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) },
		getwd:      func() (string, error) { return home, nil },
		executable: func() (string, error) { return "/usr/local/bin/toolguard", nil },
		etc:        filepath.Join(home, "etc"),
		isTerminal: func() bool { return false },
	}
	return f, sys
}

// reply renders a hook run for a golden file.
func reply(code int, f *fakeSystem) string {
	return fmt.Sprintf("exit %d\n-- stdout --\n%s-- stderr --\n%s", code, f.stdout.String(), f.stderr.String())
}

// approvalID matches the random part of approval request ids.
var approvalID = regexp.MustCompile(`req_[a-z2-7]{10}`)

func golden(t *testing.T, path, got string) {
	t.Helper()
	got = approvalID.ReplaceAllString(got, "req_XXXXXXXXXX")
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/toolguard -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s: reply differs\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}

// goldenPolicies are the policies every payload is answered under: the
// embedded defaults alone, and a policy that allows what nothing denies
// or asks about, so that every agent's allow reply is pinned too.
var goldenPolicies = []struct{ name, file string }{
	{"", ""},
	{"allow", "testdata/golden/default-allow.toml"},
}

// TestHookGolden answers every payload under testdata/payloads/<agent>/
// with the agent's codec and compares the reply bytes and exit code with
// the golden file next to it.
func TestHookGolden(t *testing.T) {
	root := "../../testdata/payloads"
	agents, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, a := range agents {
		if !a.IsDir() {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(root, a.Name(), "*.json"))
		sort.Strings(files)
		for _, file := range files {
			payload, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for _, gp := range goldenPolicies {
				name := strings.TrimSuffix(filepath.Base(file), ".json")
				args := []string{"hook", "--provider", a.Name()}
				gold := strings.TrimSuffix(file, ".json") + ".golden"
				if gp.file != "" {
					abs, _ := filepath.Abs(gp.file)
					args = append(args, "--policy", abs)
					gold = strings.TrimSuffix(file, ".json") + "." + gp.name + ".golden"
					name += "/" + gp.name
				}
				n++
				t.Run(a.Name()+"/"+name, func(t *testing.T) {
					f, sys := newFake(t, payload, nil)
					code := run(context.Background(), args, sys)
					// The fake's home (a temp dir) is also its working
					// directory: a payload without a cwd has it as its
					// workspace, which a reply may name.
					golden(t, gold, strings.ReplaceAll(reply(code, f), f.env["HOME"], "$HOME"))
				})
			}
		}
	}
	if n < 50 {
		t.Errorf("only %d payload cases under %s", n, root)
	}
}

// TestHookMalformed feeds every agent input it cannot read: each gets the
// agent's deny (on_error) with a message saying what is wrong.
func TestHookMalformed(t *testing.T) {
	inputs := []struct{ name, in string }{
		{"not-json", "git push --force"},
		{"empty", ""},
		{"truncated", `{"tool_name":"Bash","tool_input":{"command":"ls"`},
		{"array", `[{"tool_name":"Bash"}]`},
		{"no-tool-name", `{"session_id":"s","cwd":"/tmp","hook_event_name":"PreToolUse","tool_input":{"command":"ls"}}`},
		{"binary", "\x00\x01\xff\xfe{"},
	}
	for _, agent := range []string{"claude-code", "codebuddy", "codex", "gemini", "cursor", "copilot", "antigravity", "kiro", "windsurf", "devin", ""} {
		for _, in := range inputs {
			name := agent
			if name == "" {
				name = "detect"
			}
			t.Run(name+"/"+in.name, func(t *testing.T) {
				args := []string{"hook"}
				if agent != "" {
					args = append(args, "--provider", agent)
				}
				f, sys := newFake(t, []byte(in.in), nil)
				code := run(context.Background(), args, sys)
				golden(t, filepath.Join("testdata/golden/malformed", name+"-"+in.name+".golden"), reply(code, f))
				if f.stdout.Len() == 0 && code != 2 || exitCodeDialect(agent) && (code != 2 || f.stdout.Len() != 0) {
					t.Errorf("no blocking reply: exit %d, stdout empty", code)
				}
				if !strings.Contains(f.stderr.String(), "cannot read the hook payload") {
					t.Errorf("stderr does not say what is wrong: %q", f.stderr.String())
				}
			})
		}
	}
}

// passReply is the reply of a pass: no output, except Cursor's explicit
// allow (install sets failClosed, and Cursor then blocks on no output).
func passReply(agent string) string {
	switch agent {
	case "cursor":
		return `{"permission":"allow"}` + "\n"
	case "antigravity": // no output is a deny there: the pass hands the call to agy's own flow
		return `{"decision":"ask"}` + "\n"
	}
	return ""
}

// TestNoopPolicy: with builtin = false and no rules, every payload under
// testdata passes — no output (Cursor: an explicit allow), exit 0 —
// whatever the agent.
func TestNoopPolicy(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/payloads/*/*.json")
	if len(files) < 50 {
		t.Fatalf("only %d payloads", len(files))
	}
	noop := filepath.Join(t.TempDir(), "noop.toml")
	if err := os.WriteFile(noop, []byte("[settings]\nbuiltin = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		payload, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		agent := filepath.Base(filepath.Dir(file))
		f, sys := newFake(t, payload, nil)
		code := run(context.Background(), []string{"hook", "--provider", agent, "--policy", noop}, sys)
		if code != 0 || f.stdout.String() != passReply(agent) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", file, code, f.stdout.String(), f.stderr.String())
		}
	}
}

// The hook's own command tree (run builds only the hook command for it)
// answers every hook command line as the full tree does: help, flag errors,
// usage errors and replies alike.
func TestHookTree(t *testing.T) {
	payload, err := os.ReadFile("../../testdata/payloads/claude-code/push-force.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"hook", "--provider", "claude-code"},
		{"hook", "--help"},
		{"hook", "-h"},
		{"hook", "--bogus"},
		{"hook", "extra"},
		{"hook", "help"},
		{"hook", "--version"},
		{"hook", "--provider"},
		{"hook", "--provider", "bogus"},
		{"hook", "--mode", "sideways"},
		{"hook", "--no-builtin=maybe"},
		{"hook", "--layer", "bad"},
		{"hook", "--", "x"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			f1, sys1 := newFake(t, payload, nil)
			code1 := run(context.Background(), args, sys1)
			f2, sys2 := newFake(t, payload, nil)
			code2 := execute(context.Background(), newRootCmd(sys2), args, sys2)
			if got, want := reply(code1, f1), reply(code2, f2); got != want {
				t.Errorf("hook tree:\n%s\nfull tree:\n%s", got, want)
			}
		})
	}
}
