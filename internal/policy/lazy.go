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

	"github.com/toolguard/toolguard/internal/call"
)

// The materialized layout. `toolguard materialize` writes one JSON
// document that any JSON reader (and the full loader) reads as usual, laid
// out so that the hook can decode only the rules a call reaches:
//
//	{"version":1,"materialized":{…},"settings":{…},"tests":[…],"index":"v2 n=2 crc=… cats=… blocks=0|n:git=0|p:r:.github=1|",
//	"rules":[
//	{"id":"rule-0",…},
//	…
//	{"id":"rule-N",…}
//	]}
//
// Line 1 holds everything but the rules, and last the index: one JSON
// string (read without a JSON decoder) listing rule ordinals (positions in
// "rules") by program name, path prefix, MCP server, domain and call kind
// (index.go), with the rule count, where each block of 16 rule lines
// starts, and a CRC-32 (IEEE) of the index and the rule lines. Line 2 opens
// the rules; each rule is one line (JSON strings hold no raw newline). The
// lazy loader checks this shape and the checksum (one pass over the file,
// no JSON decoding); anything else is read by the full loader, so a
// hand-edited file is never half-read with a stale index. A block's lines
// are split when a call first reaches one of its rules; a block that does
// not split into its 16 lines fails those calls closed.

const (
	lazyPrefix = `{"version":1,"materialized":{`
	rulesOpen  = "\"rules\":[\n"
	rulesClose = "]}\n"
)

// blockLines is how many rule lines share one entry of the index's
// blocks= table.
const blockLines = 16

// lazyHeader is line 1 of the layout without its index, closed with '}'.
type lazyHeader struct {
	Version  int           `json:"version"`
	Meta     *materialMeta `json:"materialized"`
	Settings fileSettings  `json:"settings"`
	Tests    []fileTest    `json:"tests"`
}

const indexKey = `,"index":"`

// The index string: "v2 n=RULES crc=CRC cats=RANGES blocks=OFFSETS" then
// "|" and one "CAT:KEY=O,O,…|" per list of the index (index.go), sorted by
// key. CRC is the CRC-32 (IEEE) of what follows the head, then of OFFSETS,
// then of the rule lines, so that an edit to any of them sends the file to
// the full loader. RANGES locate each category's entries ("n12-345,…":
// from the '|' before the first to the '|' after the last), so that the
// loader does not read the lists; a list is parsed when a call looks it
// up, and one that does not parse fails the decision closed like a rule
// that does not decode. OFFSETS are the byte offsets, in the rule lines,
// of lines 0, 16, 32, …, so that the loader does not split 10,000 lines
// to read the few a call reaches. (The v1 index of earlier releases —
// CRC-32C, no OFFSETS — is read by the full loader.)

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
	blocks := blockOffsets(body)
	crc := crc32.Update(crc32.Update(crc32.ChecksumIEEE(b), crc32.IEEETable, []byte(blocks)), crc32.IEEETable, body)
	return fmt.Sprintf("v2 n=%d crc=%d cats=%s blocks=%s", ix.n, crc, cats, blocks) + string(b)
}

