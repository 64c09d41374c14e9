package audit

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/call"
)

// mask replaces every secret.
const mask = "***"

// A redactor masks the secrets one pattern finds. In its regexp, every
// capture group whose name starts with "secret" is replaced by ***; the rest
// of the match is kept. skip, if set, sees every named group that took part
// in the match and may veto the match (a boolean flag such as
// --ask-password takes no value).
type redactor struct {
	// hints are lowercase strings one of which every match contains,
	// case-insensitively; a string without any is not searched.
	hints []string
	re    *lazyRE
	skip  func(group, value string) bool
	// scope, when set, limits the pattern to the command segments that
	// start at a match of scope and end at the next ; & | or newline.
	scope *lazyRE
}

// lazyRE is a constant pattern compiled the first time a string carries
// one of its hints: most commands carry none, and a pass decision redacts
// nothing at all.
type lazyRE struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazy(src string) *lazyRE { return &lazyRE{src: src} }

func (l *lazyRE) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) }) // constant patterns, tested
	return l.re
}

// Value forms shared by the context patterns. An unquoted value that starts
// with $ is a variable the shell expands, not a secret, and is kept.
const (
	quotedValue   = `"(?P<secret_dq>[^"]*)"|'(?P<secret_sq>[^']*)'`
	unquotedValue = `(?P<secret_bare>[^\s'"$][^\s'"]*)`
	// envValue also stops at the separators of shell lists and URL queries.
	envValue = `(?P<secret_env>[^\s'"$&;|)][^\s'"&;|)]*)`
)

