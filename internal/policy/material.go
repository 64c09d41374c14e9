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
	n, crc, cats, blocks, ok := parseIndexHead(head)
	// Categories and blocks, or neither: an empty policy, no lists.
	if !ok || (cats == "") != (blocks == "") || cats == "" && (n != 0 || string(listBytes) != "|") {
		return index{}, nil, false
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

// parseIndexHead reads an index string's head, "v2 n=N crc=C cats=X
// blocks=Y" exactly as formatIndex writes it (decimal numbers, nothing
// else), or false.
func parseIndexHead(head string) (n int, crc uint32, cats, blocks string, ok bool) {
	f := strings.Split(head, " ")
	if len(f) != 5 || f[0] != "v2" {
		return 0, 0, "", "", false
	}
	ns, okN := strings.CutPrefix(f[1], "n=")
	cs, okC := strings.CutPrefix(f[2], "crc=")
	cats, okX := strings.CutPrefix(f[3], "cats=")
	blocks, okY := strings.CutPrefix(f[4], "blocks=")
	nv, errN := strconv.ParseUint(ns, 10, 31)
	cv, errC := strconv.ParseUint(cs, 10, 32)
	if !okN || !okC || !okX || !okY || errN != nil || errC != nil ||
		head != "v2 n="+strconv.FormatUint(nv, 10)+" crc="+strconv.FormatUint(cv, 10)+" cats="+cats+" blocks="+blocks {
		return 0, 0, "", "", false
	}
	return int(nv), uint32(cv), cats, blocks, true
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
		if len(c) < 4 || int(c[0]) <= last {
			return index{}, false
		}
		los, his, _ := strings.Cut(c[1:], "-")
		lo64, errLo := strconv.ParseUint(los, 10, 31)
		hi64, errHi := strconv.ParseUint(his, 10, 31)
		lo, hi := int(lo64), int(hi64)
		if errLo != nil || errHi != nil || lo != next || hi <= lo+3 || hi > len(lists) ||
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

// ruleLine is a rule's line in the materialized layout (without the
// comma between lines): its JSON as json.Marshal writes it.
func ruleLine(spec fileRule) []byte { return marshal(spec) }

// marshal is json.Marshal of a rule or settings document, which holds
// only strings, bools, ints, lists and maps of them: it cannot fail.
func marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("policy: json.Marshal(%T): %v", v, err)) // unreachable: see above
	}
	return b
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
		body.Write(ruleLine(r.spec))
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
	var h lazyHeader
	dec := json.NewDecoder(bytes.NewReader(head))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil || dec.InputOffset() != int64(len(head)) {
		return nil
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
