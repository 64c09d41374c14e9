// Package doctor proves which agents on a machine are guarded by
// toolguard: it reads each agent's settings (install.Inspect), runs every
// toolguard hook line as the agent would with a deny and a pass probe,
// loads the policy in effect and the --policy files of each hook line, and
// reads Claude Code's own rules and HTTP hooks. It returns a Report; the
// doctor command (cmd/toolguard/doctor.go) prints it. doctor --system's
// checks as the agent's user are System (system.go).
package doctor

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/remote"
	"github.com/toolguard/toolguard/internal/workspace"
)

type Report struct {
	Agents    []Agent       `json:"agents"`
	Policy    *PolicyReport `json:"policy"`
	Unguarded []string      `json:"unguarded"`
	// ClaudeNative is what doctor read of Claude Code's own permission rules
	// and HTTP hooks (install.ClaudeNative); HTTP says, per HTTP hook,
	// whether its server answered.
	ClaudeNative *install.NativeReport `json:"claude_native,omitempty"`
	HTTP         []HTTPCheck           `json:"http_hooks,omitempty"`
	// RequireEnforcement: the policy's settings.require_enforcement is on.
	RequireEnforcement bool `json:"require_enforcement,omitempty"`
}

// Agent is what Inspect read plus what running the hooks showed.
type Agent struct {
	install.AgentStatus
	Checks []HookCheck `json:"checks,omitempty"`
	Proved bool        `json:"proved"` // some pre-tool hook denied the deny probe and passed the pass probe
	// AgentVersion is what the agent's CLI answered to --version, when it
	// is on PATH (install.AgentVersion); Warnings say when the conformance
	// table (docs/agents.md) does not cover it. They do not make the agent
	// unguarded.
	AgentVersion string   `json:"agent_version,omitempty"`
	Warnings     []string `json:"warnings,omitempty"`
	// Behaviour is what this agent does with each of toolguard's answers,
	// from the conformance table the e2e suite measures
	// (protocol.Conformance.Behaviours), printed for an installed CLI;
	// MeasuredOn lists the versions the measured rows were measured on.
	Behaviour  []protocol.Behaviour `json:"behaviour,omitempty"`
	MeasuredOn []string             `json:"measured_on,omitempty"`
	Problems   []string             `json:"problems"` // why the agent is not guarded, or warnings
}

// HookCheck is one hook command line, run.
type HookCheck struct {
	Command  string                `json:"command"`
	Files    []string              `json:"files"`
	Program  string                `json:"program"`            // the word before "hook"
	Resolved string                `json:"resolved,omitempty"` // where PATH leads, for a program that is not an absolute path
	Version  string                `json:"version,omitempty"`  // what `PROGRAM version` answered
	Policies []HookPolicy          `json:"policies,omitempty"` // the --policy files on the line
	Probes   []install.ProbeResult `json:"probes,omitempty"`
	Problems []string              `json:"problems"`
}

type HookPolicy struct {
	File  string `json:"file"`
	Loads bool   `json:"loads"`
	Hash  string `json:"hash,omitempty"`
	Rules int    `json:"rules,omitempty"`
	Error string `json:"error,omitempty"`
}

type PolicyReport struct {
	Layers []policy.Layer `json:"layers"`
	Hash   string         `json:"hash"`
	Bundle string         `json:"bundle,omitempty"` // the managed policy bundle in effect (docs/bundles.md)
	Rules  int            `json:"rules"`
	Error  string         `json:"error,omitempty"`
	// Ignored: what an untrusted project policy could not do (trust_ignored.go).
	Ignored []workspace.IgnoredPart `json:"ignored,omitempty"`
	// Nested: .toolguard/policy.toml files below the workspace root, which
	// are never read (docs/trust.md).
	Nested []string `json:"nested,omitempty"`
	// GuardGaps are the locked default rules (self-protection) the policy
	// does not enforce: docs/surfaces.md.
	GuardGaps []policy.GuardGap `json:"guard_gaps,omitempty"`
}

// IsGuarded: the agent runs a toolguard hook that proved itself (or, with
// --no-probe, is configured), nothing switches hooks off, and Codex does
// not lack a trust record.
func (a Agent) IsGuarded() bool {
	if !a.Detected || !a.Enforceable || a.Disabled || a.CodexTrust == "untrusted" && len(a.Hooks) > 0 {
		return false
	}
	if a.Checks == nil {
		return a.Guarded
	}
	return a.Proved
}

// Options are what doctor judges: the process's environment (Sys), the
// policy selection of the command line, the project directory, and
// whether to run the hooks.
type Options struct {
	Sys       guard.System
	Selection workspace.Selection
	Project   string // absolute
	Agent     string // judge only this agent ("" every one)
	NoProbe   bool   // read the settings only; run no hook
}