// blockOffsets lists the offsets of rule lines 0, blockLines, 2*blockLines…
// in body.
func blockOffsets(body []byte) string {
	var b []byte
	for off, line := 0, 0; off < len(body); line++ {
		if line%blockLines == 0 {
			if line > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(off), 10)
		}
		i := bytes.IndexByte(body[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return string(b)
}

// readIndex checks an index string against the rule lines (bodyLen
// bytes of f from bodyOff, streamed through a small buffer) and returns
// the index it holds and the block offsets, or false.
func readIndex(rawBytes []byte, f File, bodyOff, bodyLen int64, buf []byte) (index, []int32, bool) {
	i := bytes.IndexByte(rawBytes, '|')
	if i < 0 || bytes.IndexByte(rawBytes, '\\') >= 0 {
		return index{}, nil, false
	}
	head, listBytes := string(rawBytes[:i]), rawBytes[i:]
	var n int
	var crc uint32
	var cats, blocks string
	if _, err := fmt.Sscanf(head, "v2 n=%d crc=%d cats=%s blocks=%s", &n, &crc, &cats, &blocks); err != nil || n < 0 ||
		head != fmt.Sprintf("v2 n=%d crc=%d cats=%s blocks=%s", n, crc, cats, blocks) {
		// An empty policy: no lists, no blocks.
		if _, err := fmt.Sscanf(head, "v2 n=%d crc=%d cats= blocks=", &n, &crc); err != nil || n != 0 ||
			head != fmt.Sprintf("v2 n=0 crc=%d cats= blocks=", crc) || string(listBytes) != "|" {
			return index{}, nil, false
		}
		cats, blocks = "", ""
	}
	starts, ok := parseBlocks(blocks, n, bodyLen)
	if !ok {
		return index{}, nil, false
	}
	sum := crc32.Update(crc32.ChecksumIEEE(listBytes), crc32.IEEETable, []byte(blocks))
	sum, ok = checkBody(sum, f, bodyOff, bodyLen, starts, buf)
	if !ok || sum != crc {
		return index{}, nil, false
	}
	ix, ok := parseIndex(string(listBytes), n, cats)
	return ix, starts, ok
}

// checkBody streams the rule lines through the CRC and checks that each
// block offset starts a line.
func checkBody(sum uint32, f File, off, n int64, starts []int32, buf []byte) (uint32, bool) {
	next := 0 // the next block start to check (starts[0] is 0)
	if len(starts) > 0 {
		next = 1
	}
	prev := byte('\n')
	for done := int64(0); done < n; {
		chunk := buf[:min(int64(len(buf)), n-done)]
		if _, err := f.ReadAt(chunk, off+done); err != nil {
			return 0, false
		}
		for next < len(starts) && int64(starts[next]) <= done+int64(len(chunk)) {
			at := int64(starts[next]) - 1 - done // the byte before the block
			b := prev
			if at >= 0 {
				b = chunk[at]
			}
			if b != '\n' {
				return 0, false
			}
			next++
		}
		sum = crc32.Update(sum, crc32.IEEETable, chunk)
		prev = chunk[len(chunk)-1]
		done += int64(len(chunk))
	}
	return sum, next == len(starts)
}

// parseBlocks reads the block offsets of n rule lines in a body of
// bodyLen bytes: one per blockLines lines, the first 0, ascending (that
// each starts a line, checkBody checks).
func parseBlocks(blocks string, n int, bodyLen int64) ([]int32, bool) {
	want := (n + blockLines - 1) / blockLines
	if n == 0 {
		return nil, blocks == "" && bodyLen == 0
	}
	out := make([]int32, 0, want)
	for f := range strings.SplitSeq(blocks, ",") {
		v, err := strconv.ParseInt(f, 10, 32)
		if err != nil || v < 0 || v >= bodyLen || (len(out) == 0) != (v == 0) ||
			(len(out) > 0 && int32(v) <= out[len(out)-1]) {
			return nil, false
		}
		out = append(out, int32(v))
	}
	return out, len(out) == want
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
	rules, err := p.Rules()
	if err != nil {
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
// caller then loads it in full, which reports whatever is wrong). It reads
// line 1, streams the rest through the checksum, and keeps f to read a
// block of rule lines when a call first reaches it.
func loadLazy(s Source, f File, opts LoadOptions) *Policy {
	size := f.Size()
	if !strings.EqualFold(filepath.Ext(s.Path), ".json") || size < int64(len(lazyPrefix)) {
		return nil
	}
	scratch := make([]byte, 64<<10) // for the line and the checksum pass
	line1, ok := readLine1(f, size, scratch)
	if !ok || !bytes.HasPrefix(line1, []byte(lazyPrefix)) || !bytes.HasSuffix(line1, []byte(`",`)) {
		return nil
	}
	nl := len(line1)
	q := bytes.LastIndexByte(line1[:nl-2], '"')
	if q < 0 || !bytes.HasSuffix(line1[:q+1], []byte(indexKey)) {
		return nil
	}
	raw := line1[q+1 : nl-2]
	hl := q + 1 - len(indexKey)
	head := make([]byte, hl+1)
	copy(head, line1[:hl])
	head[hl] = '}'
	h, ok := decodeHeaderJSON(head) // rulejson.go; encoding/json for anything it leaves
	if !ok {
		h = lazyHeader{}
		dec := json.NewDecoder(bytes.NewReader(head))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&h); err != nil || dec.InputOffset() != int64(len(head)) {
			return nil
		}
	}
	if h.Version != 1 || h.Meta == nil {
		return nil
	}
	bodyOff := int64(nl+1) + int64(len(rulesOpen))
	bodyLen := size - bodyOff - int64(len(rulesClose))
	if bodyLen < 0 || !readIs(f, int64(nl+1), rulesOpen) || !readIs(f, size-int64(len(rulesClose)), rulesClose) {
		return nil
	}
	ix, blocks, ok := readIndex(raw, f, bodyOff, bodyLen, scratch)
	if !ok || f.Check() != nil {
		return nil
	}
	n := ix.n
	ld := named(&layerDoc{src: s, doc: fileDoc{Version: h.Version, Settings: h.Settings, Tests: h.Tests, Meta: h.Meta}})
	if len(h.Settings.Disable) > 0 || len(checkSettings(ld)) > 0 || len(checkTests(ld)) > 0 {
		return nil
	}
	p, _, probs := merge([]*layerDoc{ld})
	if len(probs) > 0 || len(p.Warnings) > 0 {
		return nil
	}
	p.idx = ix
	p.rules = &lazyRules{file: f, bodyOff: bodyOff, bodyLen: bodyLen, blocks: blocks,
		starts: make([]int32, n), ends: make([]int32, n), lines: make([][]byte, len(blocks)),
		ld: ld, opts: opts, got: make([]*Rule, n)}
	return p
}

// readLine1 reads the file's first line, without its newline: it finds
// the newline through scratch, then reads the line into a slice of its
// own size.
func readLine1(f File, size int64, scratch []byte) ([]byte, bool) {
	for off := int64(0); off < size; {
		chunk := scratch[:min(int64(len(scratch)), size-off)]
		if _, err := f.ReadAt(chunk, off); err != nil {
			return nil, false
		}
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			n := off + int64(i)
			if n <= int64(len(scratch)) {
				return bytes.Clone(chunk[:i]), true
			}
			line := make([]byte, n)
			if _, err := f.ReadAt(line, 0); err != nil {
				return nil, false
			}
			return line, true
		}
		off += int64(len(chunk))
	}
	return nil, false
}

// readIs reports whether f holds want at off.
func readIs(f File, off int64, want string) bool {
	b := make([]byte, len(want))
	_, err := f.ReadAt(b, off)
	return err == nil && string(b) == want
}

// ruleHeads are the rules of a pending layer (pendingLayer) before they
// are compiled: what merge needs of each (id, decision, priority, lock,
// provenance), and its position in the layer (Rule.head).
func ruleHeads(ld *layerDoc) []*Rule {
	heads := make([]Rule, len(ld.doc.Rules))
	out := make([]*Rule, len(heads))
	for i := range ld.doc.Rules {
		fr := &ld.doc.Rules[i]
		d, _ := call.ParseDecision(fr.Decision) // a bad one fails its compile (lazyRules.decode)
		layer, src := provenance(ld, i, fr)
		heads[i] = Rule{ID: fr.ID, Decision: d, Priority: fr.Priority, Locked: fr.Locked, Layer: layer, Source: src, head: int32(i) + 1}
		out[i] = &heads[i]
	}
	return out
}

// pendingRules is the rule source of a merged policy whose effective rules
// (merge's list) hold heads of the pending layer ld: those are compiled on
// first use, the others are already.
func pendingRules(rules []*Rule, ld *layerDoc, opts LoadOptions) *lazyRules {
	l := &lazyRules{docs: ld.doc.Rules, heads: make([]int32, len(rules)), ld: ld, opts: opts, got: make([]*Rule, len(rules))}
	for g, r := range rules {
		l.heads[g] = r.head - 1
		if r.head == 0 {
			l.got[g] = r
		}
	}
	return l
}

// compileHeads compiles every head among the effective rules in place.
func compileHeads(rules []*Rule, ld *layerDoc, opts LoadOptions) []Problem {
	var probs []Problem
	for g, r := range rules {
		if r.head == 0 {
			continue
		}
		i := int(r.head - 1)
		c, rp := compileRule(ld, i, ld.doc.Rules[i], opts)
		if len(rp) > 0 {
			probs = append(probs, rp...)
			continue
		}
		c.ord = g
		rules[g] = c
	}
	return probs
}

// lazyRules are the rules of a lazily loaded policy: rule i is the JSON
// object lines[i/blockLines][starts[i]:ends[i]] (a materialized file; its
// block of lines is read and split on first use), or docs[heads[i]] (the
// build-time decoded defaults; heads[i] is -1 for a rule of another layer,
// compiled at load and already in got; no heads: docs[i]), decoded and
// compiled on first use.
type lazyRules struct {
	file         File
	bodyOff      int64    // where the rule lines start in file
	bodyLen      int64    // their length
	blocks       []int32  // offset in the rule lines of lines 0, blockLines, …
	lines        [][]byte // a block's bytes, once read
	starts, ends []int32  // a rule's line within its block's bytes
	docs         []fileRule
	heads        []int32
	ld           *layerDoc
	opts         LoadOptions

	mu   sync.Mutex
	got  []*Rule
	errs map[int]error

	allOnce sync.Once
	rules   []*Rule
	allErr  error
}

func (l *lazyRules) len() int { return len(l.got) }

// spec is rule i as written, without compiling it: for a policy of the
// build-time decoded defaults (docs), with or without other layers.
func (l *lazyRules) spec(i int) fileRule {
	if l.heads != nil && l.heads[i] < 0 {
		return l.got[i].spec // another layer's, compiled at load
	}
	j := i
	if l.heads != nil {
		j = int(l.heads[i])
	}
	return l.docs[j]
}

// rule returns rule i, decoding and compiling it on first use.
func (l *lazyRules) rule(i int) (*Rule, error) {
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
	if l.docs != nil {
		j := i
		if l.heads != nil {
			j = int(l.heads[i])
		}
		if j < 0 {
			return nil, fmt.Errorf("%s: rule %d is missing", l.ld.src.Path, i) // not reached: got holds it
		}
		r, probs := compileRule(l.ld, j, l.docs[j], l.opts)
		if len(probs) > 0 || r == nil {
			return nil, fmt.Errorf("%s: rule %q does not compile: %v", l.ld.src.Path, l.docs[j].ID, probs)
		}
		r.ord = i
		return r, nil
	}
	if err := l.splitBlock(i / blockLines); err != nil {
		return nil, err
	}
	line := l.lines[i/blockLines][l.starts[i]:l.ends[i]]
	lineNo := 3 + i
	fr, ok := decodeRuleJSON(line) // rulejson.go; encoding/json for anything it leaves, and its errors
	if !ok {
		fr = fileRule{}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&fr); err != nil {
			return nil, fmt.Errorf("%s:%d: rule %d: %s", l.ld.src.Path, lineNo, i, jsonMsg(err))
		}
		if dec.InputOffset() != int64(len(line)) {
			return nil, fmt.Errorf("%s:%d: rule %d: trailing data after the rule", l.ld.src.Path, lineNo, i)
		}
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

// splitBlock reads block b and finds its lines: blockLines lines "{…},"
// (the last rule's line "{…}") from the block's offset to the next one's.
// The file must still be the one the checksum was taken of (File.Check).
func (l *lazyRules) splitBlock(b int) error {
	if l.lines[b] != nil {
		return nil
	}
	end := l.bodyLen
	if b+1 < len(l.blocks) {
		end = int64(l.blocks[b+1])
	}
	data := make([]byte, end-int64(l.blocks[b]))
	if _, err := l.file.ReadAt(data, l.bodyOff+int64(l.blocks[b])); err != nil {
		return fmt.Errorf("%s: reading rules %d-: %v", l.ld.src.Path, b*blockLines, err)
	}
	if err := l.file.Check(); err != nil {
		return fmt.Errorf("%s: %v", l.ld.src.Path, err)
	}
	n := len(l.got)
	first := b * blockLines
	last := min(first+blockLines, n) // exclusive
	off := 0
	for i := first; i < last; i++ {
		j := bytes.IndexByte(data[off:], '\n')
		if j < 0 {
			return l.layoutErr(i)
		}
		line := data[off : off+j]
		e := off + j
		if i < n-1 {
			if len(line) < 3 || line[len(line)-1] != ',' {
				return l.layoutErr(i)
			}
			e--
		}
		if len(line) < 2 || line[0] != '{' || data[e-1] != '}' {
			return l.layoutErr(i)
		}
		l.starts[i], l.ends[i] = int32(off), int32(e)
		off += j + 1
	}
	if off != len(data) {
		return l.layoutErr(last - 1)
	}
	l.lines[b] = data
	return nil
}

func (l *lazyRules) layoutErr(i int) error {
	return fmt.Errorf("%s:%d: rule %d: the rule lines do not match the index's block table (re-run toolguard materialize)", l.ld.src.Path, 3+i, i)
}

// all decodes every rule, in order; rules that fail are left out and the
// first failure is returned.
func (l *lazyRules) all() ([]*Rule, error) {
	l.allOnce.Do(func() {
		l.rules = make([]*Rule, 0, len(l.got))
		for i := range l.got {
			r, err := l.rule(i)
			if err != nil {
				if l.allErr == nil {
					l.allErr = err
				}
				continue
			}
			l.rules = append(l.rules, r)
		}
	})
	return l.rules, l.allErr
}
