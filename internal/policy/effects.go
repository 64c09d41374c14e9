package policy

import (
	"bytes"
	"encoding/json"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/knowledge"
	"github.com/toolguard/toolguard/internal/shellparse"
)

// Effects: what a command, a read or a web/MCP call does, as categories a
// rule names (`effect = ["reads-secret"]`). They come from the reviewed
// data of package knowledge (programs.toml: program shapes; places.toml:
// where credentials live, and the harmless home dotfiles) and from the
// shell analysis (Command.Effects: interpreter code). A rule with effect
// and no other command, path or call field is tested against every
// command; with op/path/scope fields against each path; with tool kinds
// web or mcp (or mcp/domain fields) against the call.

func effectNames() string {
	names := make([]string, len(knowledge.Effects))
	for i, e := range knowledge.Effects {
		names[i] = e.Name
	}
	return strings.Join(names, ", ")
}

func anyEffect(want, have []string) bool {
	for _, w := range want {
		for _, h := range have {
			if w == h {
				return true
			}
		}
	}
	return false
}

// onlyCallKinds reports tool patterns that are all kinds other than
// shell: a rule about the call itself (callEffects).
func onlyCallKinds(ts []toolPattern) bool {
	for _, t := range ts {
		if !t.isKnd || t.kind == call.KindShell {
			return false
		}
	}
	return true
}

// progEntry is a programs.toml entry, its matcher compiled on first use.
type progEntry struct {
	k    *knowledge.Program
	once sync.Once
	m    matcher
	ok   bool
}

func (e *progEntry) matcher() (*matcher, bool) {
	e.once.Do(func() {
		m, errs := compileMatcher(fileRule{Command: e.k.Command, Args: e.k.Args, ArgsNone: e.k.ArgsNone, Regex: e.k.Regex}, false)
		m.stdinToo = true // an effect only makes a call stricter
		e.m, e.ok = m, len(errs) == 0
	})
	return &e.m, e.ok
}

type progTable struct {
	byName map[string][]*progEntry
	glob   []globEntry // entries with a program glob, tried when the name has its literal prefix
}

type globEntry struct {
	prefix string // the glob's literal start ("python" of python*)
	e      *progEntry
}

var programs = sync.OnceValue(func() *progTable {
	t := &progTable{byName: map[string][]*progEntry{}}
	for i := range knowledge.Programs {
		e := &progEntry{k: &knowledge.Programs[i]}
		seen := map[string]bool{}
		for _, c := range e.k.Command {
			name, _, _ := strings.Cut(c, " ")
			if hasMeta(name) {
				t.glob = append(t.glob, globEntry{name[:strings.IndexAny(name, "*?[{\\")], e})
				continue
			}
			if !seen[name] {
				seen[name] = true
				t.byName[name] = append(t.byName[name], e)
			}
		}
	}
	return t
})

// programEffects returns the effects the programs.toml entries give cmd.
// A failing entry (it does not compile) gives its effects: fail closed.
func programEffects(cmd *shellparse.Command, ev *evalEnv) []string {
	if cmd.Dynamic {
		return nil
	}
	t := programs()
	var out []string
	try := func(e *progEntry) {
		m, ok := e.matcher()
		if ok && !m.matchCommand(cmd, ev) {
			return
		}
		if ok && e.k.Declared != "" && runnerDeclared(e.k.Declared, cmd, ev) {
			return
		}
		out = appendNew(out, e.k.Effects...)
	}
	for _, e := range t.byName[cmd.Name] {
		try(e)
	}
	var tried []*progEntry
	for _, g := range t.glob {
		if strings.HasPrefix(cmd.Name, g.prefix) && !slicesContainsPtr(t.byName[cmd.Name], g.e) && !slicesContainsPtr(tried, g.e) {
			tried = append(tried, g.e)
			try(g.e)
		}
	}
	return out
}

func slicesContainsPtr(l []*progEntry, e *progEntry) bool {
	for _, x := range l {
		if x == e {
			return true
		}
	}
	return false
}

func appendNew(out []string, add ...string) []string {
	for _, a := range add {
		dup := false
		for _, o := range out {
			dup = dup || o == a
		}
		if !dup {
			out = append(out, a)
		}
	}
	return out
}

// commandEffects are the effects of one command: its programs.toml
// entries and what the shell analysis found (Command.Effects), computed
// once per command.
func (e *evalEnv) commandEffects(cmd *shellparse.Command) []string {
	if e.effCmd == cmd && cmd != nil {
		return e.effs
	}
	effs := appendNew(programEffects(cmd, e), cmd.Effects...)
	effs = appendNew(effs, keyHomeEffects(cmd)...)
	if e.strEff[cmd] {
		effs = appendNew(effs, stringEffect)
	}
	e.effCmd, e.effs = cmd, effs
	return effs
}

// placeEntry is a places.toml place, compiled on first use.
type placeTable struct {
	places   [][]pathPattern // per knowledge.Places entry
	none     [][]pathPattern
	harmless []pathPattern
	// bases are, per place, the literal directories its patterns start
	// with (~ unexpanded): a content read of an ancestor of one (grep -r
	// x ~/.config/gh) reads the place too.
	bases [][]string
}

