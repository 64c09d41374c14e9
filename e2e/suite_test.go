package e2e

// Suite plumbing: the TOOLGUARD_E2E gate, the pinned npm install of the CLIs, the toolguard
// build, the per-case run in the network namespace and the closing tally.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Pinned CLI versions (the ones the reference proved on this machine).
var pinnedPackages = [][2]string{
	{"@anthropic-ai/claude-code", "2.1.197"},
	{"@openai/codex", "0.171.0"},
	{"@google/gemini-cli", "0.61.0"},
	{"@tencent-ai/agent-sdk", "0.3.201"}, // ships CodeBuddy Code 2.117.0 in cli/
	{"zod", "4.6.7"},
	{"@github/copilot", "1.0.102"},
	{"@qwen-code/qwen-code", "0.24.4"},
	{"opencode-ai", "1.18.33"},
}

const gateHelp = "end-to-end suite against the real agent CLIs is off; run it with " +
	"`TOOLGUARD_E2E=1 go test ./e2e/ -v -timeout 30m` (needs root, unshare, node >= 20, git and the npm registry; see e2e/README.md)"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(childMain(spec))
	}
	if len(os.Args) > 2 && os.Args[1] == standinHookArg {
		os.Exit(standinHook(os.Args[2]))
	}
	code := m.Run()
	if os.Getenv("TOOLGUARD_E2E") == "1" {
		printTally()
	}
	os.Exit(code)
}

// ---------------------------------------------------------------- tally

var tally struct {
	sync.Mutex
	passed, failed, skipped int
	lines                   []string
}

func count(t *testing.T, start time.Time) {
	t.Cleanup(func() {
		tally.Lock()
		defer tally.Unlock()
		status := "PASS"
		switch {
		case t.Failed():
			tally.failed++
			status = "FAIL"
		case t.Skipped():
			tally.skipped++
			status = "SKIP"
		default:
			tally.passed++
		}
		tally.lines = append(tally.lines, fmt.Sprintf("%-4s %-40s %6.1fs", status, t.Name(), time.Since(start).Seconds()))
	})
}

func printTally() {
	tally.Lock()
	defer tally.Unlock()
	for _, l := range tally.lines {
		fmt.Println(l)
	}
	s := fmt.Sprintf("%d passed, %d failed", tally.passed, tally.failed)
	if tally.skipped > 0 {
		s += fmt.Sprintf(", %d skipped", tally.skipped)
	}
	fmt.Println(s)
}

// ---------------------------------------------------------------- suite setup

