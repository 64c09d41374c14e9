package policy

import "testing"

func TestGlobMatchNegatedClass(t *testing.T) {
	cases := []struct {
		p, s string
		want bool
	}{
		{"[!o]*", "upstream", true},
		{"[!o]*", "origin", false},
		{"[!o]*", "!x", true},
		{"[^o]*", "origin", false},
		{`\[!o]`, "[!o]", true}, // escaped: literal
		{"[a!]", "!", true},     // '!' not first: a member
		{"[a!]", "b", false},
		{"x[!]]", "x]", false}, // Go has no "] first is literal": a bad pattern, never a match
		{"[!a-c][!a-c]", "dd", true},
		{"[!a-c][!a-c]", "da", false},
	}
	for _, c := range cases {
		if got, _ := globMatch(c.p, c.s); got != c.want {
			t.Errorf("globMatch(%q, %q) = %v, want %v", c.p, c.s, got, c.want)
		}
	}
}
