package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/toolguard/toolguard/internal/call"
)

// Validate is what `toolguard validate` runs: every phase of Load (decode,
// keys, settings, rules, merge) and then the lints and the examples and
// [[test]]s, without stopping at the first phase that fails, so that one
// run reports every problem. A layer that does not parse is left out of
// the later phases; a rule that does not compile is left out of the
// merge; everything else is still checked. JSON layers get positions too
// (from the decoder's offsets).
//
// The policy is returned when it loaded (no problem from Load's phases);
// it is nil otherwise. Problems are sorted by file and position.
func Validate(sources []Source, opts LoadOptions) (*Policy, []Problem) {
	var probs []Problem
	var layers []*layerDoc
	if !opts.NoBuiltin {
		sources = append([]Source{BuiltinSource()}, sources...)
	}
	for _, s := range sources {
		if s.File != nil {
			data, err := readFull(s.File)
			if err != nil {
				probs = append(probs, Problem{File: s.Path, Msg: err.Error()})
				continue
			}
			s.Data, s.File = data, nil
		}
		ld, dp := lintDecode(s)
		probs = append(probs, dp...)
		if ld != nil {
			layers = append(layers, ld)
		}
	}
	probs = append(probs, uniqueNames(layers)...)
	for _, ld := range layers {
		if ld.doc.Meta != nil && len(layers) > 0 && layers[0].src.Path == BuiltinFile {
			layers = layers[1:]
			break
		}
	}
	for _, ld := range layers {
		probs = append(probs, compileLayer(ld, opts)...)
		probs = append(probs, lintLayer(ld)...)
	}
	loaded := len(probs) == 0
	p, rules, mp := merge(layers)
	probs = append(probs, mp...)
	loaded = loaded && len(mp) == 0
	p.idx = buildIndex(rules)

	byFile := map[string]*layerText{}
	for _, ld := range layers {
		byFile[ld.src.Path] = &layerText{ld: ld}
	}
	probs = append(probs, p.Warnings...)
	for _, r := range rules {
		probs = append(probs, p.checkExamplesAt(r, exampleLocator(byFile, r))...)
	}
	probs = append(probs, p.outranked(rules)...)
	for _, t := range p.tests {
		if prob, ok := p.runTest(t); !ok {
			probs = append(probs, prob)
		}
	}
	probs = dedupProblems(probs)
	if !loaded {
		p = nil
	}
	return p, probs
}

func dedupProblems(probs []Problem) []Problem {
	sort.SliceStable(probs, func(i, j int) bool {
		a, b := probs[i], probs[j]
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
	return slices.Compact(probs)
}

// lintDecode decodes one layer like decode does, but keeps going past
// unknown keys (they are reported, with a suggestion, and ignored) and
// indexes the keys of JSON layers too.
func lintDecode(s Source) (*layerDoc, []Problem) {
	ld := &layerDoc{src: s, hash: contentHash(s.Data)}
	var probs []Problem
	isJSON := strings.EqualFold(filepath.Ext(s.Path), ".json")
	if isJSON {
		dec := json.NewDecoder(bytes.NewReader(s.Data))
		var doc struct {
			fileDoc
			Index json.RawMessage `json:"index,omitempty"`
		}
		err := dec.Decode(&doc)
		ld.doc = doc.fileDoc
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te):
			// The decoder goes on past a type mismatch: the rest is checked.
			line, col := jsonPos(s.Data, err)
			probs = append(probs, Problem{File: s.Path, Line: line, Col: col, Msg: jsonMsg(err)})
		case err != nil:
			line, col := jsonPos(s.Data, err)
			if line == 0 {
				line, col = offsetPos(s.Data, dec.InputOffset())
			}
			return nil, []Problem{{File: s.Path, Line: line, Col: col, Msg: jsonMsg(err)}}
		}
		if _, err := dec.Token(); err != io.EOF {
			line, col := offsetPos(s.Data, dec.InputOffset())
			probs = append(probs, Problem{File: s.Path, Line: line, Col: col, Msg: "trailing data after the policy object"})
		}
		ld.ix = indexJSONKeys(s.Data)
	} else {
		md, err := toml.NewDecoder(bytes.NewReader(s.Data)).Decode(&ld.doc)
		if err != nil {
			return nil, []Problem{tomlProblem(s.Path, err)}
		}
		ld.ix = indexKeys(string(s.Data))
		if len(ld.ix.unknown) == 0 {
			for _, k := range md.Undecoded() {
				if !isFreeForm(k) {
					probs = append(probs, Problem{File: s.Path, Line: 1, Col: 1,
						Msg: fmt.Sprintf("unknown key %q", k.String())})
				}
			}
		}
	}
	reported := map[string]bool{}
	n := 0
	for _, u := range ld.ix.unknown {
		if below(reported, u.Path) {
			continue // below an unknown table: that one is the problem
		}
		reported[u.Path] = true
		if n++; n > maxUnknownKeys {
			probs = append(probs, Problem{File: s.Path, Line: u.Pos.Line, Col: u.Pos.Col,
				Msg: fmt.Sprintf("more unknown keys from here on (%d in all); not listed", len(ld.ix.unknown))})
			break
		}
		if i := strings.LastIndexByte(u.Path, '.'); i >= 0 {
			if _, err := strconv.Atoi(u.Path[i+1:]); err == nil {
				u.Path = u.Path[:i] // [[rules]] is "rules", not "rules.0"
			}
		}
		hint := unknownKeyHint(u.Path)
		if isJSON && tomlOnlyJSON[u.Path] != "" {
			hint = fmt.Sprintf(" (did you mean %q? the JSON form names the arrays rules and tests)", tomlOnlyJSON[u.Path])
		}
		probs = append(probs, Problem{File: s.Path, Line: u.Pos.Line, Col: u.Pos.Col,
			Msg: fmt.Sprintf("unknown key %q%s", u.Path, hint)})
	}
	if isJSON && len(ld.ix.unknown) == 0 {
		// Whatever the index could not place is still caught by the
		// decoder's own check, as for TOML.
		strict := json.NewDecoder(bytes.NewReader(s.Data))
		strict.DisallowUnknownFields()
		var doc struct {
			fileDoc
			Index json.RawMessage `json:"index,omitempty"`
		}
		if err := strict.Decode(&doc); err != nil && strings.Contains(err.Error(), "unknown field") {
			probs = append(probs, Problem{File: s.Path, Line: 1, Col: 1, Msg: jsonMsg(err)})
		}
	}
	ld2, fp := finishDecode(ld)
	return ld2, append(probs, fp...)
}

