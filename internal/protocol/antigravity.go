package protocol

import (
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/call"
)

// NameAntigravity is Google Antigravity CLI (agy). Lookup also accepts "agy".
const NameAntigravity = "antigravity"

// antigravityCodec speaks Antigravity CLI's PreToolUse dialect, FROM
// DOCUMENTATION AND THIRD-PARTY INTEGRATIONS, NOT PROVEN WITH THE REAL CLIENT
// (docs/agents.md, testdata/payloads/antigravity/README.md). The payload is
// camelCase: {conversationId, stepIdx, toolCall: {name, args},
// transcriptPath, workspacePaths, artifactDirectoryPath}; the tool names are
// agy's own (run_command, view_file, write_to_file, …) with PascalCase
// argument keys (CommandLine, Cwd, AbsolutePath, TargetFile, …). The reply is
// {"decision": allow|deny|ask|force_ask, "reason"} on stdout, exit 0.
//
// agy treats a reply without a decision as a deny ({} and {"decision":""}
// were measured as denies, and an empty stdout was a deny in older builds),
// so this codec never answers with nothing: see Encode.
type antigravityCodec struct{}

func (antigravityCodec) Name() string { return NameAntigravity }

// SupportsAsk is true: "force_ask" opens agy's own confirmation prompt and
// ignores its "always allow" cache (per third-party integrations).
func (antigravityCodec) SupportsAsk() bool { return true }

func (k antigravityCodec) Decode(payload []byte) (call.Call, error) {
	return k.decode(payload, DecodeOptions{})
}

func (antigravityCodec) decode(payload []byte, o DecodeOptions) (call.Call, error) {
	obj, err := parseObject(payload)
	if err != nil {
		return call.Call{}, err
	}
	tc, err := obj.input("toolCall", inputObject)
	if err != nil {
		return call.Call{}, err
	}
	if tc.fields == nil {
		return call.Call{}, decodeErr(-1, "missing toolCall")
	}
	tcObj := object{fields: tc.fields}
	tool, err := tcObj.requireString("name")
	if err != nil {
		return call.Call{}, decodeErr(-1, "toolCall: %v", err)
	}
	in, err := tcObj.input("args", inputObjectOrJSONString)
	if err != nil {
		return call.Call{}, decodeErr(-1, "toolCall: %v", err)
	}
	var root string
	if roots := obj.strings("workspacePaths"); len(roots) > 0 {
		root = cleanCwd(roots[0])
	}
	c := call.Call{
		Provider:  NameAntigravity,
		Event:     firstNonEmpty(obj.str("hook_event_name"), "PreToolUse"),
		SessionID: obj.str("conversationId"),
		Cwd:       root,
		Tool:      tool,
		Input:     in.raw,
	}
	pt := pather{cwd: c.Cwd, home: o.Home}
	if fill, ok := antigravityTools()[tool]; ok {
		fill(&c, in, pt)
		return c, nil
	}
	if server, mtool, ok := antigravityMCP(tool); ok {
		c.Kind, c.MCPServer, c.MCPTool = call.KindMCP, server, mtool
	} else {
		c.Kind = call.KindOther
	}
	// An unknown or MCP tool: every path it names, in agy's keys or the
	// common ones, is a target both read and written.
	otherPaths(&c, in, pt)
	for _, k := range antigravityPathKeys {
		if p := in.str(k); p != "" {
			abs := pt.abs(p)
			c.Paths = append(c.Paths, call.Path{Path: abs, Op: call.OpRead}, call.Path{Path: abs, Op: call.OpWrite})
		}
	}
	if c.Command == "" {
		if s := in.str("CommandLine"); s != "" {
			c.Command = s
		}
	}
	return c, nil
}

// antigravityMCP splits an MCP tool name as Antigravity shows it to the
// model, mcp_<server>_<tool> (server names may hold dashes, not
// underscores), or the mcp__<server>__<tool> spelling.
func antigravityMCP(tool string) (server, mtool string, ok bool) {
	if server, mtool, ok := splitMCP(tool); ok {
		return server, mtool, true
	}
	if rest, found := strings.CutPrefix(tool, "mcp_"); found {
		if server, mtool, ok := strings.Cut(rest, "_"); ok && server != "" && mtool != "" {
			return server, mtool, true
		}
	}
	return "", "", false
}

