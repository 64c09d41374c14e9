package policy

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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
	// materialized policy in the indexed layout (material.go) is checked by
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
	// layout (material.go) decode and compile each rule only when a call
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
	p, problems := compileAndMerge(layers, opts)
	if len(problems) > 0 {
		return nil, &Error{Problems: problems}
	}
	return p, nil
}

// compileAndMerge compiles the decoded layers, merges them, indexes the
// effective rules and chooses where each rule comes from (Policy.rule).
// The build-time decoded defaults are compiled a rule at a time, when a
// call first reaches one (pendingLayer); every other layer is compiled
// now, so that a rule of it that does not compile fails the load as it
// always has. Their index is the generated one (builtinIndex), merged by
// ordinal with one built from the other layers' few rules (layeredIndex).
func compileAndMerge(layers []*layerDoc, opts LoadOptions) (*Policy, []Problem) {
	var problems []Problem
	var pending *layerDoc
	for _, ld := range layers {
		if pending == nil && pendingLayer(ld, opts) {
			pending = ld
			problems = append(problems, checkSettings(ld)...)
			problems = append(problems, checkTests(ld)...)
			if len(layers) > 1 {
				ld.rules = ruleHeads(ld) // for merge; the defaults alone need none
			}
			continue
		}
		problems = append(problems, compileLayer(ld, opts)...)
	}
	if len(problems) > 0 {
		return nil, problems
	}
	p, rules, probs := merge(layers)
	if len(probs) > 0 {
		return nil, probs
	}
	if pending != nil && len(layers) == 1 {
		// The defaults alone: every rule in effect, in order.
		if ix, ok := builtinIndex(len(pending.doc.Rules)); ok && p.Settings.Builtin {
			p.idx = ix
			p.rules = &lazyRules{docs: pending.doc.Rules, ld: pending, opts: opts, got: make([]*Rule, len(pending.doc.Rules))}
			return p, nil
		}
		pending.rules = ruleHeads(pending)
		if p, rules, probs = merge(layers); len(probs) > 0 {
			return nil, probs
		}
	}
	if pending != nil {
		if ix, ok := layeredIndex(rules, len(pending.doc.Rules)); ok {
			p.idx = ix
			p.rules = pendingRules(rules, pending, opts)
			return p, nil
		}
		// Unsure (a stale generated index): compile every rule now.
		if probs := compileHeads(rules, pending, opts); len(probs) > 0 {
			return nil, probs
		}
	}
	p.rules = compiledRules(rules)
	ix, ok := index{}, false
	if len(layers) == 1 && layers[0].trusted {
		ix, ok = builtinIndex(len(rules))
	}
	if !ok {
		ix = buildIndex(rules)
	}
	p.idx = ix
	return p, nil
}

// pendingLayer reports a layer whose rules are compiled when a call first
// reaches them: the build-time decoded defaults (trusted: the generator
// compiled every one of them), for a caller that only evaluates
// (LoadOptions.Lazy).
func pendingLayer(ld *layerDoc, opts LoadOptions) bool {
	return opts.Lazy && ld.trusted && ld.src.Path == BuiltinFile
}

// builtinIndex is the index of the embedded defaults alone (n rules),
// built at build time with builtin_gen.go (builtinGenIndex, in the
// materialized index's string form) instead of at every hook start.
func builtinIndex(n int) (index, bool) {
	head, lists, ok := strings.Cut(builtinGenIndex, "|")
	if !ok || n != len(builtinGen.Rules) {
		return index{}, false
	}
	hn, crc, cats, blocks, ok := parseIndexHead(head)
	if !ok || hn != n || crc != 0 || cats == "" || blocks != "" {
		return index{}, false
	}
	return parseIndex("|"+lists, n, cats)
}