// literalBase is the directory a path pattern's literal part names: the
// pattern itself when it has no glob (a file: its directory's ancestors
// hold it), else the directory before the first glob; "" for a pattern
// that starts with a glob (**/Local State).
func literalBase(p string) string {
	i := strings.IndexAny(p, "*?[{")
	if i < 0 {
		return path.Clean(p)
	}
	j := strings.LastIndexByte(p[:i], '/')
	if j <= 0 {
		return ""
	}
	return path.Clean(p[:j])
}

var places = sync.OnceValue(func() *placeTable {
	t := &placeTable{}
	comp := func(ps []string) []pathPattern {
		out := make([]pathPattern, 0, len(ps))
		for _, p := range ps {
			if pp, err := compilePath(p); err == nil { // TestPlaces compiles every pattern
				out = append(out, pp)
			}
		}
		return out
	}
	for _, pl := range knowledge.Places {
		t.places = append(t.places, comp(pl.Paths))
		t.none = append(t.none, comp(pl.PathNone))
		var bases []string
		for _, p := range pl.Paths {
			if b := literalBase(p); b != "" && b != "~" && b != "/" {
				bases = append(bases, b)
			}
		}
		t.bases = append(t.bases, bases)
	}
	t.harmless = comp(knowledge.Harmless)
	return t
})

func anyPattern(ps []pathPattern, f string, ev *evalEnv) bool {
	for i := range ps {
		if ps[i].match(f, ev) {
			return true
		}
	}
	return false
}

// pathEffects are the effects of reading a path (no effect for another
// op): the places it is one of, and reads-home-dotfile for a dotfile or
// dot-directory directly under the home directory, outside the
// workspace, that is neither a place nor harmless.
func (e *evalEnv) pathEffects(p string, op call.Op, forms []string) []string {
	if op != call.OpRead {
		return nil
	}
	var out []string
	t := places()
	for i, pl := range knowledge.Places {
		for _, f := range forms {
			if anyPattern(t.places[i], f, e) && !anyPattern(t.none[i], f, e) || e.holdsPlace(f, i, forms) {
				out = appendNew(out, pl.Effect)
				break
			}
		}
	}
	if len(out) > 0 || e.home == "" {
		return out
	}
	for _, f := range forms {
		r, ok := relInside(e.home, f)
		if !ok || !strings.HasPrefix(r, ".") || r == "." || anyPattern(t.harmless, f, e) {
			continue
		}
		if !e.outside(forms) {
			continue // the workspace is the agent's own
		}
		return []string{knowledge.ReadsHomeDotfile}
	}
	return nil
}

// holdsPlace reports whether f, read as content (grep -r, cat of a
// directory, an archive of it), is a proper ancestor of one of a place's
// literal bases, outside the workspace: reading ~/.config/gh reads
// ~/.config/gh/hosts.yml. The workspace is the agent's own, so a
// workspace at ~ does not make every grep -r there a secret read.
func (e *evalEnv) holdsPlace(f string, place int, forms []string) bool {
	dir := strings.TrimSuffix(f, "/")
	if dir == "" {
		return false // / holds everything: the whole-system rules judge it
	}
	if e.placeBases == nil {
		raw := places().bases
		e.placeBases = make([][]string, len(raw))
		for i, bs := range raw {
			for _, b := range bs {
				if b = expandHome(b, e.home); !strings.HasPrefix(b, "~") && !strings.HasPrefix(b, "$") {
					e.placeBases[i] = append(e.placeBases[i], b) // none without a home to expand against
				}
			}
		}
	}
	for _, b := range e.placeBases[place] {
		if len(b) > len(dir)+1 && b[len(dir)] == '/' && strings.HasPrefix(b, dir) && e.outside(forms) {
			return true
		}
	}
	return false
}

// keyValue matches a key-shaped value: a long token with a known
// provider prefix, or a query parameter named like a key with a value.
var keyValue = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(^|[?&;])[a-z0-9_.-]*(api[_-]?key|apikey|access[_-]?token|auth[_-]?token|token|secret|password|passwd|client[_-]?secret|private[_-]?key|sig)=[^&#]{8,}|` +
		`(?-i:\b(sk-[A-Za-z0-9_-]{20,}|sk-ant-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,}|glpat-[A-Za-z0-9_-]{20,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{30,}|ya29\.[0-9A-Za-z_-]{20,}|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}))`)
})

var urlInText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`https?://[^\s"'<>\\]+`)
})

