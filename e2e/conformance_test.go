package e2e

// The conformance probes (issue 22 item 5, issue 17 item 4, issue 21): what each real CLI does
// with a hook that fails, with a fail-closed switch, and with Claude Code's "defer". Each probe
// installs a small shell hook (not toolguard) by the agent's standinHooks, runs the CLI once
// against the fake model, whose one tool call is `touch conformance-ran`, and reads whether
// the file exists: the tool ran, or it was blocked. The hook touches its own marker first, so
// a probe whose hook never ran is an error, not a measurement.
//
// Each measured value is compared with the table in code (internal/protocol/conformance.go):
// a CLI that disagrees fails the probe, naming the cell to change. At the end the measured
// table is rendered (conformance_doc_test.go) and compared with docs/agents.md between the
// conformance markers; -update-conformance rewrites it. The probes iterate over the suite's
// agent list (agents_test.go), so an agent added there is probed and gets its row.

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/protocol"
)

var updateConformance = flag.Bool("update-conformance", false, "rewrite the measured conformance table in docs/agents.md")

// probeTool is the one tool call of every failure probe.
const probeTool = "touch conformance-ran"

// failProbe is one way for a hook to fail.
type failProbe struct {
	name string
	body string // shell after the hook has read stdin and touched its marker
	// cell is the table's fact for it
	cell func(r *protocol.Conformance) protocol.Fact
	// timeout: the entry gets a 2 s timeout and the hook sleeps 8 s past it, then leaves
	// <script>.done: a CLI that stops the hook at its timeout leaves none
	timeout bool
	// failClosed: the entry also gets the agent's fail-closed key (failClosedKeys)
	failClosed bool
}

var failProbes = []failProbe{
	{name: "exit-1", body: "echo 'toolguard probe: failing on purpose' >&2\nexit 1", cell: func(r *protocol.Conformance) protocol.Fact { return r.Exit1 }},
	{name: "crash", body: "kill -SEGV $$\nsleep 5", cell: func(r *protocol.Conformance) protocol.Fact { return r.Crash }},
	{name: "exit-2-garbage", body: "echo 'toolguard probe: not json {{{'\nexit 2", cell: func(r *protocol.Conformance) protocol.Fact { return r.Exit2Garbage }},
	{name: "garbage-exit-0", body: "echo '{\"hookSpecificOutput\": not json'\nexit 0", cell: func(r *protocol.Conformance) protocol.Fact { return r.Garbage0 }},
	// the sleep runs in the background with its own stdio, so that a CLI that kills the hook
	// at its timeout is not kept waiting by an orphan holding the hook's stdout (Gemini waits
	// for the pipe to close)
	{name: "timeout", body: "sleep 8 </dev/null >/dev/null 2>&1 &\nwait $!\necho done >> \"$0.done\"", timeout: true, cell: func(r *protocol.Conformance) protocol.Fact { return r.Timeout }},
	{name: "fail-closed", body: "exit 1", failClosed: true, cell: func(r *protocol.Conformance) protocol.Fact { return r.FailClosed }},
}

// failClosedKeys is, per agent (suite name), the key and value that switch its hook entry
// to fail closed, where its documentation names one. Agents without one skip that probe.
var failClosedKeys = map[string][2]string{
	"claude": {"onFailure", "block"}, // documented from 2.1.295
}

// timeoutUnits is the unit of an agent's hook timeout field per second (Gemini: ms).
var timeoutUnits = map[string]int{"gemini": 1000, "qwen": 1000}

// timeoutKeys names an agent's hook timeout field where it is not "timeout".
var timeoutKeys = map[string]string{"copilot": "timeoutSec"}

// measured collects what the probes saw: agent → cell → value. Rendered at the end.
var measured = struct {
	sync.Mutex
	cells    map[string]map[string]string
	versions map[string]string
	notes    map[string][]string
}{cells: map[string]map[string]string{}, versions: map[string]string{}, notes: map[string][]string{}}

func record(agent, cell, value string) {
	measured.Lock()
	defer measured.Unlock()
	if measured.cells[agent] == nil {
		measured.cells[agent] = map[string]string{}
	}
	measured.cells[agent][cell] = value
}

