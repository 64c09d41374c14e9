package policy

import (
	"strconv"
	"strings"
	"sync"
)

// srcPos is a 1-based line and column in a policy file.
type srcPos struct{ Line, Col int }

// keyIndex maps the keys of a TOML document to where they are written, so
// that validation errors can point at the offending line. BurntSushi/toml
// reports positions for syntax errors but not for keys, so the loader scans
// the text once itself. Keys are recorded with array-of-table indexes:
// "rule.3.decision", "settings.on_error", "test.0.expect"; a table header
// is recorded under its own path ("rule.3").
//
// The scan understands table headers, dotted and quoted keys and
// multi-line strings; a key it cannot place falls back to its table.
type keyIndex struct {
	pos     map[string]srcPos
	unknown []keyRef // keys not in the schema, in document order
}

type keyRef struct {
	Path string
	Pos  srcPos
}

// schema lists the keys each table accepts; "" is the top level.
var schema = sync.OnceValue(func() map[string]map[string]bool {
	return map[string]map[string]bool{
		"": {"version": true, "settings": true, "rule": true, "test": true},
		"settings": set("layer", "builtin", "default", "default_for", "mode", "on_error",
			"on_unparsable", "on_dynamic", "disable", "audit_log", "audit", "state_dir",
			"workspace", "safe_prefixes", "approvers", "hold_session_on_pending", "pending_ttl", "locked",
			"case_insensitive_paths", "require_enforcement", "auto_allow",
			"shell_fields", "approval_url", "approval_token_file", "policy_pubkey", "notify", "ask_fallback", "ask_fallback_for"),
		"settings.notify":           set("url", "events", "format"),
		"settings.default_for":      nil, // free-form kind names, checked on decode
		"settings.shell_fields":     nil, // free-form tool globs, checked on decode
		"settings.ask_fallback_for": nil, // free-form provider names, checked on decode
		"rule": set("id", "description", "decision", "justification", "priority", "locked",
			"tool", "command", "args", "args_all", "args_none", "path", "path_none", "op",
			"scope", "mcp", "regex", "fed_by", "via", "env", "env_none", "code", "effect", "domain", "modes", "input", "examples"),
		"rule.examples": set("match", "not_match"),
		"rule.input":    set("field", "exact", "prefix", "glob", "regex", "not"),
		"test":          set("name", "command", "tool", "path", "mcp", "url", "mode", "input", "cwd", "expect"),
		"test.input":    nil,
	}
})

