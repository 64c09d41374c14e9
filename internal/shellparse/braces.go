package shellparse

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// fillBraces gives every empty alternative of the brace expressions in w
// (SplitBraces makes {,} two words without parts) an empty literal at
// the expression's place: syntax.Word.Pos and End index a word's first
// and last parts, and every word the analysis keeps must have them.
func fillBraces(w *syntax.Word, pos syntax.Pos, depth int) {
	if depth > 64 {
		return
	}
	for _, p := range w.Parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		for _, e := range be.Elems {
			if len(e.Parts) == 0 {
				e.Parts = []syntax.WordPart{&syntax.Lit{ValuePos: pos, ValueEnd: pos}}
				continue
			}
			fillBraces(e, pos, depth+1)
		}
	}
}

func isBraceExp(p syntax.WordPart) bool {
	_, ok := p.(*syntax.BraceExp)
	return ok
}

const maxBraceWords = 256

// braceWords applies brace expansion to a word that went through
// syntax.SplitBraces. It reports false when the expansion would exceed
// maxBraceWords words, or the word holds too many brace expressions.
func braceWords(w *syntax.Word) ([]*syntax.Word, bool) {
	n := 0
	for _, p := range w.Parts {
		if _, ok := p.(*syntax.BraceExp); ok {
			n++
		}
	}
	if n > 16 {
		return nil, false
	}
	out := make([]*syntax.Word, 0, 4)
	return expandBraces(w, out, 0)
}

func expandBraces(w *syntax.Word, out []*syntax.Word, depth int) ([]*syntax.Word, bool) {
	if depth > 32 {
		return nil, false
	}
	for i, p := range w.Parts {
		be, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		alts := be.Elems
		if be.Sequence {
			alts, ok = braceSequence(be)
			if !ok {
				return nil, false
			}
		}
		for _, alt := range alts {
			parts := make([]syntax.WordPart, 0, len(w.Parts)+len(alt.Parts))
			parts = append(parts, w.Parts[:i]...)
			parts = append(parts, alt.Parts...)
			parts = append(parts, w.Parts[i+1:]...)
			out, ok = expandBraces(&syntax.Word{Parts: parts}, out, depth+1)
			if !ok || len(out) > maxBraceWords {
				return nil, false
			}
		}
		return out, true
	}
	return append(out, w), true
}

// braceSequence expands {x..y[..incr]} over integers or single letters.
func braceSequence(be *syntax.BraceExp) ([]*syntax.Word, bool) {
	if len(be.Elems) < 2 {
		return nil, false
	}
	lo, hi := be.Elems[0].Lit(), be.Elems[1].Lit()
	step := 1
	if len(be.Elems) > 2 {
		s, err := strconv.Atoi(be.Elems[2].Lit())
		if err != nil {
			return nil, false
		}
		step = max(s, -s)
	}
	if step == 0 {
		step = 1
	}
	var vals []string
	x, err1 := strconv.Atoi(lo)
	y, err2 := strconv.Atoi(hi)
	switch {
	case err1 == nil && err2 == nil:
		if (y-x)/step > maxBraceWords || (x-y)/step > maxBraceWords {
			return nil, false
		}
		for i := x; (x <= y && i <= y) || (x > y && i >= y); {
			vals = append(vals, strconv.Itoa(i))
			if x <= y {
				i += step
			} else {
				i -= step
			}
		}
	case len(lo) == 1 && len(hi) == 1:
		for c := int(lo[0]); (lo[0] <= hi[0] && c <= int(hi[0])) || (lo[0] > hi[0] && c >= int(hi[0])); {
			vals = append(vals, string(rune(c)))
			if lo[0] <= hi[0] {
				c += step
			} else {
				c -= step
			}
		}
	default:
		return nil, false
	}
	words := make([]*syntax.Word, len(vals))
	for i, v := range vals {
		words[i] = &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: v}}}
	}
	return words, true
}

// braceText prints a brace expression that is not expanded.
func braceText(be *syntax.BraceExp, src string) string {
	sep := ","
	if be.Sequence {
		sep = ".."
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, e := range be.Elems {
		if i > 0 {
			b.WriteString(sep)
		}
		for _, p := range e.Parts {
			if l, ok := p.(*syntax.Lit); ok {
				b.WriteString(l.Value)
			} else {
				b.WriteString(nodeText(src, p))
			}
		}
	}
	b.WriteByte('}')
	return b.String()
}