func isFreeForm(k toml.Key) bool {
	return len(k) >= 2 && (k[0] == "settings" && (k[1] == "default_for" || k[1] == "shell_fields" || k[1] == "ask_fallback_for") || k[0] == "test" && k[1] == "input")
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
	if s.ApprovalURL != nil {
		if msg := checkApprovalURL(*s.ApprovalURL); msg != "" {
			probs = append(probs, ld.problem("settings.approval_url", "", "approval_url: "+msg))
		}
	}
	if s.ApprovalTokenFile != nil {
		switch p := *s.ApprovalTokenFile; {
		case strings.TrimSpace(p) == "":
			probs = append(probs, ld.problem("settings.approval_token_file", "", "approval_token_file: empty path"))
		case !filepath.IsAbs(p) && !strings.HasPrefix(p, "~/"):
			// relative to what? the call's cwd is the agent's choice
			probs = append(probs, ld.problem("settings.approval_token_file", "",
				fmt.Sprintf("approval_token_file: %q: want an absolute path (or ~/…)", p)))
		}
	}
	if s.PolicyPubkey != nil {
		if b64, ok := strings.CutPrefix(strings.TrimSpace(*s.PolicyPubkey), "ed25519:"); !ok || !validKey32(b64) {
			probs = append(probs, ld.problem("settings.policy_pubkey", "",
				fmt.Sprintf("policy_pubkey: %q: want ed25519:<base64 of 32 bytes> (toolguard serve prints it)", *s.PolicyPubkey)))
		}
	}
	for i, n := range s.Notify {
		key := fmt.Sprintf("settings.notify.%d", i)
		if msg := checkNotify(n); msg != "" {
			probs = append(probs, ld.problem(key, "", fmt.Sprintf("notify %d: %s", i+1, msg)))
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

var lockableSetting = map[string]bool{
	"builtin": true, "default": true, "default_for": true, "mode": true, "on_error": true,
	"on_unparsable": true, "on_dynamic": true, "disable": true, "audit_log": true,
	"audit": true, "state_dir": true, "workspace": true, "safe_prefixes": true,
	"approvers": true, "hold_session_on_pending": true, "pending_ttl": true, "auto_allow": true,
	"approval_url": true, "approval_token_file": true, "notify": true, "policy_pubkey": true,
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

// validKey32 reports whether b64 is the standard base64 of 32 bytes.
func validKey32(b64 string) bool {
	b, err := base64.StdEncoding.DecodeString(b64)
	return err == nil && len(b) == 32
}

// checkApprovalURL says what is wrong with a settings.approval_url, or "".
// The hook speaks plain HTTP/1.1 over a Unix socket or TCP (internal/remote):
// it links no TLS.
func checkApprovalURL(u string) string {
	switch {
	case strings.HasPrefix(u, "unix://"):
		p := strings.TrimPrefix(u, "unix://")
		if !strings.HasPrefix(p, "/") {
			return fmt.Sprintf("%q: want unix:///absolute/path/to/socket", u)
		}
		return ""
	case strings.HasPrefix(u, "http://"):
		hp := strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/")
		i := strings.LastIndexByte(hp, ':')
		if hp == "" || strings.ContainsAny(hp, "/?#@ ") || i <= 0 || i == len(hp)-1 {
			return fmt.Sprintf("%q: want http://host:port (no path, no user)", u)
		}
		for _, c := range hp[i+1:] {
			if c < '0' || c > '9' {
				return fmt.Sprintf("%q: want http://host:port (no path, no user)", u)
			}
		}
		return ""
	case strings.HasPrefix(u, "https://"):
		return fmt.Sprintf("%q: https is not supported by the hook (it links no TLS); "+
			"mount toolguard serve's Unix socket into the sandbox (unix:///path), or run a local "+
			"TLS-terminating forwarder and give its http://127.0.0.1:PORT", u)
	}
	return fmt.Sprintf("%q: want unix:///path/to/socket or http://host:port", u)
}

// checkNotify says what is wrong with one settings.notify entry, or "".
func checkNotify(n fileNotify) string {
	if !strings.HasPrefix(n.URL, "http://") && !strings.HasPrefix(n.URL, "https://") || len(n.URL) <= len("https://") {
		return fmt.Sprintf("url %q: want http:// or https://", n.URL)
	}
	if n.Format != "" && n.Format != "json" && n.Format != "slack" {
		return fmt.Sprintf("format %q: want json or slack", n.Format)
	}
	for _, e := range n.Events {
		if !slices.Contains(NotifyEvents, e) {
			return fmt.Sprintf("event %q: want one of %s", e, strings.Join(NotifyEvents, ", "))
		}
	}
	return ""
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
// workspace, safe_prefixes, approvers, approval_url, approval_token_file
// and notify are ignored, into *ignored.
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
	// Where grants come from and where the request's contents go: an
	// untrusted project could point the hook at its own server, or post
	// every request to itself.
	str("approval_url", s.ApprovalURL != nil, func() { dst.ApprovalURL = *s.ApprovalURL })
	str("approval_token_file", s.ApprovalTokenFile != nil, func() { dst.ApprovalTokenFile = *s.ApprovalTokenFile })
	// The key a managed bundle must be signed by: a bundle cannot name
	// its own.
	str("policy_pubkey", s.PolicyPubkey != nil, func() { dst.PolicyPubkey = *s.PolicyPubkey })
	str("notify", s.Notify != nil, func() {
		dst.Notify = nil
		for _, n := range s.Notify {
			format := n.Format
			if format == "" {
				format = "json"
			}
			dst.Notify = append(dst.Notify, Notify{URL: n.URL, Events: n.Events, Format: format})
		}
	})
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

// hashPolicy is a content hash over what decides: the settings, then
// each rule's digest (ruleDigest) in order. A rule of the build-time
// decoded defaults has its digest generated with them
// (builtinGenRuleDigests): a deny's audit line under the defaults and a
// project layer hashes a few hundred bytes, not every default rule's JSON
// (0.3 ms a call).
func hashPolicy(p *Policy) string {
	h := sha256.New()
	s := settingsDoc(p.Settings)
	s.Builtin = nil // the rules it selected are hashed below
	h.Write(append(marshal(s), '\n'))
	if l, ok := p.rules.(*lazyRules); ok && l.docs != nil {
		gen := builtinDigests(l.docs)
		for i := range l.got {
			if l.heads != nil && l.heads[i] < 0 || gen == "" {
				io.WriteString(h, ruleDigest(l.spec(i)))
				continue
			}
			j := i
			if l.heads != nil {
				j = int(l.heads[i])
			}
			io.WriteString(h, gen[j*digestLen:(j+1)*digestLen])
		}
		return "sha256:" + hex.EncodeToString(h.Sum(nil))
	}
	rules, _ := p.Rules() // Hash's callers load in full; a lazy policy's broken rule fails its calls (on_error)
	for _, r := range rules {
		io.WriteString(h, ruleDigest(r.spec))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// digestLen is the length of a ruleDigest.
const digestLen = 2 * sha256.Size

// ruleDigest is the hex SHA-256 of a rule as written (its JSON), without
// where it came from.
func ruleDigest(spec fileRule) string {
	spec.Layer, spec.Source = "", ""
	sum := sha256.Sum256(append(marshal(spec), '\n'))
	return hex.EncodeToString(sum[:])
}

// builtinDigests returns builtinGenRuleDigests when docs are the
// build-time decoded defaults (builtinGen's rules, not a copy), else "".
func builtinDigests(docs []fileRule) string {
	gen := builtinGen.Rules
	if len(docs) == 0 || len(docs) != len(gen) || &docs[0] != &gen[0] || len(builtinGenRuleDigests) != len(gen)*digestLen {
		return ""
	}
	return builtinGenRuleDigests
}
