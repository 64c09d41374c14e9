package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
)

// The world a record is evaluated in when it does not name its own.
const (
	defaultHome = "/home/user"
	defaultCwd  = "/home/user/project"
)

// record is one line of a corpus file.
type record struct {
	Command     *string         `json:"command"`
	ToolName    string          `json:"tool_name"`
	ToolInput   json.RawMessage `json:"tool_input"`
	Expect      string          `json:"expect"`
	Category    string          `json:"category"`
	Source      string          `json:"source"`
	Cwd         string          `json:"cwd"`
	Home        string          `json:"home"`
	ProjectRoot string          `json:"project_root"`
	Note        string          `json:"note"`
}

// tally counts one file's or one category's records.
type tally struct {
	Block, BlockHit  int // records expecting block; of them, met by deny or ask
	Allow, AllowMiss int // records expecting allow; of them, wrongly denied or asked
	Unscorable       int // records with nothing to evaluate
}

func (t *tally) add(o tally) {
	t.Block += o.Block
	t.BlockHit += o.BlockHit
	t.Allow += o.Allow
	t.AllowMiss += o.AllowMiss
	t.Unscorable += o.Unscorable
}

// Recall is the share of block records that toolguard denies or asks
// about, in percent; 100 when there are none.
func (t tally) Recall() float64 {
	if t.Block == 0 {
		return 100
	}
	return 100 * float64(t.BlockHit) / float64(t.Block)
}

// FP is the share of allow records that toolguard denies or asks about,
// in percent; 0 when there are none.
func (t tally) FP() float64 {
	if t.Allow == 0 {
		return 0
	}
	return 100 * float64(t.AllowMiss) / float64(t.Allow)
}

// miss is one record toolguard disagrees with.
type miss struct {
	File     string
	Line     int
	Record   record
	Decision call.Decision
	Rule     string // the deciding rule, or the cause (dynamic, unparsable, on_error)
}

// fileScore is the score of one corpus file.
type fileScore struct {
	Name       string
	Total      tally
	Categories map[string]*tally
	Misses     []miss
}

// scorer evaluates records the way `toolguard hook` does.
type scorer struct {
	pol   *policy.Policy
	codec protocol.Codec
}

func newScorer() (*scorer, error) {
	pol, err := policy.Load(nil, policy.LoadOptions{})
	if err != nil {
		return nil, fmt.Errorf("loading the embedded defaults: %w", err)
	}
	codec, err := protocol.Lookup(protocol.NameClaude)
	if err != nil {
		return nil, err
	}
	return &scorer{pol: pol, codec: codec}, nil
}

// scoreDir scores every *.jsonl file of dir, in name order.
func (s *scorer) scoreDir(dir string) ([]*fileScore, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no *.jsonl files in %s", dir)
	}
	sort.Strings(files)
	var out []*fileScore
	for _, f := range files {
		fs, err := s.scoreFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, fs)
	}
	return out, nil
}

