package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// checkResult decides one call the way check describes it, without
// running anything and without recording or consuming approvals (a dry
// run: decideFlags.dryRun). It is the one function behind `check --json`
// and serve's POST /v1/check. An error is a usage or loading error.
func checkResult(sys *system, o *checkOptions, args []string) (*checkJSON, error) {
	o.dryRun = true
	if o.mode != "" {
		if _, ok := policy.ParseMode(o.mode); !ok {
			return nil, usagef("unknown --mode %q (want interactive or headless)", o.mode)
		}
	}
	wd, err := sys.getwd()
	if err != nil {
		return nil, err
	}
	cwd := wd
	if o.cwd != "" {
		cwd = absFrom(wd, o.cwd)
	}

	var codec protocol.Codec
	var c call.Call
	forms := 0
	for _, set := range []bool{len(args) > 0, o.command != "", o.tool != "" || len(o.paths) > 0, o.mcp != "", o.url != "", o.payload != "" || o.payloadData != nil} {
		if set {
			forms++
		}
	}
	if forms != 1 {
		return nil, usagef("check wants exactly one of: -- COMMAND ARGS..., -c STRING, --tool/--path, --mcp, --url, --payload")
	}
	switch {
	case o.payload != "" || o.payloadData != nil:
		data := o.payloadData
		if data == nil {
			var err error
			if data, err = readFileOrStdin(sys, o.payload); err != nil {
				return nil, err
			}
		}
		if o.provider != "" {
			if codec, err = protocol.Lookup(o.provider); err != nil {
				return nil, usagef("%v", err)
			}
		} else {
			codec = protocol.Detect(data)
		}
		c, err = protocol.DecodeWith(codec, data, protocol.DecodeOptions{Home: sys.home()})
		if err != nil {
			return checkJSONOf(sys, failed(sys, codec, &policySet{}, call.Deny, fmt.Errorf("cannot read the hook payload: %w", err)), true), nil
		}
	case len(args) > 0 || o.command != "":
		command := o.command
		if len(args) > 0 {
			command = shellJoin(args)
		}
		var err error
		if c, err = classifyTool("Bash", inputJSON("command", command), cwd, sys.home()); err != nil {
			return nil, err
		}
	case o.mcp != "":
		srv, tool, ok := strings.Cut(o.mcp, "/")
		if !ok {
			return nil, usagef("--mcp wants server/tool, got %q", o.mcp)
		}
		var in json.RawMessage
		if o.input != "" {
			if !json.Valid([]byte(o.input)) {
				return nil, usagef("--input is not valid JSON")
			}
			in = json.RawMessage(o.input)
		}
		var err error
		if c, err = classifyTool("mcp__"+srv+"__"+tool, in, cwd, sys.home()); err != nil {
			return nil, err
		}
	case o.url != "":
		var err error
		if c, err = classifyTool("WebFetch", inputJSON("url", o.url), cwd, sys.home()); err != nil {
			return nil, err
		}
	default:
		var err error
		if c, err = toolCall(o.tool, o.paths, cwd, sys.home()); err != nil {
			return nil, err
		}
	}
	if c.Provider == "" {
		c.Provider = "check"
	}
	if c.Cwd == "" {
		c.Cwd = cwd
	}
	project := callProject(sys, &c)
	ps := o.policySet
	if ps == nil {
		var err error
		if ps, err = o.load(sys, project); err != nil {
			return nil, err
		}
	}
	out := decideCall(context.Background(), sys, &o.decideFlags, ps, codec, c, project)
	return checkJSONOf(sys, out, o.payload != "" || o.payloadData != nil), nil
}

// kindTools names the tool a --tool kind stands for: Claude Code's.
var kindTools = map[call.Kind]string{call.KindWrite: "Write", call.KindEdit: "Edit", call.KindRead: "Read",
	call.KindSearch: "Grep", call.KindWeb: "WebFetch", call.KindAgent: "Agent", call.KindShell: "Bash"}

