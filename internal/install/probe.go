package install

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// The two calls doctor sends through each hook: one every toolguard policy
// denies (the built-in git-push-force rule; a policy without the defaults
// may not), one it lets through.
const (
	DenyProbeCommand = "git push --force origin main"
	PassProbeCommand = "git status"
)

// ProbeTimeout bounds one probe run: above the hook's own 10 s deadline.
const ProbeTimeout = 20 * time.Second

// ProbeResult is what one hook run answered.
type ProbeResult struct {
	Want    string `json:"want"`    // "deny" or "pass" (pass or allow)
	Call    string `json:"call"`    // the shell command in the payload
	Got     string `json:"got"`     // deny, ask, allow, pass or error
	Exit    int    `json:"exit"`    // the hook's exit code (-1: did not run or was killed)
	Output  string `json:"output"`  // stdout, trimmed and capped
	Stderr  string `json:"stderr"`  // stderr, trimmed and capped
	Problem string `json:"problem"` // why Got is error, or "" (a run that never finished, …)
}

// OK reports whether the hook answered as it must.
func (r ProbeResult) OK() bool {
	if r.Want == "deny" {
		return r.Got == "deny"
	}
	return r.Got == "pass" || r.Got == "allow"
}

// Probe runs a hook command line as agent runs it — `sh -c LINE` in dir,
// the payload on stdin in the agent's dialect — once with a call that
// must be denied and once with one that must pass.
func Probe(ctx context.Context, agent, line, dir string, env []string) []ProbeResult {
	return []ProbeResult{
		probeOnce(ctx, agent, line, dir, env, "deny", DenyProbeCommand),
		probeOnce(ctx, agent, line, dir, env, "pass", PassProbeCommand),
	}
}

func probeOnce(ctx context.Context, agent, line, dir string, env []string, want, call string) ProbeResult {
	r := ProbeResult{Want: want, Call: call, Exit: -1}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", line)
	cmd.Dir = dir
	cmd.Env = append(append([]string(nil), env...), projectEnv(agent, dir)...)
	cmd.Stdin = bytes.NewReader(Payload(agent, call, dir))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	r.Output, r.Stderr = capText(out.String()), capText(errb.String())
	if ctx.Err() != nil {
		r.Got, r.Problem = "error", fmt.Sprintf("no answer within %s (the agent would give up: an allow in most agents)", ProbeTimeout)
		return r
	}
	var ee *exec.ExitError
	switch {
	case err == nil:
		r.Exit = 0
	case errors.As(err, &ee):
		r.Exit = ee.ExitCode()
	default:
		r.Got, r.Problem = "error", err.Error()
		return r
	}
	r.Got, r.Problem = Classify(r.Exit, out.Bytes())
	return r
}

// projectEnv is the project variable the agent sets for its hooks.
func projectEnv(agent, dir string) []string {
	switch agent {
	case "claude-code":
		return []string{"CLAUDE_PROJECT_DIR=" + dir}
	case "codebuddy":
		return []string{"CODEBUDDY_PROJECT_DIR=" + dir}
	case "gemini":
		return []string{"GEMINI_PROJECT_DIR=" + dir}
	case "qwen":
		return []string{"QWEN_PROJECT_DIR=" + dir}
	}
	return nil
}

// Payload is a pre-tool hook payload for a shell call, in agent's dialect
// (testdata/payloads/<agent>/ has real samples).
func Payload(agent, command, dir string) []byte {
	session := "toolguard-doctor"
	var v any
	switch agent {
	case "gemini":
		v = map[string]any{"session_id": session, "cwd": dir, "hook_event_name": "BeforeTool",
			"tool_name": "run_shell_command", "tool_input": map[string]any{"command": command}}
	case "qwen":
		v = map[string]any{"session_id": session, "cwd": dir, "hook_event_name": "PreToolUse",
			"tool_name": "run_shell_command", "tool_input": map[string]any{"command": command}}
	case "cursor":
		v = map[string]any{"conversation_id": session, "generation_id": session, "hook_event_name": "beforeShellExecution",
			"workspace_roots": []string{dir}, "command": command, "cwd": dir}
	case "copilot":
		args, _ := json.Marshal(map[string]string{"command": command})
		v = map[string]any{"sessionId": session, "timestamp": 0, "cwd": dir, "toolName": "bash", "toolArgs": string(args)}
	case "windsurf":
		v = map[string]any{"agent_action_name": "pre_run_command", "trajectory_id": session,
			"tool_info": map[string]any{"command_line": command, "cwd": dir}}
	default: // claude-code, codebuddy, codex
		v = map[string]any{"session_id": session, "cwd": dir, "hook_event_name": "PreToolUse",
			"tool_name": "Bash", "tool_input": map[string]any{"command": command}}
	}
	b, _ := json.Marshal(v)
	return b
}

// Classify reads a pre-tool hook's answer the way the agents do: exit 2
// blocks; another non-zero exit is a failed hook; on exit 0 no output is
// no decision (pass), and a JSON reply's decision field — permissionDecision
// (in hookSpecificOutput or at the top), decision, or Cursor's permission —
// decides. Output that is not a JSON object is an error.
func Classify(exit int, stdout []byte) (got, problem string) {
	switch {
	case exit == 2:
		return "deny", ""
	case exit != 0:
		return "error", fmt.Sprintf("exit %d: a failed hook, which most agents treat as no objection", exit)
	}
	out := bytes.TrimSpace(stdout)
	if len(out) == 0 {
		return "pass", ""
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		return "error", "the reply is not a JSON object"
	}
	var vals []any
	if hso, ok := m["hookSpecificOutput"].(map[string]any); ok {
		vals = append(vals, hso["permissionDecision"])
	}
	vals = append(vals, m["permissionDecision"], m["decision"], m["permission"])
	for _, v := range vals {
		s, _ := v.(string)
		switch strings.ToLower(s) {
		case "deny", "block":
			return "deny", ""
		case "ask":
			return "ask", ""
		case "allow", "approve":
			return "allow", ""
		}
	}
	return "pass", ""
}

func capText(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 400 {
		return s[:400] + "…"
	}
	return s
}