func TestConformance(t *testing.T) {
	start := time.Now()
	if os.Getenv("TOOLGUARD_E2E") != "1" {
		t.Skip(gateHelp)
	}
	s := setupSuite(t)
	t.Logf("setup done in %.1fs", time.Since(start).Seconds())
	only := os.Getenv("TOOLGUARD_E2E_AGENTS")
	var ran []*agent
	t.Run("agents", func(t *testing.T) {
		for _, a := range agents {
			if only != "" && !contains(strings.Split(only, ","), a.name) {
				continue
			}
			ran = append(ran, a)
			a := a
			t.Run(a.name, func(t *testing.T) {
				t.Parallel() // each run has its own namespace; the agents are independent
				measureVersion(t, s, a)
				for _, p := range failProbes {
					t.Run(p.name, func(t *testing.T) {
						count(t, time.Now())
						runFailProbe(t, s, a, p)
					})
				}
				for _, p := range rewriteProbes {
					t.Run(p.name, func(t *testing.T) {
						count(t, time.Now())
						runRewriteProbe(t, s, a, p)
					})
				}
				if alt := altCLI(a.name); alt != "" {
					// another build of the CLI (TOOLGUARD_E2E_ALT_CLI): the failure probes
					// again, reported, not compared with the table
					for _, p := range failProbes {
						t.Run(p.name+"@alt", func(t *testing.T) {
							count(t, time.Now())
							runAltProbe(t, s, a, p, alt)
						})
					}
					t.Run("toolguard@alt", func(t *testing.T) {
						count(t, time.Now())
						runAltToolguard(t, s, a, alt)
					})
				}
				if a.name == "claude" {
					for _, p := range deferProbes {
						t.Run(p.name, func(t *testing.T) {
							count(t, time.Now())
							p.run(t, s, a)
						})
					}
				}
			})
		}
	})
	checkConformanceDoc(t, ran, only == "" && !t.Failed() && fullRun(ran))
}

// fullRun: every probed agent has a measurement of every failure probe that is not skipped
// by design (a run filtered with -run has not).
func fullRun(ran []*agent) bool {
	measured.Lock()
	defer measured.Unlock()
	for _, a := range ran {
		if a.standinHooks == nil {
			continue // not probed: the probes install their hook with standinHooks
		}
		for _, p := range failProbes {
			if _, ok := measured.cells[a.name][p.name]; !ok && !(p.failClosed && failClosedKeys[a.name] == [2]string{}) {
				return false
			}
		}
	}
	return len(ran) == len(agents)
}

