package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/shellparse"
	"github.com/toolguard/toolguard/internal/workspace"
)

// CheckRequest is a call as `toolguard check` and serve's POST /v1/check
// describe it: exactly one of Args (an argv), Command (a shell string),
// Tool and Paths, MCP (server/tool, with Input), URL, or Payload (a whole
// hook payload in Provider's dialect, detected when "").
type CheckRequest struct {
	Args     []string
	Command  string
	Tool     string
	Paths    []string
	MCP      string
	Input    string // the tool input JSON of an MCP call
	URL      string
	Payload  func() ([]byte, error) // nil: no payload
	Provider string
	Cwd      string // the call's working directory (default: the current one)
}

// Check decides one call the way check describes it, without running
// anything and without recording or consuming approvals (a dry run:
// Options.DryRun). It is the one function behind `check` and serve's
// POST /v1/check: the call is synthesized as the hook would decode it and
// decided by Decide, as the hook decides. set is the policy to decide by
// (nil: the policy in effect for the call's project, loaded as the hook
// loads it). An error is a usage (workspace.UsageError) or loading error.
func Check(sys System, f Options, set *workspace.Set, q CheckRequest) (*Report, error) {
	f.DryRun = true
	if f.Mode != "" {
		if _, ok := policy.ParseMode(f.Mode); !ok {
			return nil, workspace.Usagef("unknown --mode %q (want interactive or headless)", f.Mode)
		}
	}
	wd, err := sys.Getwd()
	if err != nil {
		return nil, err
	}
	cwd := wd
	if q.Cwd != "" {
		cwd = workspace.AbsFrom(wd, q.Cwd)
	}
	home := sys.Home()

	var codec protocol.Codec
	var c call.Call
	forms := 0
	for _, set := range []bool{len(q.Args) > 0, q.Command != "", q.Tool != "" || len(q.Paths) > 0, q.MCP != "", q.URL != "", q.Payload != nil} {
		if set {
			forms++
		}
	}
	if forms != 1 {
		return nil, workspace.Usagef("check wants exactly one of: -- COMMAND ARGS..., -c STRING, --tool/--path, --mcp, --url, --payload")
	}
	switch {
	case q.Payload != nil:
		data, err := q.Payload()
		if err != nil {
			return nil, err
		}
		if q.Provider != "" {
			if codec, err = protocol.Lookup(q.Provider); err != nil {
				return nil, workspace.Usagef("%v", err)
			}
		} else {
			codec = protocol.Detect(data)
		}
		c, err = protocol.DecodeWith(codec, data, protocol.DecodeOptions{Home: home})
		if err != nil {
			return ReportOf(sys.Env, Failed(sys.Now(), codec, &workspace.Set{}, call.Deny, fmt.Errorf("cannot read the hook payload: %w", err)), true), nil
		}
	case len(q.Args) > 0 || q.Command != "":
		command := q.Command
		if len(q.Args) > 0 {
			command = shellJoin(q.Args)
		}
		if c, err = Classify("Bash", inputJSON("command", command), cwd, home); err != nil {
			return nil, err
		}
	case q.MCP != "":
		srv, tool, ok := strings.Cut(q.MCP, "/")
		if !ok {
			return nil, workspace.Usagef("--mcp wants server/tool, got %q", q.MCP)
		}
		var in json.RawMessage
		if q.Input != "" {
			if !json.Valid([]byte(q.Input)) {
				return nil, workspace.Usagef("--input is not valid JSON")
			}
			in = json.RawMessage(q.Input)
		}
		if c, err = Classify("mcp__"+srv+"__"+tool, in, cwd, home); err != nil {
			return nil, err
		}
	case q.URL != "":
		if c, err = Classify("WebFetch", inputJSON("url", q.URL), cwd, home); err != nil {
			return nil, err
		}
	default:
		if c, err = ToolCall(q.Tool, q.Paths, cwd, home); err != nil {
			var de *protocol.DecodeError
			if errors.As(err, &de) {
				// A call the hook could not read either (a Write with no
				// path): the hook's answer, on_error.
				return ReportOf(sys.Env, Failed(sys.Now(), codec, &workspace.Set{}, call.Deny, fmt.Errorf("cannot read the hook payload: %w", err)), true), nil
			}
			return nil, err
		}
	}
	if c.Provider == "" {
		c.Provider = "check"
	}
	if c.Cwd == "" {
		c.Cwd = cwd
	}
	project := sys.Project(&c)
	if set == nil {
		f.Lazy = true                                                                  // loaded as the hook loads it (hook.Run): one road from the files to the decision
		if set, err = LoadPolicy(context.Background(), sys, &f, project); err != nil { // as the hook: with the managed bundle
			return nil, err
		}
	}
	out := Decide(context.Background(), sys, Request{Options: &f, Set: set, Codec: codec, Call: c, Project: project})
	return ReportOf(sys.Env, out, q.Payload != nil), nil
}

// kindTools names the tool a --tool kind stands for: Claude Code's.
var kindTools = map[call.Kind]string{call.KindWrite: "Write", call.KindEdit: "Edit", call.KindRead: "Read",
	call.KindSearch: "Grep", call.KindWeb: "WebFetch", call.KindAgent: "Agent", call.KindShell: "Bash"}

