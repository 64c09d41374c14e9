package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The materialized layout. `toolguard materialize` writes one JSON
// document that any JSON reader (and the full loader) reads as usual, laid
// out so that the hook can decode only the rules a call reaches:
//
//	{"version":1,"materialized":{…},"settings":{…},"tests":[…],"index":"v1 n=2 crc=…|n:git=0|p:r:.github=1|",
//	"rules":[
//	{"id":"rule-0",…},
//	…
//	{"id":"rule-N",…}
//	]}
//
// Line 1 holds everything but the rules, and last the index: one JSON
// string (read without a JSON decoder) listing rule ordinals (positions in
// "rules") by program name, path prefix, MCP server, domain and call kind
// (index.go), with the rule count and a CRC-32C of the index and the rule
// lines. Line 2 opens the rules; each rule is one line (JSON strings hold
// no raw newline). The lazy loader checks this shape exactly and the
// checksum; anything else is read by the full loader, so a hand-edited
// file is never half-read with a stale index.

const (
	lazyPrefix = `{"version":1,"materialized":{`
	rulesOpen  = "\"rules\":[\n"
	rulesClose = "]}\n"
)

// castagnoli is made on first use: building it costs ~0.2 ms, which a
// hook run on a policy that is not materialized would pay at start-up.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// lazyHeader is line 1 of the layout without its index, closed with '}'.
type lazyHeader struct {
	Version  int           `json:"version"`
	Meta     *materialMeta `json:"materialized"`
	Settings fileSettings  `json:"settings"`
	Tests    []fileTest    `json:"tests"`
}

const indexKey = `,"index":"`

// The index string: "v1 n=RULES crc=CRC cats=RANGES" then "|" and one
// "CAT:KEY=O,O,…|" per list of the index (index.go), sorted by key. CRC is
// the CRC-32C of what follows the head and then of the rule lines, so that
// an edit to either sends the file to the full loader. RANGES locate each
// category's entries ("n12-345,…": from the '|' before the first to the
// '|' after the last), so that the loader does not read the lists; a list
// is parsed when a call looks it up, and one that does not parse fails the
// decision closed like a rule that does not decode.

func encodeIndex(ix *index, body []byte) string {
	keys := make([]string, 0, len(ix.lists))
	for k := range ix.lists {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b := []byte{'|'}
	var cats []byte
	for i, k := range keys {
		if i == 0 || k[0] != keys[i-1][0] {
			if i > 0 {
				cats = fmt.Appendf(cats, "%d,", len(b))
			}
			cats = fmt.Appendf(cats, "%c%d-", k[0], len(b)-1)
		}
		b = append(b, k...)
		b = append(b, '=')
		for i, o := range ix.lists[k] {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(o), 10)
		}
		b = append(b, '|')
	}
	if len(keys) > 0 {
		cats = fmt.Appendf(cats, "%d", len(b))
	}
	crc := crc32.Update(crc32.Checksum(b, castagnoli()), castagnoli(), body)
	return fmt.Sprintf("v1 n=%d crc=%d cats=%s", ix.n, crc, cats) + string(b)
}

// readIndex checks an index string against the rule lines and returns
// the index it holds, or false.
func readIndex(raw string, body []byte) (index, bool) {
	i := strings.IndexByte(raw, '|')
	if i < 0 || strings.IndexByte(raw, '\\') >= 0 {
		return index{}, false
	}
	head, lists := raw[:i], raw[i:]
	var n int
	var crc uint32
	var cats string
	if _, err := fmt.Sscanf(head, "v1 n=%d crc=%d cats=%s", &n, &crc, &cats); err != nil || n < 0 ||
		head != fmt.Sprintf("v1 n=%d crc=%d cats=%s", n, crc, cats) {
		if _, err := fmt.Sscanf(head, "v1 n=%d crc=%d cats=", &n, &crc); err != nil || head != fmt.Sprintf("v1 n=%d crc=%d cats=", n, crc) || lists != "|" {
			return index{}, false
		}
	}
	if crc32.Update(crc32.Checksum([]byte(lists), castagnoli()), castagnoli(), body) != crc {
		return index{}, false
	}
	return parseIndex(lists, n, cats)
}