// toolCall builds the call of --tool and --path: a kind (write, edit, …)
// stands for Claude Code's tool of that kind, any other word is a tool
// name of any dialect (Write, write_file, mcp__fs__write_file). Each path
// is put in the field that tool's classification reads
// (protocol.ToolInput) and the call is decoded as the hook decodes a
// payload, so the paths are normalized and the kind decided exactly as in
// the hook. With several --path flags the call names every one of them.
// -c, -- and --url are decoded the same way, as Bash and WebFetch calls.
func toolCall(tool string, paths []string, cwd, home string) (call.Call, error) {
	if tool == "" {
		tool = "write"
	}
	if k, ok := call.ParseKind(tool); ok {
		switch k {
		case call.KindMCP:
			return call.Call{}, usagef("use --mcp SERVER/TOOL [--input JSON] for an MCP call")
		case call.KindShell:
			return call.Call{}, usagef("use -c or -- for shell commands")
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
		one, err := classifyTool(tool, in, cwd, home)
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
		return c, usagef("use -c or -- for shell commands")
	}
	return c, nil
}

// inputJSON is the tool input {key: value}.
func inputJSON(key, value string) json.RawMessage {
	b, _ := json.Marshal(map[string]string{key: value}) // a map of strings always marshals
	return b
}

// classifyTool decodes a Claude Code payload naming tool with input in
// cwd, as the hook would decode it: the tool table of every dialect, the
// paths made absolute (protocol). Its provider is "check".
func classifyTool(tool string, input json.RawMessage, cwd, home string) (call.Call, error) {
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
	if err != nil {
		return call.Call{}, usagef("%v", err)
	}
	c.Provider = "check"
	return c, nil
}

func readFileOrStdin(sys *system, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(sys.stdin, maxPayload+1))
	}
	return os.ReadFile(name)
}

// shellJoin quotes argv as one shell string.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = shellparse.Quote(a)
	}
	return strings.Join(q, " ")
}

// checkJSON is the machine-readable answer of check (README, "Trying a policy").
type checkJSON struct {
	Decision  call.Decision   `json:"decision"`
	Reason    string          `json:"reason,omitempty"`
	Cause     string          `json:"cause,omitempty"`
	Kind      string          `json:"kind,omitempty"`
	Tool      string          `json:"tool,omitempty"`
	Workspace string          `json:"workspace,omitempty"`
	Mode      string          `json:"mode"`
	Approval  string          `json:"approval_id,omitempty"`
	Targets   []policy.Target `json:"targets"`
	Matches   []policy.Match  `json:"matches"`
	Reply     *replyJSON      `json:"reply,omitempty"`
	Error     string          `json:"error,omitempty"`
	Policy    []policy.Layer  `json:"layers,omitempty"`
	Hash      string          `json:"policy_hash,omitempty"`
	Ignored   []ignoredPart   `json:"ignored,omitempty"`        // what an untrusted project policy could not do
	Auto      string          `json:"auto_read_only,omitempty"` // settings.auto_allow = "read-only": "yes" or "no — why"
}

type replyJSON struct {
	Provider string `json:"provider"`
	Stdout   string `json:"stdout"`
	Stderr   string `json:"stderr,omitempty"`
	ExitCode int    `json:"exit_code"`
}

// checkJSONOf is check's answer for an outcome; reply adds the agent's
// reply bytes (for a whole payload).
func checkJSONOf(sys *system, out *outcome, reply bool) *checkJSON {
	j := &checkJSON{Decision: out.verdict.Decision, Reason: out.verdict.Reason, Mode: out.mode.String(),
		Workspace: out.workspace, Approval: out.approval, Targets: []policy.Target{}, Matches: []policy.Match{}}
	if out.res != nil {
		j.Cause, j.Targets, j.Matches, j.Auto = out.res.Cause, out.res.Targets, out.res.Matches, out.res.Auto
		j.Kind, j.Tool = out.call.Kind.String(), out.call.Tool
	}
	if out.err != nil {
		j.Error = out.err.Error()
	}
	if out.ps != nil && out.ps.pol != nil {
		j.Policy, j.Hash = out.ps.pol.Layers, out.ps.pol.Hash()
		j.Ignored = ignoredParts(sys, out.ps.pol)
	}
	if reply && out.codec != nil {
		r := protocol.EncodeFor(out.codec, out.call, out.verdict)
		j.Reply = &replyJSON{Provider: out.codec.Name(), Stdout: string(r.Stdout), Stderr: string(r.Stderr), ExitCode: r.ExitCode}
	}
	return j
}