func set(keys ...string) map[string]bool {
	m := make(map[string]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// schemaPath strips array indexes: "rule.3.examples" -> "rule.examples".
func schemaPath(p string) string {
	parts := strings.Split(p, ".")
	out := parts[:0]
	for _, s := range parts {
		if _, err := strconv.Atoi(s); err == nil {
			continue
		}
		out = append(out, s)
	}
	return strings.Join(out, ".")
}

func indexKeys(src string) *keyIndex {
	ix := &keyIndex{pos: map[string]srcPos{}}
	counts := map[string]int{} // array-of-tables lengths by schema path
	table := ""                // current table path, with indexes
	inMulti := ""              // closing delimiter of an open multi-line string
	depth := 0                 // open brackets of a multi-line array or inline table

	lines := strings.Split(src, "\n")
	for i, line := range lines {
		ln := i + 1
		if inMulti != "" {
			if strings.Contains(line, inMulti) {
				inMulti = ""
			}
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		col := len(line) - len(trimmed) + 1
		if depth > 0 {
			d, _ := bracketDelta(trimmed)
			depth += d
			continue
		}
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		if strings.HasPrefix(trimmed, "[[") {
			name := strings.TrimSpace(strings.TrimSuffix(strings.SplitN(trimmed[2:], "]]", 2)[0], "]"))
			name = unquoteKey(name)
			parent, leaf := splitLast(name)
			base := ""
			if parent != "" {
				base = resolveTable(table, parent) + "."
			}
			sp := schemaPath(base + leaf)
			key := base + leaf
			n := counts[key]
			counts[key] = n + 1
			table = key + "." + strconv.Itoa(n)
			ix.pos[table] = srcPos{ln, col}
			if n == 0 {
				ix.pos[key] = srcPos{ln, col} // the array as a whole: where it starts
			}
			ix.check(sp, srcPos{ln, col}, table)
			continue
		}
		if strings.HasPrefix(trimmed, "[") {
			name := unquoteKey(strings.TrimSpace(strings.SplitN(trimmed[1:], "]", 2)[0]))
			table = name
			ix.pos[table] = srcPos{ln, col}
			ix.check(schemaPath(name), srcPos{ln, col}, table)
			continue
		}
		eq := keyEnd(trimmed)
		if eq < 0 {
			continue
		}
		key := unquoteKey(strings.TrimSpace(trimmed[:eq]))
		full := key
		if table != "" {
			full = table + "." + key
		}
		ix.pos[full] = srcPos{ln, col}
		ix.check(schemaPath(full), srcPos{ln, col}, full)

		depth, inMulti = bracketDelta(trimmed[eq+1:])
		if depth < 0 || inMulti != "" {
			depth = 0
		}
	}
	return ix
}

// check records a key as unknown when some table on its path has a fixed
// key set that does not hold the next segment. Free-form tables (nil) and
// anything below an unknown key are not checked further.
func (ix *keyIndex) check(sp string, pos srcPos, full string) {
	segs := strings.Split(sp, ".")
	parent := ""
	for i, seg := range segs {
		keys, known := schema()[parent]
		if !known || keys == nil {
			return
		}
		if !keys[seg] {
			ix.unknown = append(ix.unknown, keyRef{full, pos})
			return
		}
		if i == 0 {
			parent = seg
		} else {
			parent += "." + seg
		}
	}
}

// lookup returns the position of the first key path that is known.
func (ix *keyIndex) lookup(paths ...string) srcPos {
	for _, p := range paths {
		if pos, ok := ix.pos[p]; ok {
			return pos
		}
	}
	return srcPos{1, 1}
}

// keyEnd returns the index of the '=' that ends the key on a line, or -1.
func keyEnd(s string) int {
	quote := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '=':
			return i
		case c == '#' || c == '[' || c == '{':
			return -1
		}
	}
	return -1
}

// bracketDelta counts the brackets a line opens minus those it closes,
// outside strings and comments, and returns the delimiter of a multi-line
// string the line opens and does not close (three double or three single
// quotes), else "". Strings are TOML's four kinds: basic (backslash
// escapes), literal (none), and their tripled multi-line forms, which may
// also open and close on one line, as defaults.toml's code regexes do:
// quotes and brackets inside any of them are text.
func bracketDelta(s string) (int, string) {
	d := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			delim := s[i : i+1]
			if strings.HasPrefix(s[i:], strings.Repeat(delim, 3)) {
				delim = s[i : i+3]
			}
			end := stringEnd(s, i+len(delim), delim)
			if end < 0 {
				if len(delim) == 3 {
					return d, delim
				}
				return d, "" // an unterminated one-line string: the decoder reports it
			}
			i = end - 1
		case c == '#':
			return d, ""
		case c == '[' || c == '{':
			d++
		case c == ']' || c == '}':
			d--
		}
	}
	return d, ""
}

// stringEnd returns the index just past the delimiter that closes a string
// whose text starts at s[from:], or -1 when the line does not close it.
// Basic strings (delimited by '"') honour backslash escapes. A tripled
// delimiter may be followed by up to two more quotes that belong to the
// string (in TOML, """a""""" is a"").
func stringEnd(s string, from int, delim string) int {
	for i := from; i < len(s); i++ {
		if delim[0] == '"' && s[i] == '\\' {
			i++
			continue
		}
		if strings.HasPrefix(s[i:], delim) {
			end := i + len(delim)
			for n := 0; len(delim) == 3 && n < 2 && end < len(s) && s[end] == delim[0]; n++ {
				end++
			}
			return end
		}
	}
	return -1
}

func unquoteKey(k string) string {
	parts := strings.Split(k, ".")
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if len(p) >= 2 && (p[0] == '"' || p[0] == '\'') && p[len(p)-1] == p[0] {
			p = p[1 : len(p)-1]
		}
		parts[i] = p
	}
	return strings.Join(parts, ".")
}

func splitLast(p string) (string, string) {
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		return p[:i], p[i+1:]
	}
	return "", p
}

// resolveTable maps a header's parent ("rule") to the current element of
// that array when the current table is inside it ("rule.3").
func resolveTable(current, parent string) string {
	if strings.HasPrefix(current, parent+".") {
		rest := current[len(parent)+1:]
		if i := strings.IndexByte(rest, '.'); i >= 0 {
			rest = rest[:i]
		}
		if _, err := strconv.Atoi(rest); err == nil {
			return parent + "." + rest
		}
	}
	return parent
}
