package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fallbackPayload is a shell call of command in agent's dialect, with a
// permission mode where the dialect carries one ("" leaves it out).
func fallbackPayload(agent, cwd, command, permissionMode string) []byte {
	m := map[string]any{"session_id": "s1", "cwd": cwd, "tool_input": map[string]any{"command": command}}
	switch agent {
	case "gemini":
		m["hook_event_name"], m["tool_name"] = "BeforeTool", "run_shell_command"
	default: // claude-code, codebuddy, codex
		m["hook_event_name"], m["tool_name"] = "PreToolUse", "Bash"
	}
	if permissionMode != "" {
		m["permission_mode"] = permissionMode
	}
	b, _ := json.Marshal(m)
	return b
}

// fallbackReply reads the decision of a reply in the dialect.
func fallbackReply(t *testing.T, agent, out string) (decision string, stop bool) {
	t.Helper()
	if strings.TrimSpace(out) == "" {
		return "", false
	}
	var r struct {
		Decision string `json:"decision"`
		Continue *bool  `json:"continue"`
		HSO      struct {
			PermissionDecision string `json:"permissionDecision"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%s reply is not JSON: %q", agent, out)
	}
	stop = r.Continue != nil && !*r.Continue
	if agent == "gemini" {
		return r.Decision, stop
	}
	return r.HSO.PermissionDecision, stop
}

// TestAskFallback: settings.ask_fallback / ask_fallback_for change what an
// ask becomes only where the per-agent table offers the choice, through
// the real hook path in the claude-code, codebuddy, codex and gemini
// dialects: "defer" parks a headless Claude Code call (and records the
// request) only in a permission mode where an ignored defer does not run
// the tool; "deny" holds an interactive ask; "native" cannot turn a held
// ask into one nobody answers. Look-alikes: another agent's entry, and
// the settings off.
func TestAskFallback(t *testing.T) {
	cases := []struct {
		name, agent, mode, settings, permMode string
		want                                  string // reply decision
		request                               bool   // an approval request is recorded
		stop                                  bool   // continue:false
	}{
		{"defer claude headless default", "claude-code", "headless", `ask_fallback_for = { claude-code = "defer" }`, "default", "defer", true, false},
		{"defer claude headless plan", "claude-code", "headless", `ask_fallback = "defer"`, "plan", "defer", true, false},
		{"defer claude headless bypassPermissions", "claude-code", "headless", `ask_fallback = "defer"`, "bypassPermissions", "deny", true, true},
		{"defer claude headless acceptEdits", "claude-code", "headless", `ask_fallback = "defer"`, "acceptEdits", "deny", true, true},
		{"defer claude headless no mode", "claude-code", "headless", `ask_fallback = "defer"`, "", "deny", true, true},
		{"defer claude interactive", "claude-code", "interactive", `ask_fallback = "defer"`, "default", "ask", false, false},
		{"defer codebuddy headless", "codebuddy", "headless", `ask_fallback = "defer"`, "default", "deny", true, true},
		{"defer gemini headless", "gemini", "headless", `ask_fallback = "defer"`, "", "deny", true, true},
		{"no setting claude headless", "claude-code", "headless", ``, "default", "deny", true, true},
		{"deny claude interactive", "claude-code", "interactive", `ask_fallback = "deny"`, "default", "deny", true, true},
		{"deny gemini interactive", "gemini", "interactive", `ask_fallback_for = { gemini = "deny" }`, "", "deny", true, true},
		{"other agent's entry gemini", "gemini", "interactive", `ask_fallback_for = { codex = "deny" }`, "", "ask", false, false},
		{"other agent's entry claude", "claude-code", "interactive", `ask_fallback_for = { gemini = "deny" }`, "default", "ask", false, false},
		{"per-agent over all", "claude-code", "interactive", "ask_fallback = \"deny\"\nask_fallback_for = { claude-code = \"native\" }", "default", "ask", false, false},
		{"native codex interactive", "codex", "interactive", `ask_fallback = "native"`, "default", "deny", true, false},
		{"native claude headless", "claude-code", "headless", `ask_fallback = "native"`, "default", "deny", true, true},
		{"native codebuddy bypass", "codebuddy", "interactive", `ask_fallback = "native"`, "bypassPermissions", "deny", true, true},
		{"no setting gemini interactive", "gemini", "interactive", ``, "", "ask", false, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			state := filepath.Join(home, "state")
			pol := filepath.Join(home, "policy.toml")
			writeTestFile(t, pol, "version = 1\n[settings]\nmode = \""+tc.mode+"\"\nstate_dir = \""+state+"\"\naudit = \"off\"\n"+tc.settings+
				"\n[[rule]]\nid = \"ask-tag\"\ndecision = \"ask\"\ncommand = \"git tag\"\n")
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
			f, sys := newFake(t, fallbackPayload(tc.agent, "/tmp/proj", "git tag v1", tc.permMode), env)
			code := run(context.Background(), []string{"hook", "--provider", tc.agent, "--policy", pol}, sys)
			out := f.stdout.String()
			got, stop := fallbackReply(t, tc.agent, out)
			if code != 0 || got != tc.want {
				t.Fatalf("exit %d, decision %q, want %q\n%s%s", code, got, tc.want, out, f.stderr.String())
			}
			if stop != tc.stop {
				t.Errorf("continue:false = %v, want %v: %s", stop, tc.stop, out)
			}
			ents, _ := os.ReadDir(filepath.Join(state, "requests"))
			if (len(ents) > 0) != tc.request {
				t.Errorf("%d request files, want a request: %v", len(ents), tc.request)
			}
			if tc.want == "defer" && !strings.Contains(out, `"permissionDecisionReason":"`) {
				t.Errorf("the defer carries no reason: %s", out)
			}
		})
	}
}

