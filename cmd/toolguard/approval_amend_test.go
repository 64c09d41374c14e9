package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func (e *approvalEnv) runTTY(stdin string, args ...string) (int, string, string) {
	e.t.Helper()
	f, sys := newFake(e.t, []byte(stdin), e.env)
	sys.getwd = func() (string, error) { return e.home, nil }
	sys.isTerminal = func() bool { return true }
	code := run(context.Background(), args, sys)
	return code, f.stdout.String(), f.stderr.String()
}

const amendExtra = `
[[rule]]
id = "ask-py"
decision = "ask"
command = "python3"

[[rule]]
id = "ask-deploy"
decision = "ask"
command = "terraform apply"
`

// TestApproveAmend: --amend proposes the exact command as an allow rule
// with a priority above the asking rule and a [[test]], shows the diff,
// writes it (the file validates) and approves; the call is then allowed by
// the rule in both dialects.
func TestApproveAmend(t *testing.T) {
	for _, d := range approvalDialects[:2] {
		t.Run(d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			e.genKey(e.defaultKey())
			file := filepath.Join(e.home, "amend.toml")
			id := e.expectDeny(d, d.shell("git tag v1"))
			code, out, errOut := e.approvals("approve", id, "--amend", "--amend-file", file, "--yes", "--key", e.defaultKey())
			if code != 0 {
				t.Fatalf("approve --amend: exit %d %s%s", code, out, errOut)
			}
			for _, want := range []string{"--- " + file, "+[[rule]]", `+id = "amend-` + id + `"`, `+decision = "allow"`, "+priority = 1", `+command = "git tag v1"`, "+regex = '^git tag v1$'", "+[[test]]", `+expect = "allow"`, "wrote " + file, "approved " + id} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if code, out, _ := e.run("", "validate", file); code != 0 {
				t.Errorf("validate the amended file: exit %d %s", code, out)
			}
			// exact: a longer command is not allowed by the rule
			if _, out, _ := e.run(otherSession(d.shell("git tag v1 --force")), "hook", "--provider", d.provider, "--policy", e.policy, "--policy", file); !strings.Contains(out, "deny") {
				t.Errorf("a longer command passed the amended rule: %s", out)
			}
			for range 3 {
				code, out, _ := e.run(d.shell("git tag v1"), "hook", "--provider", d.provider, "--policy", e.policy, "--policy", file)
				if code != 0 || strings.Contains(out, "deny") {
					t.Fatalf("after --amend: exit %d %s", code, out)
				}
			}
		})
	}
}

