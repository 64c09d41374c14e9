package policy

import (
	"net/url"
	"path"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// index sorts rules by what they can match, so that evaluating a call
// looks only at the rules it can reach, not at every rule of a large
// policy. Entries are rule ordinals (positions in the effective rule
// list), ascending, so that a lazily loaded policy decodes only the rules
// a call reaches (lazyrules.go) and candidates are tried in rule order.
//
// Lists are found by category and key:
//
//	n:NAME   command rules whose every alternative names the literal program NAME
//	l:TEXT   other command rules whose regex only matches text containing TEXT
//	x:PREFIX other command rules whose every program glob starts with the literal PREFIX
//	g:       the other command rules (glob program name, or none)
//	p:KEY    path rules whose every path pattern has a literal prefix (pathKeys)
//	P:       the other path rules
//	m:SERVER call rules whose every mcp pattern names the literal server
//	M:       the other call rules with an mcp field (MCP calls only)
//	d:SUFFIX call rules whose every domain pattern ends in the literal SUFFIX
//	D:       the other call rules with a domain field (calls with a URL only)
//	k:KIND   call rules whose tool field names only kinds, among them KIND
//	c:       the other call rules
//	e:EFFECT command rules with an effect field that name no program
//	f:EFFECT path rules with an effect field and no path pattern
//
// A built index holds them in a map; a lazily loaded one reads them from
// the materialized file's index string (material.go).
type index struct {
	lists map[string][]int32
	raw   string // the materialized index string, when lists is nil
	n     int    // the number of rules (bounds the ordinals of raw)
	// cats bounds each category's entries in raw (they are sorted).
	cats map[byte][2]int
	// literals are the l: lists, tested against each command line.
	literals []litList
	// parts, when set, make the index of a merged policy out of the
	// indexes of its layers (layeredIndex): a list is each part's list,
	// mapped to effective ordinals, merged.
	parts []indexPart
}

// indexPart is the index of some of a policy's rules.
type indexPart struct {
	ix index
	// ord maps the part's ordinals to effective ones, -1 for a rule no
	// longer in effect (replaced or disabled by a later layer); nil when
	// they are the same.
	ord []int32
}

type litList struct {
	text string
	ords []int32
}

const (
	catName      = 'n'
	catAnyName   = 'g'
	catLiteral   = 'l'
	catGlob      = 'x'
	catPath      = 'p'
	catPathAll   = 'P'
	catServer    = 'm'
	catMCP       = 'M'
	catDomain    = 'd'
	catURL       = 'D'
	catKind      = 'k'
	catCallOther = 'c'
	catEffect    = 'e' // e:EFFECT command rules that need EFFECT and name no program (effects.go)
	catPathEff   = 'f' // f:EFFECT path rules that need EFFECT and have no path pattern
)

// get returns the list of one category and key.
func (ix *index) get(cat byte, key string) []int32 {
	if ix.parts != nil {
		var buf [2][]int32
		lists := buf[:0]
		for i := range ix.parts {
			part := &ix.parts[i]
			if l := part.ix.get(cat, key); len(l) > 0 {
				lists = append(lists, remapOrds(l, part.ord))
			}
		}
		return mergeOrds(lists...)
	}
	if ix.lists != nil {
		return ix.lists[string(cat)+":"+key]
	}
	r, ok := ix.cats[cat]
	if !ok {
		return nil
	}
	return rawList(ix.raw[r[0]:r[1]], ix.n, cat, key)
}

// lookups is what one evaluation remembers of its index lookups (its
// evalEnv holds one): the index is shared by every call, what a call
// looked up is its own.
type lookups struct {
	calls     []int32 // the call rules this call can reach (callCandidates)
	callsSet  bool
	names     map[string]nameCands // commandCandidates memo, by program name, once there are two
	lastName  string               // … and the last name looked up
	lastCands nameCands
	lits      *litScan // literalHits, once enough lines were tested
	lines     int      // lines tested before lits was built
	litSpace  int8     // litNoSpace or litSpaced once known; 0 before
}

// callCandidates returns the call rules the call can match (forCall),
// computed once per evaluation.
func (ix *index) callCandidates(c *call.Call, ev *lookups) []int32 {
	if !ev.callsSet {
		ev.calls, ev.callsSet = ix.forCall(c), true
	}
	return ev.calls
}

// commandCandidates returns the command rules that can match a command,
// in rule order. What depends on the program name alone is looked up once
// per evaluation (ev.names): a long script runs the same few programs many
// times, and a lazily loaded index reads its lists from the index string
// on every get.
func (ix *index) commandCandidates(cmd *shellparse.Command, ev *lookups) (byName, others []int32) {
	if cmd.Dynamic {
		// Rules with a command field do not match dynamic commands; a
		// regex rule is tested against the text and the arguments
		// (dynamicLine).
		return nil, mergeOrds(append(ix.literalHits(cmd.DynamicText, cmd.Args, ev), ix.get(catAnyName, ""))...)
	}
	name := cmd.Name
	nc, ok := ev.lastCands, ev.lastName == name && ev.lastCands.set
	if !ok {
		nc, ok = ev.names[name]
	}
	if !ok {
		lists := [][]int32{ix.get(catAnyName, "")}
		for i := 1; i <= len(name); i++ {
			if l := ix.get(catGlob, name[:i]); l != nil {
				lists = append(lists, l)
			}
		}
		nc = nameCands{byName: ix.get(catName, name), others: mergeOrds(lists...), set: true}
		if ev.lastCands.set { // a second name: keep them all
			if ev.names == nil {
				ev.names = map[string]nameCands{ev.lastName: ev.lastCands}
			}
			ev.names[name] = nc
		}
	}
	ev.lastName, ev.lastCands = name, nc
	hits := ix.literalHits(name, cmd.Args, ev)
	if len(hits) == 0 {
		return nc.byName, nc.others
	}
	return nc.byName, mergeOrds(append(hits, nc.others)...)
}

// nameCands are the command rules a program name reaches.
type nameCands struct {
	byName []int32 // n:NAME
	others []int32 // g: and the x: lists of the name's prefixes, merged
	set    bool
}

// literalHits returns the l: lists whose text is in the line that head
// and args make joined by single spaces (Command.Line, dynamicLine). A
// literal without a space is in the line exactly when it is in one of the
// words, so the line is built only when some literal holds a space.
//
// The first lines are tested literal by literal; past that, the literals
// are filed by their first bytes once per evaluation (litScan), so that a
// long script reads each line once, whatever the number of literals.
func (ix *index) literalHits(head string, args []string, ev *lookups) [][]int32 {
	if len(ix.literals) == 0 {
		return nil
	}
	if ev.litSpace == 0 {
		ev.litSpace = litNoSpace
		for _, l := range ix.literals {
			if strings.Contains(l.text, " ") {
				ev.litSpace = litSpaced
				break
			}
		}
	}
	if ev.litSpace == litSpaced && len(args) > 0 {
		head, args = head+" "+strings.Join(args, " "), nil
	}
	var out [][]int32
	if ev.lits == nil {
		ev.lines++
		if ev.lines <= litScanAfter || len(ix.literals) <= litScanMin {
			for _, l := range ix.literals {
				if strings.Contains(head, l.text) || anyContains(args, l.text) {
					out = append(out, l.ords)
				}
			}
			return out
		}
		ev.lits = newLitScan(ix.literals)
	}
	s := ev.lits
	s.begin()
	s.scan(head, ix.literals)
	for _, a := range args {
		s.scan(a, ix.literals)
	}
	return s.collect(ix.literals, out)
}

func anyContains(list []string, sub string) bool {
	for _, s := range list {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// lookups.litSpace
const (
	litNoSpace = 1 // no literal holds a space
	litSpaced  = 2 // some literal holds a space
)

const (
	litScanAfter = 8 // lines tested literal by literal before a litScan is built
	litScanMin   = 8 // fewer literals are always tested one by one
)

// litScan finds which of an index's literals some text contains in one
// pass over the text.
type litScan struct {
	always []int32            // empty literals
	one    [256][]int32       // literals of one byte, by that byte
	two    map[uint16][]int32 // longer literals, by their first two bytes
	seen   []uint32           // seen[i] == gen: literal i is a hit of the current line
	gen    uint32
	found  []int32 // the hits of the current line
}

func newLitScan(lits []litList) *litScan {
	s := &litScan{two: map[uint16][]int32{}, seen: make([]uint32, len(lits))}
	for i, l := range lits {
		switch len(l.text) {
		case 0:
			s.always = append(s.always, int32(i))
		case 1:
			s.one[l.text[0]] = append(s.one[l.text[0]], int32(i))
		default:
			k := uint16(l.text[0])<<8 | uint16(l.text[1])
			s.two[k] = append(s.two[k], int32(i))
		}
	}
	return s
}

// begin starts a line.
func (s *litScan) begin() {
	s.gen++
	s.found = append(s.found[:0], s.always...)
}

func (s *litScan) hit(j int32) {
	if s.seen[j] != s.gen {
		s.seen[j] = s.gen
		s.found = append(s.found, j)
	}
}

// scan adds the literals that text contains to the line's hits.
func (s *litScan) scan(text string, lits []litList) {
	for i := 0; i < len(text); i++ {
		for _, j := range s.one[text[i]] {
			s.hit(j)
		}
		if i+1 == len(text) {
			break
		}
		for _, j := range s.two[uint16(text[i])<<8|uint16(text[i+1])] {
			if s.seen[j] != s.gen && strings.HasPrefix(text[i:], lits[j].text) {
				s.hit(j)
			}
		}
	}
}

// collect appends the ordinal lists of the line's hits to out, in the
// order of lits.
func (s *litScan) collect(lits []litList, out [][]int32) [][]int32 {
	slices.Sort(s.found)
	for _, j := range s.found {
		out = append(out, lits[j].ords)
	}
	return out
}

func (ix *index) add(cat byte, key string, o int32) {
	k := string(cat) + ":" + key
	l := ix.lists[k]
	if len(l) > 0 && l[len(l)-1] == o {
		return
	}
	ix.lists[k] = append(l, o)
}

// indexable reports whether a key can be written into the index string:
// printable ASCII without its separators.
func indexable(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c >= 0x7f || c == '|' || c == '=' || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// remapOrds maps a part's ordinal list to effective ordinals (indexPart),
// keeping a corrupt list's -1 (rawList) so that it still fails closed.
func remapOrds(l, ord []int32) []int32 {
	if ord == nil {
		return l
	}
	out := make([]int32, 0, len(l))
	for _, o := range l {
		switch {
		case o < 0 || int(o) >= len(ord):
			out = append(out, -1)
		case ord[o] >= 0:
			out = append(out, ord[o])
		}
	}
	return out
}

// layeredIndex is the index of a merged policy whose effective rules hold
// the heads of the defaults (ruleHeads; nb rules): the generated index of
// the defaults (builtinIndex), its ordinals mapped to where merge put
// each rule, with an index built from the other rules (those of the
// other layers, compiled) by their effective ordinals. False when the
// generated index does not fit (the caller then compiles every rule).
func layeredIndex(rules []*Rule, nb int) (index, bool) {
	bix, ok := builtinIndex(nb)
	if !ok {
		return index{}, false
	}
	ord := make([]int32, nb)
	for i := range ord {
		ord[i] = -1
	}
	same, heads := true, 0
	var others []*Rule
	for g, r := range rules {
		if r.head == 0 {
			others = append(others, r)
			continue
		}
		b := r.head - 1
		ord[b], heads = int32(g), heads+1
		same = same && int(b) == g
	}
	if heads == 0 {
		return index{}, false // builtin = false: no default is in effect
	}
	if same && heads == nb {
		if len(others) == 0 {
			return bix, true // the defaults alone
		}
		ord = nil
	}
	oix := index{lists: map[string][]int32{}, n: len(rules)}
	for _, r := range others {
		oix.addRule(int32(r.ord), r)
	}
	oix.literals = literalLists(oix.lists)
	ix := index{n: len(rules), parts: []indexPart{{ix: bix, ord: ord}, {ix: oix}}}
	for _, part := range ix.parts {
		for _, l := range part.ix.literals {
			if m := remapOrds(l.ords, part.ord); len(m) > 0 {
				ix.literals = append(ix.literals, litList{l.text, m})
			}
		}
	}
	slices.SortStableFunc(ix.literals, func(a, b litList) int { return strings.Compare(a.text, b.text) })
	return ix, true
}

func buildIndex(rules []*Rule) index {
	ix := index{lists: map[string][]int32{}, n: len(rules)}
	for i, r := range rules {
		ix.addRule(int32(i), r)
	}
	ix.literals = literalLists(ix.lists)
	return ix
}

// addRule files rule r under ordinal o.
func (ix *index) addRule(o int32, r *Rule) {
	switch r.m.class {
	case classCall:
		ix.addCall(o, &r.m)
	case classPath:
		if len(r.m.effects) > 0 && len(r.m.paths) == 0 {
			for _, e := range r.m.effects {
				ix.add(catPathEff, e, o)
			}
			return
		}
		keys, ok := pathKeys(r.m.paths)
		if !ok {
			ix.add(catPathAll, "", o)
			return
		}
		for _, k := range keys {
			ix.add(catPath, k, o)
		}
	case classCommand:
		names, literal := programNames(r.m.commands)
		if len(r.m.commands) == 0 && r.m.regex != nil {
			names, literal = regexPrograms(r.m.regex.src)
		}
		for _, n := range names {
			literal = literal && indexable(n)
		}
		if len(r.m.effects) > 0 && len(r.m.commands) == 0 && r.m.regex == nil {
			for _, e := range r.m.effects {
				ix.add(catEffect, e, o)
			}
			return
		}
		if !literal {
			if lit := regexLiteral(r.m.regex); lit != "" {
				ix.add(catLiteral, lit, o)
			} else if pres, ok := globPrefixes(r.m.commands); ok {
				for _, pre := range pres {
					ix.add(catGlob, pre, o)
				}
			} else {
				ix.add(catAnyName, "", o)
			}
			return
		}
		for _, n := range names {
			ix.add(catName, n, o)
		}
	}
}

func literalLists(lists map[string][]int32) []litList {
	var out []litList
	for k, l := range lists {
		if k[0] == catLiteral {
			out = append(out, litList{k[2:], l})
		}
	}
	slices.SortFunc(out, func(a, b litList) int { return strings.Compare(a.text, b.text) })
	return out
}

// regexLiteral returns the longest literal text every match of a regex
// contains (a case-sensitive literal among the top-level concatenation),
// or "".
func regexLiteral(re *lazyRegexp) string {
	if re == nil {
		return ""
	}
	t, err := syntax.Parse(re.src, syntax.Perl)
	if err != nil {
		return ""
	}
	t = t.Simplify()
	for t.Op == syntax.OpCapture && len(t.Sub) == 1 {
		t = t.Sub[0]
	}
	subs := []*syntax.Regexp{t}
	if t.Op == syntax.OpConcat {
		subs = t.Sub
	}
	best := ""
	for _, sub := range subs {
		if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase != 0 {
			continue
		}
		lit := string(sub.Rune)
		if strings.ContainsRune(lit, utf8.RuneError) || !indexable(lit) {
			continue
		}
		if len(lit) > len(best) {
			best = lit
		}
	}
	return best
}

// globPrefixes returns the literal prefixes of a rule's program globs, and
// false when some alternative's glob starts with pattern syntax or there
// are none.
func globPrefixes(cmds [][]string) ([]string, bool) {
	if len(cmds) == 0 {
		return nil, false
	}
	var out []string
	for _, c := range cmds {
		i := strings.IndexAny(c[0], `*?[\`)
		if i < 0 {
			i = len(c[0])
		}
		if i == 0 || !indexable(c[0][:i]) {
			return nil, false
		}
		out = append(out, c[0][:i])
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

func (ix *index) addCall(o int32, m *matcher) {
	switch {
	case len(m.mcp) > 0:
		var servers []string
		for _, g := range m.mcp {
			srv, _, _ := strings.Cut(g, "/")
			if strings.ContainsAny(srv, `*?[\`) || !indexable(srv) {
				ix.add(catMCP, "", o)
				return
			}
			servers = append(servers, srv)
		}
		for _, srv := range servers {
			ix.add(catServer, srv, o)
		}
	case len(m.domains) > 0:
		var sufs []string
		for _, d := range m.domains {
			suf := domainSuffix(d)
			if suf == "" || !indexable(suf) {
				ix.add(catURL, "", o)
				return
			}
			sufs = append(sufs, suf)
		}
		slices.Sort(sufs)
		for _, suf := range slices.Compact(sufs) {
			ix.add(catDomain, suf, o)
		}
	case len(m.tools) > 0 && onlyKinds(m.tools):
		for _, t := range m.tools {
			ix.add(catKind, t.kind.String(), o)
		}
	default:
		ix.add(catCallOther, "", o)
	}
}

// domainSuffix returns the literal domain a domain pattern's hosts all end
// with (the host itself or a dot before it): the pattern when it has no
// glob syntax, the part after "*." when that is literal, else "".
func domainSuffix(d string) string {
	if !strings.ContainsAny(d, `*?[\`) {
		return d
	}
	if rest, ok := strings.CutPrefix(d, "*."); ok && rest != "" && !strings.ContainsAny(rest, `*?[\`) {
		return rest
	}
	return ""
}

func onlyKinds(ts []toolPattern) bool {
	for _, t := range ts {
		if !t.isKnd {
			return false
		}
	}
	return true
}

// forCall returns the call rules a call can match, in rule order.
func (ix *index) forCall(c *call.Call) []int32 {
	lists := [][]int32{ix.get(catCallOther, ""), ix.get(catKind, c.Kind.String())}
	if c.Kind == call.KindMCP {
		lists = append(lists, ix.get(catMCP, ""))
		// mcp globs are matched against "server/tool" segment by segment:
		// the first segment is what a literal server name must equal.
		srv, _, _ := strings.Cut(c.MCPServer+"/"+c.MCPTool, "/")
		if indexable(srv) {
			lists = append(lists, ix.get(catServer, srv))
		}
	}
	if c.URL != "" {
		lists = append(lists, ix.get(catURL, ""))
		if host := urlHost(c.URL); host != "" {
			for {
				if indexable(host) {
					lists = append(lists, ix.get(catDomain, host))
				}
				i := strings.IndexByte(host, '.')
				if i < 0 {
					break
				}
				host = host[i+1:]
			}
		}
	}
	return mergeOrds(lists...)
}

// urlHost is the host matchDomain tests domain patterns against.
func urlHost(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
}

// mergeOrds merges ascending ordinal lists into one, without duplicates.
func mergeOrds(lists ...[]int32) []int32 {
	var nonEmpty [][]int32
	n := 0
	for _, l := range lists {
		if len(l) > 0 {
			nonEmpty = append(nonEmpty, l)
			n += len(l)
		}
	}
	switch len(nonEmpty) {
	case 0:
		return nil
	case 1:
		return nonEmpty[0]
	}
	out := make([]int32, 0, n)
	for _, l := range nonEmpty {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Path keys: a pattern whose first segments are literal can only match a
// target that starts with those segments, so a path rule is filed under
// its patterns' literal prefixes, tagged by what the pattern is matched
// against (pathPattern.match): "a:" the absolute path, "r:" the path
// relative to the workspace, "h:" relative to the home directory, "b:"
// the base name.

// pathKeys returns the keys of a path rule, and false when some pattern
// (or the absence of any) leaves it unkeyed.
func pathKeys(ps []pathPattern) ([]string, bool) {
	if len(ps) == 0 {
		return nil, false
	}
	var keys []string
	for _, pp := range ps {
		var tag string
		switch pp.kind {
		case patAbs:
			tag = "a:"
		case patRel:
			tag = "r:"
		case patHome:
			tag = "h:"
		case patBase:
			if hasMeta(pp.glob) || !indexable(pp.glob) {
				return nil, false
			}
			keys = append(keys, "b:"+pp.glob)
			continue
		default:
			return nil, false
		}
		lit := literalPrefix(pp.glob)
		if lit == "" || !indexable(lit) {
			return nil, false
		}
		keys = append(keys, tag+lit)
	}
	slices.Sort(keys)
	return slices.Compact(keys), true
}

func hasMeta(s string) bool { return strings.ContainsAny(s, "*?[]{}\\") }

// literalPrefix returns the leading segments of a glob that hold no
// pattern syntax, joined by '/' ("" when the first one does).
func literalPrefix(glob string) string {
	end := 0
	for end <= len(glob) {
		i := strings.IndexByte(glob[end:], '/')
		seg := glob[end:]
		if i >= 0 {
			seg = glob[end : end+i]
		}
		if hasMeta(seg) {
			if end == 0 {
				return ""
			}
			return glob[:end-1]
		}
		if i < 0 {
			return glob
		}
		end += i + 1
	}
	return glob
}

// pathCandidates returns the path rules that can match a path target, in
// rule order: those filed under a key of one of its forms, and pathAll.
func (ix *index) pathCandidates(forms []string, ev *evalEnv) []int32 {
	lists := [][]int32{ix.get(catPathAll, "")}
	look := func(tag, target string) {
		for i := 1; i < len(target); i++ {
			if target[i] == '/' {
				if l := ix.get(catPath, tag+target[:i]); l != nil {
					lists = append(lists, l)
				}
			}
		}
		if l := ix.get(catPath, tag+target); l != nil {
			lists = append(lists, l)
		}
	}
	for _, f := range forms {
		look("a:", f)
		if l := ix.get(catPath, "b:"+path.Base(f)); l != nil {
			lists = append(lists, l)
		}
		if ev.home != "" {
			if r, ok := relInside(ev.home, f); ok {
				look("h:", r)
			}
		}
		if ev.workspace != "" && strings.HasPrefix(f, "/") {
			if r, ok := relInside(ev.workspace, f); ok {
				look("r:", r)
			}
		} else {
			look("r:", f)
		}
	}
	return mergeOrds(lists...)
}

// programNames returns the distinct program names of a rule's command
// alternatives, and false when any of them is a glob or there are none.
func programNames(cmds [][]string) ([]string, bool) {
	if len(cmds) == 0 {
		return nil, false
	}
	var names []string
	seen := map[string]bool{}
	for _, c := range cmds {
		if strings.ContainsAny(c[0], `*?[\`) {
			return nil, false
		}
		if !seen[c[0]] {
			seen[c[0]] = true
			names = append(names, c[0])
		}
	}
	return names, true
}

// regexPrograms returns the program names a regex rule can match when
// every top-level alternative of it is anchored to a literal program name
// followed by a blank (`^git .*push`, `^rm (...)|^find ...`), and false
// otherwise. Such a rule cannot match any other command (nor a dynamic
// one, whose text starts with its unknown part), so it is indexed by name.
func regexPrograms(src string) ([]string, bool) {
	var names []string
	for _, alt := range topLevelAlternatives(src) {
		name, ok := anchoredName(alt)
		if !ok {
			return nil, false
		}
		names = append(names, name)
	}
	return names, len(names) > 0
}

// topLevelAlternatives splits a regex at the | that are outside groups
// and classes.
func topLevelAlternatives(src string) []string {
	var out []string
	depth, start := 0, 0
	inClass := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
		case c == '[':
			inClass = true
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			out = append(out, src[start:i])
			start = i + 1
		}
	}
	return append(out, src[start:])
}

// anchoredName reads `^name ` or `^name\s` at the start of an
// alternative; the name must be a plain word.
func anchoredName(alt string) (string, bool) {
	if !strings.HasPrefix(alt, "^") {
		return "", false
	}
	rest := alt[1:]
	i := 0
	for i < len(rest) && isNameByte(rest[i]) {
		i++
	}
	if i == 0 {
		return "", false
	}
	switch tail := rest[i:]; {
	case strings.HasPrefix(tail, " "), strings.HasPrefix(tail, `\s`):
		return rest[:i], true
	}
	return "", false
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
