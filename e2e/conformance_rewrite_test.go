package e2e

// Input rewriting: does an allow that carries a rewritten input (updatedInput, Gemini's
// hookSpecificOutput.tool_input) run the rewritten call? A raw hook answers every call with an
// allow whose input is replaced: the shell command `touch conformance-ran` becomes `touch
// rewritten-ran`; a Write of conformance-write.txt with "original" gets the content
// "rewritten". The probe reads which file exists, or what the file holds.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/toolguard/toolguard/internal/protocol"
)

// rewriteReplies builds, per suite agent, the allow reply carrying input in. Agents missing
// here are not probed; file maps the agents whose file tool takes {file_path, content}.
var rewriteReplies = map[string]func(in map[string]any) any{
	"claude":    claudeRewrite,
	"codebuddy": claudeRewrite,
	"codex":     claudeRewrite,
	"gemini": func(in map[string]any) any {
		return map[string]any{"decision": "allow", "hookSpecificOutput": map[string]any{"hookEventName": "BeforeTool", "tool_input": in}}
	},
}

var rewriteFileTools = map[string]bool{"claude": true, "codebuddy": true, "gemini": true} // Codex writes by apply_patch

func claudeRewrite(in map[string]any) any {
	return map[string]any{"hookSpecificOutput": map[string]any{"hookEventName": "PreToolUse", "permissionDecision": "allow",
		"permissionDecisionReason": "toolguard probe: rewritten", "updatedInput": in}}
}

type rewriteProbe struct {
	name string
	file bool
}

var rewriteProbes = []rewriteProbe{{"rewrite-shell", false}, {"rewrite-file", true}}

func runRewriteProbe(t *testing.T, s *suite, a *agent, p rewriteProbe) {
	build, ok := rewriteReplies[a.name]
	if !ok {
		t.Skipf("no rewrite reply known for %s", a.name)
	}
	if p.file && !rewriteFileTools[a.name] {
		t.Skipf("%s's file tool is not {file_path, content}", a.name)
	}
	measure := func(suffix string) string {
		c := newCase(t, s, a, a.name+"/conformance-"+p.name+suffix)
		const wfile = "conformance-write.txt"
		script := fakeScript{Shell: probeTool, Cwd: c.Proj}
		in := map[string]any{"command": "touch rewritten-ran"}
		if p.file {
			script = fakeScript{WriteFile: wfile, WriteBody: "original\n", Cwd: c.Proj}
			in = map[string]any{"file_path": filepath.Join(c.Proj, wfile), "content": "rewritten\n"}
		}
		reply, _ := json.Marshal(build(in))
		// the reply is cat from a file: dash's echo would turn the JSON's \n into a newline
		replyFile := filepath.Join(c.W, "reply-"+p.name+".json")
		if err := os.WriteFile(replyFile, append(reply, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd, mark := probeHook(c, p.name, "cat "+replyFile)
		c.installProbeHook(t, cmd, nil)
		c.probeRun(t, "1", script, "do it", "", nil)
		if !exists(mark) {
			t.Fatalf("the probe's hook never ran: nothing measured")
		}
		got := ""
		if p.file {
			data, err := os.ReadFile(filepath.Join(c.Proj, wfile))
			switch {
			case err != nil:
				got = "blocked"
			case string(data) == "rewritten\n":
				got = "honoured"
			default:
				got = "ignored"
			}
		} else {
			switch {
			case exists(filepath.Join(c.Proj, "rewritten-ran")):
				got = "honoured"
			case exists(filepath.Join(c.Proj, "conformance-ran")):
				got = "ignored"
			default:
				got = "blocked"
			}
		}
		return got
	}
	got := measure("")
	row, ok := protocol.ConformanceFor(a.provider)
	var fact protocol.Fact
	if ok {
		fact = row.RewriteShell
		if p.file {
			fact = row.RewriteFile
		}
	}
	if fact.Measured() && got != fact.Value {
		// One more run before calling it a change of the CLI: under load
		// CodeBuddy has been seen to write the original content once
		// (round 10's CI) and the rewritten one on every run alone. A
		// real change disagrees twice.
		t.Logf("%s: %s = %s where the table says %s; measuring once more", a.name, p.name, got, fact.Value)
		got = measure("-again")
	}
	compare(t, a, p.name, fact, got)
}
