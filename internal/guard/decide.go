package guard

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/workspace"
)

// System is what a decision takes from the process: where things are
// (workspace.Env), the clock, and where the approval store's notes to the
// human go (stderr).
type System struct {
	workspace.Env
	Now    func() time.Time
	Stderr io.Writer
	// Approvals, when set, is the approval store every decision uses
	// instead of the state directory's (serve --database: PostgreSQL,
	// one store for every replica).
	Approvals *approval.Store
	// AppendAudit, when set, appends audit lines instead of the log file
	// (serve --database: the database's chain).
	AppendAudit func(ctx context.Context, path string, rec audit.Record) error
}

// Append appends rec to the audit log at path, or where AppendAudit says.
func (s System) Append(ctx context.Context, path string, rec audit.Record) error {
	if s.AppendAudit != nil {
		return s.AppendAudit(ctx, path, rec)
	}
	return audit.AppendContext(ctx, path, rec)
}

// Options shape a decision: the policy selection and the flags hook,
// check and serve share.
type Options struct {
	workspace.Selection
	Mode      string // interactive|headless (overrides the policy's mode)
	Workspace string // the workspace root (default: the agent's project dir, else the git top level, else cwd)
	StateDir  string // pending approvals (default: settings.state_dir, else the user's state dir)
	AuditLog  string // the audit log (default: settings.audit_log, else <state dir>/audit.jsonl)
	GrantsDir string // signed grant files handed in (approvals approve --grants-dir), may be read-only
	// DryRun (check, serve) says what headless mode would do with an ask
	// without touching the approval store: no request recorded, no grant used.
	DryRun bool
}

// Request is one call to decide: the call decoded in its agent's dialect
// (Codec), the policy in effect (Set) and the project whose policy it is
// (workspace.Env.Project of the call).
type Request struct {
	Options *Options
	Set     *workspace.Set
	Codec   protocol.Codec
	Call    call.Call
	Project string
}

// Outcome is one decided call, with everything the audit log records.
type Outcome struct {
	Node      string // the fleet node whose token made the call (serve's HTTP hook); "" in the process hook
	Call      call.Call
	Codec     protocol.Codec
	Res       *policy.Result
	Verdict   call.Verdict
	Set       *workspace.Set
	Workspace string
	Mode      policy.Mode
	Approval  string // approval request id, if any
	Held      bool   // the call waits for a human on its own pending request (headlessAskWithin)
	Err       error  // why toolguard could not decide normally (on_error)
	Started   time.Time
	Env       policy.Env // what the call was evaluated with (pre-validation reads by it)

	routed bool // askRoute is computed, once (route)
	askTo  protocol.AskRoute
}

// route is AskRoute(o), computed once per call: the decision, the
// deferral of a held call and the session hold all ask it.
func (o *Outcome) route() protocol.AskRoute {
	if !o.routed {
		o.askTo, o.routed = AskRoute(o), true
	}
	return o.askTo
}

// Decide evaluates a decoded call against the policy in effect and
// applies the mode: in headless mode (or for an agent without ask) an ask
// becomes a deny with a pending approval. ctx is the hook's deadline
// (cancelled when the watchdog has answered): past it nothing may be
// consumed.
func Decide(ctx context.Context, sys System, r Request) *Outcome {
	f, ps, c, project := r.Options, r.Set, r.Call, r.Project
	o := &Outcome{Call: c, Codec: r.Codec, Set: ps, Started: sys.Now()}
	pol := ps.Pol
	o.Workspace = sys.Root(f.Workspace, pol.Settings.Workspace, &c, project)
	o.Mode = pol.Settings.Mode
	if f.Mode != "" {
		o.Mode, _ = policy.ParseMode(f.Mode) // validated by the command
	}
	env := policy.Env{
		Home:      sys.Home(),
		Workspace: o.Workspace,
		Resolve:   ResolveExisting,
		Glob:      ExpandGlob,
		FoldCase:  FoldCase(ps.Pol),
		TempDir:   sys.Var("TMPDIR"),
	}
	env.SelfNames = SelfNames(sys.Env)
	// Derived the first time a path is tested against them: an MCP call
	// or git status reads none of the files it takes (surfaces.go).
	env.Protected = sync.OnceValue(func() []policy.Surface { return Surfaces(sys.Env, f, ps, o.Workspace, project) })
	o.Env = env // without ReadScript: what pre-validation and the script reader evaluate reads with
	env.ReadScript = scriptReader(pol, &c, o.Env)
	o.Res = pol.Evaluate(c, env)
	o.Verdict = call.Verdict{Decision: o.Res.Decision, Reason: o.Res.Reason}
	if o.Verdict.Decision == call.Ask && o.route() != protocol.AskNative { // headless.go

		if f.DryRun {
			o.Verdict = call.Verdict{Decision: call.Deny, Reason: o.Verdict.Reason +
				" No human can answer here: the hook stops this call and records an approval request (check records none)."}
			return o
		}
		if err := ctx.Err(); err != nil {
			// The watchdog has answered (deny): consume no approval use.
			o.Verdict = call.Verdict{Decision: call.Deny, Reason: fmt.Sprintf("toolguard: %v", context.Cause(ctx))}
			return o
		}
		if pol.Settings.ApprovalURL != "" {
			remoteAsk(ctx, sys, o) // the approval server is the store (remote.go)
		} else {
			headlessAskWithin(ctx, sys, f, o)
		}
		deferIfChosen(o)
	}
	if !f.DryRun { // check and serve's /v1/check neither read nor spend a session's hold
		holdSession(ctx, sys, f, o) // approvals: a pending request or a stop holds the session (hold.go)
	}
	return o
}

// FoldCase says whether protected paths match case-insensitively: on
// the case-insensitive file systems macOS and Windows use by default, and
// where settings.case_insensitive_paths says so.
func FoldCase(pol *policy.Policy) bool {
	return runtime.GOOS == "darwin" || runtime.GOOS == "windows" || (pol != nil && pol.Settings.CaseInsensitivePaths)
}

// Failed builds the outcome for a call toolguard could not decide: the
// on_error decision with the cause in the reason.
func Failed(now time.Time, codec protocol.Codec, ps *workspace.Set, onError call.Decision, err error) *Outcome {
	o := &Outcome{Codec: codec, Set: ps, Err: err, Started: now}
	o.Verdict = call.Verdict{Decision: onError}
	if onError > call.Allow {
		o.Verdict.Reason = fmt.Sprintf("toolguard: %v (on_error = %s)", err, onError)
	}
	return o
}

// ResolveExisting resolves the symlinks of the longest existing prefix of
// an absolute path and keeps the rest as written.
func ResolveExisting(p string) string {
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

// SummaryMax bounds the command or path summary kept in an audit line and
// an approval request.
const SummaryMax = 2048
