package main

import (
	"encoding/base64"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// hookPost sends payload to POST /v1/hooks/{agent} with a node token and
// returns the reply as the process hook's: exit code, stdout, stderr.
func (s *served) hookPost(t *testing.T, agent, token string, payload []byte) (int, string, string) {
	t.Helper()
	req, err := http.NewRequest("POST", s.base+"/v1/hooks/"+agent, strings.NewReader(string(payload)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 {
		t.Fatalf("POST /v1/hooks/%s: %d %s", agent, res.StatusCode, body)
	}
	code, err := strconv.Atoi(res.Header.Get("Toolguard-Exit-Code"))
	if err != nil {
		t.Fatalf("exit code header %q", res.Header.Get("Toolguard-Exit-Code"))
	}
	stderr, _ := base64.StdEncoding.DecodeString(res.Header.Get("Toolguard-Stderr"))
	return code, string(body), string(stderr)
}

const testNodeToken = "node-token-abcdefghijklmnop"

// nodeTokens writes a node token file and returns its path.
func (e *serveEnv) nodeTokens(t *testing.T) string {
	t.Helper()
	p := filepath.Join(e.home, "nodes.tokens")
	if err := os.WriteFile(p, []byte("# nodes\nrunner-1:"+testNodeToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeHookMatchesProcessHook: every golden payload of Claude Code
// and Codex (testdata/payloads), under the defaults and under the golden
// allow policy, answered by POST /v1/hooks/{agent} and by the process
// hook with the same policy: the same reply bytes, exit code and stderr.
func TestServeHookMatchesProcessHook(t *testing.T) {
	for _, gp := range goldenPolicies {
		name := gp.name
		if name == "" {
			name = "defaults"
		}
		t.Run(name, func(t *testing.T) {
			e := newServeEnv(t)
			var pol []string
			if gp.file != "" {
				abs, _ := filepath.Abs(gp.file)
				pol = []string{"--policy", abs}
			}
			s := e.start(t, append([]string{"--node-tokens", e.nodeTokens(t)}, pol...)...)
			n := 0
			for _, agent := range []string{"claude-code", "codex"} {
				files, _ := filepath.Glob(filepath.Join("../../testdata/payloads", agent, "*.json"))
				sort.Strings(files)
				for _, file := range files {
					payload, err := os.ReadFile(file)
					if err != nil {
						t.Fatal(err)
					}
					wantCode, wantOut, wantErr := e.runTool(t, payload, append([]string{"hook", "--provider", agent}, pol...)...)
					code, out, errOut := s.hookPost(t, agent, testNodeToken, payload)
					if code != wantCode || out != wantOut || errOut != wantErr {
						t.Errorf("%s: HTTP exit %d\n%s\n%s\nprocess hook exit %d\n%s\n%s", file, code, out, errOut, wantCode, wantOut, wantErr)
					}
					n++
				}
			}
			if n < 16 {
				t.Fatalf("only %d payloads", n)
			}
		})
	}
}

// TestServeHookDecides: the security behaviour through HTTP in two
// dialects: a force push is denied with the rule's reason, its look-alikes
// pass; a headless ask records a request on the server, an approval
// through the API allows the identical call once; an unreadable payload
// is denied (on_error); the audit line is written by the server.
func TestServeHookDecides(t *testing.T) {
	e := newServeEnv(t)
	state := filepath.Join(e.home, "state")
	auditLog := filepath.Join(e.home, "audit.jsonl")
	pol := filepath.Join(e.home, "policy.toml")
	if err := os.WriteFile(pol, []byte(`version = 1
[settings]
mode = "headless"
state_dir = "`+state+`"
audit_log = "`+auditLog+`"
[[rule]]
id = "ask-tag"
decision = "ask"
command = "git tag"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.start(t, "--policy", pol, "--node-tokens", e.nodeTokens(t))
	for _, d := range approvalDialects[:2] {
		// each dialect its own session: a pending request holds its session
		shell := d.shell
		d.shell = func(cmd string) string {
			return strings.Replace(shell(cmd), `"session_id":"s1"`, `"session_id":"s-`+d.provider+`"`, 1)
		}
		t.Run(d.provider, func(t *testing.T) {
			for _, tc := range []struct {
				cmd  string
				deny bool
			}{
				{"git push --force origin main", true},
				{"git push -f origin main", true},
				{"git push origin main", false},
				{"echo git push --force", false},
				{"git status", false},
			} {
				code, out, _ := s.hookPost(t, d.provider, testNodeToken, []byte(d.shell(tc.cmd)))
				if code != 0 || strings.Contains(out, d.deny) != tc.deny {
					t.Errorf("%q: exit %d %s (want deny %v)", tc.cmd, code, out, tc.deny)
				}
			}
			code, out, _ := s.hookPost(t, d.provider, testNodeToken, []byte(`{"tool_name":`))
			if code != 0 || !strings.Contains(out, d.deny) || !strings.Contains(out, "cannot read the hook payload") {
				t.Errorf("malformed payload: exit %d %s", code, out)
			}

			tag := []byte(d.shell("git tag v1-" + d.provider))
			_, out, _ = s.hookPost(t, d.provider, testNodeToken, tag)
			id := approvalID.FindString(out)
			if !strings.Contains(out, d.deny) || id == "" {
				t.Fatalf("headless ask: %s", out)
			}
			if st, body := s.call(t, "POST", "/v1/approvals/"+id+"/approve", s.approver, `{}`); st != 200 {
				t.Fatalf("approve: %d %s", st, body)
			}
			_, out, _ = s.hookPost(t, d.provider, testNodeToken, tag)
			if strings.Contains(out, "deny") || (d.allow != "" && !strings.Contains(out, d.allow)) {
				t.Fatalf("after approval: %s", out)
			}
			if _, out, _ = s.hookPost(t, d.provider, testNodeToken, tag); !strings.Contains(out, d.deny) {
				t.Fatalf("the one use was given twice: %s", out)
			}
			if st, body := s.call(t, "POST", "/v1/approvals/"+id+"/reject", s.approver, `{"reason":"late"}`); st != 409 || !strings.Contains(body, "already approved") {
				t.Errorf("reject after approve: %d %s", st, body)
			}
		})
	}
	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"git push --force origin main"`) || !strings.Contains(string(data), "allowed once by approval") {
		t.Errorf("audit log:\n%s", data)
	}
	// Every decision line the server wrote names the node whose token made the call.
	decisions := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if !strings.Contains(line, `"event":"policy.decision"`) {
			continue
		}
		decisions++
		if !strings.Contains(line, `"node":"runner-1"`) {
			t.Errorf("a decision line without its node: %s", line)
		}
	}
	if decisions == 0 {
		t.Errorf("no decision line in the audit log:\n%s", data)
	}
}
