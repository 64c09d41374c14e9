package policy

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/toolguard/toolguard/internal/call"
)

//go:embed defaults.toml
var builtinTOML []byte

// BuiltinFile is the name the embedded default rules are reported under.
const BuiltinFile = "internal/policy/defaults.toml"

// BuiltinSource returns the embedded default policy as a Source.
func BuiltinSource() Source {
	return Source{Layer: "builtin", Path: BuiltinFile, Data: builtinTOML}
}

// Source is one policy file to load.
type Source struct {
	Layer string // layer name; "" takes [settings] layer, else the file's base name
	Path  string // for messages and provenance; ".json" selects the JSON form
	Data  []byte // not to be changed after Load: a lazily loaded policy reads its rules from it
	// Name is the layer's name when neither Layer nor [settings] layer
	// gives one ("system", "user", "project" for discovered files); ""
	// takes the file's base name.
	Name string
	// File, when set instead of Data, is the open file to read: a large
	// materialized policy in the indexed layout (lazy.go) is checked by
	// streaming it through a small buffer, and a block of its rules is
	// read when a call first reaches one (LoadOptions.Lazy); anything
	// else is read in full. A read error, or File.Check failing, is an
	// error of the load or of the call (on_error), never a crash.
	File File
	// Untrusted marks a project policy the user has not trusted
	// (`toolguard trust`): it may only tighten the layers before it.
	// What it would loosen is left out and listed in Policy.Ignored.
	Untrusted bool
}

// File is a policy file read in place (Source.File). The caller opens it;
// policy only reads through this interface.
type File interface {
	io.ReaderAt
	Size() int64
	// Check returns an error when the file is no longer as it was opened
	// (written to in place since): it is called after reading.
	Check() error
}

// memFile is a File over bytes already read.
type memFile struct{ *bytes.Reader }

func (memFile) Check() error { return nil }

// readFull reads a whole File.
func readFull(f File) ([]byte, error) {
	data := make([]byte, f.Size())
	if _, err := f.ReadAt(data, 0); err != nil && !(err == io.EOF && len(data) == 0) {
		return nil, err
	}
	if err := f.Check(); err != nil {
		return nil, err
	}
	return data, nil
}

// LoadOptions direct Load.
type LoadOptions struct {
	// NoBuiltin leaves the embedded defaults out whatever the settings say.
	NoBuiltin bool
	// Home expands ~ in path patterns; "" leaves ~ patterns unmatched.
	Home string
	// Lazy lets a policy that is one materialized file in the indexed
	// layout (lazy.go) decode and compile each rule only when a call
	// reaches it. For callers that only Evaluate (the hook): a rule that
	// fails to decode then fails the decision closed instead of the load.
	Lazy bool
}

// layerDoc is one decoded file with what the loader needs from it.
type layerDoc struct {
	src  Source
	name string
	doc  fileDoc
	ix   *keyIndex // nil for JSON
	// explicit: the name came from Source.Layer or [settings] layer.
	explicit bool
	// trusted marks the build-time decoded defaults, whose regexes the
	// tests have already compiled: loading skips checking them again.
	trusted bool
	hash    string
	rules   []*Rule
}

// Load decodes, validates, merges and compiles the given layers, in order
// of increasing specificity, on top of the embedded defaults. Every
// problem found is returned at once in an *Error; a policy that fails to
// load must not be used (the hook answers on_error instead).
func Load(sources []Source, opts LoadOptions) (*Policy, error) {
	if opts.Lazy && len(sources) == 1 && !sources[0].Untrusted {
		s := sources[0]
		f := s.File
		if f == nil {
			f = memFile{bytes.NewReader(s.Data)}
		}
		if p := loadLazy(s, f, opts); p != nil {
			return p, nil
		}
	}
	if slices.ContainsFunc(sources, func(s Source) bool { return s.File != nil }) {
		sources = slices.Clone(sources)
		for i, s := range sources {
			if s.File == nil {
				continue
			}
			data, err := readFull(s.File)
			if err != nil {
				return nil, &Error{Problems: []Problem{{File: s.Path, Msg: err.Error()}}}
			}
			sources[i].Data, sources[i].File = data, nil
		}
	}
	var problems []Problem
	layers := make([]*layerDoc, 0, len(sources)+1)
	if !opts.NoBuiltin {
		sources = append([]Source{BuiltinSource()}, sources...)
	}
	for _, s := range sources {
		ld, probs := decode(s)
		problems = append(problems, probs...)
		if ld != nil {
			layers = append(layers, ld)
		}
	}
	problems = append(problems, uniqueNames(layers)...)
	if len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}
	// A materialized policy already holds the builtin rules it wants.
	for _, ld := range layers {
		if ld.doc.Meta != nil && len(layers) > 0 && layers[0].src.Path == BuiltinFile {
			layers = layers[1:]
			break
		}
	}
	if p := loadLazyBuiltin(layers, opts); p != nil {
		return p, nil
	}
	p, problems := compileAndMerge(layers, opts)
	if len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}
	return p, nil
}