// callEffects are the effects of a web or MCP call (or of a write or
// edit: buildFileEffects): sends-secret when a
// URL it names (the fetched URL, or any URL in the tool's input) carries
// a key-shaped value in its query, fragment or path, or a password.
func callEffects(c *call.Call) []string {
	if c.Kind == call.KindWrite || c.Kind == call.KindEdit {
		return buildFileEffects(c)
	}
	if c.Kind != call.KindWeb && c.Kind != call.KindMCP {
		return nil
	}
	var out []string
	if c.Kind == call.KindMCP && len(c.Input) > 0 && sqlDestroy().Match(c.Input) {
		out = append(out, knowledge.DestroysData) // an MCP database tool's sql/query argument
	}
	var urls []string
	if bytes.Contains(c.Input, []byte("://")) {
		urls = urlInText().FindAllString(string(c.Input), 64)
	}
	if c.URL != "" {
		urls = append(urls, c.URL)
	}
	for _, s := range urls {
		u, err := url.Parse(s)
		if err != nil {
			continue
		}
		q := u.RawQuery
		if u.Fragment != "" {
			q += "&" + u.Fragment
		}
		if keyValue().MatchString(q) || keyValue().MatchString(u.Path) || u.User != nil {
			return append(out, knowledge.SendsSecret, knowledge.NetworkSend)
		}
	}
	return out
}

// sqlDestroy matches SQL that drops or empties a database object, in an
// MCP call's input (the JSON text: a sql, query or statement argument).
var sqlDestroy = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(drop\s+(table|database|schema|collection|keyspace|index|view)|truncate\s+(table\s+)?[\w."` + "`" + `]+|dropDatabase\s*\(|delete\s+from\s+[\w."` + "`" + `]+\s*(;|"|$))`)
})

// effectCandidates adds to list the rules filed under each effect (index
// category cat: catEffect or catPathEff), in rule order.
func (p *Policy) effectCandidates(cat byte, effs []string, list []int32) []int32 {
	if len(effs) == 0 {
		return list
	}
	lists := [][]int32{list}
	for _, e := range effs {
		if l := p.idx.get(cat, e); len(l) > 0 {
			lists = append(lists, l)
		}
	}
	if len(lists) == 1 {
		return list
	}
	return mergeOrds(lists...)
}

// buildFiles are files a build, an install or git runs commands from: an
// edit that makes one fetch and run code runs it at the next make, npm
// install, pip install or commit.
func buildFile(p string) bool {
	base := path.Base(p)
	switch base {
	case "Makefile", "makefile", "GNUmakefile", "package.json", "setup.py", "setup.cfg", "pyproject.toml", "build.rs",
		"Justfile", "justfile", "Rakefile", "Taskfile.yml", "Taskfile.yaml", "build.gradle", "build.gradle.kts",
		"CMakeLists.txt", "Cargo.toml", ".envrc", ".pre-commit-config.yaml", "lefthook.yml", "conftest.py", "noxfile.py", "tox.ini",
		"Gemfile", "composer.json", "deno.json", "Dockerfile", "Vagrantfile":
		return true
	}
	return strings.HasSuffix(base, ".mk") || strings.Contains(p, "/.git/hooks/") || strings.Contains(p, "/.husky/") ||
		strings.HasPrefix(p, ".git/hooks/") || strings.HasPrefix(p, ".husky/")
}

// fetchRun matches text that downloads code and runs it: a download piped
// to a shell or interpreter, a shell running a substitution of one, a
// downloaded file made executable or run, PowerShell's irm | iex.
var fetchRun = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(curl|wget|fetch|http|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|;&]*\|\s*(sudo\s+)?(ba|z|da|k)?sh\b|` +
		`\b(curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod)\b[^\n|;&]*\|\s*(sudo\s+)?(python[0-9.]*|node|perl|ruby|php|iex|invoke-expression)\b|` +
		`\b(sh|bash|zsh|python[0-9.]*|node|perl|ruby|eval|source|\.)\s+(-c\s+)?\\?["']?(<|\$)\(\s*(curl|wget)\b|` +
		`\b(curl|wget)\b[^\n]*(-o|-O|--output)[ =]?[^\n]*(&&|;)\s*(sudo\s+)?(ba|z|da)?sh\b|` +
		`(urlopen|requests\.get|urllib\.request)[^\n]*\b(exec|eval|os\.system|subprocess)\b|\b(exec|eval)\s*\(\s*(urlopen|requests\.get)`)
})

// buildFileEffects: runs-remote-code for a write or an edit of a build
// file (buildFile) whose written text (anywhere in the tool's input: the
// content, new_string, a patch) fetches and runs code.
func buildFileEffects(c *call.Call) []string {
	hit := false
	for _, p := range c.Paths {
		if p.Op != call.OpRead && buildFile(p.Path) {
			hit = true
			break
		}
	}
	if !hit || len(c.Input) == 0 {
		return nil
	}
	var in any
	if json.Unmarshal(c.Input, &in) != nil {
		return nil
	}
	var b strings.Builder
	var collect func(v any, depth int)
	collect = func(v any, depth int) {
		switch v := v.(type) {
		case string:
			b.WriteString(v)
			b.WriteByte('\n')
		case map[string]any:
			for _, x := range v {
				if depth < 4 {
					collect(x, depth+1)
				}
			}
		case []any:
			for _, x := range v {
				if depth < 4 {
					collect(x, depth+1)
				}
			}
		}
	}
	collect(in, 0)
	text := b.String()
	if fetchRun().MatchString(text) {
		return []string{knowledge.RunsRemoteCode}
	}
	return nil
}
