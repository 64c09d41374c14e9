package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
)

// scopePolicy asks about writes and deletes outside the workspace, and
// denies reads outside it, so that every op is visible in the decision.
const scopePolicy = `
[[rule]]
id = "out-write"
decision = "ask"
path = "/**"
op = ["write", "delete"]
scope = "outside"

[[rule]]
id = "out-read"
decision = "deny"
path = "/**"
op = "read"
scope = "outside"
`

func TestWorkspaceScope(t *testing.T) {
	t.Parallel()
	p, err := Load([]Source{{Path: "p.toml", Data: []byte(scopePolicy)}}, LoadOptions{NoBuiltin: true})
	if err != nil {
		t.Fatal(err)
	}
	const ws = "/home/user/project"
	// A symlink inside the project that points outside it.
	resolve := func(s string) string {
		if rest, ok := strings.CutPrefix(s, ws+"/link"); ok {
			return "/etc" + rest
		}
		return s
	}
	file := func(kind call.Kind, tool string, op call.Op, paths ...string) call.Call {
		c := call.Call{Kind: kind, Tool: tool, Cwd: ws + "/sub"}
		for _, p := range paths {
			c.Paths = append(c.Paths, call.Path{Path: p, Op: op})
		}
		return c
	}
	mcp := func(tool string, in map[string]any) call.Call {
		b, _ := json.Marshal(in)
		c := call.Call{Kind: call.KindMCP, Tool: "mcp__fs__" + tool, MCPServer: "fs", MCPTool: tool, Input: b, Cwd: ws}
		protocol.AddMCPPaths(&c) // as the hook's decode does
		return c
	}
	sh := func(cmd string) call.Call {
		return call.Call{Kind: call.KindShell, Tool: "Bash", Command: cmd, Cwd: ws}
	}
	tests := []struct {
		name string
		c    call.Call
		want call.Decision
	}{
		{"write inside", file(call.KindWrite, "Write", call.OpWrite, ws+"/a.go"), call.Pass},
		{"write outside", file(call.KindWrite, "Write", call.OpWrite, "/etc/hosts"), call.Ask},
		{"write under /tmp", file(call.KindWrite, "Write", call.OpWrite, "/tmp/x"), call.Pass},
		{"write under /var/tmp", file(call.KindWrite, "Write", call.OpWrite, "/var/tmp/x"), call.Pass},
		{"/tmpfoo is not /tmp", file(call.KindWrite, "Write", call.OpWrite, "/tmpfoo/x"), call.Ask},
		{"edit outside", file(call.KindEdit, "Edit", call.OpWrite, "/home/user/.bashrc"), call.Ask},
		{"notebook inside", file(call.KindEdit, "NotebookEdit", call.OpWrite, ws+"/n.ipynb"), call.Pass},
		{"read inside", file(call.KindRead, "Read", call.OpRead, ws+"/README.md"), call.Pass},
		{"read outside", file(call.KindRead, "Read", call.OpRead, "/etc/shadow"), call.Deny},
		{"search outside", file(call.KindSearch, "Grep", call.OpRead, "/var/log"), call.Deny},
		{"sibling with the same prefix", file(call.KindWrite, "Write", call.OpWrite, ws+"-evil/x"), call.Ask},
		{"workspace root itself", file(call.KindWrite, "Write", call.OpWrite, ws), call.Pass},
		{"symlink escape", file(call.KindWrite, "Write", call.OpWrite, ws+"/link/passwd"), call.Ask},
		{"move whose new path is outside", file(call.KindEdit, "apply_patch", call.OpWrite, ws+"/a.go", "/opt/a.go"), call.Ask},
		{"glob pattern rooted outside", call.Call{Kind: call.KindSearch, Tool: "Glob", Cwd: ws, Patterns: []string{"/etc/**/*.conf"}}, call.Deny},
		{"glob pattern inside", call.Call{Kind: call.KindSearch, Tool: "Glob", Cwd: ws, Patterns: []string{"**/*.go"}}, call.Pass},
		{"mcp write outside", mcp("write_file", map[string]any{"path": "/etc/cron.d/x"}), call.Ask},
		{"mcp move to outside", mcp("move_file", map[string]any{"source": "a.txt", "destination": "/srv/a.txt"}), call.Ask},
		{"mcp read outside", mcp("read_file", map[string]any{"path": "/etc/passwd"}), call.Deny},
		{"mcp array of paths", mcp("read_multiple_files", map[string]any{"paths": []any{"a", "/etc/passwd"}}), call.Deny},
		{"mcp inside", mcp("write_file", map[string]any{"path": "notes/a.md"}), call.Pass},
		{"shell ../ escape", sh("echo x > ../../etc/motd"), call.Ask},
		{"shell redirect inside", sh("echo x > out.txt"), call.Pass},
		{"shell cd then relative target", sh("cd / && rm -rf etc"), call.Ask},
		{"shell cp destination outside", sh("cp a.txt /opt/a.txt"), call.Ask},
		{"shell mv source and destination inside", sh("mv a b"), call.Pass},
		{"shell tee outside", sh("echo x | tee -a ~/.profile"), call.Ask},
		{"shell read outside", sh("cat /etc/shadow"), call.Deny},
		{"shell rm under /tmp", sh("rm -rf /tmp/build"), call.Pass},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			res := p.Evaluate(tc.c, Env{Home: "/home/user", Workspace: ws, Resolve: resolve})
			if res.Decision != tc.want {
				t.Errorf("got %v (%s), want %v; targets %+v", res.Decision, res.Reason, tc.want, res.Targets)
			}
			if res.Decision > call.Allow && !strings.Contains(res.Reason, "outside the workspace "+ws) {
				t.Errorf("reason does not say which path is outside of what: %q", res.Reason)
			}
		})
	}
}

