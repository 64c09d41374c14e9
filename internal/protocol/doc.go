// Package protocol holds one codec per agent dialect: it decodes an agent's
// PreToolUse-style hook payload into a provider-neutral call.Call and
// encodes a call.Verdict into the exact reply bytes and exit code that
// agent understands. Each dialect is pinned by the samples under
// testdata/payloads/<agent>/ (payloads and their golden replies).
//
// The package knows only the standard library and internal/call. It reads
// no environment, does no I/O and prints nothing: the home directory used
// to expand "~" comes in through DecodeOptions (DecodeWith), and replies
// are returned as a Reply for the caller to write.
//
// # Decoding
//
// Decoding is lenient: unknown fields are ignored, and fields toolguard
// does not depend on are read only when they have the expected type. It
// fails — with a *DecodeError carrying a byte offset where there is one —
// only when the payload is not a usable tool call: empty or whitespace,
// not JSON, truncated, not an object, no tool name (or, for Cursor's
// shell and read events, no command or file_path), or tool input that is
// not an object. Decode never panics.
//
// Every tool name is mapped to a call.Kind with one table shared by all
// dialects (their names do not collide). Paths are made absolute and
// clean: "~" is expanded with DecodeOptions.Home, relative paths are
// joined to the payload's cwd, and Windows paths (C:\…, \\server\…)
// are left as given. Codex apply_patch paths come from the
// patch headers (Add/Update File: write, Delete File: delete, Move to:
// write, and the moved file's old path becomes a delete). Search tools put
// the searched directory in Paths and glob filters in Patterns; a grep
// regex is not a path pattern and stays only in Input.
//
// An MCP or unknown tool (any name the table does not know, not only
// mcp__…) gets the paths its input names in file-tool and filesystem-server
// fields (path, file_path, directory, dir, folder, scope, source,
// destination, old_path/new_path, oldPath/newPath, sourcePath/targetPath,
// file, filename, paths[], items[] of strings or of objects with such a
// field, and an absolute pattern: a glob goes to Patterns), each a target
// both read and written. A shell command in its command, cmd, script,
// shell_command or shellCommand field (a string, or an argv as for Codex)
// becomes call.Command, with cwd/workdir/working_directory as its
// directory; the call keeps its Kind, and the policy judges the command's
// targets besides the tool's own (mcp__shell__run_command of rm -rf ~ is
// denied like Bash). A policy names more shell fields per tool with
// settings.shell_fields (policy/shellfields.go).
//
// An MCP call (its final kind, whichever codec decided it) also gets, after
// those, the path arguments of filesystem-style MCP servers
// (mcpInputPaths: path, paths, file_path, filePath, file, filename,
// directory, dir, dir_path, source, destination, oldPath/newPath,
// old_path/new_path, target; top level and one level into objects and
// arrays, keys sorted, URLs skipped, relative paths joined to cwd, ~ not
// expanded) with the op guessed from the tool's name: read for
// read/get/list/search/view/stat/info/find/tree tools, delete for
// delete/remove/unlink/rmdir tools, else write; a move's source is
// deleted. DecodeWith adds them at the end of every decode
// (AddMCPPaths); the policy only matches the call's Paths.
//
// # Dialects
//
// claude-code, alias claude. Decodes session_id, cwd,
// hook_event_name, permission_mode, tool_name, tool_input. Replies
// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":
// D,"permissionDecisionReason":R}} with exit 0 for allow, ask and deny.
// A deny with StopTurn adds "continue":false and "stopReason" (the turn
// ends; the deny still blocks the tool). Ask is native.
//
// codebuddy. Same payload (plus call_id) and the same replies as
// Claude Code; CodeBuddy accepts continue/stopReason too.
//
// codex. Claude's payload plus turn_id and model; the write/edit tool
// is apply_patch with the raw patch in tool_input.command (patch and input
// keys, or a bare string, are accepted too). Deny is Claude's deny form
// with a reason that is never empty (Codex ignores a deny without one).
// Allow is written as nothing: a bare permissionDecision "allow" is
// "unsupported" in Codex, logged as a failed hook and ignored, so silence
// says the same thing without the error. Codex has no ask (SupportsAsk is
// false; an ask that reaches Encode is written as a deny), and
// continue/stopReason are never written because Codex treats them as
// unsupported for PreToolUse and fails open.
//
// gemini. Decodes BeforeTool payloads; MCP tools use mcp_context
// (server_name, tool_name) when present, else the mcp_<server>_<tool>
// name; web_fetch's URL is the first http(s) URL in its prompt. Replies
// {"decision":"deny","reason":R}, {"decision":"ask","reason":R,
// "systemMessage":R} (the dialog shows systemMessage; ask is implemented
// but undocumented), {"decision":"allow"}; always exit 0, since Gemini
// reads stdout JSON whatever the exit code. StopTurn on a deny adds
// "continue":false and "stopReason": Gemini checks it before the deny and
// stops the agent loop; the tool does not run either way.
//
// cursor. Decodes preToolUse (tool_name, tool_input),
// beforeShellExecution (command), beforeMCPExecution (tool_name, tool_input
// as an object or a JSON string; the server is "server", else url, else the
// launch command) and beforeReadFile (file_path). SessionID is
// conversation_id, ProjectDir is workspace_roots[0] (also the cwd when the
// event has none). Replies {"permission":P,"user_message":R,
// "agent_message":R} in snake_case only — Cursor blocks on a schema
// mismatch — exit 0. beforeReadFile honours only permission allow|deny:
// EncodeFor writes the bare permission there and turns ask into deny.
//
// copilot. Decodes both payload modes: camelCase (sessionId, cwd,
// toolName, toolArgs as an object or a JSON-encoded string; runtime tool
// names bash, view, create, edit, …) and PascalCase (session_id,
// tool_name, tool_input; Claude tool names), plus preMcpToolCall
// (serverName, toolName, arguments). A dashed unknown tool name is taken
// as <server>-<tool> MCP. Replies the flat {"permissionDecision":D,
// "permissionDecisionReason":R}, exit 0.
//
// antigravity, kiro, windsurf, devin: written from the agents' documentation and
// third-party integrations, NOT PROVEN WITH THE REAL CLIENTS (docs/agents.md,
// "From documentation, not proven with the real client").
//
// antigravity (agy). Decodes {conversationId, toolCall:{name,args},
// workspacePaths}; agy's own tool names with PascalCase argument keys.
// agy reads a reply without a decision as a deny, so every verdict is
// written: pass {"decision":"ask"} (agy's own flow), allow
// {"decision":"allow"}, ask {"decision":"force_ask","reason":R}, deny
// {"decision":"deny","reason":R}; exit 0.
//
// kiro. Decodes {hook_event_name:"preToolUse", cwd, tool_name,
// tool_input}; execute_bash, fs_read, fs_write, @server/tool MCP names.
// windsurf (Cascade). Decodes {agent_action_name, tool_info} for the four
// pre-hook actions. Both speak by exit code only: pass and allow are
// nothing and exit 0; deny (and ask: neither has one) is exit 2 with the
// reason on stderr, which Kiro returns to the model.
//
// devin. Decodes Claude's snake_case shape (tool_name, tool_input; exec,
// edit, mcp__server__tool); Detect never picks it. Allow is
// {"decision":"approve"}; deny (and ask: none) is
// {"decision":"block","reason":R} with exit 2 and R on stderr.
//
// universal, for an unknown agent (Detect's fallback). Decodes either the
// snake_case or the camelCase shape. Deny and ask are one object carrying
// both {"decision":"block","reason":R} and Claude's hookSpecificOutput
// deny — the reply observed to block in every agent tested
// (e2e-reference/hooks/universal-deny.json). Allow is written as nothing:
// no allow form is safe to send to an agent whose dialect is unknown.
//
// # Pass, reasons and errors
//
// Pass is no output and exit 0 for every codec but antigravity (whose
// pass is {"decision":"ask"}): the agent's own permission flow decides. A deny or ask with an empty reason gets a default one. An
// out-of-range Decision is encoded as deny.
//
// For internal errors and undecodable payloads the caller encodes an
// ordinary deny (on_error) through the codec (exit 0 — the documented
// blocking form for every JSON agent; exit 2 for kiro and windsurf,
// which read no JSON — including Codex and Gemini where exit 2
// mixed with JSON is not advised) and also writes the cause to stderr
// for humans.
// Stderr cannot change the outcome: Gemini reads it only when stdout is
// empty, and the others read it only on a non-zero exit. The agents'
// hook documentation suggests exit 2 + stderr as the fail-closed path; a JSON deny on exit 0 blocks in
// the same agents and keeps one reply shape per agent.
package protocol
