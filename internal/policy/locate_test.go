package policy

import "testing"

// TestBracketDeltaStrings: quotes and brackets inside any of TOML's four
// string kinds are text, and a tripled string may close on its own line.
func TestBracketDeltaStrings(t *testing.T) {
	for _, c := range []struct {
		line  string
		delta int
		multi string
	}{
		{`["a", "b"]`, 0, ""},
		{`["a",`, 1, ""},
		{`"]"`, 0, ""},
		{`'['`, 0, ""},
		{`"a\"[" ]`, -1, ""},
		{`'''(["'])~|\$_SERVER\[['"]HOME['"]\]'''`, 0, ""}, // one-line literal: quotes, brackets
		{`'''(x|["'])'''  # [`, 0, ""},                     // the comment's bracket does not count
		{`"""a"[" """`, 0, ""},                             // one-line basic with a lone quote
		{`"""a""""" ]`, -1, ""},                            // up to two quotes end the string's text
		{`'''`, 0, `'''`},                                  // opens a multi-line literal
		{`"""text [`, 0, `"""`},                            // opens a multi-line basic
		{`[ '''a''', '''b[''',`, 1, ""},                    // an array of one-line literals
		{`{ field = "command", regex = '''^x[' ]''' }`, 0, ""},
	} {
		d, m := bracketDelta(c.line)
		if d != c.delta || m != c.multi {
			t.Errorf("bracketDelta(%s) = %d, %q; want %d, %q", c.line, d, m, c.delta, c.multi)
		}
	}
}

// TestIndexKeysAfterOneLineLiteral: the rules after a one-line literal
// regex holding quotes and brackets are placed on their own header lines,
// as is every key (a user's policy gets the same scan as the defaults;
// builtin_gen.go's source lines come from it too).
func TestIndexKeysAfterOneLineLiteral(t *testing.T) {
	src := `[[rule]]
id = "a"
code = '''(rmtree|rm_rf)\(\s*(["'])~|\$_SERVER\[['"]HOME['"]\]'''
examples.match = ["python -c \"rm('/')\""]

[[rule]]
id = "b"
regex = """^x["[]"""
decision = "deny"

[[rule]]
id = "c"
description = '''
multi [ line
'''
decision = "ask"
`
	ix := indexKeys(src)
	for key, line := range map[string]int{
		"rule.0": 1, "rule.0.code": 3, "rule.0.examples.match": 4,
		"rule.1": 6, "rule.1.decision": 9,
		"rule.2": 11, "rule.2.description": 13, "rule.2.decision": 16,
	} {
		if pos, ok := ix.pos[key]; !ok || pos.Line != line {
			t.Errorf("%s at %v (found: %v), want line %d", key, pos, ok, line)
		}
	}
	if len(ix.unknown) != 0 {
		t.Errorf("unknown keys: %v", ix.unknown)
	}
}