// Run builds doctor's report: the policy in effect (as the hook loads it,
// with the managed bundle: docs/bundles.md), Claude Code's own rules and
// HTTP hooks, and each agent judged. An agent is unguarded when it is
// judged (Options.Agent, or detected and enforceable) and not Guarded.
func Run(ctx context.Context, o *Options) *Report {
	rep := &Report{Policy: &PolicyReport{}, Unguarded: []string{}}
	var loaded *policy.Policy
	if ps, err := guard.LoadPolicy(ctx, o.Sys, &guard.Options{Selection: o.Selection}, o.Project); err != nil {
		rep.Policy.Error = err.Error()
	} else {
		loaded = ps.Pol
		rep.Policy.Bundle = ps.Bundle
		rep.Policy.Layers = ps.Pol.Layers
		rep.Policy.Hash, rep.Policy.Rules = ps.Pol.Hash(), ps.Pol.RuleCount()
		rep.Policy.Ignored = o.Sys.IgnoredParts(ps.Pol)
		rep.Policy.GuardGaps = ps.Pol.GuardGaps()
		rep.RequireEnforcement = ps.Pol.Settings.RequireEnforcement
	}
	rep.Policy.Nested = nestedPolicies(o.Project)
	home := o.Sys.Home()
	if o.Agent == "" || o.Agent == "claude-code" {
		nr := install.ClaudeNative(home, o.Project, loaded, policy.Env{Home: home, Workspace: o.Project})
		if len(nr.Missing)+len(nr.Conflicts)+len(nr.HTTP)+len(nr.Notes) > 0 {
			rep.ClaudeNative = &nr
		}
		for _, h := range nr.HTTP {
			c := HTTPCheck{HTTPHook: h, Reach: "not asked (--no-probe)"}
			if !o.NoProbe {
				c.Reach = reachHTTP(h.URL)
			}
			rep.HTTP = append(rep.HTTP, c)
		}
	}
	checked := map[string]*HookCheck{}
	for _, st := range install.Inspect(home, o.Project) {
		if o.Agent != "" && st.Agent != o.Agent {
			continue
		}
		rep.Agents = append(rep.Agents, judgeAgent(o, st, o.Project, checked))
	}
	for _, a := range rep.Agents {
		judged := o.Agent != "" || (a.Detected && a.Enforceable)
		if judged && !a.IsGuarded() {
			rep.Unguarded = append(rep.Unguarded, a.Agent)
		}
	}
	return rep
}

func judgeAgent(o *Options, st install.AgentStatus, project string, checked map[string]*HookCheck) Agent {
	a := Agent{AgentStatus: st, Problems: []string{}}
	switch {
	case !st.Detected:
		a.Problems = append(a.Problems, "not detected: no settings of this agent were found")
		return a
	case !st.Enforceable:
		return a
	case st.Disabled:
		a.Problems = append(a.Problems, "hooks are switched off by a settings file (see the note)")
	case len(st.Hooks) == 0:
		a.Problems = append(a.Problems, "no pre-tool hook runs toolguard")
	}
	if st.Agent == "codex" && st.CodexTrust == "untrusted" && len(st.Hooks) > 0 {
		a.Problems = append(a.Problems, "Codex has no trust record for its hooks: it skips them until trusted in /hooks")
	}
	if o.NoProbe {
		return a
	}
	if v, warn, found := install.AgentVersion(context.Background(), st.Agent); found {
		a.AgentVersion = v
		if row, ok := protocol.ConformanceFor(st.Agent); ok {
			a.Behaviour, a.MeasuredOn = row.Behaviours(), row.Measured
		}
		if warn != "" {
			a.Warnings = append(a.Warnings, warn)
		}
	}
	byCmd := map[string]int{}
	for _, h := range st.Hooks {
		if i, ok := byCmd[h.Command]; ok {
			if !slices.Contains(a.Checks[i].Files, h.File) {
				a.Checks[i].Files = append(a.Checks[i].Files, h.File)
			}
			continue
		}
		key := st.Agent + "\x00" + h.Command
		c, ok := checked[key]
		if !ok {
			c = checkHook(o, st.Agent, h.Command, project)
			checked[key] = c
		}
		cc := *c
		cc.Files = []string{h.File}
		byCmd[h.Command] = len(a.Checks)
		a.Checks = append(a.Checks, cc)
		if len(cc.Problems) == 0 {
			a.Proved = true
		}
	}
	if len(st.Hooks) > 0 && !a.Proved {
		a.Problems = append(a.Problems, "no hook command proved itself (deny probe denied, pass probe passed)")
	}
	return a
}