// parseIndex reads the lists of an index string whose head was checked.
func parseIndex(lists string, n int, cats string) (index, bool) {
	ix := index{raw: lists, n: n, cats: map[byte][2]int{}}
	// The ranges: ascending categories, contiguous, covering the lists.
	next, last := 0, -1
	for _, c := range strings.Split(cats, ",") {
		if c == "" {
			continue
		}
		var lo, hi int
		if len(c) < 4 || int(c[0]) <= last {
			return index{}, false
		}
		if _, err := fmt.Sscanf(c[1:], "%d-%d", &lo, &hi); err != nil || lo != next || hi <= lo+3 || hi > len(lists) ||
			lists[lo] != '|' || lists[lo+1] != c[0] || lists[lo+2] != ':' || lists[hi-1] != '|' {
			return index{}, false
		}
		ix.cats[c[0]] = [2]int{lo, hi}
		next, last = hi-1, int(c[0])
	}
	if next != len(lists)-1 {
		return index{}, false
	}
	// The l: lists are tested against every command: read them now.
	if r, ok := ix.cats[catLiteral]; ok {
		for _, entry := range strings.Split(lists[r[0]+1:r[1]-1], "|") {
			key, val, ok := strings.Cut(entry, "=")
			ords, good := parseOrds(val, n)
			if !ok || !good || len(key) < 3 {
				return index{}, false
			}
			ix.literals = append(ix.literals, litList{key[2:], ords})
		}
	}
	return ix, true
}

// rawList finds one list in a checked index string.
func rawList(raw string, n int, cat byte, key string) []int32 {
	needle := make([]byte, 0, len(key)+4)
	needle = append(append(append(needle, '|', cat, ':'), key...), '=')
	i := strings.Index(raw, string(needle))
	if i < 0 {
		return nil
	}
	s := raw[i+len(needle):]
	if j := strings.IndexByte(s, '|'); j >= 0 {
		s = s[:j]
	}
	l, ok := parseOrds(s, n)
	if !ok {
		return []int32{-1} // fails the decision closed (Policy.rule)
	}
	return l
}

// parseOrds reads an ordinal list "0,4,17", which must be non-empty,
// ascending and below n.
func parseOrds(s string, n int) ([]int32, bool) {
	if s == "" {
		return nil, false
	}
	out := make([]int32, 0, strings.Count(s, ",")+1)
	v, digits := 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			if digits == 0 || v >= n || (len(out) > 0 && int32(v) <= out[len(out)-1]) {
				return nil, false
			}
			out = append(out, int32(v))
			v, digits = 0, 0
			continue
		}
		c := s[i]
		if c < '0' || c > '9' || digits > 9 {
			return nil, false
		}
		v, digits = v*10+int(c-'0'), digits+1
	}
	return out, true
}

// Materialize renders the merged policy as one JSON document: the merged
// settings (with builtin = false, since the builtin rules that apply are
// already among the rules), every effective rule with its layer and
// source, the [[test]]s, the content hash and the rule index, in the
// layout above. Loading it with LoadOptions{NoBuiltin: true} gives the
// same decisions as the layers it came from.
func (p *Policy) Materialize() ([]byte, error) {
	rules := p.Rules()
	if err := p.RulesErr(); err != nil {
		return nil, err
	}
	var body bytes.Buffer
	for i, r := range rules {
		b, err := json.Marshal(r.spec)
		if err != nil {
			return nil, err
		}
		body.Write(b)
		if i < len(rules)-1 {
			body.WriteByte(',')
		}
		body.WriteByte('\n')
	}
	s := settingsDoc(p.Settings)
	f := false
	s.Builtin = &f
	tests := make([]fileTest, 0, len(p.tests))
	for _, t := range p.tests {
		tests = append(tests, t.spec)
	}
	layers := make([]string, len(p.Layers))
	for i, l := range p.Layers {
		layers[i] = l.Name + "=" + l.File
	}
	ix := buildIndex(rules)
	h := lazyHeader{Version: 1, Meta: &materialMeta{Hash: p.Hash(), Layers: layers}, Settings: s, Tests: tests}
	head, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(head, []byte(lazyPrefix)) || bytes.IndexByte(head, '\n') >= 0 {
		return nil, fmt.Errorf("materialize: unexpected header %.40q", head)
	}
	raw := encodeIndex(&ix, body.Bytes())
	out := make([]byte, 0, len(head)+len(indexKey)+len(raw)+len(rulesOpen)+body.Len()+len(rulesClose)+4)
	out = append(out, head[:len(head)-1]...)
	out = append(out, indexKey...)
	out = append(out, raw...)
	out = append(out, "\",\n"...)
	out = append(out, rulesOpen...)
	out = append(out, body.Bytes()...)
	return append(out, rulesClose...), nil
}