// compileAndMerge compiles every decoded layer and merges them.
func compileAndMerge(layers []*layerDoc, opts LoadOptions) (*Policy, []Problem) {
	var problems []Problem
	for _, ld := range layers {
		problems = append(problems, compileLayer(ld, opts)...)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	p, probs := merge(layers)
	if len(probs) > 0 {
		return nil, probs
	}
	ix, ok := index{}, false
	if len(layers) == 1 && layers[0].trusted {
		ix, ok = builtinIndex(len(p.rules))
	}
	if !ok {
		ix = buildIndex(p.rules)
	}
	p.idx = ix
	return p, nil
}

// builtinIndex is the index of the embedded defaults alone (n rules),
// built at build time with builtin_gen.go (builtinGenIndex, in the
// materialized index's string form) instead of at every hook start.
func builtinIndex(n int) (index, bool) {
	head, lists, ok := strings.Cut(builtinGenIndex, "|")
	if !ok || n != len(builtinGen.Rules) {
		return index{}, false
	}
	var hn int
	var cats string
	if _, err := fmt.Sscanf(head, "v2 n=%d crc=0 cats=%s blocks=", &hn, &cats); err != nil || hn != n {
		return index{}, false
	}
	return parseIndex("|"+lists, n, cats)
}

func decode(s Source) (*layerDoc, []Problem) {
	if strings.EqualFold(filepath.Ext(s.Path), ".json") {
		return decodeJSON(s)
	}
	if s.Path == BuiltinFile {
		// The embedded defaults decoded at build time (builtin_gen.go), as
		// long as they were generated from exactly these bytes.
		if h := builtinHash(s.Data); h == builtinGenHash {
			return named(&layerDoc{src: s, doc: builtinGen, hash: h, trusted: true}), nil
		}
	}
	return decodeTOML(s)
}

// builtinHash is contentHash for the builtin source: the embedded bytes
// themselves (BuiltinSource) are the ones builtin_gen.go was generated
// from (TestBuiltinGenerated), so they are not hashed again at every hook
// start; any other bytes are.
func builtinHash(b []byte) string {
	if len(b) == len(builtinTOML) && len(b) > 0 && &b[0] == &builtinTOML[0] {
		return builtinGenHash
	}
	return contentHash(b)
}

func contentHash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func decodeJSON(s Source) (*layerDoc, []Problem) {
	ld := &layerDoc{src: s, hash: contentHash(s.Data)}
	dec := json.NewDecoder(bytes.NewReader(s.Data))
	dec.DisallowUnknownFields()
	// The index of the materialized layout (lazy.go) is for the lazy
	// loader; read in full, the rules themselves decide.
	var doc struct {
		fileDoc
		Index json.RawMessage `json:"index,omitempty"`
	}
	err := dec.Decode(&doc)
	ld.doc = doc.fileDoc
	if err != nil {
		line, col := jsonPos(s.Data, err)
		return nil, []Problem{{File: s.Path, Line: line, Col: col, Msg: jsonMsg(err)}}
	}
	if dec.More() {
		return nil, []Problem{{File: s.Path, Msg: "trailing data after the policy object"}}
	}
	return finishDecode(ld)
}

func decodeTOML(s Source) (*layerDoc, []Problem) {
	ld := &layerDoc{src: s, hash: contentHash(s.Data)}
	md, err := toml.NewDecoder(bytes.NewReader(s.Data)).Decode(&ld.doc)
	if err != nil {
		return nil, []Problem{tomlProblem(s.Path, err)}
	}
	ld.ix = indexKeys(string(s.Data))
	var probs []Problem
	for _, u := range ld.ix.unknown {
		probs = append(probs, Problem{File: s.Path, Line: u.Pos.Line, Col: u.Pos.Col,
			Msg: fmt.Sprintf("unknown key %q%s", u.Path, knownKeysHint(u.Path))})
	}
	if len(probs) == 0 {
		// Anything the scanner could not place (inline tables, odd
		// quoting) is still caught by the decoder's own bookkeeping.
		for _, k := range md.Undecoded() {
			if isFreeForm(k) {
				continue
			}
			probs = append(probs, Problem{File: s.Path, Line: 1, Col: 1,
				Msg: fmt.Sprintf("unknown key %q", k.String())})
		}
	}
	if len(probs) > 0 {
		return nil, probs
	}

	return finishDecode(ld)
}

// finishDecode checks the version and names the layer.
func finishDecode(ld *layerDoc) (*layerDoc, []Problem) {
	if v := ld.doc.Version; v != 0 && v != 1 {
		return nil, []Problem{ld.problem("version", "", fmt.Sprintf("unsupported version %d (want 1)", v))}
	}
	return named(ld), nil
}

// named gives a layer its name: the Source's Layer, else [settings]
// layer (both explicit), else the Source's Name, else the file's base name.
func named(ld *layerDoc) *layerDoc {
	s := ld.src
	ld.name = s.Layer
	if ld.name == "" && ld.doc.Settings.Layer != nil {
		ld.name = *ld.doc.Settings.Layer
	}
	ld.explicit = ld.name != ""
	if ld.name == "" {
		ld.name = s.Name
	}
	if ld.name == "" {
		ld.name = strings.TrimSuffix(filepath.Base(s.Path), filepath.Ext(s.Path))
	}
	return ld
}

// uniqueNames checks that no layer takes an earlier layer's name: a lock
// binds by position, and a name is how check, rules and the audit log say
// which layer decided. An explicit name (Source.Layer, [settings] layer)
// that repeats an earlier one is an error; a derived name (a file's base
// name) that does gets a suffix ("policy-2").
func uniqueNames(layers []*layerDoc) []Problem {
	var probs []Problem
	taken := map[string]*layerDoc{}
	for _, ld := range layers {
		if first, ok := taken[ld.name]; ok {
			if ld.explicit {
				key := "settings.layer"
				if ld.src.Layer != "" {
					key = ""
				}
				probs = append(probs, ld.problem(key, "",
					fmt.Sprintf("layer name %q is taken by an earlier layer (%s); a layer cannot take an earlier layer's name", ld.name, first.src.Path)))
				continue
			}
			base := ld.name
			for n := 2; taken[ld.name] != nil; n++ {
				ld.name = fmt.Sprintf("%s-%d", base, n)
			}
		}
		taken[ld.name] = ld
	}
	return probs
}

func isFreeForm(k toml.Key) bool {
	return len(k) >= 2 && (k[0] == "settings" && (k[1] == "default_for" || k[1] == "shell_fields" || k[1] == "ask_fallback_for") || k[0] == "test" && k[1] == "input")
}

func knownKeysHint(path string) string {
	parent, _ := splitLast(schemaPath(path))
	keys := schema[parent]
	if len(keys) == 0 {
		return ""
	}
	names := make([]string, 0, len(keys))
	for k := range keys {
		names = append(names, k)
	}
	sort.Strings(names)
	where := parent
	if where == "" {
		where = "the top level"
	} else {
		where = "[" + where + "]"
	}
	return fmt.Sprintf(" (%s takes %s)", where, strings.Join(names, ", "))
}

// problem positions a message at a key of this layer's file.
func (ld *layerDoc) problem(key, rule, msg string) Problem {
	p := Problem{File: ld.src.Path, Rule: rule, Msg: msg}
	if ld.ix != nil {
		parent, _ := splitLast(key)
		pos := ld.ix.lookup(key, parent)
		p.Line, p.Col = pos.Line, pos.Col
	}
	return p
}

func tomlProblem(file string, err error) Problem {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.LastKey != "" {
			msg = fmt.Sprintf("key %q: %s", pe.LastKey, msg)
		}
		return Problem{File: file, Line: pe.Position.Line, Col: max(pe.Position.Col, 1), Msg: lowerFirst(msg)}
	}
	// Type mismatches come as plain errors: "toml: line N (last key "k"): …".
	if m := tomlTypeErr().FindStringSubmatch(err.Error()); m != nil {
		line, _ := strconv.Atoi(m[1])
		msg := m[3]
		if t := tomlBadType().FindStringSubmatch(msg); t != nil {
			msg = fmt.Sprintf("got a %s, want %s", t[1], article(t[2]))
		}
		return Problem{File: file, Line: line, Col: 1, Msg: fmt.Sprintf("key %q: %s", m[2], msg)}
	}
	return Problem{File: file, Msg: strings.TrimPrefix(err.Error(), "toml: ")}
}

