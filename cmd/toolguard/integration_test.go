package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/toolguard/toolguard/internal/install"
)

// TestHookConfigsAreAccepted runs the command line of every ready-made
// config under hooks/ through the real command tree: each must be a hook
// invocation toolguard accepts, answering a harmless call with a pass.
func TestHookConfigsAreAccepted(t *testing.T) {
	dirs, err := filepath.Glob("../../hooks/*")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, dir := range dirs {
		agent := filepath.Base(dir)
		files, _ := filepath.Glob(filepath.Join(dir, "*.json"))
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			cmds, err := install.ExtractCommands(agent, data)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if len(cmds) == 0 {
				t.Errorf("%s: no hook command", file)
			}
			for _, line := range cmds {
				seen++
				argv := strings.Fields(line)
				if filepath.Base(argv[0]) != "toolguard" {
					t.Errorf("%s: %q does not run toolguard", file, line)
					continue
				}
				payload, err := os.ReadFile(filepath.Join("../../testdata/payloads", agent, "git-status.json"))
				if err != nil {
					t.Fatal(err)
				}
				f, sys := newFake(t, payload, nil)
				if code := run(context.Background(), argv[1:], sys); code != 0 || f.stdout.String() != passReply(agent) {
					t.Errorf("%s: %q: exit %d, stdout %q, stderr %q", file, line, code, f.stdout.String(), f.stderr.String())
				}
			}
		}
	}
	if seen < 6 {
		t.Errorf("only %d hook commands found under hooks/", seen)
	}
}

// TestDocExamplesValidate runs `toolguard validate` on the example policies
// the README points to: their [[test]]s must pass.
func TestDocExamplesValidate(t *testing.T) {
	files, _ := filepath.Glob("../../docs/examples/*.toml")
	if len(files) < 2 {
		t.Fatalf("examples: %v", files)
	}
	for _, file := range files {
		abs, _ := filepath.Abs(file)
		f, sys := newFake(t, nil, nil)
		if code := run(context.Background(), []string{"validate", abs}, sys); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", file, code, f.stdout.String(), f.stderr.String())
		}
	}
}

// TestConcurrentHooks starts 200 hook processes at once against one audit
// log and one single-use grant: every process writes one whole audit line,
// and exactly one of them is allowed. On a loaded machine (go test ./...
// on two cores runs another package beside this one) the last of 200
// processes queued on the approval store's lock can pass the hook's 10 s
// deadline: the watchdog answers those with a deny and exits without an
// audit line (docs/limits.md), and a use one of them took is spent. Such
// a process must say so on stderr and have denied; the others must each
// have written their line.
func TestConcurrentHooks(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts 200 processes")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "toolguard")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	pol := filepath.Join(dir, "policy.toml")
	writeFile(t, pol, `version = 1
[settings]
mode = "headless"
state_dir = "`+filepath.Join(dir, "state")+`"
audit_log = "`+filepath.Join(dir, "audit.jsonl")+`"
[[rule]]
id = "ask-tag"
decision = "ask"
command = "git tag"
`)
	payload := `{"session_id":"s1","cwd":"/tmp","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"git tag v1"},"tool_use_id":"t"}`
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "TOOLGUARD_POLICY=")
	// What a hook says on stderr tells whether it left an audit line: one
	// that says its line is missing, or whose reply the watchdog wrote
	// (past its deadline before deciding), left none; one whose deadline
	// passed after its reply may or may not have (the watchdog ends the
	// process wherever the append is); every other hook left one.
	var deadlined atomic.Int32 // processes that passed their deadline
	var noLine, maybeLine atomic.Int32
	hook := func() (string, error) {
		cmd := exec.Command(bin, "hook", "--provider", "claude-code", "--policy", pol)
		cmd.Stdin = strings.NewReader(payload)
		cmd.Env = env
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		msg := stderr.String()
		late := strings.Contains(msg, "did not finish within its deadline")
		switch {
		case strings.Contains(msg, "its audit line is missing"):
			noLine.Add(1)
		case strings.Contains(msg, "(after the reply; exiting)"):
			maybeLine.Add(1)
		case late:
			noLine.Add(1)
		}
		if late {
			deadlined.Add(1)
			if !strings.Contains(string(out), `"permissionDecision":"deny"`) {
				return string(out), fmt.Errorf("past its deadline, the reply is not a deny: %s", out)
			}
		}
		return string(out), err
	}
	// The first call records the request; a human approves it once.
	out, err := hook()
	if err != nil || !strings.Contains(out, `"permissionDecision":"deny"`) {
		t.Fatalf("first call: %v %s", err, out)
	}
	id := regexp.MustCompile(`req_[a-z2-7]{10}`).FindString(out)
	// No terminal here: the approver key is passed explicitly.
	key := filepath.Join(dir, "config", "toolguard", "approver.key")
	keygen := exec.Command(bin, "approvals", "key", "--generate")
	keygen.Env = env
	if b, err := keygen.CombinedOutput(); err != nil {
		t.Fatalf("approvals key: %v %s", err, b)
	}
	approve := exec.Command(bin, "approvals", "approve", id, "--uses", "1", "--key", key, "--policy", pol)
	approve.Env = env
	if b, err := approve.CombinedOutput(); err != nil {
		t.Fatalf("approve: %v %s", err, b)
	}

	const n = 200
	outs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			outs[i], errs[i] = hook()
		}()
	}
	close(start)
	wg.Wait()
	allows := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("hook %d: %v", i, errs[i])
		}
		switch {
		case strings.Contains(outs[i], `"permissionDecision":"allow"`):
			allows++
		case strings.Contains(outs[i], `"permissionDecision":"deny"`):
		default:
			t.Fatalf("hook %d: unexpected reply %q", i, outs[i])
		}
	}
	late := int(deadlined.Load())
	if late > 0 {
		t.Logf("%d of %d hooks passed their deadline on this machine and answered deny", late, n)
	}
	if allows != 1 && (late == 0 || allows > 1) {
		t.Errorf("%d allows, want exactly 1 (%d hooks past their deadline)", allows, late)
	}

	fh, err := os.Open(filepath.Join(dir, "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	lines, auditAllows, approvals := 0, 0, 0
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var rec map[string]any
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("line %d is not whole JSON: %v: %q", lines+1, err, sc.Bytes())
		}
		if rec["event"] == "approval.decision" {
			approvals++ // the CLI's approve (its own line), not a hook's
			continue
		}
		lines++
		if rec["decision"] == "allow" {
			auditAllows++
		}
	}
	if approvals != 1 {
		t.Errorf("audit: %d approval.decision lines, want 1 (approvals approve)", approvals)
	}
	none, maybe := int(noLine.Load()), int(maybeLine.Load())
	if lines < n+1-none-maybe || lines > n+1-none || auditAllows != allows {
		t.Errorf("audit: %d lines (want %d to %d: %d hooks and one first call, %d said they left no line, %d passed their deadline after the reply), %d allows (want %d)",
			lines, n+1-none-maybe, n+1-none, n, none, maybe, auditAllows, allows)
	}
	if none+maybe > 0 {
		t.Logf("%d hooks left no audit line and said so, %d passed their deadline after their reply", none, maybe)
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
