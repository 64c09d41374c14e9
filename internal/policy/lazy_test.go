package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/tools/hookbench/policygen"
)

// genCalls are calls over the generated 10k policy's vocabulary: shell
// commands for many programs (with subcommands, flags, redirections into
// the service trees), writes to many paths, MCP and web calls.
func genCalls(n int) []call.Call {
	rng := rand.New(rand.NewPCG(4, 2))
	progs := []string{"git", "npm", "docker", "kubectl", "helm", "terraform", "aws", "make", "cargo", "go",
		"psql", "ssh", "curl", "systemctl", "gh", "jq", "ls", "cat", "rm", "echo"}
	for i := 0; i < 40; i++ {
		progs = append(progs, fmt.Sprintf("corp-tool-%d", rng.IntN(370)))
	}
	subs := []string{"deploy", "delete", "apply", "rollback", "publish", "migrate", "drop", "exec", "run",
		"push", "release", "destroy", "scale", "restart", "status", "sync"}
	flags := []string{"--force", "--prod", "--all", "--yes", "-y", "--no-verify", "--dry-run", "-v", ""}
	wpath := func() string {
		svc := rng.IntN(2000)
		switch rng.IntN(5) {
		case 0:
			return fmt.Sprintf("/home/u/proj/services/svc-%d/secrets/key.pem", svc)
		case 1:
			return fmt.Sprintf("/home/u/proj/services/svc-%d/deploy/app.yaml", svc)
		case 2:
			return fmt.Sprintf("/srv/data/svc-%d/db/x", svc)
		case 3:
			return fmt.Sprintf("services/svc-%d/secrets/k", svc)
		}
		return fmt.Sprintf("/home/u/proj/src/f%d.go", svc)
	}
	var out []call.Call
	for len(out) < n {
		switch rng.IntN(6) {
		case 0, 1:
			cmd := fmt.Sprintf("%s %s %s %s", progs[rng.IntN(len(progs))], subs[rng.IntN(len(subs))],
				flags[rng.IntN(len(flags))], flags[rng.IntN(len(flags))])
			if rng.IntN(3) == 0 {
				cmd += fmt.Sprintf(" --env production-%d", rng.IntN(1000))
			}
			if rng.IntN(4) == 0 {
				cmd += " > " + wpath()
			}
			if rng.IntN(5) == 0 {
				cmd += fmt.Sprintf(" && corp-%d-x %s && echo SECRET_%d_ABCDEFGHIJKLMNOP", rng.IntN(100), subs[rng.IntN(len(subs))], rng.IntN(100000))
			}
			out = append(out, call.Call{Kind: call.KindShell, Tool: "Bash", Command: cmd, Cwd: "/home/u/proj"})
		case 2:
			kind, tool := call.KindWrite, "Write"
			if rng.IntN(2) == 0 {
				kind, tool = call.KindEdit, "Edit"
			}
			out = append(out, call.Call{Kind: kind, Tool: tool, Cwd: "/home/u/proj",
				Paths: []call.Path{{Path: wpath(), Op: call.OpWrite}}})
		case 3:
			srv, tool := fmt.Sprintf("corp-mcp-%d", rng.IntN(300)), subs[rng.IntN(len(subs))]+"_things"
			out = append(out, call.Call{Kind: call.KindMCP, Tool: "mcp__" + srv + "__" + tool, Cwd: "/home/u/proj",
				MCPServer: srv, MCPTool: tool, Input: []byte(`{}`)})
		case 4:
			out = append(out, call.Call{Kind: call.KindWeb, Tool: "WebFetch", Cwd: "/home/u/proj",
				URL: fmt.Sprintf("https://api.internal-%d.example.com/x", rng.IntN(1000))})
		default:
			out = append(out, call.Call{Kind: call.KindRead, Tool: "Read", Cwd: "/home/u/proj",
				Paths: []call.Path{{Path: wpath(), Op: call.OpRead}}})
		}
	}
	return out
}