// Regexes are compiled on first use: a hook process that loads no TOML
// with errors never needs them (package initialisation is paid by every
// hook run).
var (
	tomlTypeErr = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)
	})
	tomlBadType = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^incompatible types: TOML value has type (\S+); destination has type (\S+)$`)
	})
)

func article(t string) string {
	switch t {
	case "integer", "array":
		return "an " + t
	case "slice":
		return "an array"
	}
	return "a " + t
}

func lowerFirst(s string) string {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || (len(s) > 1 && s[1] >= 'A' && s[1] <= 'Z') {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}

func jsonPos(data []byte, err error) (int, int) {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 {
		return 0, 0
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}

func jsonMsg(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, "json: ")
	return msg
}

// validID reports a well-formed rule id: ^[a-z0-9][a-z0-9._-]*$ (checked
// by hand: a regexp would be compiled at every hook start).
func validID(id string) bool {
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9':
		case i > 0 && (c == '.' || c == '_' || c == '-'):
		default:
			return false
		}
	}
	return id != ""
}

// compileLayer validates the layer's settings and rules and compiles each
// rule's matchers, collecting every problem.
func compileLayer(ld *layerDoc, opts LoadOptions) []Problem {
	probs := checkSettings(ld)
	probs = append(probs, compileRules(ld, opts)...)
	return append(probs, checkTests(ld)...)
}

// checkSettings validates a layer's settings.
func checkSettings(ld *layerDoc) []Problem {
	var probs []Problem
	s := &ld.doc.Settings
	for _, f := range []struct {
		key string
		v   *string
	}{{"default", s.Default}, {"on_error", s.OnError}, {"on_unparsable", s.OnUnparsable}, {"on_dynamic", s.OnDynamic}} {
		if f.v == nil {
			continue
		}
		if _, ok := call.ParseDecision(*f.v); !ok {
			probs = append(probs, ld.problem("settings."+f.key, "",
				fmt.Sprintf("%s: unknown decision %q (want pass, allow, ask or deny)", f.key, *f.v)))
		}
	}
	for k, v := range s.DefaultFor {
		if _, ok := call.ParseKind(k); !ok {
			probs = append(probs, ld.problem("settings.default_for."+k, "",
				fmt.Sprintf("default_for: unknown kind %q (want one of %s)", k, strings.Join(call.Kinds(), ", "))))
		}
		if _, ok := call.ParseDecision(v); !ok {
			probs = append(probs, ld.problem("settings.default_for."+k, "",
				fmt.Sprintf("default_for.%s: unknown decision %q (want pass, allow, ask or deny)", k, v)))
		}
	}
	for _, msg := range checkShellFields(s.ShellFields) {
		probs = append(probs, ld.problem("settings.shell_fields", "", msg))
	}
	if s.Mode != nil {
		if _, ok := ParseMode(*s.Mode); !ok {
			probs = append(probs, ld.problem("settings.mode", "",
				fmt.Sprintf("mode: unknown mode %q (want interactive or headless)", *s.Mode)))
		}
	}
	if s.PendingTTL != nil {
		if d, err := time.ParseDuration(*s.PendingTTL); err != nil || d <= 0 {
			probs = append(probs, ld.problem("settings.pending_ttl", "",
				fmt.Sprintf("pending_ttl: %q is not a positive duration (e.g. \"24h\", \"30m\")", *s.PendingTTL)))
		}
	}
	okFallback := func(v string) bool {
		return v == AskFallbackNative || v == AskFallbackDefer || v == AskFallbackDeny
	}
	if s.AskFallback != nil && !okFallback(*s.AskFallback) {
		probs = append(probs, ld.problem("settings.ask_fallback", "",
			fmt.Sprintf("ask_fallback: unknown value %q (want native, defer or deny)", *s.AskFallback)))
	}
	for _, k := range sortedKeys(s.AskFallbackFor) {
		if !validProviderKey(k) {
			probs = append(probs, ld.problem("settings.ask_fallback_for."+k, "",
				fmt.Sprintf("ask_fallback_for: %q is not an agent name (a provider, e.g. claude-code, codex, gemini)", k)))
		}
		if v := s.AskFallbackFor[k]; !okFallback(v) {
			probs = append(probs, ld.problem("settings.ask_fallback_for."+k, "",
				fmt.Sprintf("ask_fallback_for.%s: unknown value %q (want native, defer or deny)", k, v)))
		}
	}
	if s.AutoAllow != nil && *s.AutoAllow != AutoAllowOff && *s.AutoAllow != AutoAllowReadOnly {
		probs = append(probs, ld.problem("settings.auto_allow", "",
			fmt.Sprintf("auto_allow: unknown value %q (want off or read-only)", *s.AutoAllow)))
	}
	if s.Audit != nil {
		switch *s.Audit {
		case "decisions", "all", "off":
		default:
			probs = append(probs, ld.problem("settings.audit", "",
				fmt.Sprintf("audit: unknown value %q (want decisions, all or off)", *s.Audit)))
		}
	}
	for _, name := range s.Locked {
		if !lockableSetting[name] {
			probs = append(probs, ld.problem("settings.locked", "",
				fmt.Sprintf("locked: %q is not a setting that can be locked", name)))
		}
	}

	return probs
}

// compileRules validates and compiles a layer's rules into ld.rules.
func compileRules(ld *layerDoc, opts LoadOptions) []Problem {
	var probs []Problem
	seen := map[string]int{}
	for i, fr := range ld.doc.Rules {
		key := fmt.Sprintf("rule.%d", i)
		if fr.ID == "" {
			probs = append(probs, ld.problem(key, "", "rule without an id"))
			continue
		}
		if !validID(fr.ID) {
			probs = append(probs, ld.problem(key+".id", fr.ID,
				"id must be lowercase kebab-case (letters, digits, '-', '_', '.')"))
		}
		if j, dup := seen[fr.ID]; dup {
			pos := srcPos{}
			if ld.ix != nil {
				pos = ld.ix.lookup(fmt.Sprintf("rule.%d", j))
			}
			probs = append(probs, ld.problem(key+".id", fr.ID,
				fmt.Sprintf("duplicate id (first defined at line %d)", pos.Line)))
			continue
		}
		seen[fr.ID] = i
		r, rp := compileRule(ld, i, fr, opts)
		probs = append(probs, rp...)
		if r != nil {
			ld.rules = append(ld.rules, r)
		}
	}
	return probs
}

// checkTests validates a layer's [[test]]s.
func checkTests(ld *layerDoc) []Problem {
	var probs []Problem
	for i, t := range ld.doc.Tests {
		if _, ok := call.ParseDecision(t.Expect); !ok {
			probs = append(probs, ld.problem(fmt.Sprintf("test.%d.expect", i), "",
				fmt.Sprintf("test %d: unknown expected decision %q (want pass, allow, ask or deny)", i+1, t.Expect)))
		}
		if t.Command == "" && t.Path == "" && t.MCP == "" && t.Tool == "" && t.URL == "" {
			probs = append(probs, ld.problem(fmt.Sprintf("test.%d", i), "",
				fmt.Sprintf("test %d: needs a command, a tool and path, an mcp call or a url", i+1)))
		}
	}
	return probs
}

var lockableSetting = map[string]bool{
	"builtin": true, "default": true, "default_for": true, "mode": true, "on_error": true,
	"on_unparsable": true, "on_dynamic": true, "disable": true, "audit_log": true,
	"audit": true, "state_dir": true, "workspace": true, "safe_prefixes": true,
	"approvers": true, "hold_session_on_pending": true, "pending_ttl": true, "auto_allow": true,
	"ask_fallback": true, "ask_fallback_for": true,
}

// validProviderKey: an ask_fallback_for key is a provider name as
// --provider takes it (lowercase letters, digits, '-'); which providers
// exist is the codecs' business, so a new one needs no change here.
func validProviderKey(k string) bool {
	if k == "" || k == AskFallbackAll {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func compileRule(ld *layerDoc, i int, fr fileRule, opts LoadOptions) (*Rule, []Problem) {
	key := fmt.Sprintf("rule.%d", i)
	var probs []Problem
	bad := func(field, msg string) {
		probs = append(probs, ld.problem(key+"."+field, fr.ID, msg))
	}
	d, ok := call.ParseDecision(fr.Decision)
	switch {
	case fr.Decision == "":
		bad("decision", "missing decision (want allow, ask or deny)")
	case !ok || d == call.Pass:
		bad("decision", fmt.Sprintf("unknown decision %q (want allow, ask or deny)", fr.Decision))
	}
	m, mp := compileMatcher(fr, ld.trusted)
	for _, e := range mp {
		bad(e.field, e.msg)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	src := ld.src.Path
	if ld.ix != nil {
		src = fmt.Sprintf("%s:%d", ld.src.Path, ld.ix.lookup(key).Line)
	} else if fr.Source != "" {
		src = fr.Source // materialized JSON carries the original provenance
	}
	layer := ld.name
	if ld.ix == nil && fr.Layer != "" {
		layer = fr.Layer
	}
	r := &Rule{
		ID:            fr.ID,
		Description:   fr.Description,
		Decision:      d,
		Justification: fr.Justification,
		Priority:      fr.Priority,
		Locked:        fr.Locked,
		Layer:         layer,
		Source:        src,
		spec:          fr,
		m:             m,
	}
	r.spec.Layer, r.spec.Source = layer, src
	return r, nil
}

// merge applies the layers in order: later rules replace earlier ones by
// id, disable removes them, locked rules and settings resist both. A lock
// binds by position: what a layer locks binds every later layer, whatever
// it is called. An untrusted layer (Source.Untrusted) only tightens: what
// it would loosen is left out and listed in Policy.Ignored.
func merge(layers []*layerDoc) (*Policy, []Problem) {
	p := &Policy{Settings: DefaultSettings()}
	var builtinRules []*Rule
	var rules []*Rule
	byID := map[string]int{}              // index into rules
	lockedSettings := map[string]string{} // setting -> name of the layer that locked it
	var tests []test
	var untrustedAsk []*Rule

	for _, ld := range layers {
		untrusted := ld.src.Untrusted
		p.Layers = append(p.Layers, Layer{Name: ld.name, File: ld.src.Path, Hash: ld.hash, Untrusted: untrusted})
		p.Warnings = append(p.Warnings, mergeSettings(&p.Settings, ld, lockedSettings, &p.Ignored)...)

		for _, id := range ld.doc.Settings.Disable {
			if untrusted {
				p.Ignored = append(p.Ignored, ld.problem("settings.disable", id, "disable ignored: "+untrustedWhy))
				continue
			}
			if owner, locked := lockedSettings["disable"]; locked && owner != ld.name {
				break // locked by an earlier layer (names are unique: uniqueNames)
			}
			j, ok := byID[id]
			switch {
			case !ok:
				p.Warnings = append(p.Warnings, ld.problem("settings.disable", id,
					"disable names no rule of an earlier layer"))
			case rules[j].Locked:
				p.Warnings = append(p.Warnings, ld.problem("settings.disable", id,
					fmt.Sprintf("cannot disable: locked by layer %s (%s)", rules[j].Layer, rules[j].Source)))
			default:
				rules[j] = nil
				delete(byID, id)
			}
		}
		for _, r := range ld.rules {
			j, ok := byID[r.ID]
			if untrusted {
				why := ""
				switch {
				case r.Decision < call.Ask:
					why = fmt.Sprintf("%s rule ignored: %s", r.Decision, untrustedWhy)
				case ok:
					why = fmt.Sprintf("rule ignored: it replaces rule %q of layer %s (%s), which could weaken it; %s",
						r.ID, rules[j].Layer, rules[j].Source, untrustedWhy)
				}
				if why != "" {
					p.Ignored = append(p.Ignored, Problem{File: ld.src.Path, Rule: r.ID, Line: posLine(r.Source), Col: 1, Msg: why})
					continue
				}
				if r.Decision == call.Ask {
					// An ask must never out-rank a deny: not locked, and
					// no higher priority than the lowest deny (below).
					if r.Locked {
						p.Ignored = append(p.Ignored, Problem{File: ld.src.Path, Rule: r.ID, Line: posLine(r.Source), Col: 1,
							Msg: "locked ignored on an ask rule (a locked ask would out-rank unlocked denies): " + untrustedWhy})
						r.Locked, r.spec.Locked = false, false
					}
					untrustedAsk = append(untrustedAsk, r)
				}
			}
			switch {
			case !ok:
				byID[r.ID] = len(rules)
				rules = append(rules, r)
			case rules[j].Locked:
				p.Warnings = append(p.Warnings, Problem{File: ld.src.Path, Rule: r.ID,
					Line: posLine(r.Source), Col: 1,
					Msg: fmt.Sprintf("cannot replace: locked by layer %s (%s); this definition is ignored", rules[j].Layer, rules[j].Source)})
			default:
				rules[j] = r
			}
		}
		if ld.src.Path == BuiltinFile {
			builtinRules = ld.rules
		}
		for i, t := range ld.doc.Tests {
			tests = append(tests, test{spec: t, file: ld.src.Path, pos: ld.testPos(i)})
		}
	}
	isBuiltin := map[*Rule]bool{}
	for _, r := range builtinRules {
		isBuiltin[r] = true
	}
	for _, r := range rules {
		if r == nil || (!p.Settings.Builtin && isBuiltin[r]) {
			continue
		}
		r.ord = len(p.rules)
		p.rules = append(p.rules, r)
	}
	capAskPriority(p.rules, untrustedAsk, &p.Ignored)
	for name := range lockedSettings {
		p.Settings.Locked = append(p.Settings.Locked, name)
	}
	sort.Strings(p.Settings.Locked)
	p.tests = tests
	if len(layers) == 1 && layers[0].doc.Meta != nil {
		p.materialHash = layers[0].doc.Meta.Hash // computed by materialize over these rules
	}
	return p, nil
}

// untrustedWhy ends every message about what an untrusted layer may not do.
const untrustedWhy = "untrusted project policy (it can only tighten)"

// capAskPriority lowers the priority of an untrusted layer's ask rules to
// that of the lowest-priority deny rule, so that such an ask never beats a
// deny (equal priorities go to the stricter decision).
func capAskPriority(rules, asks []*Rule, ignored *[]Problem) {
	if len(asks) == 0 {
		return
	}
	lowest, any := 0, false
	for _, r := range rules {
		if r.Decision == call.Deny && (!any || r.Priority < lowest) {
			lowest, any = r.Priority, true
		}
	}
	if !any {
		return
	}
	for _, r := range asks {
		if r.Priority > lowest {
			*ignored = append(*ignored, Problem{File: r.Source[:max(0, strings.LastIndexByte(r.Source, ':'))], Rule: r.ID,
				Line: posLine(r.Source), Col: 1,
				Msg: fmt.Sprintf("priority %d lowered to %d (an ask may not out-rank a deny): %s", r.Priority, lowest, untrustedWhy)})
			r.Priority, r.spec.Priority = lowest, lowest
		}
	}
}

func (ld *layerDoc) testPos(i int) srcPos {
	if ld.ix == nil {
		return srcPos{}
	}
	return ld.ix.lookup(fmt.Sprintf("test.%d", i))
}

func posLine(source string) int {
	i := strings.LastIndexByte(source, ':')
	if i < 0 {
		return 0
	}
	n := 0
	for _, c := range source[i+1:] {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// tightens reports whether an untrusted layer may set a decision setting
// from cur to v: to ask or deny, and no looser than cur (pass and allow
// are both looser than ask).
func tightens(v, cur call.Decision) bool {
	return v == cur || v >= call.Ask && v >= cur
}

// mergeSettings lays one layer's settings over the merged ones. A later
// layer may change any setting, loosening included, unless an earlier
// layer listed it in `locked` — and an untrusted layer only what
// tightens: a stricter default, default_for or on_* decision, headless
// mode, audit = "all". Its builtin = false, disable, audit_log, state_dir,
// workspace, safe_prefixes and approvers are ignored, into *ignored.
func mergeSettings(dst *Settings, ld *layerDoc, locked map[string]string, ignored *[]Problem) []Problem {
	s := ld.doc.Settings
	untrusted := ld.src.Untrusted
	var warn []Problem
	allowed := func(name string, set bool) bool {
		if !set {
			return false
		}
		if owner, ok := locked[name]; ok {
			warn = append(warn, ld.problem("settings."+name, "",
				fmt.Sprintf("%s is locked by layer %s; this value is ignored", name, owner)))
			return false
		}
		return true
	}
	ignore := func(key, what string) {
		*ignored = append(*ignored, ld.problem("settings."+key, "", what+" ignored: "+untrustedWhy))
	}
	dec := func(v *string) call.Decision { d, _ := call.ParseDecision(*v); return d }
	decision := func(name string, v *string, cur *call.Decision) {
		if !allowed(name, v != nil) {
			return
		}
		if d := dec(v); !untrusted || tightens(d, *cur) {
			*cur = d
		} else {
			ignore(name, fmt.Sprintf("%s = %q (looser than %s)", name, *v, *cur))
		}
	}
	if allowed("builtin", s.Builtin != nil) {
		if untrusted && !*s.Builtin {
			ignore("builtin", "builtin = false")
		} else {
			dst.Builtin = *s.Builtin
		}
	}
	decision("default", s.Default, &dst.Default)
	if allowed("default_for", s.DefaultFor != nil) {
		if dst.DefaultFor == nil {
			dst.DefaultFor = map[call.Kind]call.Decision{}
		}
		for _, k := range sortedKeys(s.DefaultFor) {
			v := s.DefaultFor[k]
			kind, _ := call.ParseKind(k)
			cur, ok := dst.DefaultFor[kind]
			if !ok {
				cur = dst.Default
			}
			if d := dec(&v); !untrusted || tightens(d, cur) {
				dst.DefaultFor[kind] = d
			} else {
				*ignored = append(*ignored, ld.problem("settings.default_for."+k, "",
					fmt.Sprintf("default_for.%s = %q (looser than %s) ignored: %s", k, v, cur, untrustedWhy)))
			}
		}
	}
	if allowed("mode", s.Mode != nil) {
		m, _ := ParseMode(*s.Mode)
		if untrusted && m != Headless && dst.Mode == Headless {
			ignore("mode", fmt.Sprintf("mode = %q", *s.Mode))
		} else {
			dst.Mode = m
		}
	}
	decision("on_error", s.OnError, &dst.OnError)
	decision("on_unparsable", s.OnUnparsable, &dst.OnUnparsable)
	decision("on_dynamic", s.OnDynamic, &dst.OnDynamic)
	if allowed("audit", s.Audit != nil) {
		if untrusted && *s.Audit != "all" && *s.Audit != dst.Audit {
			ignore("audit", fmt.Sprintf("audit = %q", *s.Audit))
		} else {
			dst.Audit = *s.Audit
		}
	}
	str := func(name string, set bool, apply func()) {
		if !allowed(name, set) {
			return
		}
		if untrusted {
			ignore(name, name)
			return
		}
		apply()
	}
	str("audit_log", s.AuditLog != nil, func() { dst.AuditLog = *s.AuditLog })
	str("state_dir", s.StateDir != nil, func() { dst.StateDir = *s.StateDir })
	str("workspace", s.Workspace != nil, func() { dst.Workspace = *s.Workspace })
	str("safe_prefixes", s.SafePrefixes != nil, func() { dst.SafePrefixes = s.SafePrefixes })
	str("approvers", s.Approvers != nil, func() { dst.Approvers = s.Approvers })
	if allowed("hold_session_on_pending", s.HoldSession != nil) {
		// Holding a session is the stricter side: an untrusted layer may
		// turn it on, never off.
		if untrusted && !*s.HoldSession && dst.HoldSessionOnPending {
			ignore("hold_session_on_pending", "hold_session_on_pending = false")
		} else {
			dst.HoldSessionOnPending = *s.HoldSession
		}
	}
	str("pending_ttl", s.PendingTTL != nil, func() {
		if d, err := time.ParseDuration(*s.PendingTTL); err == nil && d > 0 {
			dst.PendingTTL = d
		}
	})
	if allowed("auto_allow", s.AutoAllow != nil) {
		// Auto-allow loosens: an untrusted layer may switch it off, never on.
		if untrusted && *s.AutoAllow != AutoAllowOff {
			ignore("auto_allow", fmt.Sprintf("auto_allow = %q", *s.AutoAllow))
		} else {
			dst.AutoAllow = *s.AutoAllow
		}
	}
	// ask_fallback: "deny" is the strictest (every ask held for a human);
	// an untrusted layer may set only that, and its "deny" for every agent
	// also overrides the per-agent values set before it.
	setFallback := func(key, v string) {
		if key == "claude" { // the --provider alias
			key = "claude-code"
		}
		if dst.AskFallback == nil {
			dst.AskFallback = map[string]string{}
		}
		dst.AskFallback[key] = v
	}
	if allowed("ask_fallback", s.AskFallback != nil) {
		switch {
		case untrusted && *s.AskFallback != AskFallbackDeny:
			ignore("ask_fallback", fmt.Sprintf("ask_fallback = %q", *s.AskFallback))
		case untrusted:
			for k := range dst.AskFallback {
				dst.AskFallback[k] = AskFallbackDeny
			}
			setFallback(AskFallbackAll, AskFallbackDeny)
		default:
			setFallback(AskFallbackAll, *s.AskFallback)
		}
	}
	if allowed("ask_fallback_for", s.AskFallbackFor != nil) {
		for _, k := range sortedKeys(s.AskFallbackFor) {
			if v := s.AskFallbackFor[k]; !untrusted || v == AskFallbackDeny {
				setFallback(k, v)
			} else {
				*ignored = append(*ignored, ld.problem("settings.ask_fallback_for."+k, "",
					fmt.Sprintf("ask_fallback_for.%s = %q ignored: %s", k, v, untrustedWhy)))
			}
		}
	}
	if s.CaseInsensitivePaths != nil && *s.CaseInsensitivePaths {
		dst.CaseInsensitivePaths = true // tightens only: no later layer switches it off
	}
	for _, glob := range sortedKeys(s.ShellFields) {
		// More fields judged as shell only adds targets: every layer,
		// trusted or not, adds to the list; none removes.
		if dst.ShellFields == nil {
			dst.ShellFields = map[string][]string{}
		}
		for _, f := range s.ShellFields[glob] {
			if !slices.Contains(dst.ShellFields[glob], f) {
				dst.ShellFields[glob] = append(dst.ShellFields[glob], f)
			}
		}
	}
	if s.RequireEnforcement != nil && *s.RequireEnforcement {
		dst.RequireEnforcement = true // tightens only, like case_insensitive_paths
	}
	allowed("disable", len(s.Disable) > 0) // a locked disable is enforced by merge
	for _, name := range s.Locked {
		if _, ok := locked[name]; !ok {
			locked[name] = ld.name
		}
	}
	return warn
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// hashPolicy is a content hash over what decides: settings and rules.
func hashPolicy(p *Policy) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	s := settingsDoc(p.Settings)
	s.Builtin = nil // the rules it selected are hashed below
	_ = enc.Encode(s)
	for _, r := range p.Rules() {
		spec := r.spec
		spec.Layer, spec.Source = "", ""
		_ = enc.Encode(spec)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}
