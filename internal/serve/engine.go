package serve

import (
	"context"
	"errors"

	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// Engine is the decision the server serves: toolguard's own (internal/guard),
// with the policy loaded once at start and the options of serve's command
// line. Its methods are the Config callbacks a served policy answers with.
type Engine struct {
	Sys     guard.System
	Options guard.Options
	Set     *workspace.Set
	// ReadAudit reads the audit chain when it is not the log file (serve
	// --database); nil reads the file.
	ReadAudit func() ([]audit.Record, error)
}

// Check answers POST /v1/check with guard.Check, the function behind
// check --json: the served policy, or the request's own policy text.
func (e *Engine) Check(_ context.Context, req CheckRequest) (*guard.Report, error) {
	forms := 0
	for _, set := range []bool{req.Command != "", req.Argv != nil, req.Tool != "" || req.Path != "" || len(req.Paths) > 0,
		req.MCP != "", req.URL != "", len(req.Payload) > 0} {
		if set {
			forms++
		}
	}
	if forms != 1 {
		return nil, Errorf(http.StatusBadRequest, "want exactly one of \"command\", \"argv\", \"tool\"/\"path\", \"mcp\", \"url\" or \"payload\"")
	}
	if req.Argv != nil && len(req.Argv) == 0 {
		return nil, Errorf(http.StatusBadRequest, "\"argv\" is empty")
	}
	q := guard.CheckRequest{Args: req.Argv, Command: req.Command, Tool: req.Tool, MCP: req.MCP, URL: req.URL, Provider: req.Provider}
	q.Paths = append([]string(nil), req.Paths...)
	if req.Path != "" {
		q.Paths = append(q.Paths, req.Path)
	}
	if len(req.Input) > 0 {
		if req.MCP == "" {
			return nil, Errorf(http.StatusBadRequest, "\"input\" goes with \"mcp\"")
		}
		q.Input = string(req.Input)
	}
	if len(req.Payload) > 0 {
		data := append([]byte(nil), req.Payload...)
		q.Payload = func() ([]byte, error) { return data, nil }
	} else if req.Provider != "" {
		return nil, Errorf(http.StatusBadRequest, "\"provider\" goes with \"payload\"")
	}
	for _, d := range []struct{ name, v string }{{"cwd", req.Cwd}, {"workspace", req.Workspace}} {
		if d.v != "" && !filepath.IsAbs(d.v) {
			return nil, Errorf(http.StatusBadRequest, "%q must be an absolute path, got %q", d.name, d.v)
		}
	}
	o := e.Options
	q.Cwd = req.Cwd
	if req.Workspace != "" {
		o.Workspace = req.Workspace
	}
	if req.Mode != "" {
		o.Mode = req.Mode
	}
	set := e.Set
	if req.Policy != "" {
		pol, err := policy.Load([]policy.Source{policyText(req.Policy, "")}, policy.LoadOptions{Home: e.Sys.Home()})
		if err != nil {
			return nil, Errorf(http.StatusUnprocessableEntity, "the request's policy does not load: %v", err)
		}
		set = &workspace.Set{Pol: pol}
	}
	if q.Cwd == "" {
		q.Cwd = e.Sys.Cwd()
	}
	j, err := guard.Check(e.Sys, o, set, q)
	if err != nil {
		var ue *workspace.UsageError
		if errors.As(err, &ue) {
			return nil, Errorf(http.StatusBadRequest, "%s", ue.Msg)
		}
		return nil, err
	}
	return j, nil
}

// policyText is a policy's text as a source: JSON when it starts with "{".
func policyText(text, name string) policy.Source {
	json := strings.HasPrefix(strings.TrimSpace(text), "{")
	if name == "" {
		name = "policy.toml"
		if json {
			name = "policy.json"
		}
	}
	return policy.Source{Path: name, Data: []byte(text)}
}

// Validate answers POST /v1/validate: every problem of a policy's text.
func (e *Engine) Validate(req ValidateRequest) ([]Problem, error) {
	if strings.ContainsAny(req.Name, "/\\") {
		return nil, Errorf(http.StatusBadRequest, "\"name\" is a file name, not a path")
	}
	pol, err := policy.Load([]policy.Source{policyText(req.Policy, req.Name)}, policy.LoadOptions{NoBuiltin: req.NoBuiltin, Home: e.Sys.Home()})
	var out []Problem
	var perr *policy.Error
	if errors.As(err, &perr) {
		for _, p := range perr.Problems {
			out = append(out, ProblemOf(p))
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, p := range pol.Check() {
		out = append(out, ProblemOf(p))
	}
	return out, nil
}

// AuditSummary is `toolguard audit --json` since a time (zero: all).
func (e *Engine) AuditSummary(since time.Time) (*audit.Summary, error) {
	path := e.Sys.AuditPath(e.Options.AuditLog, e.Options.StateDir, e.Set.Pol)
	if path == "" {
		return nil, Errorf(http.StatusNotFound, "auditing is off (settings.audit = \"off\")")
	}
	if e.ReadAudit != nil { // serve --database: the database's chain
		recs, err := e.ReadAudit()
		if err != nil {
			return nil, err
		}
		sum := audit.Aggregate(recs, since)
		return &sum, nil
	}
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		sum := audit.Aggregate(nil, since)
		return &sum, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	recs, _ := audit.Read(fh)
	sum := audit.Aggregate(recs, since)
	return &sum, nil
}

// Audit records a decision in the audit log as an approval.decision
// event, the line the CLI's approve and reject write too.
func (e *Engine) Audit(ev DecisionEvent) error {
	path := e.Sys.AuditPath(e.Options.AuditLog, e.Options.StateDir, e.Set.Pol)
	if path == "" {
		return nil
	}
	return e.Sys.Append(context.Background(), path, guard.DecisionRecord(e.Sys.Now(), ev.Request, ev.Action, ev.Approver, ev.Via, "serve", e.Set.Pol.Hash()))
}

// Describe is Config.Describe: what the human sees of a call a hook
// records through POST /v1/approvals (guard.Describe).
func (e *Engine) Describe(ctx context.Context, c call.Call) (approval.Request, error) {
	return guard.Describe(ctx, e.Sys, &e.Options, e.Set, c)
}
