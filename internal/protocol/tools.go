package protocol

import (
	"encoding/json"
	"path"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
)

// toolFill fills the kind-specific fields of c from the tool's input.
type toolFill func(c *call.Call, in input, pt pather)

// tools maps every tool name the supported agents send to how it is
// normalized. The dialects' names do not collide, so one table serves
// every codec: Claude Code / CodeBuddy (Bash, Write, …), Codex (Bash,
// apply_patch, spawn_agent), Gemini (run_shell_command, write_file, …),
// Cursor (Shell, Delete, …), Copilot's runtime names (bash, view, …) and
// opencode's (bash, write, edit, multiedit, patch, read, list, webfetch;
// paths in filePath). Qwen Code sends Gemini's names.
var tools = map[string]toolFill{
	// shell
	"Bash":              shellTool("bash"),
	"PowerShell":        shellTool("powershell"),
	"run_shell_command": shellTool("bash"),
	"Shell":             shellTool("bash"),
	"bash":              shellTool("bash"),
	"powershell":        shellTool("powershell"),

	// write
	"Write":      fileTool(call.KindWrite, call.OpWrite),
	"create":     fileTool(call.KindWrite, call.OpWrite),
	"write_file": fileTool(call.KindWrite, call.OpWrite),
	"write":      fileTool(call.KindWrite, call.OpWrite), // opencode

	// edit
	"Edit":               editTool,
	"MultiEdit":          editTool,
	"NotebookEdit":       editTool,
	"replace":            editTool,
	"edit":               editTool,
	"multiedit":          editTool, // opencode
	"patch":              editTool, // opencode (patchText)
	"apply_patch":        editTool,
	"str_replace_editor": strReplaceEditor,
	"Delete":             fileTool(call.KindEdit, call.OpDelete),

	// read
	"Read":            fileTool(call.KindRead, call.OpRead),
	"NotebookRead":    fileTool(call.KindRead, call.OpRead),
	"read_file":       fileTool(call.KindRead, call.OpRead),
	"view":            fileTool(call.KindRead, call.OpRead),
	"read":            fileTool(call.KindRead, call.OpRead), // opencode
	"read_many_files": readManyFiles,
	"view_image":      fileTool(call.KindRead, call.OpRead), // Codex

	// search
	"Glob":                searchTool,
	"Grep":                searchTool,
	"LS":                  searchTool,
	"glob":                searchTool,
	"grep":                searchTool,
	"grep_search":         searchTool,
	"search_file_content": searchTool, // grep_search's older name
	"list_directory":      searchTool,
	"list":                searchTool, // opencode

	// web
	"WebFetch":          webTool,
	"WebSearch":         webTool,
	"web_fetch":         webTool,
	"web_search":        webTool,
	"google_web_search": webTool,
	"webfetch":          webTool, // opencode
	"websearch":         webTool, // opencode

	// agent
	"Agent":       agentTool,
	"Task":        agentTool,
	"spawn_agent": agentTool,
	"task":        agentTool,
}

// classify sets c.Kind and the kind-specific fields from c.Tool and the
// tool's input. Unknown tools are KindOther. A path an MCP or unknown tool
// names in a field file tools use (pathKeys: an MCP filesystem server's
// read_file, a GitHub server's create_or_update_file) is a target both
// read and written, since what the tool does with it is unknown.
func classify(c *call.Call, in input, pt pather) {
	if fill, ok := tools[c.Tool]; ok {
		fill(c, in, pt)
		return
	}
	if server, tool, ok := splitMCP(c.Tool); ok {
		c.Kind, c.MCPServer, c.MCPTool = call.KindMCP, server, tool
	} else {
		c.Kind = call.KindOther
	}
	otherPaths(c, in, pt)
}

