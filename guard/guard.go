// Package guard is toolguard's decision for Go programs: load a policy
// (policy files, named layers, the embedded defaults), decide a tool call
// an agent wants to make, and read the verdict and its reason. It is the
// decision the toolguard hook makes, without the hook process around it:
// the same policy loading, shell analysis, protected surfaces, ask
// routing and headless approval requests (internal/guard).
//
// A sandbox runtime written in Go calls it before it runs a tool:
//
//	pol, err := guard.Load(guard.Layers{Files: []string{"/etc/sandbox/policy.toml"}})
//	...
//	v, err := pol.Decide(ctx, guard.Shell("git push --force", "/work/repo"), guard.Options{})
//	if v.Decision != guard.Allow && v.Decision != guard.Pass { ... }
package guard

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	iguard "github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// Decisions, from the least to the most strict.
const (
	Pass  = "pass"  // no rule matched: the agent's own permission flow decides
	Allow = "allow" // allowed without asking
	Ask   = "ask"   // a human must confirm (headless: denied with an approval request)
	Deny  = "deny"  // refused
)

// Layers names the policy to load, in order: files (TOML, or materialized
// JSON), then texts, each a layer over the embedded defaults (unless
// NoBuiltin). Files and texts named here are trusted: they can loosen as
// well as tighten.
type Layers struct {
	Files     []string
	Texts     []Text
	NoBuiltin bool
}

// Text is a policy given as text: Name is its file name in messages (its
// extension says TOML or JSON), Layer the layer name ("" : the file's own
// or its name).
type Text struct {
	Name, Layer, Text string
}

// Policy is a loaded policy. It is safe for concurrent Decide calls.
type Policy struct{ set *workspace.Set }

// Load reads and compiles a policy. Load(Layers{}) is the embedded
// defaults alone.
func Load(l Layers) (*Policy, error) {
	var srcs []policy.Source
	for _, f := range l.Files {
		src, err := workspace.PolicySource(f)
		if err != nil {
			return nil, err
		}
		srcs = append(srcs, src)
	}
	for _, t := range l.Texts {
		srcs = append(srcs, policy.Source{Path: t.Name, Layer: t.Layer, Data: []byte(t.Text)})
	}
	pol, err := policy.Load(srcs, policy.LoadOptions{NoBuiltin: l.NoBuiltin, Home: os.Getenv("HOME")})
	if err != nil {
		return nil, err
	}
	set := &workspace.Set{Pol: pol}
	for _, s := range srcs {
		set.Files = append(set.Files, s.Path)
	}
	return &Policy{set: set}, nil
}

// Hash is the policy's hash, as the audit log records it.
func (p *Policy) Hash() string { return p.set.Pol.Hash() }

// Call is one tool call: the tool's name as an agent sends it (Bash,
// Write, Edit, Read, WebFetch, write_file, mcp__server__tool, …; every
// agent's names are known), its input (the agent's JSON object), and the
// working directory and session it is made in.
type Call struct {
	Tool    string
	Input   json.RawMessage
	Cwd     string
	Session string
}

// Shell is the call of a shell command in dir.
func Shell(command, dir string) Call {
	in, _ := json.Marshal(map[string]string{"command": command}) // a map of strings always marshals
	return Call{Tool: "Bash", Input: in, Cwd: dir}
}

// Options shape one decision.
type Options struct {
	// Headless: no human can answer an ask here, so it becomes a deny with
	// an approval request recorded in StateDir, which a human approves
	// with `toolguard approvals approve`; the identical call is then
	// allowed once. Otherwise an ask is returned as Ask.
	Headless bool
	// StateDir is where approval requests live ("": the user's state
	// directory, $XDG_STATE_HOME/toolguard).
	StateDir string
	// Workspace is the project root ("": the git top level above Cwd).
	Workspace string
}

// Verdict is a decision and why.
type Verdict struct {
	Decision string // Pass, Allow, Ask or Deny
	Reason   string // for the model: the rule's justification, or the approval request to wait for
	Rule     string // the rule that decided, if any
	Approval string // the approval request of a headless ask, if any
}

// Decide decides one call. An error is a call that cannot be read (no
// tool, an input that is not a JSON object); a call the policy cannot
// judge is decided by its on_error setting, as in the hook.
func (p *Policy) Decide(ctx context.Context, c Call, o Options) (Verdict, error) {
	if c.Tool == "" {
		return Verdict{}, errors.New("guard: the call names no tool")
	}
	sys := iguard.System{
		Env:    workspace.Env{Getenv: os.Getenv, Getwd: os.Getwd, Executable: os.Executable},
		Now:    time.Now,
		Stderr: discard{},
	}
	home := sys.Home()
	cwd := c.Cwd
	if cwd == "" {
		cwd = sys.Cwd()
	}
	cl, err := iguard.Classify(c.Tool, c.Input, cwd, home)
	if err != nil {
		return Verdict{}, err
	}
	cl.Provider, cl.SessionID = "library", c.Session
	opts := &iguard.Options{Workspace: o.Workspace, StateDir: o.StateDir, Mode: "interactive"}
	if o.Headless {
		opts.Mode = "headless"
	}
	out := iguard.Decide(ctx, sys, iguard.Request{Options: opts, Set: p.set, Call: cl, Project: sys.Project(&cl)})
	v := Verdict{Decision: out.Verdict.Decision.String(), Reason: out.Verdict.Reason, Approval: out.Approval}
	if out.Res != nil && out.Res.Rule != nil {
		v.Rule = out.Res.Rule.ID
	}
	if out.Verdict.Decision == call.Allow && out.Approval != "" {
		v.Rule = "" // allowed by the approval, not by the rule that asked
	}
	return v, nil
}

// discard is stderr for the approval store's notes to a human at a
// terminal: a library has none.
type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }
