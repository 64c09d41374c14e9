package protocol

import (
	"fmt"
	"strings"
)

// codecs are the named agent codecs, in the order Names lists them.
var codecs = []Codec{
	claudeCodec{name: NameClaude},
	claudeCodec{name: NameCodeBuddy},
	codexCodec{},
	geminiCodec{},
	cursorCodec{},
	copilotCodec{},
	claudeCodec{name: NameQwen}, // qwen.go
	opencodeCodec{},             // opencode.go
	antigravityCodec{},
	kiroCodec{},
	windsurfCodec{},
	devinCodec{},
}

// aliases are extra names Lookup accepts.
var aliases = map[string]string{"claude": NameClaude, "qwen-code": NameQwen, "agy": NameAntigravity, "cascade": NameWindsurf}

// Names returns the provider names of the agent codecs: claude-code,
// codebuddy, codex, gemini, cursor, copilot, qwen, opencode, antigravity,
// kiro, windsurf, devin. Lookup also accepts the aliases "claude",
// "qwen-code", "agy" and "cascade", and "universal".
func Names() []string {
	names := make([]string, len(codecs))
	for i, c := range codecs {
		names[i] = c.Name()
	}
	return names
}

// Lookup returns the codec named name (case-insensitive): a provider name,
// the alias "claude", or "universal".
func Lookup(name string) (Codec, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[n]; ok {
		n = a
	}
	for _, c := range codecs {
		if c.Name() == n {
			return c, nil
		}
	}
	if n == NameUniversal {
		return universalCodec{}, nil
	}
	return nil, fmt.Errorf("unknown provider %q (want %s, claude, or universal)", name, strings.Join(Names(), ", "))
}

// Detect picks the codec whose agent sent payload, by the heuristics of
// the payloads' shapes (testdata/payloads/), checked in this order:
//
//   - agent_action_name → windsurf (Cascade)
//   - toolCall (an object) → antigravity
//   - hook_event_name "preToolUse" with a Kiro tool name (execute_bash,
//     fs_read, fs_write, @server/tool) and none of Cursor's fields
//     (conversation_id, workspace_roots, cursor_version) → kiro
//   - turn_id → codex
//   - hook_event_name "BeforeTool", or mcp_context → gemini
//   - toolName or toolArgs → copilot (camelCase)
//   - a Cursor event name (beforeShellExecution, beforeMCPExecution,
//     beforeReadFile, preToolUse), conversation_id, workspace_roots or
//     cursor_version → cursor
//   - client "opencode" (toolguard's opencode plugin) → opencode
//   - prompt_id with tool_call_id, or a transcript_path under .qwen/ → qwen
//   - call_id, or a transcript_path under .codebuddy/ → codebuddy
//   - hook_event_name "PreToolUse" with a string timestamp and no
//     tool_use_id → copilot (PascalCase)
//   - hook_event_name "PreToolUse", or tool_name with tool_use_id → claude-code
//
// Anything else — not JSON, not an object, an unknown shape — gets the
// universal codec, whose Decode reports what is wrong and whose deny
// blocks in every agent. Explicit --provider beats Detect: shapes overlap.
// Devin CLI's documented payload is Claude's shape: Detect never returns
// the devin codec.
func Detect(payload []byte) Codec {
	obj, err := parseObject(payload)
	if err != nil {
		return universalCodec{}
	}
	event := obj.str("hook_event_name")
	switch {
	case obj.has("agent_action_name"):
		return windsurfCodec{}
	case jsonType(obj.fields["toolCall"]) == "object":
		return antigravityCodec{}
	case event == kiroPreToolUse && isKiroTool(obj.str("tool_name")) &&
		!obj.has("conversation_id") && !obj.has("workspace_roots") && !obj.has("cursor_version"):
		return kiroCodec{}
	case obj.has("turn_id"):
		return codexCodec{}
	case event == "BeforeTool" || obj.has("mcp_context"):
		return geminiCodec{}
	case obj.has("toolName") || obj.has("toolArgs"):
		return copilotCodec{}
	case event == cursorPreToolUse || event == cursorBeforeShell || event == cursorBeforeMCP || event == cursorBeforeReadFile,
		obj.has("conversation_id"), obj.has("workspace_roots"), obj.has("cursor_version"):
		return cursorCodec{}
	case obj.str("client") == opencodeClient:
		return opencodeCodec{}
	case obj.has("prompt_id") && obj.has("tool_call_id") || strings.Contains(strings.ReplaceAll(obj.str("transcript_path"), `\`, "/"), "/.qwen/"):
		return claudeCodec{name: NameQwen}
	case obj.has("call_id") || strings.Contains(strings.ReplaceAll(obj.str("transcript_path"), `\`, "/"), "/.codebuddy/"):
		return claudeCodec{name: NameCodeBuddy}
	case event == "PreToolUse" && jsonType(obj.fields["timestamp"]) == "string" && !obj.has("tool_use_id"):
		return copilotCodec{}
	case event == "PreToolUse", obj.has("tool_name") && obj.has("tool_use_id"):
		return claudeCodec{name: NameClaude}
	}
	return universalCodec{}
}