// TestApproveAmendRefuses: calls a rule cannot express exactly, or whose
// rule would allow more than the call, or asked by a locked rule; and a
// human who says no: nothing written, nothing approved.
func TestApproveAmendRefuses(t *testing.T) {
	d := approvalDialects[0]
	for _, c := range []struct{ cmd, want string }{
		{"sudo git tag v1", "sudo runs whatever it is given"},
		{"env GIT_DIR=x git tag v1", "env runs whatever it is given"},
		{"python3 -c pass", "python3 runs whatever it is given"},
		{"python3", "bare program name"},
		{"git tag $V", "shell syntax"},
		{`git tag "v 1"`, "shell syntax"},
		{"git tag v1 && ls", "shell syntax"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			e.write(e.policy, strings.Replace(readFile(t, e.policy), "[[rule]]", strings.TrimPrefix(amendExtra, "\n")+"\n[[rule]]", 1), 0o600)
			e.genKey(e.defaultKey())
			file := filepath.Join(e.home, "amend.toml")
			id := e.expectDeny(d, d.shell(c.cmd))
			if id == "" {
				t.Fatalf("no request for %s", c.cmd)
			}
			code, out, errOut := e.approvals("approve", id, "--amend", "--amend-file", file, "--yes", "--key", e.defaultKey())
			if code == 0 || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "nothing changed") {
				t.Errorf("exit %d %s%s", code, out, errOut)
			}
			if _, err := os.Stat(file); err == nil {
				t.Errorf("the policy file was written")
			}
			if l, _ := e.listLine(id); !strings.Contains(l, "pending") {
				t.Errorf("the request was approved: %s", l)
			}
		})
	}
	t.Run("look-alike: a program with options", func(t *testing.T) {
		e := newApprovalEnv(t, "")
		e.write(e.policy, strings.Replace(readFile(t, e.policy), "[[rule]]", strings.TrimPrefix(amendExtra, "\n")+"\n[[rule]]", 1), 0o600)
		e.genKey(e.defaultKey())
		file := filepath.Join(e.home, "amend.toml")
		id := e.expectDeny(d, d.shell("terraform apply -auto-approve"))
		if code, out, errOut := e.approvals("approve", id, "--amend", "--amend-file", file, "--yes", "--key", e.defaultKey()); code != 0 || !strings.Contains(out, "+command = \"terraform apply\"\n+regex = '^terraform apply -auto-approve$'") {
			t.Errorf("exit %d %s%s", code, out, errOut)
		}
	})
	t.Run("locked rule", func(t *testing.T) {
		e := newApprovalEnv(t, "")
		e.write(e.policy, strings.Replace(readFile(t, e.policy), `command = "git tag"`, "command = \"git tag\"\nlocked = true", 1), 0o600)
		e.genKey(e.defaultKey())
		id := e.expectDeny(d, d.shell("git tag v1"))
		code, _, errOut := e.approvals("approve", id, "--amend", "--amend-file", filepath.Join(e.home, "amend.toml"), "--yes", "--key", e.defaultKey())
		if code == 0 || !strings.Contains(errOut, "rule ask-tag is locked") {
			t.Errorf("exit %d %s", code, errOut)
		}
	})
	t.Run("the human says no, then yes", func(t *testing.T) {
		e := newApprovalEnv(t, "")
		file := filepath.Join(e.home, "amend.toml")
		id := e.expectDeny(d, d.shell("git tag v1"))
		code, out, _ := e.runTTY("n\n", "approvals", "approve", id, "--amend", "--amend-file", file, "--policy", e.policy)
		if code == 0 || !strings.Contains(out, "write this to the policy? [y/N] not written") {
			t.Errorf("no: exit %d %s", code, out)
		}
		if _, err := os.Stat(file); err == nil {
			t.Errorf("written after no")
		}
		code, out, errOut := e.runTTY("y\n", "approvals", "approve", id, "--amend", "--amend-file", file, "--policy", e.policy)
		if code != 0 || !strings.Contains(out, "wrote "+file) || !strings.Contains(out, "approved "+id) {
			t.Errorf("yes: exit %d %s%s", code, out, errOut)
		}
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestApproveAmendWrite: a Write request gets an allow rule for its exact
// path (op write) and a [[test]]; the file validates.
func TestApproveAmendWrite(t *testing.T) {
	e := newApprovalEnv(t, "")
	e.genKey(e.defaultKey())
	file := filepath.Join(e.home, "amend.toml")
	w := `{"session_id":"s1","cwd":"/tmp/proj","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":"/tmp/proj/.github/workflows/ci.yml","content":"name: ci\n"},"tool_use_id":"t1"}`
	id := e.expectDeny(approvalDialects[0], w)
	code, out, errOut := e.approvals("approve", id, "--amend", "--amend-file", file, "--yes", "--key", e.defaultKey())
	if code != 0 || !strings.Contains(out, `+path = ["/tmp/proj/.github/workflows/ci.yml"]`) || !strings.Contains(out, `+op = ["write"]`) || !strings.Contains(out, `+tool = "write"`) {
		t.Fatalf("exit %d %s%s", code, out, errOut)
	}
	if code, out, _ := e.run("", "validate", file); code != 0 {
		t.Errorf("validate: exit %d %s", code, out)
	}
}
