package shellparse

import (
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Indexed arrays whose elements are literal: a=(-rf /); rm "${a[@]}"
// runs rm -rf /. An array is a varState with arr set, its elements in list
// and the first in val ($a is ${a[0]}). Associative arrays, elements set
// by [i]=v inside ( ), and anything not literal leave the array unknown.

// assignArray analyzes a=(…), a+=(…) and a[i]=v.
func (a *analyzer) assignArray(as *syntax.Assign, sc *scope, fr *frame, srcs []Source) {
	name := as.Name.Value
	old, oldSet := sc.lookup(name)
	unknown := func() { sc.setUnknown(name, appendSources(old.srcs, srcs...)) }
	if as.Index != nil {
		// a[i]=v: one element of a known array.
		i, ok := arithLit(as.Index)
		if !ok || i < 0 || as.Value == nil || !old.known || !(old.arr || !oldSet) || as.Append {
			unknown()
			return
		}
		v := a.foldString(as.Value, sc, fr.src)
		list := append([]string(nil), old.list...)
		if !old.arr && oldSet {
			list = []string{old.val}
		}
		if i > len(list) || !v.lit {
			unknown() // a sparse array: not tracked
			return
		}
		if i == len(list) {
			list = append(list, v.s)
		} else {
			list[i] = v.s
		}
		a.setArray(name, list, sc, appendSources(srcs, v.srcs...))
		return
	}
	var elems []field
	for _, e := range as.Array.Elems {
		if e.Index != nil || e.Value == nil {
			unknown()
			return
		}
		elems = a.fold(elems, e.Value, sc, fr.src, true)
	}
	var list []string
	if as.Append {
		switch {
		case !oldSet:
		case !old.known:
			unknown()
			return
		case old.arr:
			list = append(list, old.list...)
		default:
			list = append(list, old.val)
		}
	}
	for _, f := range elems {
		if !f.lit || f.glob {
			unknown()
			return
		}
		list = append(list, f.s)
		srcs = appendSources(srcs, f.srcs...)
	}
	a.setArray(name, list, sc, srcs)
}

// setArray records a known array, unless it passes maxValue bytes.
func (a *analyzer) setArray(name string, list []string, sc *scope, srcs []Source) {
	n := 0
	for _, el := range list {
		n += len(el) + 1
	}
	if n > maxValue || len(list) > 1024 {
		sc.setUnknown(name, srcs)
		return
	}
	v := varState{known: true, arr: true, list: list, srcs: srcs}
	if len(list) > 0 {
		v.val = list[0]
	}
	sc.set(name, v)
}

// arrayParam expands ${a[@]}, ${a[*]}, ${a[N]} and ${#a[@]} of a known
// array (or of a known scalar, which is an array of one). It reports
// false when p is not one of these, or the array is not known.
func (fo *folder) arrayParam(p *syntax.ParamExp, q quoting) bool {
	if p.Index == nil || p.Param == nil || p.Excl || p.Exp != nil || p.Repl != nil ||
		p.Names != 0 || len(p.Modifiers) > 0 || p.Flags != nil || p.NestedParam != nil || p.Width || p.IsSet {
		return false
	}
	w, ok := p.Index.(*syntax.Word)
	if !ok {
		return false
	}
	v, set := fo.sc.lookup(p.Param.Value)
	if !set || !v.known || v.list == nil && !v.arr && p.Param.Value == "@" {
		return false
	}
	list := v.list
	if !v.arr {
		list = []string{v.val}
	}
	idx := w.Lit()
	if p.Slice != nil {
		// ${a[@]:OFF:LEN}: elements OFF to OFF+LEN.
		off, ok1 := arithLit(p.Slice.Offset)
		n, ok2 := len(list), true
		if p.Slice.Length != nil {
			n, ok2 = arithLit(p.Slice.Length)
		}
		if !ok1 || !ok2 || off < 0 || n < 0 || (idx != "@" && idx != "*") || p.Length {
			return false
		}
		off = min(off, len(list))
		list = list[off:min(len(list), off+n)]
	}
	fo.f.srcs = appendSources(fo.f.srcs, v.srcs...)
	switch {
	case p.Length && (idx == "@" || idx == "*"):
		fo.expansion(strconv.Itoa(len(list)), q, p)
	case p.Length:
		return false
	case idx == "@" && q == quoteDouble:
		n := 0
		for _, el := range list {
			n += len(el)
		}
		if !fo.fits(n) {
			return false
		}
		if len(list) == 0 {
			return true
		}
		for i, el := range list {
			if i > 0 && fo.split {
				fo.flush(true)
			} else if i > 0 {
				fo.add(" ")
			}
			fo.add(el)
		}
	case idx == "@" || idx == "*":
		sep := " "
		if idx == "*" && q == quoteDouble {
			if ifs, set := fo.sc.lookup("IFS"); set {
				if !ifs.known {
					return false
				}
				sep = ifs.val[:min(1, len(ifs.val))]
			}
		}
		fo.expansion(strings.Join(list, sep), q, p)
	default:
		i, err := strconv.Atoi(idx)
		if err != nil || i < 0 {
			return false
		}
		el := ""
		if i < len(list) {
			el = list[i]
		}
		fo.expansion(el, q, p)
	}
	return true
}
