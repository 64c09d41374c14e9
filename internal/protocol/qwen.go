package protocol

// NameQwen is Qwen Code's provider name (`toolguard hook --provider qwen`).
//
// Qwen Code (@qwen-code/qwen-code, a Gemini CLI fork) took Claude Code's hook
// protocol, not Gemini's: PreToolUse in .qwen/settings.json with matcher
// groups; the payload is snake_case {session_id, transcript_path, cwd,
// hook_event_name, timestamp, permission_mode, tool_name, tool_input,
// tool_use_id} with Gemini's runtime tool ids (run_shell_command,
// write_file, replace, read_file, …); the reply is
// hookSpecificOutput.permissionDecision allow/deny/ask with
// permissionDecisionReason (docs/users/features/hooks.md of QwenLM/qwen-code;
// payloads captured from 0.24.4 in testdata/payloads/qwen/). So the codec is
// the Claude one under this name. "ask" prompts in the TUI; in headless
// (-p) runs Qwen turns it into a deny itself.
const NameQwen = "qwen"