type suite struct {
	nodeDir   string // npm prefix with the pinned CLIs
	path      string // PATH for the CLIs
	runDir    string // this run's work dir
	toolguard string // the binary under test
	standin   bool   // TOOLGUARD_E2E_HOOK=standin: harness self-test with a canned hook
	nohook    bool   // TOOLGUARD_E2E_HOOK=none: negative control, no hook at all (deny cases must fail)
	strace    bool
	timeout   float64
	resolv    string
	testBin   string
	system    *systemSpec // TestSystemMode: every namespace gets these mounts (system_ns_test.go)
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

func setupSuite(t *testing.T) *suite {
	t.Helper()
	if os.Getenv("TOOLGUARD_E2E") != "1" {
		t.Skip(gateHelp)
	}
	mode := os.Getenv("TOOLGUARD_E2E_HOOK")
	s := &suite{standin: mode == "standin", nohook: mode == "none", timeout: 90}
	if mode != "" && !s.standin && !s.nohook {
		t.Fatalf("TOOLGUARD_E2E_HOOK=%q: want standin or none (or unset for the real toolguard)", mode)
	}
	if v, err := strconv.ParseFloat(os.Getenv("TOOLGUARD_E2E_CLI_TIMEOUT"), 64); err == nil && v > 0 {
		s.timeout = v
	}
	// requirements: missing ones fail (the suite was asked for), they do not skip
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (unshare -n -m needs CAP_SYS_ADMIN)")
	}
	for _, bin := range []string{"unshare", "node", "npm", "git", "go"} {
		if _, err := exec.LookPath(bin); err != nil {
			missing = append(missing, bin+" in PATH")
		}
	}
	if len(missing) > 0 {
		t.Fatalf("TOOLGUARD_E2E=1 but the suite cannot run: missing %s", strings.Join(missing, ", "))
	}
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		t.Fatalf("node --version: %v", err)
	}
	if v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v"); major(v) < 20 {
		t.Fatalf("node >= 20 required, found %s", strings.TrimSpace(string(out)))
	}
	if os.Getenv("TOOLGUARD_E2E_STRACE") != "0" {
		_, err := exec.LookPath("strace")
		s.strace = err == nil
	}
	base := filepath.Join(os.TempDir(), "toolguard-e2e")
	s.nodeDir = envOr("TOOLGUARD_E2E_NODE", filepath.Join(base, "node"))
	t0 := time.Now()
	if err := npmInstall(t, s.nodeDir); err != nil {
		t.Fatalf("installing the pinned agent CLIs into %s failed: %v", s.nodeDir, err)
	}
	t.Logf("agent CLIs ready in %s (%.1fs)", s.nodeDir, time.Since(t0).Seconds())
	s.path = filepath.Join(s.nodeDir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")

	runs := envOr("TOOLGUARD_E2E_WORK", filepath.Join(base, "runs"))
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	s.runDir, err = os.MkdirTemp(runs, "run-"+time.Now().Format("20060102-150405")+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("work dir: %s (kept on failure or with TOOLGUARD_E2E_KEEP=1)", s.runDir)
	t.Cleanup(func() {
		if !t.Failed() && os.Getenv("TOOLGUARD_E2E_KEEP") != "1" {
			os.RemoveAll(s.runDir)
		}
	})
	s.resolv = filepath.Join(s.runDir, "resolv.conf")
	if err := os.WriteFile(s.resolv, []byte("nameserver 127.0.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s.testBin, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	if !s.standin && !s.nohook {
		if bin := os.Getenv("TOOLGUARD_E2E_BIN"); bin != "" {
			if s.toolguard, err = filepath.Abs(bin); err != nil {
				t.Fatal(err)
			}
			checkToolguard(t, s.toolguard)
			t.Logf("using prebuilt %s (TOOLGUARD_E2E_BIN)", s.toolguard)
		} else {
			s.toolguard = buildToolguard(t, s.runDir)
		}
	}
	return s
}

func major(v string) int {
	n, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	return n
}

// npmInstall installs the pinned packages into dir unless they are already there at those
// versions. A file lock keeps concurrent test processes from installing twice.
func npmInstall(t *testing.T, dir string) error {
	return npmInstallPkgs(t, dir, pinnedPackages)
}

// npmInstallPkgs installs pkgs ({name, version}) into dir (see npmInstall).
func npmInstallPkgs(t *testing.T, dir string, pkgs [][2]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(filepath.Join(dir, ".toolguard-e2e.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	var args []string
	var stale []string
	for _, p := range pkgs {
		args = append(args, p[0]+"@"+p[1])
		var pj struct{ Version string }
		data, err := os.ReadFile(filepath.Join(dir, "node_modules", p[0], "package.json"))
		if err != nil || json.Unmarshal(data, &pj) != nil || pj.Version != p[1] {
			stale = append(stale, p[0]+"@"+p[1])
		}
	}
	if len(stale) == 0 {
		return nil
	}
	t.Logf("npm install into %s (%s missing or at another version; ~880 MB, about a minute)", dir, strings.Join(stale, " "))
	if _, err := os.Stat(filepath.Join(dir, "package.json")); err != nil {
		if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"toolguard-e2e-clis","private":true}`+"\n"), 0o644); err != nil {
			return err
		}
	}
	cmd := exec.Command("npm", append([]string{"install", "--no-audit", "--no-fund", "--loglevel=error", "--save-exact"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("npm install %s: %v\n%s", strings.Join(args, " "), err, tail(out, 4000))
	}
	return nil
}

// buildToolguard builds ../cmd/toolguard (and toolguard-serve beside it) and checks that it
// has the commands the suite uses.
func buildToolguard(t *testing.T, runDir string) string {
	t.Helper()
	bin := filepath.Join(runDir, "bin", "toolguard")
	t0 := time.Now()
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/toolguard")
	cmd.Dir = ".." // the module root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/toolguard failed: %v\n%s", err, out)
	}
	// toolguard-serve beside it, as every package installs it: `toolguard
	// serve` runs it (cmd/toolguard/serve_exec.go).
	cmd = exec.Command("go", "build", "-o", filepath.Join(runDir, "bin", "toolguard-serve"), "./cmd/toolguard-serve")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/toolguard-serve failed: %v\n%s", err, out)
	}
	checkToolguard(t, bin)
	t.Logf("built %s (%.1fs)", bin, time.Since(t0).Seconds())
	return bin
}

// checkToolguard fails unless the binary has the commands the suite uses.
func checkToolguard(t *testing.T, bin string) {
	t.Helper()
	help, err := exec.Command(bin, "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("%s --help: %v\n%s", bin, err, help)
	}
	for _, sub := range []string{"hook", "install", "approvals"} {
		if !regexp.MustCompile(`(?m)^\s+` + sub + `\b`).Match(help) {
			t.Fatalf("toolguard has no %q command (toolguard --help):\n%s", sub, help)
		}
	}
}

// ---------------------------------------------------------------- one case

// caseEnv is one agent × scenario: a HOME, a git project whose origin is a local bare repo,
// a policy, an audit log and a state dir, all under one work dir.
type caseEnv struct {
	s                *suite
	a                *agent
	W                string
	Home, CodexHome  string
	Proj, Origin     string
	Policy, Audit    string
	StateDir         string
	HookLog          string // stand-in hook payloads
	baseRev          string // origin's main before the run
	codexBypassTrust bool
	events           bool // add the prompt and session events to the installed hook file
	notes            []string
	// pre are steps run in the run's namespace before the CLI (http_hook_test.go: toolguard
	// serve, where the CLI's loopback is); each must succeed.
	pre []childStep
	// hookBin, when set, is the hook binary the installed hook runs (native_test.go: a
	// copy it removes); else the suite's.
	hookBin string
	// noHookExec, when set, says why the CLI must NOT exec the hook binary (an HTTP hook
	// only; the binary removed): a run that did fails, instead of one that did not.
	noHookExec string
}

func (c *caseEnv) note(format string, args ...any) {
	c.notes = append(c.notes, fmt.Sprintf(format, args...))
}

func newCase(t *testing.T, s *suite, a *agent, name string) *caseEnv {
	t.Helper()
	W := filepath.Join(s.runDir, strings.ReplaceAll(name, "/", "-"))
	c := &caseEnv{s: s, a: a, W: W, Home: filepath.Join(W, "home"), CodexHome: filepath.Join(W, "codexhome"),
		Proj: filepath.Join(W, "proj"), Origin: filepath.Join(W, "origin.git"),
		Policy: filepath.Join(W, "policy.toml"), Audit: filepath.Join(W, "audit.jsonl"),
		StateDir: filepath.Join(W, "state"), HookLog: filepath.Join(W, "hook-payloads")}
	for _, d := range []string{c.Home, c.CodexHome, c.HookLog} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	c.makeProject(t)
	return c
}

func (c *caseEnv) gitEnv() []string {
	return append(os.Environ(), "HOME="+c.Home, "GIT_CONFIG_NOSYSTEM=1", "GIT_TERMINAL_PROMPT=0")
}

func (c *caseEnv) git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Env = dir, c.gitEnv()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s (in %s): %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return strings.TrimSpace(string(out))
}

// makeProject: origin.git (bare) with one pushed commit "init"; proj has one more local
// commit "second commit", so an allowed `git push --force origin main` would move origin.
func (c *caseEnv) makeProject(t *testing.T) {
	c.git(t, c.W, "init", "-q", "--bare", c.Origin)
	if err := os.MkdirAll(c.Proj, 0o755); err != nil {
		t.Fatal(err)
	}
	c.git(t, c.Proj, "init", "-q", "-b", "main")
	c.git(t, c.Proj, "config", "user.email", "e2e@toolguard.invalid")
	c.git(t, c.Proj, "config", "user.name", "toolguard e2e")
	writeFile(filepath.Join(c.Proj, "README"), "hi\n")
	c.git(t, c.Proj, "add", "README")
	c.git(t, c.Proj, "commit", "-qm", "init")
	c.git(t, c.Proj, "remote", "add", "origin", c.Origin)
	c.git(t, c.Proj, "push", "-q", "origin", "main")
	writeFile(filepath.Join(c.Proj, "README"), "hi\nmore\n")
	c.git(t, c.Proj, "commit", "-qam", "second commit")
	c.baseRev = c.git(t, c.Origin, "rev-parse", "refs/heads/main")
}

// writePolicy writes the suite's policy. headless switches ask into deny + approval request.
// Unless builtinWorkflowAsk, the builtin ci-workflow-write rule (an ask) is replaced, by
// id, with a deny: an unattended agent has nobody to ask.
func (c *caseEnv) writePolicy(t *testing.T, headless, builtinWorkflowAsk bool) {
	mode := "interactive"
	if headless {
		mode = "headless"
	}
	p := fmt.Sprintf(`version = 1

[settings]
mode = %q
audit_log = %q
state_dir = %q

[[rule]]
id = "e2e-ask-tag"
decision = "ask"
justification = "Tags need a human."
command = ["git tag"]
`, mode, c.Audit, c.StateDir)
	if !builtinWorkflowAsk {
		p += `
[[rule]]
id = "ci-workflow-write"
decision = "deny"
justification = "CI workflows are protected in unattended runs; describe the change instead."
path = [".github/workflows/**"]
op = ["write", "delete"]
`
	}
	if err := os.WriteFile(c.Policy, []byte(p), 0o644); err != nil {
		t.Fatal(err)
	}
}

// toolguardCmd runs the toolguard binary (outside the namespace) and logs the transcript.
func (c *caseEnv) toolguardCmd(args ...string) (string, error) {
	cmd := exec.Command(c.s.toolguard, args...)
	cmd.Dir = c.Proj
	cmd.Env = append(os.Environ(), "HOME="+c.Home, "XDG_CONFIG_HOME="+filepath.Join(c.Home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(c.Home, ".local", "state"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	f, _ := os.OpenFile(filepath.Join(c.W, "toolguard-commands.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if f != nil {
		fmt.Fprintf(f, "$ toolguard %s\n%s(exit: %v)\n\n", strings.Join(args, " "), out.String(), err)
		f.Close()
	}
	return out.String(), err
}

// install puts the hook in place: the real `toolguard install`, or with TOOLGUARD_E2E_HOOK=standin
// a hand-written config that runs the canned stand-in hook.
func (c *caseEnv) install(t *testing.T) {
	t.Helper()
	if err := c.a.prepare(c); err != nil {
		t.Fatalf("prepare %s config: %v", c.a.name, err)
	}
	switch {
	case c.s.nohook:
		c.note("negative control: no hook installed")
		return
	case c.s.standin:
		hookCmd := c.s.testBin + " " + standinHookArg + " " + c.HookLog
		if err := c.a.standinHooks(c, hookCmd); err != nil {
			t.Fatal(err)
		}
	default:
		out, err := c.toolguardCmd("install", "--provider", c.a.provider, "--scope", "project", "--dir", c.Proj, "--policy", c.Policy)
		if err != nil {
			t.Fatalf("toolguard install --provider %s --scope project failed: %v\n%s", c.a.provider, err, out)
		}
		if c.events && !c.a.eventsByInstall {
			c.addEventHooks(t)
		}
	}
	if c.a.name == "codex" {
		c.trustCodexHooks(t)
	}
}

// trustCodexHooks persists trust for the installed hook via `codex app-server` (in the
// namespace); if that fails the runs fall back to --dangerously-bypass-hook-trust.
func (c *caseEnv) trustCodexHooks(t *testing.T) {
	logDir := filepath.Join(c.W, "logs-trust")
	st := childStep{Name: "codex-trust", Kind: "codex-trust", Argv: []string{"codex", "app-server"},
		Env: append(baseEnv(c), "CODEX_HOME="+c.CodexHome), Dir: c.Proj, Timeout: 30, CodexHome: c.CodexHome}
	var res childResult
	var err error
	for attempt := 1; attempt <= 2; attempt++ { // app-server once hung on initialize under heavy load
		res, err = c.s.inNetns(fmt.Sprintf("%s-%d", logDir, attempt), fakeScript{Cwd: c.Proj}, []childStep{st})
		if err == nil && len(res.Steps) == 1 && res.Steps[0].RC == 0 {
			t.Logf("codex hook trust (attempt %d, %.1fs): %s", attempt, res.Steps[0].Elapsed, res.Steps[0].Info)
			return
		}
		t.Logf("codex hook trust attempt %d failed: err=%v steps=%+v", attempt, err, res.Steps)
	}
	msg := fmt.Sprint(err)
	if err == nil && len(res.Steps) == 1 {
		msg = res.Steps[0].Err
	} else if err == nil {
		msg = res.SetupErr
	}
	c.codexBypassTrust = true
	c.note("codex hook trust via app-server failed (%s); running codex with --dangerously-bypass-hook-trust", msg)
	t.Logf("WARNING: codex hook trust via app-server failed (%s); falling back to --dangerously-bypass-hook-trust (transcripts: %s-*)", msg, logDir)
}

// inNetns runs steps in a fresh network+mount namespace with the fake model serving script.
func (s *suite) inNetns(logDir string, script fakeScript, steps []childStep) (childResult, error) {
	var res childResult
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return res, err
	}
	spec := childSpec{LogDir: logDir, Resolv: s.resolv, Script: script, Steps: steps, System: s.system}
	data, _ := json.MarshalIndent(spec, "", " ")
	specPath := filepath.Join(logDir, "spec.json")
	if err := os.WriteFile(specPath, data, 0o644); err != nil {
		return res, err
	}
	out, err := os.Create(filepath.Join(logDir, "child.out"))
	if err != nil {
		return res, err
	}
	defer out.Close()
	total := 30.0
	for _, st := range steps {
		total += st.Timeout + 5
	}
	cmd := exec.Command("unshare", "-n", "-m", "--", s.testBin)
	cmd.Env = append(os.Environ(), childEnv+"="+specPath)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return res, fmt.Errorf("unshare: %w", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(time.Duration(total * float64(time.Second))):
		cmd.Process.Kill()
		<-done
		err = fmt.Errorf("namespace child did not finish within %.0fs", total)
	}
	b, rerr := os.ReadFile(filepath.Join(logDir, "result.json"))
	if rerr == nil {
		json.Unmarshal(b, &res)
	}
	if err != nil {
		co, _ := os.ReadFile(filepath.Join(logDir, "child.out"))
		return res, fmt.Errorf("namespace child: %v: %s", err, tail(co, 2000))
	}
	if res.SetupErr != "" {
		return res, fmt.Errorf("namespace setup: %s", res.SetupErr)
	}
	if rerr != nil {
		return res, fmt.Errorf("namespace child wrote no result: %v", rerr)
	}
	return res, nil
}

// runOut is what one CLI run left behind.
type runOut struct {
	name        string
	logDir      string
	step        stepResult
	stdout      []byte
	stderr      []byte
	toolResults []toolResult
	dnsNames    []string
	badConnects []string
	hookExecs   int // successful execve()s of the hook binary (-1: not traced)
	leftovers   []string
}

// firstResult is the text of the first tool result the CLI sent back ("" if none).
func (r *runOut) firstResult() string {
	if len(r.toolResults) == 0 {
		return ""
	}
	return r.toolResults[0].Text
}

// run runs the CLI once (prompt, optionally resuming a session) with the fake model
// answering with script.
func (c *caseEnv) run(t *testing.T, name string, script fakeScript, prompt, resume string) *runOut {
	t.Helper()
	logDir := filepath.Join(c.W, "logs-"+name)
	argv, env := c.a.command(c, prompt, resume)
	st := childStep{Name: "cli", Kind: "exec", Argv: argv, Env: env, Dir: c.Proj, Timeout: c.s.timeout, Strace: c.s.strace}
	steps := append(append([]childStep{}, c.pre...), st)
	res, err := c.s.inNetns(logDir, script, steps)
	r := &runOut{name: name, logDir: logDir, leftovers: res.Killed}
	if len(res.Steps) == len(steps) {
		r.step = res.Steps[len(steps)-1]
	}
	for i, p := range res.Steps {
		if i < len(c.pre) && (p.RC != 0 || p.Err != "") {
			t.Fatalf("step %q before the CLI failed: rc=%d %s (log dir %s)", p.Name, p.RC, p.Err, logDir)
		}
		if i < len(c.pre) {
			t.Logf("step %q: %s", p.Name, p.Info)
		}
	}
	hookBin := c.s.hookBinary()
	if c.hookBin != "" {
		hookBin = c.hookBin
	}
	r.stdout, _ = os.ReadFile(filepath.Join(logDir, "cli.stdout"))
	r.stderr, _ = os.ReadFile(filepath.Join(logDir, "cli.stderr"))
	r.toolResults = readJSONL[toolResult](filepath.Join(logDir, "toolresults.jsonl"))
	r.dnsNames = dnsNames(filepath.Join(logDir, "dns-queries.log"))
	r.badConnects = nonLoopbackConnects(filepath.Join(logDir, "cli.strace"))
	r.hookExecs = -1
	if c.s.strace {
		r.hookExecs = countExecs(filepath.Join(logDir, "cli.strace"), hookBin)
	}
	t.Logf("%s run %q: rc=%d timed_out=%v %.1fs, %d tool result(s), hook runs %d, log dir %s",
		c.a.name, name, r.step.RC, r.step.TimedOut, r.step.Elapsed, len(r.toolResults), r.hookExecs, logDir)
	t.Cleanup(func() {
		if t.Failed() {
			c.dump(t, r)
		}
	})
	if err != nil {
		t.Fatalf("running %s in the namespace: %v", c.a.name, err)
	}
	if r.step.Err != "" {
		t.Fatalf("could not start %s: %s", c.a.name, r.step.Err)
	}
	if r.step.TimedOut {
		t.Errorf("%s did not finish within %.0fs (killed)", c.a.name, c.s.timeout)
	}
	if len(r.dnsNames) > 0 {
		t.Errorf("%s tried to resolve non-loopback names: %v", c.a.name, r.dnsNames)
	}
	if len(r.badConnects) > 0 {
		t.Errorf("%s tried to connect to non-loopback addresses: %v", c.a.name, r.badConnects)
	}
	switch {
	case c.noHookExec != "" && r.hookExecs > 0:
		t.Errorf("%s ran the hook binary %s %d time(s), but %s", c.a.name, hookBin, r.hookExecs, c.noHookExec)
	case c.noHookExec == "" && r.hookExecs == 0 && !c.s.nohook:
		t.Errorf("%s never ran the hook %s (no execve of it in the strace log)", c.a.name, hookBin)
	}
	return r
}

// hookBinary is the program the installed hook runs.
func (s *suite) hookBinary() string {
	if s.standin || s.nohook {
		return s.testBin
	}
	return s.toolguard
}

// countExecs counts successful execve() calls of bin in an `strace -f` log, including calls
// strace split into "<unfinished ...>" and "<... execve resumed>" lines.
func countExecs(path, bin string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		return -1
	}
	n := 0
	pending := map[string]bool{} // pid -> an execve of bin is unfinished
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		pid, _, _ := strings.Cut(l, " ")
		switch {
		case strings.Contains(l, `execve("`+bin+`"`):
			if strings.HasSuffix(l, "<unfinished ...>") {
				pending[pid] = true
			} else if strings.HasSuffix(l, "= 0") {
				n++
			}
		case pending[pid] && strings.Contains(l, "<... execve resumed>"):
			delete(pending, pid)
			if strings.HasSuffix(l, "= 0") {
				n++
			}
		}
	}
	return n
}

func readJSONL[T any](path string) []T {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var out []T
	for _, l := range bytes.Split(data, []byte("\n")) {
		var v T
		if len(bytes.TrimSpace(l)) > 0 && json.Unmarshal(l, &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// dnsNames returns the names queried, except ones that are loopback anyway.
func dnsNames(path string) []string {
	data, _ := os.ReadFile(path)
	seen := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		n := strings.TrimSuffix(strings.ToLower(f[1]), ".")
		if n == "localhost" || strings.HasSuffix(n, ".localhost") {
			continue
		}
		seen[n] = true
	}
	var names []string
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var (
	reConnect4 = regexp.MustCompile(`sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([^"]+)"\)`)
	reConnect6 = regexp.MustCompile(`sa_family=AF_INET6, sin6_port=htons\((\d+)\),.*?inet_pton\(AF_INET6, "([^"]+)"`)
)

// nonLoopbackConnects lists connect() targets in an strace log that are not loopback.
func nonLoopbackConnects(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		if !strings.Contains(l, "connect(") {
			continue
		}
		for _, re := range []*regexp.Regexp{reConnect4, reConnect6} {
			m := re.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			addr := m[2]
			if strings.HasPrefix(addr, "127.") || addr == "::1" || addr == "::ffff:127.0.0.1" || addr == "0.0.0.0" || addr == "::" {
				continue
			}
			seen[addr+":"+m[1]] = true
		}
	}
	var out []string
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func tail(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return "…" + string(b[len(b)-n:])
}

// ---------------------------------------------------------------- audit log

type auditLine struct {
	Decision string `json:"decision"`
	Rule     string `json:"rule"`
	Provider string `json:"provider"`
	Tool     string `json:"tool"`
	Summary  string `json:"summary"`
	Reason   string `json:"reason"`
	Approval string `json:"approval_id"`
	raw      string
}

func (c *caseEnv) auditLines() []auditLine {
	data, _ := os.ReadFile(c.Audit)
	var out []auditLine
	for _, l := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		var a auditLine
		json.Unmarshal([]byte(l), &a)
		a.raw = l
		out = append(out, a)
	}
	return out
}

// ---------------------------------------------------------------- diagnostics on failure

// dump logs everything needed to diagnose a protocol mistake from the CI log alone.
func (c *caseEnv) dump(t *testing.T, r *runOut) {
	var b strings.Builder
	fmt.Fprintf(&b, "==== diagnostics for %s run %q (work dir %s)\n", c.a.name, r.name, c.W)
	for _, n := range c.notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	fmt.Fprintf(&b, "-- CLI step: rc=%d timed_out=%v elapsed=%.1fs err=%q\n", r.step.RC, r.step.TimedOut, r.step.Elapsed, r.step.Err)
	if len(r.leftovers) > 0 {
		fmt.Fprintf(&b, "-- processes left in the namespace (killed): %v\n", r.leftovers)
	}
	fmt.Fprintf(&b, "-- requests the fake model received:\n%s", summarizeRequests(filepath.Join(r.logDir, "requests.jsonl")))
	fmt.Fprintf(&b, "-- tool results the CLI sent back (%d):\n", len(r.toolResults))
	for _, tr := range r.toolResults {
		fmt.Fprintf(&b, "  [req %d %s] %s\n", tr.Seq, tr.Flavour, truncate(tr.Text, 1500))
	}
	fmt.Fprintf(&b, "-- audit log %s:\n", c.Audit)
	for _, a := range c.auditLines() {
		fmt.Fprintf(&b, "  %s\n", truncate(a.raw, 1500))
	}
	if cmds, err := os.ReadFile(filepath.Join(c.W, "toolguard-commands.log")); err == nil {
		fmt.Fprintf(&b, "-- toolguard commands:\n%s\n", tail(cmds, 3000))
	}
	for _, f := range c.a.hookFiles(c) {
		if data, err := os.ReadFile(f); err == nil {
			fmt.Fprintf(&b, "-- %s:\n%s\n", f, tail(data, 2500))
		}
	}
	if ents, _ := os.ReadDir(c.HookLog); len(ents) > 0 {
		fmt.Fprintf(&b, "-- hook payloads (stand-in hook):\n")
		for _, e := range ents {
			data, _ := os.ReadFile(filepath.Join(c.HookLog, e.Name()))
			fmt.Fprintf(&b, "  %s: %s\n", e.Name(), truncate(string(data), 1500))
		}
	}
	fmt.Fprintf(&b, "-- CLI stdout (tail):\n%s\n", tail(r.stdout, 3000))
	fmt.Fprintf(&b, "-- CLI stderr (tail):\n%s\n", tail(r.stderr, 3000))
	dns, _ := os.ReadFile(filepath.Join(r.logDir, "dns-queries.log"))
	fmt.Fprintf(&b, "-- DNS queries:\n%s\n", tail(dns, 1500))
	if r.badConnects != nil {
		fmt.Fprintf(&b, "-- non-loopback connect() calls: %v\n", r.badConnects)
	}
	if co, err := os.ReadFile(filepath.Join(r.logDir, "child.out")); err == nil && len(co) > 0 {
		fmt.Fprintf(&b, "-- namespace child output:\n%s\n", tail(co, 1500))
	}
	t.Log(b.String())
}

// summarizeRequests renders requests.jsonl: one line per request, and for the agentic ones
// the tail of the conversation (trimmed).
func summarizeRequests(path string) string {
	type req struct {
		Seq    int             `json:"seq"`
		Method string          `json:"method"`
		Path   string          `json:"path"`
		Body   json.RawMessage `json:"body"`
	}
	var b strings.Builder
	for _, r := range readJSONL[req](path) {
		var body map[string]any
		json.Unmarshal(r.Body, &body)
		fmt.Fprintf(&b, "  %d %s %s model=%v tools=%d\n", r.Seq, r.Method, r.Path, body["model"], len(asList(body["tools"])))
		for _, k := range []string{"messages", "input", "contents"} {
			l := asList(body[k])
			if len(l) == 0 {
				continue
			}
			from := max(0, len(l)-2)
			tailJSON, _ := json.Marshal(l[from:])
			fmt.Fprintf(&b, "     %s[%d:] = %s\n", k, from, truncate(string(tailJSON), 1500))
		}
	}
	if b.Len() == 0 {
		return "  (none)\n"
	}
	return b.String()
}