// linear is the policy with an index that sends every rule of a class to
// every call: the reference the real index must agree with.
func linear(p *Policy) *Policy {
	q := &Policy{Settings: p.Settings, rules: p.rules, tests: p.tests}
	rules := allRules(p)
	q.idx = index{lists: map[string][]int32{}, n: len(rules)}
	for i, r := range rules {
		switch r.m.class {
		case classCall:
			q.idx.add(catCallOther, "", int32(i))
		case classPath:
			q.idx.add(catPathAll, "", int32(i))
		default:
			q.idx.add(catAnyName, "", int32(i))
		}
	}
	return q
}

func sortedMatches(r *Result) string {
	var out []string
	for _, m := range r.Matches {
		out = append(out, m.Rule)
	}
	return strings.Join(sortStrings(out), ",")
}

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
}

// TestLazy10kMatchesFull: on the generated 10,000-rule policy, the lazily
// loaded materialized file decides every generated call as the full load
// does, and both agree with an unindexed scan of every rule.
func TestLazy10kMatchesFull(t *testing.T) {
	if testing.Short() {
		t.Skip("slow")
	}
	layered, err := Load([]Source{{Path: "big.toml", Data: []byte(policygen.TOML(10000))}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := layered.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	full, err := Load([]Source{{Path: "policy.json", Data: data}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lazy, err := Load([]Source{{Path: "policy.json", Data: data}}, LoadOptions{Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if lazyOf(full) != nil || lazyOf(lazy) == nil {
		t.Fatalf("full loaded lazily %v, lazy %v", lazyOf(full) != nil, lazyOf(lazy) != nil)
	}
	ref := linear(full)
	env := Env{Home: "/home/u", Workspace: "/home/u/proj"}
	calls := genCalls(600)
	// Calls that hit the bare-regex and glob-named rules (indexed by a
	// required literal and a program-name prefix).
	hits := 0
	for _, r := range allRules(full) {
		var cmd string
		switch {
		case strings.HasPrefix(r.ID, "org-bare-"):
			cmd = "echo " + strings.Replace(r.spec.Regex, "[A-Z0-9]{16}", "ABCDEFGHIJKLMNOP", 1)
		case strings.HasPrefix(r.ID, "org-glob-"):
			f := strings.Fields(r.spec.Command[0])
			cmd = strings.Replace(f[0], "*", "x", 1) + " " + f[1] + " --force"
		default:
			continue
		}
		if hits++; hits%4 == 0 {
			cmd = "ls && " + cmd
		}
		calls = append(calls, call.Call{Kind: call.KindShell, Tool: "Bash", Command: cmd, Cwd: "/home/u/proj"})
	}
	matched := 0
	for _, c := range calls {
		a, b, r := full.Evaluate(c, env), lazy.Evaluate(c, env), ref.Evaluate(c, env)
		if a.Decision != b.Decision || ruleID(a) != ruleID(b) || a.Reason != b.Reason || matchIDs(a) != matchIDs(b) {
			t.Errorf("%s %s%s%s: full %v/%s [%s], lazy %v/%s [%s]", c.Kind, c.Command, c.MCPTool, c.URL,
				a.Decision, ruleID(a), matchIDs(a), b.Decision, ruleID(b), matchIDs(b))
		}
		if a.Decision != r.Decision || ruleID(a) != ruleID(r) || sortedMatches(a) != sortedMatches(r) {
			t.Errorf("%s %s%s%s %v: indexed %v/%s [%s], unindexed %v/%s [%s]", c.Kind, c.Command, c.MCPTool, c.URL, c.Paths,
				a.Decision, ruleID(a), sortedMatches(a), r.Decision, ruleID(r), sortedMatches(r))
		}
		if a.Rule != nil {
			matched++
		}
	}
	decoded := 0
	for _, r := range lazyOf(lazy).got {
		if r != nil {
			decoded++
		}
	}
	t.Logf("%d calls, %d decided by a rule; the lazy policy decoded %d of %d rules", len(calls), matched, decoded, lazy.RuleCount())
	if matched < len(calls)/5 {
		t.Errorf("only %d of %d calls matched a rule: the calls miss the policy", matched, len(calls))
	}
	if got := len(allRules(lazy)); got != len(allRules(full)) || rulesErr(lazy) != nil {
		t.Errorf("lazy Rules: %d rules (%v), want %d", got, rulesErr(lazy), len(allRules(full)))
	}
}

// fixCRC recomputes the checksum of a materialized file whose rule lines
// or index a test changed, so that the lazy loader's checksum accepts it.
func fixCRC(t *testing.T, data []byte) []byte {
	t.Helper()
	out := fixCRCIfPossible(data)
	if bytes.Equal(out, data) {
		t.Fatal("fixCRC: not the materialized layout")
	}
	return out
}

func materializedTestPolicy(t *testing.T) []byte {
	t.Helper()
	p := load(t, LoadOptions{}, platform, "[[rule]]\nid = \"ask-tag\"\ndecision = \"ask\"\ncommand = \"git tag\"\n")
	b, err := p.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestLazyCorruptRuleFailsClosed: a rule line that does not decode, or
// does not compile, denies (on_error) the calls that reach it, with the
// error in the reason; calls that do not reach it are decided as before.
func TestLazyCorruptRuleFailsClosed(t *testing.T) {
	good := materializedTestPolicy(t)
	// other is git status, which reaches the rule by its program name
	// (the index): every rule a call reaches is compiled, so a broken one
	// fails it closed too.
	for _, tc := range []struct {
		name, from, to, want string
		other                call.Decision
	}{
		{"json", `{"id":"ask-tag",`, `{"id":"ask-tag",,`, "invalid character", call.Deny},
		{"compile", `"command":["git tag"]`, `"command":["git tag"],"regex":"(["`, "bad regex", call.Deny},
		{"unknown field", `"command":["git tag"]`, `"command":["git tag"],"comand":"x"`, "unknown field", call.Deny},
		{"bad glob", `"command":["git tag"]`, `"command":["git t[ag"]`, "bad glob", call.Deny},
		{"empty prefix", `"command":["git tag"]`, `"command":["git tag",""]`, "empty command prefix", call.Deny},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !bytes.Contains(good, []byte(tc.from)) {
				t.Fatalf("%q not in the materialized policy", tc.from)
			}
			bad := fixCRC(t, bytes.Replace(good, []byte(tc.from), []byte(tc.to), 1))
			p, err := Load([]Source{{Path: "policy.json", Data: bad}}, LoadOptions{Lazy: true})
			if err != nil || lazyOf(p) == nil {
				t.Fatalf("lazy load: %v (lazy %v)", err, p != nil && lazyOf(p) != nil)
			}
			res := p.Evaluate(shell("git tag v1"), Env{})
			if res.Decision != call.Deny || res.Cause != CauseError || !strings.Contains(res.Reason, tc.want) || !strings.Contains(res.Reason, "on_error") {
				t.Errorf("git tag: %v (%s) %q, want deny by on_error naming %q", res.Decision, res.Cause, res.Reason, tc.want)
			}
			if res := p.Evaluate(shell("ls"), Env{}); res.Decision != call.Pass {
				t.Errorf("ls: %v %q, want pass (reaches no broken rule)", res.Decision, res.Reason)
			}
			if res := p.Evaluate(shell("git status"), Env{}); res.Decision != tc.other || tc.other == call.Deny && res.Cause != CauseError {
				t.Errorf("git status: %v (%s) %q, want %v", res.Decision, res.Cause, res.Reason, tc.other)
			}
			if rules, err := p.Rules(); len(rules) != p.RuleCount()-1 || err == nil {
				t.Errorf("Rules: %d of %d, err %v; want the broken one left out and reported", len(rules), p.RuleCount(), err)
			}
			// Read in full (validate, rules, check), the file does not load.
			if _, err := Load([]Source{{Path: "policy.json", Data: bad}}, LoadOptions{}); err == nil {
				t.Error("full load of the corrupted file succeeded")
			}
		})
	}
}

// TestLazyConcurrent evaluates on one lazy policy from many goroutines
// (run with -race).
func TestLazyConcurrent(t *testing.T) {
	p, err := Load([]Source{{Path: "policy.json", Data: materializedTestPolicy(t)}}, LoadOptions{Lazy: true})
	if err != nil || lazyOf(p) == nil {
		t.Fatalf("%v", err)
	}
	want := map[string]call.Decision{}
	cmds := []string{"git tag v1", "git push --force origin main", "ls", "rm -rf /", "curl x | sh"}
	full, _ := Load([]Source{{Path: "policy.json", Data: materializedTestPolicy(t)}}, LoadOptions{})
	for _, c := range cmds {
		want[c] = full.Evaluate(shell(c), Env{}).Decision
	}
	done := make(chan string, 8*len(cmds))
	for g := 0; g < 8; g++ {
		go func() {
			for _, c := range cmds {
				if d := p.Evaluate(shell(c), Env{}).Decision; d != want[c] {
					done <- fmt.Sprintf("%s: %v, want %v", c, d, want[c])
					continue
				}
				done <- ""
			}
		}()
	}
	for i := 0; i < 8*len(cmds); i++ {
		if msg := <-done; msg != "" {
			t.Error(msg)
		}
	}
}

// TestLazyCorruptIndexFailsClosed: an index list that does not parse
// fails the calls that look it up closed.
func TestLazyCorruptIndexFailsClosed(t *testing.T) {
	good := materializedTestPolicy(t)
	i := bytes.Index(good, []byte(`|n:git=`))
	if i < 0 {
		t.Fatal("no git list in the index")
	}
	bad := append([]byte(nil), good...)
	bad[i+len(`|n:git=`)] = 'x'
	p, err := Load([]Source{{Path: "policy.json", Data: fixCRC(t, bad)}}, LoadOptions{Lazy: true})
	if err != nil || lazyOf(p) == nil {
		t.Fatalf("lazy load: %v", err)
	}
	if res := p.Evaluate(shell("git status"), Env{}); res.Decision != call.Deny || res.Cause != CauseError || !strings.Contains(res.Reason, "index is corrupt") {
		t.Errorf("git status: %v %q, want deny by on_error", res.Decision, res.Reason)
	}
	if res := p.Evaluate(shell("ls"), Env{}); res.Decision != call.Pass {
		t.Errorf("ls: %v %q, want pass", res.Decision, res.Reason)
	}
}

// TestLazyLayoutIsStrict: anything but the exact layout with a matching
// checksum is read by the full loader, never half-read.
func TestLazyLayoutIsStrict(t *testing.T) {
	good := materializedTestPolicy(t)
	p, err := Load([]Source{{Path: "policy.json", Data: good}}, LoadOptions{Lazy: true})
	if err != nil || lazyOf(p) == nil {
		t.Fatalf("good file: %v, lazy %v", err, p != nil && lazyOf(p) != nil)
	}
	// Hand-edited without fixing the checksum: the full loader reads it
	// (and the edit counts, whatever the index says).
	edited := bytes.Replace(good, []byte(`"command":["git tag"]`), []byte(`"command":["corp-x run"]`), 1)
	p, err = Load([]Source{{Path: "policy.json", Data: edited}}, LoadOptions{Lazy: true})
	if err != nil || lazyOf(p) != nil {
		t.Fatalf("edited: %v, lazy %v", err, p != nil && lazyOf(p) != nil)
	}
	if r := p.Evaluate(shell("corp-x run"), Env{}); ruleID(r) != "ask-tag" {
		t.Errorf("edited rule not in effect: %v/%s", r.Decision, ruleID(r))
	}
	for name, data := range map[string][]byte{
		"indented":     bytes.Replace(good, []byte("\n{"), []byte("\n {"), 1),
		"trailing":     append(append([]byte(nil), good...), ' '),
		"joined lines": bytes.Replace(good, []byte("},\n{"), []byte("},{"), 1),
		"count":        bytes.Replace(good, []byte(`"index":"v2 n=`), []byte(`"index":"v2 n=1`), 1),
		"old version":  bytes.Replace(good, []byte(`"index":"v2 `), []byte(`"index":"v1 `), 1),
		"blocks":       bytes.Replace(good, []byte(` blocks=0`), []byte(` blocks=1`), 1),
		"index ranges": bytes.Replace(good, []byte(` cats=`), []byte(` cats=a0-5,`), 1),
		"index escape": bytes.Replace(good, []byte(`|g:=`), []byte(`|g:\\=`), 1),
	} {
		if bytes.Equal(data, good) {
			t.Errorf("%s: no change", name)
			continue
		}
		if p := loadLazy(Source{Path: "policy.json"}, memFile{bytes.NewReader(fixCRCIfPossible(data))}, LoadOptions{}); p != nil {
			t.Errorf("%s: read lazily", name)
		}
	}
}

// TestLazyBlockSplitFailsClosed: rule lines that no longer split into
// their block of 16 where the index says (an edit with the checksum
// fixed up, inside the last block) deny the calls that reach them, by
// on_error; calls that reach only intact blocks are decided as usual.
func TestLazyBlockSplitFailsClosed(t *testing.T) {
	good := materializedTestPolicy(t)
	bad := fixCRC(t, bytes.Replace(good, []byte("},\n{\"id\":\"ask-tag\""), []byte("},{\"id\":\"ask-tag\""), 1))
	if bytes.Equal(bad, good) {
		t.Fatal("no change")
	}
	p, err := Load([]Source{{Path: "policy.json", Data: bad}}, LoadOptions{Lazy: true})
	if err != nil || lazyOf(p) == nil {
		t.Fatalf("lazy load: %v", err)
	}
	if res := p.Evaluate(shell("git tag v1"), Env{}); res.Decision != call.Deny || res.Cause != CauseError ||
		!strings.Contains(res.Reason, "block table") {
		t.Errorf("git tag: %v (%s) %q, want deny by on_error", res.Decision, res.Cause, res.Reason)
	}
	if res := p.Evaluate(shell("ls"), Env{}); res.Decision != call.Pass {
		t.Errorf("ls: %v %q, want pass", res.Decision, res.Reason)
	}
}

func fixCRCIfPossible(data []byte) []byte {
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 || !bytes.HasSuffix(data, []byte(rulesClose)) || !bytes.HasPrefix(data[nl+1:], []byte(rulesOpen)) {
		return data
	}
	q := bytes.LastIndexByte(data[:nl-2], '"')
	raw := string(data[q+1 : nl-2])
	i := strings.IndexByte(raw, '|')
	if i < 0 {
		return data
	}
	head, lists := raw[:i], raw[i:]
	body := data[nl+1+len(rulesOpen) : len(data)-len(rulesClose)]
	f := strings.Fields(head)
	if len(f) != 5 || !strings.HasPrefix(f[2], "crc=") || !strings.HasPrefix(f[4], "blocks=") {
		return data
	}
	blocks := strings.TrimPrefix(f[4], "blocks=")
	crc := crc32.Update(crc32.Update(crc32.ChecksumIEEE([]byte(lists)), crc32.IEEETable, []byte(blocks)), crc32.IEEETable, body)
	f[2] = fmt.Sprintf("crc=%d", crc)
	newHead := strings.Join(f, " ")
	out := append([]byte(nil), data[:q+1]...)
	out = append(out, newHead...)
	out = append(out, lists...)
	return append(out, data[nl-2:]...)
}

// TestLazyBuiltin: the default policy loaded the way the hook loads it
// (LoadOptions.Lazy: rules compiled when a call reaches them, the
// build-time index) decides every example of every default rule, and
// every dodge-table command, exactly as the policy loaded in full.
func TestLazyBuiltin(t *testing.T) {
	env := Env{Home: "/home/user", Workspace: "/home/user/project"}
	full, err := Load(nil, LoadOptions{Home: env.Home})
	if err != nil {
		t.Fatal(err)
	}
	var calls []call.Call
	for _, r := range allRules(full) {
		for _, ex := range append(slices.Clone(r.spec.Examples.Match), r.spec.Examples.NotMatch...) {
			c, err := exampleCall(r, ex)
			if err != nil {
				t.Fatal(err)
			}
			calls = append(calls, c)
		}
	}
	data, err := os.ReadFile("testdata/dodges.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		var d struct{ Cmd string }
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatal(err)
		}
		calls = append(calls, call.Call{Kind: call.KindShell, Tool: "Bash", Command: d.Cmd, Cwd: env.Workspace})
	}
	for _, c := range calls {
		// A fresh lazy policy per call: each decides from the rules that
		// call reaches alone.
		lazy, err := Load(nil, LoadOptions{Home: env.Home, Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		if lazyOf(lazy) == nil {
			t.Fatal("the defaults did not load lazily")
		}
		want, got := full.Evaluate(c, env), lazy.Evaluate(c, env)
		if got.Decision != want.Decision || got.Reason != want.Reason {
			t.Errorf("%s %q %v: lazy %v %q, full %v %q", c.Kind, c.Command, c.Paths, got.Decision, got.Reason, want.Decision, want.Reason)
		}
	}
	lazy, _ := Load(nil, LoadOptions{Home: env.Home, Lazy: true})
	if lazy.RuleCount() != len(allRules(full)) || len(allRules(lazy)) != len(allRules(full)) || lazy.Hash() != full.Hash() {
		t.Errorf("lazy defaults: %d/%d rules, hash %s; full: %d, %s", lazy.RuleCount(), len(allRules(lazy)), lazy.Hash(), len(allRules(full)), full.Hash())
	}
	if t.Failed() {
		return
	}
	t.Logf("%d calls decided alike", len(calls))
}

// TestBuiltinLines: every default rule's materialized line is recognized
// as that default (builtinLine), and decoding the line gives exactly the
// build-time decoded rule, so taking the one for the other changes
// nothing. A line that differs by one byte, or a default a layer
// changed, is decoded; a lazily loaded file over the defaults decides as
// the defaults do.
func TestBuiltinLines(t *testing.T) {
	over, err := Load([]Source{{Path: "org.toml", Layer: "org", Data: []byte(`
[[rule]]
id = "git-push-force"
decision = "ask"
command = ["git push"]
args = ["--force"]

[[rule]]
id = "org-extra"
decision = "deny"
command = ["terraform destroy"]
`)}}, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := over.Materialize()
	if err != nil {
		t.Fatal(err)
	}
	body := data[bytes.Index(data, []byte(rulesOpen))+len(rulesOpen):]
	lines := bytes.Split(bytes.TrimSuffix(body, []byte("\n"+rulesClose)), []byte("\n"))
	seen := 0
	for _, line := range lines {
		line = bytes.TrimSuffix(line, []byte(","))
		var decoded fileRule
		if err := json.Unmarshal(line, &decoded); err != nil {
			t.Fatalf("line does not decode: %v: %.100s", err, line)
		}
		j := builtinLine(line)
		if decoded.Layer != "builtin" {
			if j >= 0 {
				t.Errorf("rule %q of layer %q taken as default %d", decoded.ID, decoded.Layer, j)
			}
			continue
		}
		if j < 0 {
			t.Errorf("default %q: its line is not recognized", decoded.ID)
			continue
		}
		seen++
		if !reflect.DeepEqual(builtinGen.Rules[j], decoded) {
			t.Errorf("default %q: the generated rule differs from its decoded line:\n%#v\n%#v", decoded.ID, builtinGen.Rules[j], decoded)
		}
		for _, at := range []int{0, len(line) / 2, len(line) - 2} {
			bad := bytes.Clone(line)
			bad[at] ^= 1
			if k := builtinLine(bad); k >= 0 {
				t.Errorf("default %q: a line changed at %d is taken as default %d", decoded.ID, at, k)
			}
		}
	}
	// Every default but the one the org layer replaced is a line.
	if want := len(builtinGen.Rules) - 1; seen != want {
		t.Errorf("%d default lines recognized, want %d", seen, want)
	}
	lazy, err := Load([]Source{{Path: "policy.json", Data: data}}, LoadOptions{Lazy: true})
	if err != nil || lazyOf(lazy) == nil {
		t.Fatalf("lazy load: %v, lazy %v", err, lazyOf(lazy) != nil)
	}
	env := Env{Home: "/home/u", Workspace: "/home/u/proj"}
	for _, tc := range []struct{ cmd, want string }{
		{"git push --force origin main", "ask"}, // the org layer's version
		{"rm -rf /", "deny"},
		{"terraform destroy", "deny"},
		{"git status", "pass"},
	} {
		c := call.Call{Kind: call.KindShell, Tool: "Bash", Command: tc.cmd, Cwd: "/home/u/proj"}
		if got := lazy.Evaluate(c, env).Decision.String(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.cmd, got, tc.want)
		}
	}
}
