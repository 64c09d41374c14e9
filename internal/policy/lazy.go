package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/call"
)

// The materialized layout. `toolguard materialize` writes one JSON
// document that any JSON reader (and the full loader) reads as usual, laid
// out so that the hook can decode only the rules a call reaches:
//
//	{"version":1,"materialized":{…},"settings":{…},"tests":[…],"index":{…},
//	"rules":[
//	{"id":"rule-0",…},
//	…
//	{"id":"rule-N",…}
//	]}
//
// Line 1 holds everything but the rules, with the index: rule ordinals
// (positions in "rules") by program name, path key and call kind — see
// index.go — as space-separated ascending decimals, the rule count and a
// CRC-32C of the rule lines. Line 2 opens the rules; each rule is one line
// (JSON strings hold no raw newline). The lazy loader checks this shape
// exactly and the checksum; anything else is read by the full loader, so a
// hand-edited file is never half-read with a stale index.

const (
	lazyPrefix = `{"version":1,"materialized":{`
	rulesOpen  = "\"rules\":[\n"
	rulesClose = "]}\n"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// lazyHeader is line 1 of the layout, closed with '}'.
type lazyHeader struct {
	Version  int           `json:"version"`
	Meta     *materialMeta `json:"materialized"`
	Settings fileSettings  `json:"settings"`
	Tests    []fileTest    `json:"tests"`
	Index    *indexDoc     `json:"index"`
}

// indexDoc is the index as written: ordinal lists as "0 4 17".
type indexDoc struct {
	Rules   int               `json:"rules"`
	CRC     uint32            `json:"crc32c"`
	ByName  map[string]string `json:"by_name"`
	AnyName string            `json:"any_name"`
	Paths   map[string]string `json:"paths"`
	PathAll string            `json:"path_all"`
	Calls   map[string]string `json:"calls"` // "mcp", "url", "any", "kind:<kind>"
}

func ordString(l []int32) string {
	b := make([]byte, 0, len(l)*6)
	for i, o := range l {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(o), 10)
	}
	return string(b)
}

// parseOrds reads an ordinal list, which must be ascending and below n.
func parseOrds(s string, n int) ([]int32, bool) {
	if s == "" {
		return nil, true
	}
	out := make([]int32, 0, strings.Count(s, " ")+1)
	v, digits := 0, 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
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

func encodeIndex(ix *index, n int, crc uint32) *indexDoc {
	d := &indexDoc{Rules: n, CRC: crc, ByName: map[string]string{}, Paths: map[string]string{}, Calls: map[string]string{},
		AnyName: ordString(ix.anyName), PathAll: ordString(ix.pathAll)}
	for k, l := range ix.byName {
		d.ByName[k] = ordString(l)
	}
	for k, l := range ix.paths {
		d.Paths[k] = ordString(l)
	}
	for k, l := range map[string][]int32{"mcp": ix.calls.mcp, "url": ix.calls.url, "any": ix.calls.any} {
		if len(l) > 0 {
			d.Calls[k] = ordString(l)
		}
	}
	for k, l := range ix.calls.byKind {
		d.Calls["kind:"+k.String()] = ordString(l)
	}
	return d
}

func decodeIndex(d *indexDoc) (index, bool) {
	n := d.Rules
	ix := index{byName: make(map[string][]int32, len(d.ByName)), paths: make(map[string][]int32, len(d.Paths)),
		calls: callIndex{byKind: map[call.Kind][]int32{}}}
	ok := true
	get := func(s string) []int32 {
		l, good := parseOrds(s, n)
		ok = ok && good
		return l
	}
	for k, s := range d.ByName {
		ix.byName[k] = get(s)
	}
	for k, s := range d.Paths {
		ix.paths[k] = get(s)
	}
	ix.anyName, ix.pathAll = get(d.AnyName), get(d.PathAll)
	for k, s := range d.Calls {
		switch k {
		case "mcp":
			ix.calls.mcp = get(s)
		case "url":
			ix.calls.url = get(s)
		case "any":
			ix.calls.any = get(s)
		default:
			name, isKind := strings.CutPrefix(k, "kind:")
			kind, known := call.ParseKind(name)
			if !isKind || !known {
				return index{}, false
			}
			ix.calls.byKind[kind] = get(s)
		}
	}
	return ix, ok
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
	h := lazyHeader{Version: 1, Meta: &materialMeta{Hash: p.Hash(), Layers: layers}, Settings: s, Tests: tests,
		Index: encodeIndex(&ix, len(rules), crc32.Checksum(body.Bytes(), castagnoli))}
	head, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if !bytes.HasPrefix(head, []byte(lazyPrefix)) || bytes.IndexByte(head, '\n') >= 0 {
		return nil, fmt.Errorf("materialize: unexpected header %.40q", head)
	}
	out := make([]byte, 0, len(head)+len(rulesOpen)+body.Len()+len(rulesClose)+1)
	out = append(out, head[:len(head)-1]...)
	out = append(out, ",\n"...)
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
	if nl < 2 || data[nl-1] != ',' {
		return nil
	}
	head := make([]byte, nl)
	copy(head, data[:nl-1])
	head[nl-1] = '}'
	var h lazyHeader
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || dec.InputOffset() != int64(len(head)) {
		return nil
	}
	if h.Version != 1 || h.Meta == nil || h.Index == nil || h.Index.Rules < 0 {
		return nil
	}
	rest := data[nl+1:]
	if !bytes.HasPrefix(rest, []byte(rulesOpen)) || !bytes.HasSuffix(rest, []byte(rulesClose)) ||
		len(rest) < len(rulesOpen)+len(rulesClose) {
		return nil
	}
	bodyOff := nl + 1 + len(rulesOpen)
	body := data[bodyOff : len(data)-len(rulesClose)]
	if crc32.Checksum(body, castagnoli) != h.Index.CRC {
		return nil
	}
	// One rule per line: "{…}," and the last "{…}".
	n := h.Index.Rules
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
	ix, ok := decodeIndex(h.Index)
	if !ok {
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

// lazyRules are the rules of a lazily loaded policy: rule i is the JSON
// object data[starts[i]:ends[i]], decoded and compiled on first use.
type lazyRules struct {
	data         []byte
	starts, ends []int32
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
	r, err := l.decode(i)
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
	if fr.ID == "" || !idPattern.MatchString(fr.ID) {
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
		l.rules = make([]*Rule, 0, len(l.starts))
		for i := range l.starts {
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
