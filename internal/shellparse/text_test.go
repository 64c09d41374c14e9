package shellparse

import "testing"

func TestUnbackslash(t *testing.T) {
	for in, want := range map[string]string{
		``:           ``,
		`plain`:      `plain`,
		`a\ b`:       `a b`,
		`\*.go`:      `*.go`,
		`a\\b`:       `a\b`,
		`end\`:       `end\`,
		`\\\`:        `\\`,
		`x\y\z`:      `xyz`,
		`ünï\ côdé`:  `ünï côdé`,
		`two\\\\one`: `two\\one`,
	} {
		if got := Unbackslash(in); got != want {
			t.Errorf("Unbackslash(%q) = %q, want %q", in, got, want)
		}
	}
}