// measureVersion runs the agent's CLI with --version (outside the namespace: it makes no
// connection) and records the first x.y.z it prints.
func measureVersion(t *testing.T, s *suite, a *agent) {
	c := &caseEnv{s: s, a: a, Home: t.TempDir(), CodexHome: t.TempDir(), Proj: t.TempDir()}
	argv, env := a.command(c, "x", "")
	prog := argv[:1]
	if filepath.Base(argv[0]) == "node" && len(argv) > 1 {
		prog = argv[:2]
	}
	cmd := exec.Command(lookPathIn(env, prog[0]), append(append([]string{}, prog[1:]...), "--version")...)
	cmd.Env = env
	done := make(chan struct{})
	var out []byte
	go func() { out, _ = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	v := regexp.MustCompile(`\d+\.\d+\.\d+`).FindString(string(out))
	if v == "" {
		t.Errorf("%s --version printed no version: %q", strings.Join(prog, " "), truncate(string(out), 300))
		return
	}
	measured.Lock()
	measured.versions[a.name] = v
	measured.Unlock()
	t.Logf("%s version %s", a.name, v)
	if row, ok := protocol.ConformanceFor(a.provider); ok && len(row.Measured) > 0 && !contains(row.Measured, v) {
		t.Errorf("%s %s is not a version the table in internal/protocol/conformance.go was measured on (%v): "+
			"check the probes' results below and add it to Measured (doctor warns about versions not listed)", a.name, v, row.Measured)
	}
}

// probeHook writes the hook script of a probe and returns the command that runs it.
func probeHook(c *caseEnv, name, body string) (cmd, mark string) {
	mark = filepath.Join(c.W, "hook-ran-"+name)
	script := filepath.Join(c.W, "hook-"+name+".sh")
	os.WriteFile(script, []byte("#!/bin/sh\ncat >/dev/null\necho run >> "+mark+"\n"+body+"\n"), 0o755)
	return "/bin/sh " + script, mark
}

func timeoutKey(agent string) string {
	if k, ok := timeoutKeys[agent]; ok {
		return k
	}
	return "timeout"
}

// patchPlugin applies a probe's settings to toolguard's opencode plugin: "timeout" (in
// seconds) becomes its TIMEOUT_MS; it has no fail-closed switch (it is one).
func patchPlugin(t *testing.T, file string, set map[string]any) {
	if len(set) == 0 {
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	src := string(data)
	for k, v := range set {
		if k != "timeout" {
			t.Fatalf("%s: the plugin has no setting %q", file, k)
		}
		old := "const TIMEOUT_MS = 30000;"
		if !strings.Contains(src, old) {
			t.Fatalf("%s: no %q to change", file, old)
		}
		src = strings.Replace(src, old, fmt.Sprintf("const TIMEOUT_MS = %d;", v.(int)*1000), 1)
	}
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
}

// patchHandlers sets key = value on every handler of the hook file that runs cmd.
func patchHandlers(t *testing.T, file, cmd string, set map[string]any) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("reading %s: %v", file, err)
	}
	var cfg any
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	n := 0
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			// Copilot's stand-in wraps the command in its "bash" field (agent_copilot_test.go)
			if asString(x["command"]) == cmd || strings.Contains(asString(x["bash"]), cmd) {
				for k, v := range set {
					x[k] = v
				}
				n++
				return
			}
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(cfg)
	if n == 0 {
		t.Fatalf("no handler running %q in %s", cmd, file)
	}
	out, _ := json.MarshalIndent(cfg, "", "  ")
	if err := os.WriteFile(file, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookFile is the file standinHooks wrote (the first of hookFiles that exists).
func (c *caseEnv) hookFile(t *testing.T) string {
	for _, f := range c.a.hookFiles(c) {
		if _, err := os.Stat(f); err == nil {
			return f
		}
	}
	t.Fatalf("%s: no hook file among %v", c.a.name, c.a.hookFiles(c))
	return ""
}

// installProbeHook prepares the case and installs cmd as the agent's only hook.
func (c *caseEnv) installProbeHook(t *testing.T, cmd string, set map[string]any) {
	if err := c.a.prepare(c); err != nil {
		t.Fatalf("prepare %s config: %v", c.a.name, err)
	}
	if c.a.standinHooks == nil {
		t.Skipf("%s has no standinHooks: the probes cannot install their hook", c.a.name)
	}
	if err := c.a.standinHooks(c, cmd); err != nil {
		t.Fatal(err)
	}
	if file := c.hookFile(t); strings.HasSuffix(file, ".js") {
		// a plugin (opencode): toolguard's own, whose timeout is a constant
		patchPlugin(t, file, set)
	} else if len(set) > 0 {
		patchHandlers(t, file, cmd, set)
	}
	if c.a.name == "codex" {
		c.trustCodexHooks(t)
	}
}

// probeRun runs the CLI once like c.run, without the checks that assume toolguard is the
// hook (its execve in the strace log).
func (c *caseEnv) probeRun(t *testing.T, name string, script fakeScript, prompt, resume string, edit func([]string) []string) *runOut {
	t.Helper()
	logDir := filepath.Join(c.W, "logs-"+name)
	argv, env := c.a.command(c, prompt, resume)
	if edit != nil {
		argv = edit(argv)
	}
	st := childStep{Name: "cli", Kind: "exec", Argv: argv, Env: env, Dir: c.Proj, Timeout: c.s.timeout}
	res, err := c.s.inNetns(logDir, script, []childStep{st})
	r := &runOut{name: name, logDir: logDir, leftovers: res.Killed, hookExecs: -1}
	if len(res.Steps) > 0 {
		r.step = res.Steps[0]
	}
	r.stdout, _ = os.ReadFile(filepath.Join(logDir, "cli.stdout"))
	r.stderr, _ = os.ReadFile(filepath.Join(logDir, "cli.stderr"))
	r.toolResults = readJSONL[toolResult](filepath.Join(logDir, "toolresults.jsonl"))
	t.Logf("%s run %q: rc=%d timed_out=%v %.1fs, %d tool result(s), log dir %s",
		c.a.name, name, r.step.RC, r.step.TimedOut, r.step.Elapsed, len(r.toolResults), logDir)
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
	return r
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// compare fails when the table in code has a measured fact for this cell that the CLI
// contradicts; it records the value either way.
func compare(t *testing.T, a *agent, cell string, fact protocol.Fact, got string) {
	record(a.name, cell, got)
	row, ok := protocol.ConformanceFor(a.provider)
	switch {
	case !ok:
		t.Logf("%s: %s = %s (the table in code has no row for %s)", a.name, cell, got, a.provider)
	case !fact.Measured():
		t.Logf("%s: %s = %s measured; the table says %q (%s): mark it measured in internal/protocol/conformance.go", a.name, cell, got, fact.Value, fact.Source)
	case fact.Value != got:
		t.Errorf("%s: %s = %s, but internal/protocol/conformance.go (%s, measured on %v by %s) says %s: the CLI changed; update the table, docs/agents.md (-update-conformance) and what depends on it",
			a.name, cell, got, row.Label, row.Measured, fact.Source, fact.Value)
	default:
		t.Logf("%s: %s = %s, as the table says", a.name, cell, got)
	}
}

// probeSettings are the hook-entry settings probe p needs for agent a: the
// fail-closed switch (skipped where a documents none), a 2 s timeout in the
// agent's unit and key.
func probeSettings(t *testing.T, a *agent, p failProbe) map[string]any {
	set := map[string]any{}
	if p.failClosed {
		kv, ok := failClosedKeys[a.name]
		if !ok {
			t.Skipf("%s documents no fail-closed switch", a.name)
		}
		set[kv[0]] = kv[1]
	}
	if p.timeout {
		unit := timeoutUnits[a.name]
		if unit == 0 {
			unit = 1
		}
		set[timeoutKey(a.name)] = 2 * unit
	}
	return set
}

func runFailProbe(t *testing.T, s *suite, a *agent, p failProbe) {
	set := probeSettings(t, a, p)
	c := newCase(t, s, a, a.name+"/conformance-"+p.name)
	cmd, mark := probeHook(c, p.name, p.body)
	c.installProbeHook(t, cmd, set)
	r := c.probeRun(t, "1", fakeScript{Shell: probeTool, Cwd: c.Proj}, "do it", "", nil)
	row, ok := protocol.ConformanceFor(a.provider)
	var fact protocol.Fact
	if ok {
		fact = p.cell(row)
	}
	if !exists(mark) {
		if p.failClosed { // the key made the CLI drop the entry (or the whole file)
			compare(t, a, p.name, fact, "disables the hook")
			return
		}
		t.Fatalf("the probe's hook never ran (no %s): nothing measured", mark)
	}
	got := protocol.OutcomeBlocked
	if exists(filepath.Join(c.Proj, "conformance-ran")) {
		got = protocol.OutcomeRuns
	}
	if p.timeout && exists(filepath.Join(c.W, "hook-"+p.name+".sh.done")) {
		// the hook slept its 8 s to the end: the entry's 2 s timeout did not stop it
		t.Logf("%s (%.1fs): the 2 s timeout set in the hook entry did not stop the hook (it slept 8 s to the end)", a.name, r.step.Elapsed)
		got += ", when the hook ends: a 2 s timeout did not stop it"
	}
	if p.failClosed {
		got = map[string]string{protocol.OutcomeBlocked: "works", protocol.OutcomeRuns: "ignored"}[got]
	}
	compare(t, a, p.name, fact, got)
}

// altCLI is the path TOOLGUARD_E2E_ALT_CLI ("claude=/path/to/claude,codex=…") gives for
// agent: another version of its CLI to probe besides the pinned one.
func altCLI(agent string) string {
	for _, kv := range strings.Split(os.Getenv("TOOLGUARD_E2E_ALT_CLI"), ",") {
		if k, v, ok := strings.Cut(kv, "="); ok && k == agent {
			return v
		}
	}
	return ""
}

// runAltProbe runs failure probe p with the CLI binary alt instead of the pinned one and
// logs what it measured (the table in code is about the pinned versions).
func runAltProbe(t *testing.T, s *suite, a *agent, p failProbe, alt string) {
	out, _ := exec.Command(alt, "--version").CombinedOutput()
	version := regexp.MustCompile(`\d+\.\d+\.\d+`).FindString(string(out))
	set := probeSettings(t, a, p)
	c := newCase(t, s, a, a.name+"/conformance-alt-"+p.name)
	cmd, mark := probeHook(c, p.name, p.body)
	c.installProbeHook(t, cmd, set)
	c.probeRun(t, "1", fakeScript{Shell: probeTool, Cwd: c.Proj}, "do it", "", func(argv []string) []string {
		out := append([]string{}, argv...)
		out[0] = alt
		return out
	})
	got := protocol.OutcomeBlocked
	switch {
	case !exists(mark):
		got = "the hook did not run"
	case exists(filepath.Join(c.Proj, "conformance-ran")):
		got = protocol.OutcomeRuns
	}
	t.Logf("%s %s (%s): %s = %s", a.name, version, alt, p.name, got)
	record(a.name+"@"+version, p.name, got)
}

// runAltToolguard: toolguard as `toolguard install` writes it (with the agent's fail-closed
// switch where the table says so) works with the other build too: a harmless command passes
// and runs, a force-push is denied with toolguard's reason.
func runAltToolguard(t *testing.T, s *suite, a *agent, alt string) {
	if s.standin || s.nohook {
		t.Skip("needs toolguard")
	}
	swap := func(argv []string) []string {
		out := append([]string{}, argv...)
		out[0] = alt
		return out
	}
	for _, tc := range []struct {
		shell string
		check func(t *testing.T, c *caseEnv, r *runOut)
	}{{gitLog, checkGitLogRan}, {pushForce, checkPushDenied}} {
		c := newCase(t, s, a, a.name+"/conformance-alt-toolguard-"+strings.Fields(tc.shell)[1])
		c.writePolicy(t, false, false)
		c.install(t)
		r := c.probeRun(t, strings.Fields(tc.shell)[1], fakeScript{Shell: tc.shell, Cwd: c.Proj}, "do it", "", swap)
		tc.check(t, c, r)
	}
}