// The patterns are constants compiled once; order matters only in that
// token formats run before the contexts that would otherwise swallow them
// with a shorter prefix.
var redactors = []redactor{
	// Private key blocks, terminated or not.
	{hints: []string{"private key"}, re: lazy(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?P<secret>(?s:.*?))(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)`)},
	// Token formats with a recognizable prefix.
	{hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, re: lazy(`\bgh[pousr]_(?P<secret>[A-Za-z0-9]{20,})\b`)},
	{hints: []string{"github_pat_"}, re: lazy(`\bgithub_pat_(?P<secret>[A-Za-z0-9_]{20,})`)},
	{hints: []string{"glpat-"}, re: lazy(`\bglpat-(?P<secret>[A-Za-z0-9_-]{20,})`)},
	{hints: []string{"npm_"}, re: lazy(`\bnpm_(?P<secret>[A-Za-z0-9]{36})\b`)},
	{hints: []string{"hf_"}, re: lazy(`\bhf_(?P<secret>[A-Za-z0-9]{30,})\b`)},
	{hints: []string{"akia", "asia"}, re: lazy(`\b(?:AKIA|ASIA)(?P<secret>[A-Z0-9]{16})\b`)},
	{hints: []string{"aws_secret_access_key"}, re: lazy(`(?i)\baws_secret_access_key["']?\s*[=:]\s*["']?(?P<secret>[A-Za-z0-9/+]{30,}={0,2})`)},
	{hints: []string{"xox"}, re: lazy(`\bxox[baprs]-(?P<secret>[A-Za-z0-9-]{10,})`)},
	{hints: []string{"hooks.slack.com"}, re: lazy(`\bhooks\.slack\.com/(?:services|workflows|triggers)/(?P<secret>[A-Za-z0-9/_-]+)`)},
	{hints: []string{"sk-ant-"}, re: lazy(`\bsk-ant-(?P<secret>[A-Za-z0-9_-]{16,})`)},
	{hints: []string{"sk-"}, re: lazy(`\bsk-(?:proj|svcacct|admin)-(?P<secret>[A-Za-z0-9_-]{16,})`)},
	{hints: []string{"sk-"}, re: lazy(`\bsk-(?P<secret>[A-Za-z0-9]{20,})\b`)},
	{hints: []string{"k_live_", "k_test_"}, re: lazy(`\b[sr]k_(?:live|test)_(?P<secret>[A-Za-z0-9]{16,})`)},
	{hints: []string{"aiza"}, re: lazy(`\bAIza(?P<secret>[0-9A-Za-z_-]{35})`)},
	{hints: []string{"eyj"}, re: lazy(`\beyJ(?P<secret>[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)`)},
	// Headers: Authorization with any scheme, then API-key style headers.
	// A header name must start a word of the command (not follow a /, as
	// x-access-token does in https://x-access-token:…@github.com).
	{
		hints: []string{"authorization"},
		re:    lazy(`(?i)(?:^|[\s'"])(?:proxy-)?authorization\s*:\s*(?:(?P<scheme>bearer|basic|token|bot|digest|negotiate|apikey|key)\s+(?P<secret>[^\s'"$][^\s'"]*)|(?P<secret_noscheme>[^\s'"$][^\s'"]*))`),
		// "Authorization: Bearer $TOKEN" is no secret, though the scheme
		// alone would match as a value.
		skip: func(group, value string) bool { return group == "secret_noscheme" && isAuthScheme(value) },
	},
	{hints: []string{"key", "token"}, re: lazy(`(?i)(?:^|[\s'"])(?:x-api-key|api-key|apikey|x-auth-token|x-access-token|private-token|x-goog-api-key|x-vault-token)\s*:\s*(?P<secret>[^\s'"$][^\s'"]*)`)},
	{hints: []string{"cookie"}, re: lazy(`(?i)(?:^|[\s'"])cookie\s*:\s*(?P<secret>[^\s'"$][^'"\n]*)`)},
	{hints: []string{"bearer"}, re: lazy(`\bBearer\s+(?P<secret>[A-Za-z0-9._~+/-]{8,}=*)`)},
	// Flags: --password=X, --password X, --github-token X, --api-key=X, …
	{
		hints: []string{"pass", "token", "secret", "key", "auth"},
		re: lazy(`(?i)(?:^|[\s'"(])--?(?P<flag>(?:[a-z0-9]+[-_])*(?:password|passwd|token|secret|(?:api|access|secret|account|master|client)[-_]?key|auth))` +
			`(?:=(?:` + quotedValue + `|` + unquotedValue + `)|\s+(?:"(?P<secret_sdq>[^"]*)"|'(?P<secret_ssq>[^']*)'|(?P<secret_sbare>[^\s'"$<>|&;(-][^\s'"]*)))`),
		// Boolean flags take no value: --ask-vault-password site.yml.
		skip: func(group, value string) bool {
			if group != "flag" {
				return false
			}
			f := strings.ToLower(value)
			for _, p := range []string{"ask-", "no-", "prompt-", "with-"} {
				if strings.HasPrefix(f, p) {
					return true
				}
			}
			return false
		},
	},
	// Assignments: DB_PASSWORD=X, GITHUB_TOKEN=X, AWS_SECRET_ACCESS_KEY=X, ?api_key=X.
	{hints: []string{"pass", "secret", "token", "key"}, re: lazy(`(?i)\b[a-z0-9_]*(?:password|passwd|secret|token|apikey|_key)=(?:` + quotedValue + `|` + envValue + `)`)},
	// JSON: "password": "X", "api_key": "X".
	{hints: []string{"pass", "secret", "token", "key"}, re: lazy(`(?i)"[a-z0-9_]*(?:password|passwd|secret|token|apikey|api_key|access_key|private_key)"\s*:\s*"(?P<secret>[^"\\]*(?:\\.[^"\\]*)*)"`)},
	// Credentials in URLs: scheme://user:pass@host.
	{hints: []string{"://"}, re: lazy(`\b[A-Za-z][A-Za-z0-9+.-]*://[^\s/?#@:'"]*:(?P<secret>[^\s/?#@'"]+)@`)},
	// mysql -pSECRET (the value glued to -p), only in a mysql-like command.
	{
		hints: []string{"mysql", "mariadb"},
		re:    lazy(`(?:^|\s)-p(?:` + quotedValue + `|(?P<secret>[^\s'"]+))`),
		scope: lazy(`(?:^|[\s;&|(/'"])(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlshow|mysqlcheck|mysqlbinlog|mysqlpump|mysqlsh|mariadb|mariadb-dump|mariadb-admin|mariadb-import|mariadb-check)(?:$|[\s'"])`),
	},
	// curl -u user:pass, --user user:pass, --proxy-user user:pass.
	{
		hints: []string{"curl"},
		re:    lazy(`(?:^|\s)(?:-u|-U|--user|--proxy-user)(?:\s+|=)?['"]?[^\s:'"]*:(?P<secret>[^\s'"]+)`),
		scope: lazy(`(?:^|[\s;&|(/'"])curl(?:$|[\s'"])`),
	},
}

// Redact returns s with the secrets it recognizes replaced by ***, keeping a
// recognizable prefix (ghp_***, AKIA***, Bearer ***, --password=***). It is
// idempotent: Redact(Redact(s)) == Redact(s). See the package documentation
// for what it recognizes and what it leaves alone.
func Redact(s string) string {
	lower := strings.ToLower(s)
	for i := range redactors {
		r := &redactors[i]
		if !r.hinted(lower) {
			continue
		}
		if r.scope == nil {
			s = r.apply(s)
		} else {
			s = r.applyScoped(s)
		}
	}
	return s
}

func (r *redactor) hinted(lower string) bool {
	for _, h := range r.hints {
		if strings.Contains(lower, h) {
			return true
		}
	}
	return len(r.hints) == 0
}

// apply masks every match of r in s.
func (r *redactor) apply(s string) string {
	matches := r.re.get().FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	names := r.re.get().SubexpNames()
	var b strings.Builder
	last := 0
	for _, m := range matches {
		if r.skip != nil && r.vetoed(s, m, names) {
			continue
		}
		for g := 1; g < len(names); g++ {
			start, end := m[2*g], m[2*g+1]
			if start < 0 || end <= start || !strings.HasPrefix(names[g], "secret") {
				continue
			}
			if s[start:end] == mask {
				continue
			}
			b.WriteString(s[last:start])
			b.WriteString(mask)
			last = end
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

func (r *redactor) vetoed(s string, m []int, names []string) bool {
	for g, name := range names {
		if name != "" && m[2*g] >= 0 && r.skip(name, s[m[2*g]:m[2*g+1]]) {
			return true
		}
	}
	return false
}

func isAuthScheme(s string) bool {
	switch strings.ToLower(s) {
	case "bearer", "basic", "token", "bot", "digest", "negotiate", "apikey", "key":
		return true
	}
	return false
}

// applyScoped masks matches of r only inside the command segments that
// begin where r.scope matches.
func (r *redactor) applyScoped(s string) string {
	var b strings.Builder
	last := 0
	for {
		loc := r.scope.get().FindStringIndex(s[last:])
		if loc == nil {
			break
		}
		start := last + loc[1]
		end := len(s)
		if i := strings.IndexAny(s[start:], ";&|\n"); i >= 0 {
			end = start + i
		}
		// Back up one byte so a segment starting right after the program
		// name still sees the whitespace before its first flag.
		segStart := start
		if segStart > last && segStart > 0 {
			if c := s[segStart-1]; c == ' ' || c == '\t' {
				segStart--
			}
		}
		b.WriteString(s[last:segStart])
		b.WriteString(r.apply(s[segStart:end]))
		last = end
		if last >= len(s) {
			break
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// Summarize returns s cut to at most max bytes, on a UTF-8 character
// boundary, followed by "…(N bytes more)" when something was cut. max <= 0
// means no limit.
func Summarize(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := runeCut(s, max)
	return s[:cut] + more(len(s)-cut)
}

// runeCut returns the largest n <= max that does not split a UTF-8 sequence
// of s; len(s) > max.
func runeCut(s string, max int) int {
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return max
}

func more(n int) string { return "…(" + strconv.Itoa(n) + " bytes more)" }

// redactWindow bounds the work of CallSummary on huge commands: only the
// first max+redactWindow bytes are redacted, enough to see whole any token
// that starts before the cut.
const redactWindow = 4096

// CallSummary is the audit summary of c, redacted and then cut to max bytes
// (max <= 0: no limit): the command of a shell call, the "op path" list of a
// file call (with search patterns), server/tool of an MCP call, the URL of a
// web call, and the tool name otherwise.
func CallSummary(c call.Call, max int) string {
	var s string
	switch c.Kind {
	case call.KindShell:
		s = c.Command
	case call.KindWrite, call.KindEdit, call.KindRead, call.KindSearch:
		parts := make([]string, 0, len(c.Paths)+len(c.Patterns))
		for _, p := range c.Paths {
			parts = append(parts, p.Op.String()+" "+p.Path)
		}
		parts = append(parts, c.Patterns...)
		s = strings.Join(parts, ", ")
	case call.KindMCP:
		s = c.MCPServer + "/" + c.MCPTool
	case call.KindWeb:
		s = c.URL
	}
	if s == "" {
		s = c.Tool
	}
	if max <= 0 || len(s) <= max+redactWindow {
		return Summarize(Redact(s), max)
	}
	w := runeCut(s, max+redactWindow)
	red := Redact(s[:w])
	if len(red) <= max {
		return red + more(len(s)-w)
	}
	cut := runeCut(red, max)
	return red[:cut] + more(len(red)-cut+len(s)-w)
}