// maxUnknownKeys bounds the unknown keys listed per file: a file of
// nothing but unknown keys gets a page of them, not one line per key.
const maxUnknownKeys = 100

// below reports whether some proper prefix of p (at a '.') is in set.
func below(set map[string]bool, p string) bool {
	for i := 0; i < len(p); i++ {
		if p[i] == '.' && set[p[:i]] {
			return true
		}
	}
	return false
}

// unknownKeyHint is " (did you mean "x"?)" when a known key of the same
// table is close, else the list of the keys the table takes.
func unknownKeyHint(p string) string {
	parent, leaf := splitLast(schemaPath(p))
	keys := schema()[parent]
	best, bestD := "", 3
	for k := range keys {
		d := editDistance(leaf, k)
		if d < bestD || d == bestD && best != "" && k < best {
			best, bestD = k, d
		}
	}
	if best != "" && bestD <= max(1, len(leaf)/3) {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return knownKeysHint(p)
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// offsetPos turns a byte offset into a 1-based line and column.
func offsetPos(data []byte, off int64) (int, int) {
	off = max(0, min(off, int64(len(data))))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

// jsonNames maps the JSON form's key names to the TOML form's, where they
// differ; jsonOnly are keys the JSON form takes that TOML does not.
var (
	jsonNames = map[string]string{"rules": "rule", "tests": "test"}
	jsonOnly  = map[string]bool{"materialized": true, "index": true, "rule.layer": true, "rule.source": true}
	// tomlOnlyJSON are the TOML names of the JSON form's arrays, with the
	// JSON name to suggest.
	tomlOnlyJSON = map[string]string{"rule": "rules", "test": "tests"}
)

// indexJSONKeys records where each key of a JSON policy is written, under
// the TOML form's key paths ("rule.3.decision"), and the keys the schema
// does not know. It walks the decoder's tokens and places each key at the
// first non-blank byte after the previous token.
func indexJSONKeys(data []byte) *keyIndex {
	ix := &keyIndex{pos: map[string]srcPos{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	type frame struct {
		path    string
		array   bool
		n       int  // next array index
		wantKey bool // object: the next string token is a key
		skip    bool // below an unknown or free-form key
	}
	var stack []frame
	// Offsets only grow: the line is counted on from the last one, so
	// that a file of many keys costs one pass, not one per key.
	at, line, lineStart := 0, 1, 0
	start := func(prev int64) srcPos {
		i := int(prev)
		for i < len(data) && strings.IndexByte(" \t\r\n,:", data[i]) >= 0 {
			i++
		}
		for ; at < i && at < len(data); at++ {
			if data[at] == '\n' {
				line, lineStart = line+1, at+1
			}
		}
		return srcPos{line, i - lineStart + 1}
	}
	child := ""   // path of the value about to be read
	skip := false // the value about to be read is not checked
	for {
		prev := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return ix
		}
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if !top.array && top.wantKey {
				if d, ok := tok.(json.Delim); ok && d == '}' {
					stack = stack[:len(stack)-1]
					continue
				}
				key, _ := tok.(string)
				if top.path == "" {
					if n, ok := jsonNames[key]; ok {
						key = n
					} else if tomlOnlyJSON[key] != "" {
						// The TOML form's name: the JSON decoder would
						// drop the whole array without a word.
						pos := start(prev)
						ix.unknown = append(ix.unknown, keyRef{key, pos})
						ix.pos[key] = pos
						child, skip = key, true
						top.wantKey = false
						continue
					}
				}
				child = key
				if top.path != "" {
					child = top.path + "." + key
				}
				skip = top.skip
				if !skip {
					pos := start(prev)
					ix.pos[child] = pos
					sp := schemaPath(child)
					switch {
					case jsonOnly[sp]:
						skip = true
					case sp == "materialized" || isFreeFormPath(sp):
						skip = true
					default:
						before := len(ix.unknown)
						ix.check(sp, pos, child)
						skip = len(ix.unknown) > before
					}
				}
				top.wantKey = false
				continue
			}
			if top.array {
				child = top.path + "." + strconv.Itoa(top.n)
				skip = top.skip
				if d, ok := tok.(json.Delim); ok && d == ']' {
					stack = stack[:len(stack)-1]
					if len(stack) > 0 && !stack[len(stack)-1].array {
						stack[len(stack)-1].wantKey = true
					}
					continue
				}
				if !skip {
					ix.pos[child] = start(prev)
				}
				top.n++
			} else {
				top.wantKey = true
			}
		}
		if d, ok := tok.(json.Delim); ok {
			switch d {
			case '{':
				stack = append(stack, frame{path: child, wantKey: true, skip: skip})
			case '[':
				stack = append(stack, frame{path: child, array: true, skip: skip})
			}
		}
	}
}

func isFreeFormPath(sp string) bool {
	return sp == "settings.default_for" || sp == "test.input"
}

// --- lints: what loads but cannot work ---------------------------------

// lintLayer finds, in one layer's rules, what compiles but cannot do what
// it says: a rule with no conditions (it matches every call), options
// inside a command prefix (the prefix never matches), and tool names no
// agent sends.
func lintLayer(ld *layerDoc) []Problem {
	var probs []Problem
	for i, fr := range ld.doc.Rules {
		key := fmt.Sprintf("rule.%d", i)
		for _, l := range lintRule(fr) {
			probs = append(probs, ld.problem(key+"."+l.field, fr.ID, l.msg))
		}
	}
	return probs
}

func lintRule(fr fileRule) []fieldErr {
	var errs []fieldErr
	if !hasCondition(fr) {
		errs = append(errs, fieldErr{"id", `rule has no conditions, so it matches every call; add conditions, or write tool = "*" if every call is meant`})
	}
	for _, c := range fr.Command {
		toks := strings.Fields(c)
		var lead, opts []string
		for i, t := range toks {
			if i > 0 && strings.HasPrefix(t, "-") && t != "-" && t != "--" {
				opts = toks[i:]
				break
			}
			lead = append(lead, t)
		}
		if len(opts) == 0 {
			continue
		}
		field := "args"
		if len(opts) > 1 {
			field = "args_all"
		}
		errs = append(errs, fieldErr{"command", fmt.Sprintf(
			"command %q holds the option %q: a command prefix is the program and its leading words and never matches an option; write command = [%q] and %s = [%s]",
			c, opts[0], strings.Join(lead, " "), field, quoteList(opts))})
	}
	for _, t := range fr.Tool {
		if msg := lintTool(t); msg != "" {
			errs = append(errs, fieldErr{"tool", msg})
		}
	}
	return errs
}

func quoteList(l []string) string {
	q := make([]string, len(l))
	for i, s := range l {
		q[i] = strconv.Quote(s)
	}
	return strings.Join(q, ", ")
}

// hasCondition reports whether a rule sets any match field. tool = "*"
// counts: it is how a rule says on purpose that it matches every call.
func hasCondition(fr fileRule) bool {
	return len(fr.Tool)+len(fr.Command)+len(fr.Args)+len(fr.ArgsAll)+len(fr.ArgsNone)+
		len(fr.Path)+len(fr.PathNone)+len(fr.Op)+len(fr.MCP)+len(fr.FedBy)+len(fr.Via)+
		len(fr.Env)+len(fr.EnvNone)+len(fr.Domain)+len(fr.Modes)+len(fr.Input)+len(fr.Effect) > 0 ||
		fr.Scope != "" || fr.Regex != "" || fr.Code != ""
}

// lintTool checks one tool pattern: a kind, a glob, a tool name some
// agent sends, or an MCP tool's name (mcp__server__tool) pass. The seed's
// "mcp:server/tool" spelling is refused with the mcp spelling as the hint:
// a tool pattern is matched against the tool's name, which is never
// written that way, and one spelling per thing keeps rules readable.
func lintTool(t string) string {
	if _, ok := call.ParseKind(t); ok || strings.ContainsAny(t, "*?[") || call.KnownTool(t) {
		return ""
	}
	if rest, ok := strings.CutPrefix(t, "mcp__"); ok && strings.Contains(rest, "__") {
		return ""
	}
	if rest, ok := strings.CutPrefix(t, "mcp:"); ok {
		return fmt.Sprintf("tool %q never matches: MCP calls are matched with mcp = [%q] (server/tool globs), or tool = \"mcp\" for every MCP call", t, rest)
	}
	hint := ""
	best, bestD := "", 3
	for _, k := range append(call.Kinds(), call.KnownTools()...) {
		if d := editDistance(strings.ToLower(t), strings.ToLower(k)); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		hint = fmt.Sprintf("did you mean %q? ", best)
	}
	return fmt.Sprintf("tool %q is no kind (%s) and no tool name an agent sends; %sa tool toolguard does not know is matched with a glob (%q)",
		t, strings.Join(call.Kinds(), ", "), hint, t+"*")
}

// --- examples at their own line ------------------------------------------

// layerText is a layer with the offsets its lines start at, computed on
// first use, so that positioning many examples costs one pass over the
// file and a binary search each.
type layerText struct {
	ld    *layerDoc
	lines []int
	ids   map[string]int // rule id -> index in ld.doc.Rules (the first)
}

func (lt *layerText) lineStarts() []int {
	if lt.lines == nil {
		lt.lines = []int{0}
		for i, c := range lt.ld.src.Data {
			if c == '\n' {
				lt.lines = append(lt.lines, i+1)
			}
		}
	}
	return lt.lines
}

// lineOffset is the byte offset where 1-based line n starts.
func (lt *layerText) lineOffset(n int) int {
	ls := lt.lineStarts()
	if n < 1 {
		return 0
	}
	if n > len(ls) {
		return len(lt.ld.src.Data)
	}
	return ls[n-1]
}

// pos is the 1-based line and column of a byte offset.
func (lt *layerText) pos(off int) (int, int) {
	ls := lt.lineStarts()
	i, _ := slices.BinarySearch(ls, off+1) // first line starting after off
	return i, off - ls[i-1] + 1
}

// exampleLocator finds the line of each of a rule's examples in the
// layer's text: the first quoted occurrence of the example between the
// rule's header and the next rule's.
func exampleLocator(byFile map[string]*layerText, r *Rule) func(string) (int, int) {
	file := r.Source
	if i := strings.LastIndexByte(file, ':'); i > 0 {
		file = file[:i]
	}
	lt := byFile[file]
	if lt == nil || lt.ld.ix == nil {
		return nil
	}
	ld := lt.ld
	if lt.ids == nil {
		lt.ids = make(map[string]int, len(ld.doc.Rules))
		for i, fr := range ld.doc.Rules {
			if _, dup := lt.ids[fr.ID]; !dup {
				lt.ids[fr.ID] = i
			}
		}
	}
	idx, ok := lt.ids[r.ID]
	if !ok {
		return nil
	}
	from := lt.lineOffset(ld.ix.lookup(fmt.Sprintf("rule.%d", idx)).Line)
	to := len(ld.src.Data)
	if pos, ok := ld.ix.pos[fmt.Sprintf("rule.%d", idx+1)]; ok {
		to = lt.lineOffset(pos.Line)
	}
	if from > to {
		return nil
	}
	span := ld.src.Data[from:to]
	return func(ex string) (int, int) {
		js, _ := json.Marshal(ex)
		for _, q := range [][]byte{js, []byte(strconv.Quote(ex)), []byte("'" + ex + "'")} {
			if i := bytes.Index(span, q); i >= 0 {
				return lt.pos(from + i)
			}
		}
		return 0, 0
	}
}
