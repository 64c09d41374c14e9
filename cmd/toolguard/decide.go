package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
)

// decideFlags are the flags that shape a decision, shared by hook and check.
type decideFlags struct {
	policyFlags
	mode      string // --mode interactive|headless
	workspace string // --workspace DIR
	stateDir  string // --state-dir DIR
	auditLog  string // --audit-log FILE
	grantsDir string // --grants-dir DIR: signed grant files handed in (approvals.go)
	// dryRun (check, serve) says what headless mode would do with an ask
	// without touching the approval store: no request recorded, no grant used.
	dryRun bool
}

func (f *decideFlags) registerDecide(cmdFlags interface {
	StringVar(p *string, name, value, usage string)
}) {
	cmdFlags.StringVar(&f.mode, "mode", "", "interactive or headless (overrides the policy's mode)")
	cmdFlags.StringVar(&f.workspace, "workspace", "", "workspace root (default: the agent's project dir, else the git top level, else cwd)")
	cmdFlags.StringVar(&f.stateDir, "state-dir", "", "directory for pending approvals (default: settings.state_dir, else $XDG_STATE_HOME/toolguard)")
	cmdFlags.StringVar(&f.auditLog, "audit-log", "", "audit log file (default: settings.audit_log, else <state dir>/audit.jsonl)")
	cmdFlags.StringVar(&f.grantsDir, "grants-dir", "", "directory of signed grant files (approvals approve --grants-dir), may be read-only")
}

// outcome is one decided call, with everything the audit log records.
type outcome struct {
	call      call.Call
	codec     protocol.Codec
	res       *policy.Result
	verdict   call.Verdict
	ps        *policySet
	workspace string
	mode      policy.Mode
	approval  string // approval request id, if any
	held      bool   // the call waits for a human on its own pending request (headlessAskWithin)
	err       error  // why toolguard could not decide normally (on_error)
	started   time.Time
	env       policy.Env // what the call was evaluated with (pre-validation reads by it)
}

// decideCall evaluates a decoded call against the policy in effect and
// applies the mode: in headless mode (or for an agent without ask) an ask
// becomes a deny with a pending approval. project is callProject(c). ctx
// is the hook's deadline (cancelled when the watchdog has answered): past
// it nothing may be consumed.
func decideCall(ctx context.Context, sys *system, f *decideFlags, ps *policySet, codec protocol.Codec, c call.Call, project string) *outcome {
	o := &outcome{call: c, codec: codec, ps: ps, started: sys.now()}
	pol := ps.pol
	o.workspace = workspaceRoot(sys, f.workspace, pol.Settings.Workspace, &c, project)
	o.mode = pol.Settings.Mode
	if f.mode != "" {
		o.mode, _ = policy.ParseMode(f.mode) // validated by the command
	}
	env := policy.Env{
		Home:      sys.home(),
		Workspace: o.workspace,
		Resolve:   resolveExisting,
		Glob:      expandGlob,
		FoldCase:  foldCase(ps.pol),
		TempDir:   sys.getenv("TMPDIR"),
	}
	env.SelfNames = selfNames(sys)
	// Derived the first time a path is tested against them: an MCP call
	// or git status reads none of the files it takes (surfaces.go).
	env.Protected = sync.OnceValue(func() []policy.Surface { return surfaces(sys, f, ps, o.workspace, project) })
	o.env = env // without ReadScript: what pre-validation and the script reader evaluate reads with
	env.ReadScript = scriptReader(pol, &c, o.env)
	o.res = pol.Evaluate(c, env)
	o.verdict = call.Verdict{Decision: o.res.Decision, Reason: o.res.Reason}
	if o.verdict.Decision == call.Ask && askRoute(o) != protocol.AskNative { // headless.go
		if f.dryRun {
			o.verdict = call.Verdict{Decision: call.Deny, Reason: o.verdict.Reason +
				" No human can answer here: the hook stops this call and records an approval request (check records none)."}
			return o
		}
		if err := ctx.Err(); err != nil {
			// The watchdog has answered (deny): consume no approval use.
			o.verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: %v", context.Cause(ctx))}
			return o
		}
		if pol.Settings.ApprovalURL != "" {
			remoteAsk(ctx, sys, o) // the approval server is the store (headless_remote.go)
		} else {
			headlessAskWithin(ctx, sys, f, o)
		}
		deferIfChosen(o)
	}
	if !f.dryRun { // check and serve's /v1/check neither read nor spend a session's hold
		holdSession(ctx, sys, f, o) // approvals: a pending request or a stop holds the session (headless_hold.go)
	}
	return o
}

// foldCase says whether protected paths match case-insensitively: on
// the case-insensitive file systems macOS and Windows use by default, and
// where settings.case_insensitive_paths says so.
func foldCase(pol *policy.Policy) bool {
	return runtime.GOOS == "darwin" || runtime.GOOS == "windows" || (pol != nil && pol.Settings.CaseInsensitivePaths)
}

// failed builds the outcome for a call toolguard could not decide: the
// on_error decision with the cause in the reason.
func failed(sys *system, codec protocol.Codec, ps *policySet, onError call.Decision, err error) *outcome {
	o := &outcome{codec: codec, ps: ps, err: err, started: sys.now()}
	o.verdict = call.Verdict{Decision: onError}
	if onError > call.Allow {
		o.verdict.Reason = fmt.Sprintf("toolguard: %v (on_error = %s)", err, onError)
	}
	return o
}

// workspaceRoot picks the workspace of a call: the flag, the setting, the
// agent's project directory (payload, then environment), the git top
// level above cwd, else cwd. project is callProject(c), which holds that
// last step already when the payload names no project directory.
func workspaceRoot(sys *system, flag, setting string, c *call.Call, project string) string {
	home := sys.home()
	for _, w := range []string{flag, setting, c.ProjectDir} {
		if w != "" {
			return filepath.Clean(argPath(w, c.Cwd, home))
		}
	}
	for _, name := range []string{"CLAUDE_PROJECT_DIR", "CODEBUDDY_PROJECT_DIR", "GEMINI_PROJECT_DIR", "DEVIN_PROJECT_DIR"} {
		if w := sys.getenv(name); w != "" && filepath.IsAbs(w) {
			return filepath.Clean(w)
		}
	}
	if c.Cwd == "" {
		return ""
	}
	return filepath.Clean(project)
}

// gitTop returns the nearest directory at or above dir that holds .git.
func gitTop(dir string) string {
	dir = filepath.Clean(dir)
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// an absolute path and keeps the rest as written.
func resolveExisting(p string) string {
	dir, rest := p, ""
	for i := 0; i < 256; i++ {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			if rest == "" {
				return r
			}
			return filepath.Join(r, rest)
		}
		if t, err := os.Readlink(dir); err == nil && !pseudoFS(dir) {
			// A link whose target is not there (yet): a write through it
			// creates the target (ln -s .claude/settings.local.json n.json).
			if !filepath.IsAbs(t) {
				t = filepath.Join(filepath.Dir(dir), t)
			}
			dir = filepath.Clean(t)
			continue
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return p
		}
		if rest == "" {
			rest = filepath.Base(dir)
		} else {
			rest = filepath.Join(filepath.Base(dir), rest)
		}
		dir = parent
	}
	return p
}

// pseudoFS reports a path of /dev or /proc, whose links (/dev/stderr →
// /proc/self/fd/2 → pipe:[…]) name no file a write would create.
func pseudoFS(p string) bool {
	return len(p) >= 5 && p[:5] == "/dev/" || len(p) >= 6 && p[:6] == "/proc/"
}
