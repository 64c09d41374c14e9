package policy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// settings.auto_allow values.
const (
	AutoAllowOff      = "off"
	AutoAllowReadOnly = "read-only"
)

// AutoReadOnly is the id an auto-allowed call carries in its reason and
// in the audit (Result.Cause): no rule allowed it; the read-only proof
// did (docs/auto-allow.md).
const AutoReadOnly = "auto-read-only"

// autoAllow turns a pass into an allow when the call is proven read-only
// (settings.auto_allow = "read-only"). It is only called for a pass: any
// rule that asked or denied already decided, and a rule's allow stays the
// rule's. res.Auto says why or why not, for toolguard check.
func (p *Policy) autoAllow(res *Result, c *call.Call, env Env, ev *evalEnv) {
	why := p.autoWhyNot(res, c, env, ev)
	if why != "" {
		res.Auto = "no — " + why
		return
	}
	res.Auto = "yes"
	res.Decision, res.Cause, res.Rule = call.Allow, AutoReadOnly, nil
	res.Reason = "toolguard: allowed by " + AutoReadOnly + ": every command only reads (settings.auto_allow = \"read-only\")"
}

// autoWhyNot is "" when the call is proven read-only, else the first
// reason it is not.
func (p *Policy) autoWhyNot(res *Result, c *call.Call, env Env, ev *evalEnv) string {
	if res.Cause != "" {
		return "decided by " + res.Cause
	}
	var reads []string
	switch c.Kind {
	case call.KindShell:
		ro := shellparse.ProveReadOnly(c.Command, shellparse.Options{Cwd: c.Cwd, Home: env.Home})
		if !ro.OK {
			return ro.Why
		}
		reads = ro.Reads
	case call.KindRead, call.KindSearch:
		// The agent's own read tools: inside the workspace, no rule.
		if c.Command != "" {
			return "the call also runs a command"
		}
	default:
		return "a " + c.Kind.String() + " call is not a read"
	}
	for _, t := range res.Targets {
		switch {
		case t.Kind == "path" && t.Op != call.OpRead.String():
			return fmt.Sprintf("it %ss %s", t.Op, t.Path)
		case t.Kind == "path":
			reads = append(reads, t.Path)
		case t.Kind == "call" && c.Kind == call.KindShell:
			return "a call-level target"
		}
	}
	if c.Kind != call.KindShell && len(reads) == 0 {
		return "the call names no path"
	}
	scratch := &Result{Targets: []Target{}, Matches: []Match{}}
	for _, r := range reads {
		paths := []string{r}
		if env.Glob != nil && hasGlobMeta(r) {
			m, complete := env.Glob(r)
			if !complete {
				return "the glob " + r + " names too much to check"
			}
			paths = append(paths, m...)
		} else if hasGlobMeta(r) {
			return "the glob " + r + " cannot be expanded here"
		}
		for _, pth := range paths {
			if why := p.autoRead(scratch, c, pth, ev); why != "" {
				return why
			}
		}
	}
	return ""
}

// autoRead checks one path an auto-allowed call reads: inside the
// workspace (every form: symlinks resolved) or under a system location
// of shellparse.ReadOnlySystemPaths, and no rule asks or denies reading
// it (the secrets rules).
func (p *Policy) autoRead(scratch *Result, c *call.Call, pth string, ev *evalEnv) string {
	if strings.ContainsAny(pth, "$`") {
		return "the path " + pth + " may be expanded by the tool or shell"
	}
	if !filepath.IsAbs(pth) {
		return "the working directory is not known (" + pth + ")"
	}
	for _, f := range ev.pathForms(pth) {
		if !p.autoReadable(f, ev) {
			return pth + " is outside the workspace"
		}
	}
	scratch.Targets = scratch.Targets[:0]
	p.pathTarget(scratch, c, pth, call.OpRead, false, ev)
	for _, t := range scratch.Targets {
		if t.Decision > call.Allow {
			return fmt.Sprintf("rule %s decides %s for reading %s", t.Rule, t.Decision, pth)
		}
	}
	return ""
}

func (p *Policy) autoReadable(f string, ev *evalEnv) bool {
	if ev.workspace != "" && !ev.exposed {
		if _, in := relInside(ev.workspace, f); in {
			return true
		}
	}
	for _, s := range shellparse.ReadOnlySystemPaths {
		if f == s || strings.HasPrefix(f, s+"/") {
			return true
		}
	}
	return false
}