// checkHook runs one hook command line the way agent does and reports.
func checkHook(o *Options, agent, line, project string) *HookCheck {
	c := &HookCheck{Command: line, Problems: []string{}}
	words := hookWords(line)
	c.Program = words.program
	if c.Program != "" {
		prog := c.Program
		if w := install.PathLookup(line); w != "" || !filepath.IsAbs(prog) {
			if p, err := exec.LookPath(prog); err == nil {
				c.Resolved = p
				prog = p
			}
			c.Problems = append(c.Problems, fmt.Sprintf("the program %q is found through PATH when the hook runs (now: %s): a toolguard earlier on the agent's PATH takes over the hook", c.Program, orNone(c.Resolved)))
		}
		if v, err := install.AskVersion(prog); err != nil {
			c.Problems = append(c.Problems, "the hook's binary is not toolguard: "+err.Error())
		} else {
			c.Version = v
		}
	}
	cwd, _ := o.Sys.Getwd()
	for _, f := range words.policies {
		hp := HookPolicy{File: f}
		sel := workspace.Selection{Files: []string{workspace.ArgPath(f, cwd, o.Sys.Home())}, NoBuiltin: words.noBuiltin}
		if ps, err := o.Sys.Load(sel, project); err != nil {
			hp.Error = err.Error()
			c.Problems = append(c.Problems, fmt.Sprintf("policy %s on the hook line does not load (every call is denied): %v", f, err))
		} else {
			hp.Loads, hp.Hash, hp.Rules = true, ps.Pol.Hash(), ps.Pol.RuleCount()
		}
		c.Policies = append(c.Policies, hp)
	}
	c.Probes = install.Probe(context.Background(), agent, line, project, os.Environ())
	for _, p := range c.Probes {
		if !p.OK() {
			msg := fmt.Sprintf("%s probe (%s): got %s, exit %d", p.Want, p.Call, p.Got, p.Exit)
			if p.Problem != "" {
				msg += ": " + p.Problem
			}
			if p.Stderr != "" {
				msg += " (stderr: " + install.TruncateLine(p.Stderr, 160) + ")"
			}
			c.Problems = append(c.Problems, msg)
		}
	}
	return c
}

func orNone(s string) string {
	if s == "" {
		return "not found"
	}
	return s
}

type hookLine struct {
	program   string
	policies  []string
	noBuiltin bool
}

// hookWords finds the program before "hook" and the --policy files after
// it in a hook command line.
func hookWords(line string) hookLine {
	var h hookLine
	words := install.SplitWords(line)
	for i := 0; i+1 < len(words); i++ {
		if words[i+1] != "hook" {
			continue
		}
		h.program = words[i]
		rest := words[i+2:]
		for j := 0; j < len(rest); j++ {
			switch w := rest[j]; {
			case w == "--policy" && j+1 < len(rest):
				h.policies = append(h.policies, rest[j+1])
				j++
			case strings.HasPrefix(w, "--policy="):
				h.policies = append(h.policies, strings.TrimPrefix(w, "--policy="))
			case w == "--no-builtin":
				h.noBuiltin = true
			}
		}
		break
	}
	return h
}

// nestedMax bounds the directories nestedPolicies looks at.
const nestedMax = 20000

// nestedPolicies lists the .toolguard/policy.toml files below the
// workspace root (not the root's own), which discovery never reads, for
// doctor. It looks at most at nestedMax directories and skips .git and
// node_modules.
func nestedPolicies(root string) []string {
	if root == "" {
		return nil
	}
	var out []string
	seen := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if seen++; seen > nestedMax {
			return filepath.SkipAll
		}
		switch d.Name() {
		case ".git", "node_modules":
			return filepath.SkipDir
		case ".toolguard":
			if filepath.Dir(p) != root {
				if _, err := os.Lstat(filepath.Join(p, "policy.toml")); err == nil {
					out = append(out, filepath.Join(p, "policy.toml"))
				}
			}
			return filepath.SkipDir
		}
		return nil
	})
	return out
}

// HTTPCheck is one Claude Code HTTP hook and whether its server answered.
type HTTPCheck struct {
	install.HTTPHook
	Reach string `json:"reach"` // "answered GET /healthz", "not asked (--no-probe)", or the error
}

// reachHTTP asks the server of an HTTP hook's URL for GET /healthz (the
// serve health check) over plain HTTP/1.1, with a short timeout; it sends
// no token. The hook binary links no TLS (TestHookBinaryDeps): for https
// only the TCP connection is tried.
func reachHTTP(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return fmt.Sprintf("not an http(s) URL: %q", raw)
	}
	addr := u.Host
	if u.Port() == "" {
		port := "80"
		if u.Scheme == "https" {
			port = "443"
		}
		addr = net.JoinHostPort(u.Hostname(), port)
	}
	const limit = 3 * time.Second
	conn, err := net.DialTimeout("tcp", addr, limit)
	if err != nil {
		return fmt.Sprintf("unreachable: %v", err)
	}
	defer conn.Close()
	if u.Scheme == "https" {
		return "TCP connection accepted (https: GET /healthz not tried, the toolguard binary has no TLS)"
	}
	conn.SetDeadline(time.Now().Add(limit))
	if _, err := fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", u.Host); err != nil {
		return fmt.Sprintf("unreachable: %v", err)
	}
	status, _, err := remote.ReadResponse(bufio.NewReader(conn))
	switch {
	case err != nil:
		return fmt.Sprintf("no HTTP answer to GET /healthz: %v", err)
	case status != 200:
		return fmt.Sprintf("GET /healthz answered status %d", status)
	}
	return "answered GET /healthz"
}