// ToolCall builds the call of --tool and --path: a kind (write, edit, …)
// stands for Claude Code's tool of that kind, any other word is a tool
// name of any dialect (Write, write_file, mcp__fs__write_file). Each path
// is put in the field that tool's classification reads
// (protocol.ToolInput) and the call is decoded as the hook decodes a
// payload, so the paths are normalized and the kind decided exactly as in
// the hook. With several --path flags the call names every one of them.
// -c, -- and --url are decoded the same way, as Bash and WebFetch calls.
func ToolCall(tool string, paths []string, cwd, home string) (call.Call, error) {
	if tool == "" {
		tool = "write"
	}
	if k, ok := call.ParseKind(tool); ok {
		switch k {
		case call.KindMCP:
			return call.Call{}, workspace.Usagef("use --mcp SERVER/TOOL [--input JSON] for an MCP call")
		case call.KindShell:
			return call.Call{}, workspace.Usagef("use -c or -- for shell commands")
		}
		if name := kindTools[k]; name != "" {
			tool = name
		}
	}
	if len(paths) == 0 {
		paths = []string{""}
	}
	var c call.Call
	for i, p := range paths {
		in, err := json.Marshal(protocol.ToolInput(tool, p))
		if err != nil {
			return c, err
		}
		one, err := Classify(tool, in, cwd, home)
		if err != nil {
			return c, err
		}
		if i == 0 {
			c = one
			continue
		}
		c.Paths = append(c.Paths, one.Paths...)
		c.Patterns = append(c.Patterns, one.Patterns...)
	}
	if c.Kind == call.KindShell {
		return c, workspace.Usagef("use -c or -- for shell commands")
	}
	return c, nil
}

// inputJSON is the tool input {key: value}.
func inputJSON(key, value string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{key: value}) // a map of strings always marshals
	return b
}

// Classify decodes a Claude Code payload naming tool with input in
// cwd, as the hook would decode it: the tool table of every dialect, the
// paths made absolute (protocol). Its provider is "check".
func Classify(tool string, input json.RawMessage, cwd, home string) (call.Call, error) {
	payload := map[string]any{"tool_name": tool, "cwd": cwd}
	if input != nil {
		payload["tool_input"] = input
	}
	data, err := json.Marshal(payload)
	if err != nil {
		return call.Call{}, err
	}
	codec, err := protocol.Lookup(protocol.NameClaude)
	if err != nil {
		return call.Call{}, err
	}
	c, err := protocol.DecodeWith(codec, data, protocol.DecodeOptions{Home: home})
	var de *protocol.DecodeError
	if errors.As(err, &de) {
		return call.Call{}, err // the hook's on_error (Check)
	} else if err != nil {
		return call.Call{}, workspace.Usagef("%v", err)
	}
	c.Provider = "check"
	return c, nil
}

// shellJoin quotes argv as one shell string.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellparse.Quote(a)
	}
	return strings.Join(q, " ")
}

// Report is the machine-readable answer of check (README, "Trying a policy").
type Report struct {
	Decision  call.Decision           `json:"decision"`
	Reason    string                  `json:"reason,omitempty"`
	Cause     string                  `json:"cause,omitempty"`
	Kind      string                  `json:"kind,omitempty"`
	Tool      string                  `json:"tool,omitempty"`
	Workspace string                  `json:"workspace,omitempty"`
	Mode      string                  `json:"mode"`
	Approval  string                  `json:"approval_id,omitempty"`
	Targets   []policy.Target         `json:"targets"`
	Matches   []policy.Match          `json:"matches"`
	Reply     *ReplyJSON              `json:"reply,omitempty"`
	Error     string                  `json:"error,omitempty"`
	Policy    []policy.Layer          `json:"layers,omitempty"`
	Hash      string                  `json:"policy_hash,omitempty"`
	Ignored   []workspace.IgnoredPart `json:"ignored,omitempty"`        // what an untrusted project policy could not do
	Auto      string                  `json:"auto_read_only,omitempty"` // settings.auto_allow = "read-only": "yes" or "no — why"
}

// ReplyJSON is the agent reply of a whole payload.
type ReplyJSON struct {
	Provider string `json:"provider"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr,omitempty"`
	ExitCode int    `json:"exit_code"`
}

// ReportOf is check's answer for an outcome; reply adds the agent's
// reply bytes (for a whole payload).
func ReportOf(sys workspace.Env, out *Outcome, reply bool) *Report {
	j := &Report{Decision: out.Verdict.Decision, Reason: out.Verdict.Reason, Mode: out.Mode.String(),
		Workspace: out.Workspace, Approval: out.Approval, Targets: []policy.Target{}, Matches: []policy.Match{}}
	if out.Res != nil {
		j.Cause, j.Targets, j.Matches, j.Auto = out.Res.Cause, out.Res.Targets, out.Res.Matches, out.Res.Auto
		j.Kind, j.Tool = out.Call.Kind.String(), out.Call.Tool
	}
	if out.Err != nil {
		j.Error = out.Err.Error()
	}
	if out.Set != nil && out.Set.Pol != nil {
		j.Policy, j.Hash = out.Set.Pol.Layers, out.Set.Pol.Hash()
		j.Ignored = sys.IgnoredParts(out.Set.Pol)
	}
	if reply && out.Codec != nil {
		r := protocol.EncodeFor(out.Codec, out.Call, out.Verdict)
		j.Reply = &ReplyJSON{Provider: out.Codec.Name(), Stdout: string(r.Stdout), Stderr: string(r.Stderr), ExitCode: r.ExitCode}
	}
	return j
}
