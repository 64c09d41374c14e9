package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestResultRecorded: after an approved call ran, the agent's PostToolUse
// records the outcome on the request and as an approval.result audit event,
// once per use; a call no approval allowed records nothing; the reply is
// empty, exit 0.
func TestResultRecorded(t *testing.T) {
	for _, c := range []struct {
		d        approvalDialect
		post     func(cmd string) string
		want     string // in the request file
		wantExit string
	}{
		{approvalDialects[0], func(cmd string) string {
			return `{"session_id":"s1","cwd":"/tmp/proj","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":` + jsonString(cmd) + `},"tool_response":{"stdout":"","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"t1"}`
		}, `"outcome": "success"`, ""},
		{approvalDialects[1], func(cmd string) string {
			return `{"session_id":"s1","turn_id":"u1","transcript_path":null,"cwd":"/tmp/proj","hook_event_name":"PostToolUse","model":"gpt-5.5","permission_mode":"default","tool_name":"Bash","tool_input":{"command":` + jsonString(cmd) + `},"tool_response":"Exit code: 128\nWall time: 0.1 seconds\nOutput:\nfatal: tag 'v1' already exists\n","tool_use_id":"t1"}`
		}, `"outcome": "failure"`, `"exit_code": 128`},
	} {
		t.Run(c.d.provider, func(t *testing.T) {
			e := newApprovalEnv(t, "")
			logPath := filepath.Join(e.home, "audit.jsonl")
			e.write(e.policy, `version = 1
[settings]
mode = "headless"
state_dir = "`+e.state+`"
audit_log = "`+logPath+`"

[[rule]]
id = "ask-tag"
decision = "ask"
command = "git tag"
`, 0o600)
			e.genKey(e.defaultKey())
			d := c.d
			// a result of a call no approval allowed: nothing
			code, out, errOut := e.hook(d, c.post("ls"))
			if code != 0 || out != "" {
				t.Fatalf("result of an unapproved call: exit %d %q %s", code, out, errOut)
			}
			id := e.expectDeny(d, d.shell("git tag v1"))
			e.approve(id, e.defaultKey())
			e.expectAllow(d, d.shell("git tag v1"))
			code, out, errOut = e.hook(d, c.post("git tag v1"))
			if code != 0 || out != "" {
				t.Fatalf("result: exit %d %q %s", code, out, errOut)
			}
			e.hook(d, c.post("git tag v1")) // the same use again: not recorded twice
			data, err := os.ReadFile(filepath.Join(e.state, "requests", id+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Count(string(data), `"outcome"`) != 1 || !strings.Contains(string(data), c.want) || !strings.Contains(string(data), c.wantExit) {
				t.Errorf("request file:\n%s", data)
			}
			log, _ := os.ReadFile(logPath)
			if strings.Count(string(log), `"event":"approval.result"`) != 1 || !strings.Contains(string(log), `"approval_id":"`+id+`"`) {
				t.Errorf("audit log:\n%s", log)
			}
			// the grant stays good for nothing more: the use was consumed
			if _, out, _ := e.hook(d, d.shell("git tag v1")); !strings.Contains(out, "deny") {
				t.Errorf("after the result, another use: %s", out)
			}
		})
	}
}