// otherPaths adds, for an MCP or unknown tool, the paths its input names
// in the fields file tools use, as targets both read and written, and the
// shell command it names in a command field (shellKeys), which the policy
// analyzes like a shell tool's besides judging the tool itself.
func otherPaths(c *call.Call, in input, pt pather) {
	var ps []string
	for _, k := range otherPathKeys {
		if p := in.str(k); p != "" {
			ps = append(ps, p)
		}
	}
	ps = append(ps, in.strings("paths")...) // read_multiple_files
	ps = append(ps, itemPaths(in.fields["items"])...)
	if p := in.str("pattern"); strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~/") {
		// An absolute glob names where the tool looks (LobeHub searchFiles).
		if isGlob(p) {
			c.Patterns = append(c.Patterns, p)
		} else {
			ps = append(ps, p)
		}
	}
	for _, p := range ps {
		abs := pt.abs(p)
		c.Paths = append(c.Paths, call.Path{Path: abs, Op: call.OpRead}, call.Path{Path: abs, Op: call.OpWrite})
	}
	for _, k := range shellKeys {
		if s := commandString(in.fields[k]); s != "" {
			c.Command = s
			if d := in.first("cwd", "workdir", "working_directory", "workingDirectory", "dir_path"); d != "" {
				c.Cwd = pt.abs(d)
			}
			break
		}
	}
}

// shellKeys are the fields in which MCP and unknown tools take a shell
// command (mcp__shell__run_command, LobeHub runCommand).
var shellKeys = []string{"command", "cmd", "script", "shell_command", "shellCommand"}

