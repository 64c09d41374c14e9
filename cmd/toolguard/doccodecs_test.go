package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The codecs written from documentation (Antigravity CLI, Kiro CLI,
// Windsurf Cascade; docs/agents.md "From documentation, not proven with
// the real client") through the real hook path: payload in, reply bytes
// and exit code out.

// docPayload builds a payload of agent's dialect for one kind of call:
// kind "shell" (arg: the command), "write" (arg: the path) or "mcp" (arg:
// server/tool).
func docPayload(t *testing.T, agent, kind, arg, project string) []byte {
	t.Helper()
	var v any
	switch agent {
	case "antigravity":
		var tc map[string]any
		switch kind {
		case "shell":
			tc = map[string]any{"name": "run_command", "args": map[string]string{"CommandLine": arg, "Cwd": project}}
		case "write":
			tc = map[string]any{"name": "write_to_file", "args": map[string]string{"TargetFile": arg}}
		case "mcp":
			server, tool, _ := strings.Cut(arg, "/")
			tc = map[string]any{"name": "mcp_" + server + "_" + tool, "args": map[string]string{"title": "x"}}
		}
		v = map[string]any{"conversationId": "c1", "stepIdx": 1, "toolCall": tc, "workspacePaths": []string{project}}
	case "kiro":
		m := map[string]any{"hook_event_name": "preToolUse", "cwd": project}
		switch kind {
		case "shell":
			m["tool_name"], m["tool_input"] = "execute_bash", map[string]string{"command": arg}
		case "write":
			m["tool_name"], m["tool_input"] = "fs_write", map[string]string{"command": "create", "path": arg, "file_text": "x"}
		case "mcp":
			m["tool_name"], m["tool_input"] = "@"+arg, map[string]string{"title": "x"}
		}
		v = m
	case "windsurf":
		m := map[string]any{"trajectory_id": "t1", "execution_id": "e1"}
		switch kind {
		case "shell":
			m["agent_action_name"], m["tool_info"] = "pre_run_command", map[string]string{"command_line": arg, "cwd": project}
		case "write":
			m["agent_action_name"], m["tool_info"] = "pre_write_code", map[string]any{"file_path": arg, "edits": []any{}}
		case "mcp":
			server, tool, _ := strings.Cut(arg, "/")
			m["agent_action_name"], m["tool_info"] = "pre_mcp_tool_use",
				map[string]any{"mcp_server_name": server, "mcp_tool_name": tool, "mcp_tool_arguments": map[string]string{"title": "x"}}
		}
		v = m
	case "devin":
		// Documented stdin: tool_name and tool_input only. edit's input
		// keys are not documented: file_path (Claude's) is assumed.
		m := map[string]any{}
		switch kind {
		case "shell":
			m["tool_name"], m["tool_input"] = "exec", map[string]string{"command": arg, "shell_id": "main"}
		case "write":
			m["tool_name"], m["tool_input"] = "edit", map[string]string{"file_path": arg}
		case "mcp":
			server, tool, _ := strings.Cut(arg, "/")
			m["tool_name"], m["tool_input"] = "mcp__"+server+"__"+tool, map[string]string{"title": "x"}
		}
		v = m
	default:
		t.Fatalf("no payload for %s", agent)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// docReply is what a reply means to the agent: the decision it acts on
// and the text it shows the model.
type docReply struct {
	decision string // deny, allow, ask (a human prompt), pass (the agent's own flow)
	text     string
}

// readDocReply interprets a hook run as agent does, failing the test on
// a reply the agent would not read as intended (a JSON reply with a
// non-zero exit, output on stdout from an exit-code dialect, …).
func readDocReply(t *testing.T, agent string, code int, f *fakeSystem) docReply {
	t.Helper()
	out, errOut := f.stdout.String(), f.stderr.String()
	if agent == "antigravity" {
		// agy reads the decision from stdout JSON; no decision is a deny.
		if code != 0 {
			t.Fatalf("exit %d: agy reads a non-zero exit as a deny", code)
		}
		var r struct{ Decision, Reason string }
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatalf("stdout %q is not agy JSON: %v", out, err)
		}
		switch r.Decision {
		case "deny":
			return docReply{"deny", r.Reason}
		case "allow":
			return docReply{"allow", r.Reason}
		case "force_ask":
			return docReply{"ask", r.Reason}
		case "ask":
			return docReply{"pass", r.Reason}
		}
		t.Fatalf("decision %q: agy denies a missing or unknown decision", r.Decision)
	}
	if agent == "devin" {
		// Devin: exit 2 blocks; the JSON block carries the reason.
		var r struct{ Decision, Reason string }
		if out != "" {
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("stdout %q is not Devin JSON: %v", out, err)
			}
		}
		switch {
		case code == 2 && r.Decision == "block" && strings.Contains(errOut, r.Reason):
			return docReply{"deny", r.Reason}
		case code == 0 && out == "":
			return docReply{"pass", ""}
		case code == 0 && r.Decision == "approve":
			return docReply{"allow", r.Reason}
		}
		t.Fatalf("exit %d, stdout %q: not a reply Devin reads as intended", code, out)
	}
	// Kiro and Cascade: exit 2 blocks and stderr is the message; exit 0
	// runs the tool; nothing is read from stdout.
	if out != "" {
		t.Fatalf("stdout %q: %s reads no JSON from a pre-tool hook", out, agent)
	}
	switch code {
	case 2:
		return docReply{"deny", errOut}
	case 0:
		return docReply{"pass", errOut}
	}
	t.Fatalf("exit %d: %s runs the tool on any other exit code", code, agent)
	return docReply{}
}

func TestDocCodecsHookPath(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	allowPol, _ := filepath.Abs("testdata/golden/default-allow.toml")
	mcpPol := filepath.Join(home, "mcp.toml")
	if err := os.WriteFile(mcpPol, []byte("[[rule]]\nid = \"no-issues\"\ndecision = \"deny\"\njustification = \"Issues are filed by people.\"\nmcp = [\"github/create_issue\"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wf := filepath.Join(project, ".github", "workflows", "ci.yml")
	cases := []struct {
		name, kind, arg string
		args            []string
		want            string // decision as the agent reads it
		wantText        string // in the text the model or user is shown
		// wantAsk: what an ask becomes where the agent has none (Kiro,
		// Cascade): a deny that names the approval request.
		headless bool
	}{
		{name: "force push denied", kind: "shell", arg: "git push --force origin main", want: "deny", wantText: "git-push-force"},
		{name: "force push in sh -c denied", kind: "shell", arg: `sh -c "git push --force origin main"`, want: "deny", wantText: "git-push-force"},
		{name: "plain push passes", kind: "shell", arg: "git push origin feature", want: "pass"},
		{name: "git status passes", kind: "shell", arg: "git status", want: "pass"},
		{name: "git status allowed explicitly", kind: "shell", arg: "git status", args: []string{"--policy", allowPol}, want: "allow"},
		{name: "workflow write asks", kind: "write", arg: wf, want: "ask", wantText: "ci-workflow-write"},
		{name: "workflow write headless is denied", kind: "write", arg: wf, args: []string{"--mode", "headless"}, want: "deny", wantText: "approval request req_", headless: true},
		{name: "issue template write passes", kind: "write", arg: filepath.Join(project, ".github", "ISSUE_TEMPLATE", "bug.md"), want: "pass"},
		{name: "mcp call passes by default", kind: "mcp", arg: "github/create_issue", want: "pass"},
		{name: "mcp call denied by rule", kind: "mcp", arg: "github/create_issue", args: []string{"--policy", mcpPol}, want: "deny", wantText: "no-issues"},
		{name: "other mcp tool passes the rule", kind: "mcp", arg: "github/list_issues", args: []string{"--policy", mcpPol}, want: "pass"},
	}
	for _, agent := range []string{"antigravity", "kiro", "windsurf", "devin"} {
		for _, tc := range cases {
			t.Run(agent+"/"+tc.name, func(t *testing.T) {
				payload := docPayload(t, agent, tc.kind, tc.arg, project)
				f, sys := newFake(t, payload, map[string]string{"HOME": home, "XDG_STATE_HOME": t.TempDir()})
				// Cascade's file actions carry no cwd: the project is the
				// hook's working directory (docs/agents.md).
				sys.getwd = func() (string, error) { return project, nil }
				args := append([]string{"hook", "--provider", agent}, tc.args...)
				code := run(context.Background(), args, sys)
				got := readDocReply(t, agent, code, f)
				want := tc.want
				if want == "ask" && agent != "antigravity" {
					want = "deny" // no ask: the headless deny with a pending request
				}
				if want == "allow" && (agent == "kiro" || agent == "windsurf") {
					want = "pass" // exit 0 is the only allow there is
				}
				if got.decision != want {
					t.Fatalf("decision %s, want %s (exit %d, stdout %q, stderr %q)", got.decision, want, code, f.stdout.String(), f.stderr.String())
				}
				if tc.wantText != "" && !strings.Contains(got.text, tc.wantText) {
					t.Errorf("text %q does not contain %q", got.text, tc.wantText)
				}
				if tc.want == "ask" && agent != "antigravity" && !strings.Contains(got.text, "approval request req_") {
					t.Errorf("ask turned deny does not name the approval request: %q", got.text)
				}
			})
		}
	}
}

// TestDocCodecsDetect: without --provider each of the three payloads is
// answered in its own dialect, and Cursor's preToolUse (same event name
// as Kiro's) stays Cursor's.
func TestDocCodecsDetect(t *testing.T) {
	project := t.TempDir()
	for _, tc := range []struct {
		agent, payload, wantOut string
		wantCode                int
	}{
		{"antigravity", string(docPayload(t, "antigravity", "shell", "git push --force origin main", project)), `"decision":"deny"`, 0},
		{"kiro", string(docPayload(t, "kiro", "shell", "git push --force origin main", project)), "", 2},
		{"windsurf", string(docPayload(t, "windsurf", "shell", "git push --force origin main", project)), "", 2},
		{"cursor", `{"hook_event_name":"preToolUse","conversation_id":"c","workspace_roots":["` + project + `"],"tool_name":"Shell","tool_input":{"command":"git push --force origin main"}}`, `"permission":"deny"`, 0},
		{"cursor with a kiro tool name", `{"hook_event_name":"preToolUse","conversation_id":"c","tool_name":"execute_bash","tool_input":{"command":"git push --force origin main"},"cwd":"` + project + `"}`, `"permission":"deny"`, 0},
	} {
		t.Run(tc.agent, func(t *testing.T) {
			f, sys := newFake(t, []byte(tc.payload), nil)
			code := run(context.Background(), []string{"hook"}, sys)
			if code != tc.wantCode || !strings.Contains(f.stdout.String(), tc.wantOut) || tc.wantOut == "" && f.stdout.Len() != 0 {
				t.Errorf("exit %d, stdout %q, stderr %q", code, f.stdout.String(), f.stderr.String())
			}
			if !strings.Contains(f.stdout.String()+f.stderr.String(), "git-push-force") {
				t.Errorf("the rule does not reach the reply: %q %q", f.stdout.String(), f.stderr.String())
			}
		})
	}
}

// TestDocCodecsInstall: install writes Cascade's hooks.json with the
// hook on the four pre-hook actions; Antigravity and Kiro are refused
// with the README to follow.
func TestDocCodecsInstall(t *testing.T) {
	old := argv0
	defer func() { argv0 = old }()
	root := t.TempDir()
	exe := filepath.Join(root, "bin", "toolguard")
	fakeToolguard(t, exe)
	argv0 = func() string { return exe }
	proj := t.TempDir()
	f, sys := newFake(t, nil, nil)
	sys.executable = func() (string, error) { return exe, nil }
	if code := run(context.Background(), []string{"install", "--provider", "windsurf", "--dir", proj}, sys); code != 0 {
		t.Fatalf("install exit %d: %s", code, f.stderr.String())
	}
	data, err := os.ReadFile(filepath.Join(proj, ".windsurf", "hooks.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Hooks map[string][]struct {
			Command    string `json:"command"`
			ShowOutput bool   `json:"show_output"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	for _, ev := range []string{"pre_run_command", "pre_write_code", "pre_read_code", "pre_mcp_tool_use"} {
		h := cfg.Hooks[ev]
		if len(h) != 1 || h[0].Command != exe+" hook --provider windsurf" || !h[0].ShowOutput {
			t.Errorf("%s: %+v", ev, h)
		}
	}
	for _, p := range []string{"antigravity", "agy", "kiro", "devin"} {
		f, sys := newFake(t, nil, nil)
		sys.executable = func() (string, error) { return exe, nil }
		code := run(context.Background(), []string{"install", "--provider", p, "--dir", proj}, sys)
		want := "hooks/" + map[string]string{"agy": "antigravity"}[p]
		if p != "agy" {
			want = "hooks/" + p
		}
		if code == 0 || !strings.Contains(f.stderr.String(), want+"/README.md") {
			t.Errorf("install --provider %s: exit %d, stderr %q", p, code, f.stderr.String())
		}
	}
}

// TestDevinProjectDir: Devin's payload names no cwd; DEVIN_PROJECT_DIR,
// which Devin sets for its hooks, is the workspace, so a workflow write is
// caught with the hook started anywhere. Without it and outside the
// project, the project-relative rule cannot match (docs/agents.md).
func TestDevinProjectDir(t *testing.T) {
	home := t.TempDir()
	project := filepath.Join(home, "project")
	if err := os.MkdirAll(filepath.Join(project, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	payload := docPayload(t, "devin", "write", filepath.Join(project, ".github", "workflows", "ci.yml"), project)
	for _, tc := range []struct {
		name string
		env  string
		want int
	}{
		{"DEVIN_PROJECT_DIR set", project, 2},
		{"no project known", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"HOME": home, "XDG_STATE_HOME": t.TempDir()}
			if tc.env != "" {
				env["DEVIN_PROJECT_DIR"] = tc.env
			}
			f, sys := newFake(t, payload, env)
			sys.getwd = func() (string, error) { return home, nil }
			code := run(context.Background(), []string{"hook", "--provider", "devin"}, sys)
			if code != tc.want {
				t.Fatalf("exit %d, want %d; stdout %q, stderr %q", code, tc.want, f.stdout.String(), f.stderr.String())
			}
			if tc.want == 2 && !strings.Contains(f.stdout.String(), "ci-workflow-write") {
				t.Errorf("stdout %q does not name the rule", f.stdout.String())
			}
		})
	}
}