// TestExposedWorkspace: a workspace at /, at the home directory or above it
// shelters nothing, so the defaults' scope rules ask about a recursive
// delete there as they would from a project; a project's own build output
// still passes, and a temp directory stays safe.
func TestExposedWorkspace(t *testing.T) {
	t.Parallel()
	p, err := Load(nil, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const home = "/home/user"
	tests := []struct {
		ws, cwd, cmd string
		want         call.Decision
	}{
		{home, home, "rm -rf src/build", call.Ask},
		{home, home, "rm -rf ~/Documents/old", call.Ask},
		{home, home, "rm -rf build", call.Deny}, // a direct child of home: rm-recursive-root
		{home, home, "find src/old -delete", call.Ask},
		{home, home, "rm -rf /tmp/scratch", call.Pass},
		{"/home", "/home", "rm -rf user/src/build", call.Ask},
		{"/", "/", "rm -r srv/data/x", call.Ask},
		{home + "/project", home + "/project", "rm -rf build", call.Pass},
		{home + "/project", home + "/project", "rm -rf ~/Documents/old", call.Ask},
		{"", home, "rm -rf src/build", call.Ask}, // the workspace falls back to the cwd: home
	}
	for _, tt := range tests {
		c := call.Call{Kind: call.KindShell, Tool: "Bash", Command: tt.cmd, Cwd: tt.cwd}
		if got := p.Evaluate(c, Env{Home: home, Workspace: tt.ws}).Decision; got != tt.want {
			t.Errorf("workspace %q, %s: %v, want %v", tt.ws, tt.cmd, got, tt.want)
		}
	}
	for _, tt := range []struct {
		ws, home string
		want     bool
	}{
		{"/", "/home/u", true}, {"/home/u", "/home/u", true}, {"/home", "/home/u", true},
		{"/home/u/p", "/home/u", false}, {"/srv/p", "/home/u", false}, {"", "/home/u", false},
		{"/srv/p", "", false}, {"/home/u2", "/home/u", false},
	} {
		if got := exposedWorkspace(tt.ws, tt.home); got != tt.want {
			t.Errorf("exposedWorkspace(%q, %q) = %v, want %v", tt.ws, tt.home, got, tt.want)
		}
	}
}