// itemPaths reads an items[] list: strings, or objects with a path field.
func itemPaths(raw json.RawMessage) []string {
	if len(raw) == 0 || raw[0] != '[' {
		return nil
	}
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return nil
	}
	var out []string
	for _, it := range items[:min(len(items), 256)] {
		if s := rawString(it); s != "" {
			out = append(out, s)
			continue
		}
		var obj map[string]json.RawMessage
		if len(it) > 0 && it[0] == '{' && json.Unmarshal(it, &obj) == nil {
			for _, k := range otherPathKeys {
				if s := rawString(obj[k]); s != "" {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// otherPathKeys are pathKeys and the fields MCP filesystem servers name
// paths with (move_file source/destination, oldPath/newPath, scope).
var otherPathKeys = append(slices.Clone(pathKeys), "source", "destination", "old_path", "new_path",
	"oldPath", "newPath", "sourcePath", "targetPath", "destinationPath", "scope", "file", "filename", "dir", "folder")

// splitMCP splits a Claude-style MCP tool name, mcp__<server>__<tool>, at
// the first "__" after the prefix.
func splitMCP(name string) (server, tool string, ok bool) {
	rest, ok := strings.CutPrefix(name, "mcp__")
	if !ok {
		return "", "", false
	}
	server, tool, ok = strings.Cut(rest, "__")
	if !ok || server == "" || tool == "" {
		return "", "", false
	}
	return server, tool, true
}

// pathKeys are the input fields that name a file tool's path, across
// dialects (Claude file_path/notebook_path, Copilot path, Gemini dir_path,
// Cursor target_file).
var pathKeys = []string{"file_path", "notebook_path", "path", "target_file", "filePath", "dir_path", "directory"}

func shellTool(shell string) toolFill {
	return func(c *call.Call, in input, pt pather) {
		c.Kind, c.Shell = call.KindShell, shell
		c.Command = commandString(in.fields["command"])
		if c.Command == "" {
			c.Command = in.text // a bare string input is the command itself
		}
		// Gemini's run_shell_command runs in dir_path (relative to the
		// session cwd): relative paths in the command resolve against it,
		// while the session cwd stays the project directory.
		if d := in.str("dir_path"); d != "" && c.Cwd != "" {
			if c.ProjectDir == "" {
				c.ProjectDir = c.Cwd
			}
			c.Cwd = pt.abs(d)
		}
	}
}

// commandString reads a shell command that is normally a string. An argv
// array (older Codex shell tools) is turned into a string: the script of
// ["bash", "-lc", script], otherwise the words joined with shell quoting.
func commandString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	if raw[0] == '"' {
		return rawString(raw)
	}
	var argv []string
	if raw[0] != '[' || json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) >= 3 {
		switch path.Base(argv[0]) {
		case "bash", "sh", "zsh", "dash":
			if argv[1] == "-c" || argv[1] == "-lc" {
				return argv[2]
			}
		}
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = shellQuote(a)
	}
	return strings.Join(words, " ")
}

// shellQuote is shellparse.Quote; protocol depends on the standard library
// only (STYLE.md), so it keeps this small copy.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>(){}*?[]#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func fileTool(kind call.Kind, op call.Op) toolFill {
	return func(c *call.Call, in input, pt pather) {
		c.Kind = kind
		if p := in.first(pathKeys...); p != "" {
			c.Paths = append(c.Paths, call.Path{Path: pt.abs(p), Op: op})
		}
	}
}

// editTool handles file edits. When the input names no path but carries a
// patch (Codex apply_patch; Copilot's apply_patch mapped to Edit), the
// paths come from the patch headers.
func editTool(c *call.Call, in input, pt pather) {
	c.Kind = call.KindEdit
	if p := in.first(pathKeys...); p != "" {
		c.Paths = append(c.Paths, call.Path{Path: pt.abs(p), Op: call.OpWrite})
		return
	}
	c.Paths = patchPaths(patchText(in), pt)
}

// patchText finds an apply_patch body: the bare input string, or the
// command, patch, input, patchText or diff field.
func patchText(in input) string {
	if in.text != "" {
		return in.text
	}
	return in.first("command", "patch", "input", "patchText", "diff")
}

// strReplaceEditor is the str_replace_editor tool, whose "command" field
// says what it does: view reads, create writes, everything else edits.
func strReplaceEditor(c *call.Call, in input, pt pather) {
	switch in.str("command") {
	case "view":
		fileTool(call.KindRead, call.OpRead)(c, in, pt)
	case "create":
		fileTool(call.KindWrite, call.OpWrite)(c, in, pt)
	default:
		fileTool(call.KindEdit, call.OpWrite)(c, in, pt)
	}
}

// readManyFiles is Gemini's read_many_files: include (or the older paths)
// lists files and globs; plain paths go to Paths, globs to Patterns.
func readManyFiles(c *call.Call, in input, pt pather) {
	c.Kind = call.KindRead
	entries := append(in.strings("include"), in.strings("paths")...)
	for _, e := range entries {
		if isGlob(e) {
			c.Patterns = append(c.Patterns, e)
			continue
		}
		c.Paths = append(c.Paths, call.Path{Path: pt.abs(e), Op: call.OpRead})
	}
}

func isGlob(s string) bool { return strings.ContainsAny(s, "*?[{") }

// searchTool covers Glob, Grep and directory listings. The directory
// searched goes to Paths (read); glob patterns — Glob's pattern, Grep's
// glob/include filter — go to Patterns. A grep regex is not a path pattern
// and stays only in Input.
func searchTool(c *call.Call, in input, pt pather) {
	c.Kind = call.KindSearch
	if p := in.first("path", "dir_path", "directory"); p != "" {
		c.Paths = append(c.Paths, call.Path{Path: pt.abs(p), Op: call.OpRead})
	}
	switch c.Tool {
	case "Glob", "glob":
		if p := in.str("pattern"); p != "" {
			c.Patterns = append(c.Patterns, p)
		}
	default:
		if p := in.first("glob", "include_pattern", "include"); p != "" {
			c.Patterns = append(c.Patterns, p)
		}
	}
}

// webTool takes the URL from url, or else the first http(s) URL in the
// prompt (Gemini web_fetch has only a prompt).
func webTool(c *call.Call, in input, _ pather) {
	c.Kind = call.KindWeb
	if u := in.str("url"); u != "" {
		c.URL = u
		return
	}
	c.URL = firstURL(in.str("prompt"))
}

func firstURL(s string) string {
	lower := strings.ToLower(s)
	i := strings.Index(lower, "http://")
	if j := strings.Index(lower, "https://"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	if i < 0 {
		return ""
	}
	u := s[i:]
	if end := strings.IndexAny(u, " \t\r\n\"'<>`()[]{}"); end >= 0 {
		u = u[:end]
	}
	u = strings.TrimRight(u, ".,;:!?")
	if _, host, _ := strings.Cut(u, "://"); host == "" {
		return ""
	}
	return u
}

func agentTool(c *call.Call, _ input, _ pather) { c.Kind = call.KindAgent }