// loadLazy loads a materialized file in the indexed layout with its rules
// left undecoded, or returns nil when the file is not exactly that (the
// caller then loads it in full, which reports whatever is wrong).
func loadLazy(s Source, opts LoadOptions) *Policy {
	data := s.Data
	if !strings.EqualFold(filepath.Ext(s.Path), ".json") || !bytes.HasPrefix(data, []byte(lazyPrefix)) {
		return nil
	}
	nl := bytes.IndexByte(data, '\n')
	if nl < 0 || !bytes.HasSuffix(data[:nl], []byte(`",`)) {
		return nil
	}
	q := bytes.LastIndexByte(data[:nl-2], '"')
	if q < 0 || !bytes.HasSuffix(data[:q+1], []byte(indexKey)) {
		return nil
	}
	// The index is copied out of data: data may be a mapped file
	// (ReadFile), read only under guardFault, and the index is consulted
	// throughout evaluation.
	raw := string(data[q+1 : nl-2])
	hl := q + 1 - len(indexKey)
	head := make([]byte, hl+1)
	copy(head, data[:hl])
	head[hl] = '}'
	var h lazyHeader
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || dec.InputOffset() != int64(len(head)) {
		return nil
	}
	if h.Version != 1 || h.Meta == nil {
		return nil
	}
	rest := data[nl+1:]
	if !bytes.HasPrefix(rest, []byte(rulesOpen)) || !bytes.HasSuffix(rest, []byte(rulesClose)) ||
		len(rest) < len(rulesOpen)+len(rulesClose) {
		return nil
	}
	bodyOff := nl + 1 + len(rulesOpen)
	body := data[bodyOff : len(data)-len(rulesClose)]
	ix, ok := readIndex(raw, body)
	if !ok {
		return nil
	}
	n := ix.n
	// One rule per line: "{…}," and the last "{…}".
	starts := make([]int32, 0, n)
	ends := make([]int32, 0, n)
	for off := 0; off < len(body); {
		i := bytes.IndexByte(body[off:], '\n')
		if i < 0 || len(starts) == n {
			return nil
		}
		line := body[off : off+i]
		end := off + i
		if len(line) < 2 {
			return nil
		}
		if len(starts) < n-1 {
			if len(line) < 3 || line[len(line)-1] != ',' {
				return nil
			}
			end--
		}
		if line[0] != '{' || body[end-1] != '}' {
			return nil
		}
		starts = append(starts, int32(bodyOff+off))
		ends = append(ends, int32(bodyOff+end))
		off += i + 1
	}
	if len(starts) != n {
		return nil
	}
	ld := named(&layerDoc{src: s, doc: fileDoc{Version: h.Version, Settings: h.Settings, Tests: h.Tests, Meta: h.Meta}})
	if len(h.Settings.Disable) > 0 || len(checkSettings(ld)) > 0 || len(checkTests(ld)) > 0 {
		return nil
	}
	p, probs := merge([]*layerDoc{ld})
	if len(probs) > 0 || len(p.Warnings) > 0 {
		return nil
	}
	p.idx = ix
	p.lazy = &lazyRules{data: data, starts: starts, ends: ends, ld: ld, opts: opts, got: make([]*Rule, n)}
	return p
}