func (s *scorer) scoreFile(file string) (*fileScore, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fs := &fileScore{Name: filepath.Base(file), Categories: map[string]*tally{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var r record
		if err := json.Unmarshal(text, &r); err != nil {
			return nil, fmt.Errorf("%s:%d: %v", fs.Name, line, err)
		}
		var t tally
		d, rule, ok := s.decide(r)
		switch {
		case !ok:
			t.Unscorable = 1
		case r.Expect == "block":
			t.Block = 1
			if d >= call.Ask {
				t.BlockHit = 1
			}
		case r.Expect == "allow":
			t.Allow = 1
			if d >= call.Ask {
				t.AllowMiss = 1
			}
		default:
			return nil, fmt.Errorf("%s:%d: unknown expect %q (want block or allow)", fs.Name, line, r.Expect)
		}
		if ok && (t.Block == 1 && t.BlockHit == 0 || t.AllowMiss == 1) {
			fs.Misses = append(fs.Misses, miss{File: fs.Name, Line: line, Record: r, Decision: d, Rule: rule})
		}
		fs.Total.add(t)
		ct := fs.Categories[r.Category]
		if ct == nil {
			ct = &tally{}
			fs.Categories[r.Category] = ct
		}
		ct.add(t)
	}
	return fs, sc.Err()
}

// decide runs one record through the hook path: payload, decode, evaluate.
// ok is false when the record gives nothing to evaluate.
func (s *scorer) decide(r record) (d call.Decision, rule string, ok bool) {
	res, ok := s.result(r)
	if !ok {
		return call.Pass, "", false
	}
	switch {
	case res.Rule != nil:
		rule = res.Rule.ID
	case res.Cause != "":
		rule = res.Cause
	}
	return res.Decision, rule, true
}

// result is decide's evaluation; a payload the hook cannot read gets
// on_error.
func (s *scorer) result(r record) (*policy.Result, bool) {
	payload, ok := s.payload(r)
	if !ok {
		return nil, false
	}
	home := r.Home
	if home == "" {
		home = defaultHome
	}
	c, err := protocol.DecodeWith(s.codec, payload, protocol.DecodeOptions{Home: home})
	if err != nil {
		// The hook answers a payload it cannot read with on_error.
		return &policy.Result{Decision: s.pol.Settings.OnError, Cause: "on_error"}, true
	}
	ws := r.ProjectRoot
	if ws == "" {
		ws = c.Cwd
	}
	return s.pol.Evaluate(c, policy.Env{Home: home, Workspace: ws}), true
}

// payload builds the Claude Code PreToolUse payload for a record: the Bash
// tool for a command, else the record's tool. A record with a tool input
// but no tool name gets the tool its input's shape implies (toolFor).
func (s *scorer) payload(r record) ([]byte, bool) {
	cwd := r.Cwd
	switch {
	case cwd == "{HOME}": // the peer's test runs in the home directory
		cwd = cmp.Or(r.Home, defaultHome)
	case cwd == "" || !strings.HasPrefix(cwd, "/"):
		cwd = defaultCwd // no cwd, or a placeholder such as {TEST_PROCESS_CWD}
	}
	p := map[string]any{
		"session_id":      "corpus",
		"hook_event_name": "PreToolUse",
		"cwd":             cwd,
	}
	switch {
	case r.Command != nil:
		p["tool_name"] = "Bash"
		p["tool_input"] = map[string]string{"command": *r.Command}
	case r.ToolName != "":
		p["tool_name"] = r.ToolName
		if len(r.ToolInput) > 0 {
			p["tool_input"] = r.ToolInput
		}
	case len(r.ToolInput) > 0:
		name := toolFor(r.ToolInput)
		if name == "" {
			return nil, false
		}
		p["tool_name"] = name
		p["tool_input"] = r.ToolInput
	default:
		return nil, false
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, false
	}
	return b, true
}

// toolFor names the Claude Code tool whose input has the shape of in: a
// patch is apply_patch, a command Bash, a path with content Write, with
// old/new strings Edit, a search pattern Glob or Grep, a bare path Read.
func toolFor(in json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(in, &m) != nil {
		return ""
	}
	has := func(k string) bool { _, ok := m[k]; return ok }
	str := func(k string) string {
		var s string
		json.Unmarshal(m[k], &s)
		return s
	}
	for _, k := range []string{"patch", "diff", "patchText", "input"} {
		if has(k) {
			return "apply_patch"
		}
	}
	if has("command") {
		if strings.Contains(str("command"), "*** Begin Patch") {
			return "apply_patch"
		}
		if !has("file_path") {
			return "Bash"
		}
	}
	switch {
	case has("old_string") || has("new_string"):
		return "Edit"
	case has("content"):
		return "Write"
	case has("pattern") && has("path"):
		return "Grep"
	case has("pattern"):
		return "Glob"
	case has("file_path") || has("path"):
		return "Read"
	}
	return ""
}