// antigravityPathKeys are the argument keys agy's file tools name a path
// with (AbsolutePath: view_file; TargetFile: write_to_file and
// replace_file_content; DirectoryPath: list_dir; SearchPath: grep_search;
// SearchDirectory: find_by_name), and the spellings seen in third-party
// hooks (FilePath, Path).
var antigravityPathKeys = []string{"AbsolutePath", "TargetFile", "FilePath", "Path", "DirectoryPath", "SearchPath", "SearchDirectory"}

// antigravityTools normalizes agy's built-in tools. They are not in the
// shared tools table, whose fills read other dialects' argument keys.
var antigravityTools = sync.OnceValue(func() map[string]toolFill {
	return map[string]toolFill{
		"run_command":                antigravityShell,
		"view_file":                  antigravityFile(call.KindRead, call.OpRead),
		"view_file_outline":          antigravityFile(call.KindRead, call.OpRead),
		"write_to_file":              antigravityFile(call.KindWrite, call.OpWrite),
		"replace_file_content":       antigravityFile(call.KindEdit, call.OpWrite),
		"multi_replace_file_content": antigravityFile(call.KindEdit, call.OpWrite),
		"edit_file":                  antigravityFile(call.KindEdit, call.OpWrite),
		"list_dir":                   antigravityFile(call.KindSearch, call.OpRead),
		"grep_search":                antigravityFile(call.KindSearch, call.OpRead),
		"find_by_name":               antigravityFile(call.KindSearch, call.OpRead),
		"codebase_search":            antigravityFile(call.KindSearch, call.OpRead),
		"read_url_content":           antigravityWeb,
		"search_web":                 antigravityWeb,
	}
})

// antigravityShell is run_command {CommandLine, Cwd}. Cwd is where the
// command runs; the workspace stays the project directory.
func antigravityShell(c *call.Call, in input, pt pather) {
	c.Kind, c.Shell = call.KindShell, "bash"
	c.Command = firstNonEmpty(commandString(in.fields["CommandLine"]), commandString(in.fields["command"]))
	if d := in.first("Cwd", "cwd"); d != "" {
		if c.Cwd == "" {
			c.Cwd = cleanCwd(d)
			return
		}
		c.ProjectDir = c.Cwd
		c.Cwd = pt.abs(d)
	}
}

func antigravityFile(kind call.Kind, op call.Op) toolFill {
	return func(c *call.Call, in input, pt pather) {
		c.Kind = kind
		for _, k := range antigravityPathKeys {
			if p := in.str(k); p != "" {
				c.Paths = append(c.Paths, call.Path{Path: pt.abs(p), Op: op})
				return
			}
		}
		if p := in.first(pathKeys...); p != "" {
			c.Paths = append(c.Paths, call.Path{Path: pt.abs(p), Op: op})
		}
	}
}

func antigravityWeb(c *call.Call, in input, _ pather) {
	c.Kind = call.KindWeb
	c.URL = firstNonEmpty(in.str("Url"), in.str("url"))
	if c.URL == "" {
		c.URL = firstURL(firstNonEmpty(in.str("query"), in.str("Query")))
	}
}

// antigravityReply is agy's PreToolUse reply.
type antigravityReply struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// Encode never answers with nothing, which agy may read as a deny:
//   - pass → {"decision":"ask"}: agy's own permission flow decides, as it
//     would without the hook (its "always allow" cache and
//     --dangerously-skip-permissions included); toolguard approves nothing;
//   - allow → {"decision":"allow"} (the explicit allow; in some agy builds
//     it also skips agy's own prompt);
//   - ask → {"decision":"force_ask"} with the reason: a human prompt even
//     where the user has "always allowed" similar calls;
//   - deny → {"decision":"deny"} with the reason, which reaches the model.
//
// Always exit 0: agy reads the decision from stdout JSON only.
func (antigravityCodec) Encode(v call.Verdict) Reply {
	switch d := decision(v.Decision); d {
	case call.Pass:
		return jsonReply(antigravityReply{Decision: "ask"})
	case call.Allow:
		return jsonReply(antigravityReply{Decision: "allow", Reason: v.Reason})
	case call.Ask:
		return jsonReply(antigravityReply{Decision: "force_ask", Reason: reasonOr(v.Reason, d)})
	}
	return jsonReply(antigravityReply{Decision: "deny", Reason: reasonOr(v.Reason, call.Deny)})
}
