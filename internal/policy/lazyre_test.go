package policy

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/testenv"
)

// TestPrefilter: the literals each regex shape needs (prefilter.String:
// a clause in brackets, i for any ASCII case, an alternation's branches in
// parentheses).
func TestPrefilter(t *testing.T) {
	for _, tc := range []struct {
		re, want string
	}{
		{`^git (.* )?config`, `["git "] ["config"]`},
		{`abc|abd`, `["ab"]`}, // factored: ab[cd]
		{`foo|bar`, `(["foo"] | ["bar"])`},
		{`a(b|)c`, `["a"] ["c"]`},
		{`(foo|bar)+z`, `["z"] (["foo"] | ["bar"])`},
		{`(x|y)+z`, `["z"]`}, // a class
		{`(?i)git push`, `i["git push"]`},
		{`git (?i:push)`, `["git "] i["push"]`},
		{`(?i)ab|cd`, `(i["ab"] | i["cd"])`},
		{`(?i)é`, ``}, // not ASCII
		{`(ab)*c?`, ``},
		{`(ab){2,}`, `["ab"]`},
		{`(ab){0,3}`, ``},
		{`[ab]c`, `["c"]`},
		{`.*`, ``},
		{`a|.*`, ``},
		{"\uFFFDx", ``},
		{`(rm|mv) -rf`, `[" -rf"] (["rm"] | ["mv"])`},
		{`^(echo|printf) .*\$\{?[A-Z0-9_]*(TOKEN|SECRET)\b`, `[" "] ["$"] (["echo"] | ["printf"]) (["TOKEN"] | ["SECRET"])`},
	} {
		re, err := syntax.Parse(tc.re, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := buildPrefilter(re).String(); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.re, got, tc.want)
		}
	}
	// Case-folded literals hold for an ASCII string in any case; a string
	// with other runes is let through ((?i)k matches the Kelvin sign).
	re, _ := syntax.Parse(`(?i)^(echo|printf) .*\$\{?[A-Z0-9_]*(TOKEN|SECRET)`, syntax.Perl)
	p := buildPrefilter(re)
	for s, want := range map[string]bool{
		"echo $MY_TOKEN": true, "ECHO ${secret}": true, "echo line-1 >> out/log-1.txt": false,
		"echo $HOME": false, "printf '%s' $Token": true, "echo \u212a $x": true, "cat $TOKEN": false,
	} {
		if got := p.allows(s); got != want {
			t.Errorf("%s allows %q: %v, want %v", p, s, got, want)
		}
	}
}

// TestPrefilterSound: for every regex and code pattern of the defaults,
// nothing the regex matches is refused by its prefilter (generated or
// built), over the rules' examples, the peer corpus (testenv.Shared: required
// under CI=true, else used when it is beside the repository) and every
// word-suffix of those. -short leaves the corpus out.
func TestPrefilterSound(t *testing.T) {
	var texts []string
	var res []string
	for _, r := range builtinGen.Rules {
		for _, src := range []string{r.Regex, r.Code} {
			if src != "" {
				res = append(res, src)
			}
		}
		for _, e := range append(slices.Clone(r.Examples.Match), r.Examples.NotMatch...) {
			texts = append(texts, strings.TrimPrefix(e, "shell: "))
		}
	}
	if testing.Short() {
		t.Log("-short: the rules' examples only, not the peer corpus (about 2,800 commands and their suffixes)")
	} else if dir, ok := testenv.Shared(t, "corpus"); ok {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(files) == 0 {
			t.Fatalf("no *.jsonl in %s", dir)
		}
		for _, f := range files {
			fh, err := os.Open(f)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(fh)
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				var rec struct{ Command string }
				if json.Unmarshal(sc.Bytes(), &rec) == nil && rec.Command != "" {
					texts = append(texts, rec.Command)
				}
			}
			fh.Close()
		}
	}
	for _, s := range slices.Clone(texts) {
		words := strings.Fields(s)
		for i := 1; i < len(words); i++ {
			texts = append(texts, strings.Join(words[i:], " "))
		}
	}
	matched := 0
	for _, src := range res {
		re := regexp.MustCompile(src)
		gen, ok := builtinGenPrefilter(src)
		if !ok {
			t.Errorf("no generated prefilter for %q", src)
		}
		parsed, _ := syntax.Parse(src, syntax.Perl)
		built := buildPrefilter(parsed)
		if gen.String() != built.String() {
			t.Errorf("generated prefilter %q != built %q for %s (run go generate ./internal/policy)", gen, built, src)
		}
		for _, s := range texts {
			if re.MatchString(s) {
				matched++
				if !gen.allows(s) {
					t.Errorf("%q matches %s but its prefilter %q refuses it", s, src, gen)
				}
			}
		}
	}
	if matched == 0 {
		t.Fatal("no text matched any regex: the test proves nothing")
	}
	t.Logf("%d regexes, %d texts, %d matches checked", len(res), len(texts), matched)
}

// FuzzPrefilter: whatever a regex matches, its prefilter allows.
func FuzzPrefilter(f *testing.F) {
	f.Add(`^git (.* )?config`, "git -c x config y")
	f.Add(`(a|b)+c{2,}`, "abcc")
	f.Add(`(?i)ab|cd`, "AB")
	f.Add("x\uFFFDy", "x\xffy")
	f.Fuzz(func(t *testing.T, src, s string) {
		re, err := regexp.Compile(src)
		if err != nil {
			return
		}
		parsed, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			return
		}
		if re.MatchString(s) && !buildPrefilter(parsed).allows(s) {
			t.Fatalf("%q matches %q but the prefilter %q refuses it", s, src, buildPrefilter(parsed))
		}
	})
}

// A regex of the defaults, met in another layer (a materialized copy of a
// default rule), takes its generated prefilter and is not parsed again;
// another is parsed (validated) when its rule compiles.
func TestLazyRegexpKnownText(t *testing.T) {
	var src string
	for _, fr := range builtinGen.Rules {
		if fr.Regex != "" {
			src = fr.Regex
			break
		}
	}
	l, err := newLazyRegexp(src, false)
	if err != nil || !l.preOK || l.tree != nil {
		t.Errorf("a default's regex: err %v, generated prefilter %v, parsed %v", err, l != nil && l.preOK, l != nil && l.tree != nil)
	}
	if l, err := newLazyRegexp(`^corp-tool (deploy|drop) `, false); err != nil || l.preOK || l.tree == nil {
		t.Errorf("another regex: err %v, want parsed at compile", err)
	}
	if _, err := newLazyRegexp(`(`, false); err == nil {
		t.Error("a bad regex compiled")
	}
}

// String is p for the tests: clauses in brackets (i: any ASCII case), a group
// of alternatives in parentheses.
func (p prefilter) String() string {
	var parts []string
	for _, c := range p.all {
		parts = append(parts, fmt.Sprintf("%q", c))
	}
	for _, c := range p.fold {
		parts = append(parts, fmt.Sprintf("i%q", c))
	}
	for _, group := range p.any {
		alts := make([]string, len(group))
		for i, alt := range group {
			alts[i] = alt.String()
		}
		parts = append(parts, "("+strings.Join(alts, " | ")+")")
	}
	return strings.Join(parts, " ")
}
