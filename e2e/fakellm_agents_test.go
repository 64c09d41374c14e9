package e2e

import "strings"

// Tool-call shapes of the agents added for issue 22 (Copilot CLI, Qwen Code, opencode),
// for the fake model's chat-completions answer. The existing agents' shapes stay in
// fakellm_test.go (chatCall); chatCall asks extraChatCall first.

// extraChatCall returns the tool name and arguments of sc's call for a tool list that
// only one of the newer agents offers; ok is false when chatCall's own choice applies.
func extraChatCall(sc fakeScript, names []string) (name string, args map[string]any, ok bool) {
	if sc.isWrite() {
		switch {
		case contains(names, "create") && contains(names, "view"): // Copilot CLI: create {path, file_text}
			return "create", map[string]any{"path": sc.absTarget(), "file_text": sc.WriteBody}, true
		case contains(names, "write") && !contains(names, "Write"): // opencode: write {filePath, content}
			return "write", map[string]any{"filePath": sc.absTarget(), "content": sc.WriteBody}, true
		}
		return "", nil, false
	}
	if contains(names, "bash") && !contains(names, "Bash") { // Copilot CLI, opencode: bash {command, description}
		return "bash", map[string]any{"command": sc.Shell, "description": "Run " + sc.Shell}, true
	}
	return "", nil, false
}

// hookContextMessage reports a user message that carries only a hook's additional context,
// not a prompt: Qwen Code runs UserPromptSubmit also before the request that carries tool
// results (its hooks.md: the event covers UserQuery, ToolResult and Hook sends) and appends
// the hook's context as a user message after the tool messages. The conversation still ends
// with the tool results.
func hookContextMessage(m map[string]any) bool {
	return strings.HasPrefix(strings.TrimSpace(textOf(m["content"])), "<qwen:user-prompt-submit-context>")
}
