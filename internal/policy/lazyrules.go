package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/call"
)

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
	fr, err := l.line(i)
	if err != nil {
		return nil, err
	}
	r, probs := compileRule(l.ld, i, *fr, l.opts)
	if len(probs) > 0 {
		msgs := make([]string, len(probs))
		for j, p := range probs {
			msgs[j] = p.Msg
		}
		return nil, fmt.Errorf("%s:%d: rule %q: %s", l.ld.src.Path, 3+i, fr.ID, strings.Join(msgs, "; "))
	}
	r.ord = i
	return r, nil
}

// line decodes rule i of a materialized file (not compiled).
func (l *lazyRules) line(i int) (*fileRule, error) {
	if err := l.splitBlock(i / blockLines); err != nil {
		return nil, err
	}
	line := l.lines[i/blockLines][l.starts[i]:l.ends[i]]
	lineNo := 3 + i
	var fr fileRule
	if j := builtinLine(line); j >= 0 {
		fr = builtinGen.Rules[j]
	} else {
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
	return &fr, nil
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

// builtinSuffix ends the materialized line of every default rule: its
// provenance, the last two fields.
const builtinSuffix = `,"layer":"builtin","source":"` + BuiltinFile + `:`

// builtinLine returns the default rule whose materialized line (ruleLine)
// is exactly line, or -1. A platform or org policy materialized over the
// defaults holds them as lines, and a call reaches dozens: such a line is
// taken as the build-time decoded rule instead of decoded again. The
// SHA-256 of the whole line must equal the generated one
// (builtinGenLineDigests), so the rule is what decoding the line gives
// (TestBuiltinLines); a default a layer changed, or one of another
// release, is a different line and is decoded.
func builtinLine(line []byte) int {
	if !bytes.Contains(line, []byte(builtinSuffix)) || len(builtinGenLineDigests) != len(builtinGen.Rules)*digestLen {
		return -1
	}
	d := lineDigest(line)
	for j := 0; j < len(builtinGen.Rules); j++ {
		if builtinGenLineDigests[j*digestLen:(j+1)*digestLen] == d {
			return j
		}
	}
	return -1
}

// lineDigest is the hex SHA-256 of a materialized rule line.
func lineDigest(line []byte) string {
	sum := sha256.Sum256(line)
	return hex.EncodeToString(sum[:])
}