// loadLazyBuiltin loads the embedded defaults alone — the default policy
// — with each rule compiled when a call first reaches it, through the
// build-time index (builtinIndex); nil when the layers are anything else.
func loadLazyBuiltin(layers []*layerDoc, opts LoadOptions) *Policy {
	if !opts.Lazy || len(layers) != 1 || !layers[0].trusted {
		return nil
	}
	ld := layers[0]
	if len(checkSettings(ld)) > 0 || len(checkTests(ld)) > 0 || len(ld.rules) > 0 {
		return nil
	}
	p, probs := merge([]*layerDoc{ld}) // no rule compiled yet: p.rules is empty
	if len(probs) > 0 || len(p.Warnings) > 0 || len(p.rules) > 0 {
		return nil
	}
	ix, ok := builtinIndex(len(ld.doc.Rules))
	if !ok {
		return nil
	}
	p.idx = ix
	p.lazy = &lazyRules{docs: ld.doc.Rules, ld: ld, opts: opts, got: make([]*Rule, len(ld.doc.Rules))}
	return p
}

// lazyRules are the rules of a lazily loaded policy: rule i is the JSON
// object data[starts[i]:ends[i]] (a materialized file), or docs[i] (the
// build-time decoded defaults), decoded and compiled on first use.
type lazyRules struct {
	data         []byte
	starts, ends []int32
	docs         []fileRule
	ld           *layerDoc
	opts         LoadOptions

	mu   sync.Mutex
	got  []*Rule
	errs map[int]error

	allOnce sync.Once
	rules   []*Rule
	allErr  error
}

// get returns rule i, decoding and compiling it on first use.
func (l *lazyRules) get(i int) (*Rule, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if r := l.got[i]; r != nil {
		return r, nil
	}
	if err := l.errs[i]; err != nil {
		return nil, err
	}
	var r *Rule
	var err error
	if ferr := guardFault(l.ld.src.Path, func() { r, err = l.decode(i) }); ferr != nil {
		err = ferr
	}
	if err != nil {
		if l.errs == nil {
			l.errs = map[int]error{}
		}
		l.errs[i] = err
		return nil, err
	}
	l.got[i] = r
	return r, nil
}

func (l *lazyRules) decode(i int) (*Rule, error) {
	if l.docs != nil {
		r, probs := compileRule(l.ld, i, l.docs[i], l.opts)
		if len(probs) > 0 || r == nil {
			return nil, fmt.Errorf("%s: rule %q does not compile: %v", l.ld.src.Path, l.docs[i].ID, probs)
		}
		r.ord = i
		return r, nil
	}
	line := l.data[l.starts[i]:l.ends[i]]
	lineNo := 3 + i
	var fr fileRule
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&fr); err != nil {
		return nil, fmt.Errorf("%s:%d: rule %d: %s", l.ld.src.Path, lineNo, i, jsonMsg(err))
	}
	if dec.InputOffset() != int64(len(line)) {
		return nil, fmt.Errorf("%s:%d: rule %d: trailing data after the rule", l.ld.src.Path, lineNo, i)
	}
	if fr.ID == "" || !validID(fr.ID) {
		return nil, fmt.Errorf("%s:%d: rule %d: bad or missing id %q", l.ld.src.Path, lineNo, i, fr.ID)
	}
	r, probs := compileRule(l.ld, i, fr, l.opts)
	if len(probs) > 0 {
		msgs := make([]string, len(probs))
		for j, p := range probs {
			msgs[j] = p.Msg
		}
		return nil, fmt.Errorf("%s:%d: rule %q: %s", l.ld.src.Path, lineNo, fr.ID, strings.Join(msgs, "; "))
	}
	r.ord = i
	return r, nil
}

// all decodes every rule, in order; rules that fail are left out and the
// first failure is kept in allErr.
func (l *lazyRules) all() []*Rule {
	l.allOnce.Do(func() {
		l.rules = make([]*Rule, 0, len(l.got))
		for i := range l.got {
			r, err := l.get(i)
			if err != nil {
				if l.allErr == nil {
					l.allErr = err
				}
				continue
			}
			l.rules = append(l.rules, r)
		}
	})
	return l.rules
}