// TestAskFallbackDeferRoundTrip: a deferred call's request, approved, lets
// the re-run hook (claude -p --resume re-runs it) allow the identical call
// once; a rejected one is denied with the reason, not deferred again.
func TestAskFallbackDeferRoundTrip(t *testing.T) {
	e := newApprovalEnv(t, `ask_fallback_for = { claude-code = "defer" }`)
	e.genKey(e.defaultKey())
	d := approvalDialect{provider: "claude-code", allow: `"permissionDecision":"allow"`, deny: `"permissionDecision":"defer"`}
	call := string(fallbackPayload("claude-code", "/tmp/proj", "git tag v1", "default"))
	id := e.expectDeny(d, call)
	if again := e.expectDeny(d, call); again != id { // not decided yet: parked again, same request
		t.Fatalf("re-run before a decision got request %s, want %s", again, id)
	}
	e.approve(id, e.defaultKey())
	e.expectAllow(d, call)

	call2 := string(fallbackPayload("claude-code", "/tmp/proj", "git tag v2", "default"))
	id2 := e.expectDeny(d, call2)
	if code, out, errOut := e.approvals("reject", id2, "--reason", "no tags today", "--key", e.defaultKey()); code != 0 {
		t.Fatalf("reject: exit %d %s%s", code, out, errOut)
	}
	code, out, _ := e.hook(d, call2)
	if code != 0 || !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "no tags today") {
		t.Fatalf("rejected call re-run: exit %d, want a deny with the reason: %s", code, out)
	}
}

// TestAskFallbackUntrusted: a cloned repository's policy may make
// ask_fallback stricter ("deny") and nothing else.
func TestAskFallbackUntrusted(t *testing.T) {
	for _, agent := range []string{"claude-code", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			user := filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "policy.toml")
			e.write(user, "version = 1\n[settings]\nmode = \"interactive\"\n[[rule]]\nid = \"ask-tag\"\ndecision = \"ask\"\ncommand = \"git tag\"\n")
			hook := func() string {
				f, sys := newFake(t, fallbackPayload(agent, e.project, "git tag v1", "default"), e.env)
				sys.etc = filepath.Join(e.home, "etc")
				if code := run(context.Background(), []string{"hook", "--provider", agent}, sys); code != 0 {
					t.Fatalf("exit %d: %s%s", code, f.stdout.String(), f.stderr.String())
				}
				d, _ := fallbackReply(t, agent, f.stdout.String())
				return d
			}
			if d := hook(); d != "ask" {
				t.Fatalf("without a project policy: %q, want ask", d)
			}
			// loosening or sideways values are ignored
			e.write(".toolguard/policy.toml", "version = 1\n[settings]\nask_fallback = \"native\"\nask_fallback_for = { claude-code = \"defer\", gemini = \"native\" }\n")
			if d := hook(); d != "ask" {
				t.Errorf("untrusted native/defer: %q, want ask (unchanged)", d)
			}
			// stricter is honoured
			e.write(".toolguard/policy.toml", "version = 1\n[settings]\nask_fallback_for = { "+agent+" = \"deny\" }\n")
			if d := hook(); d != "deny" {
				t.Errorf("untrusted ask_fallback_for deny: %q, want deny", d)
			}
			e.write(".toolguard/policy.toml", "version = 1\n[settings]\nask_fallback = \"deny\"\n")
			if d := hook(); d != "deny" {
				t.Errorf("untrusted ask_fallback deny: %q, want deny", d)
			}
			// a trusted deny the untrusted layer tries to undo stays
			e.write(user, "version = 1\n[settings]\nmode = \"interactive\"\nask_fallback_for = { "+agent+" = \"deny\" }\n[[rule]]\nid = \"ask-tag\"\ndecision = \"ask\"\ncommand = \"git tag\"\n")
			e.write(".toolguard/policy.toml", "version = 1\n[settings]\nask_fallback = \"native\"\nask_fallback_for = { "+agent+" = \"native\" }\n")
			if d := hook(); d != "deny" {
				t.Errorf("untrusted native over a trusted deny: %q, want deny", d)
			}
		})
	}
}

func writeTestFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}
