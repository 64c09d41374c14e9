package policy

import (
	"slices"
	"strings"
	"testing"
)

// TestLiteralHits checks how a command line is tested against the
// literals of bare-regex rules — word by word, or as a joined line when a
// literal holds a space; literal by literal for the first lines, then in
// one pass (litScan) — against strings.Contains over the joined line.
func TestLiteralHits(t *testing.T) {
	t.Parallel()
	base := []string{"$", "$(", "SECRET_1_", "SECRET_12_", "SE", "E", "--force", "aa", "aaa", "é", "x", "-rf"}
	lines := []string{
		"echo", "echo $(date)", "x=SECRET_12_ABC", "printf SECRET_1_SECRET_1_", "rm -rf --force /", "aaaa",
		"café", "E", "S", "SE", "$", "git push --force-with-lease", "printf x", "a a a", "rm -r -f x",
		"echo  two  spaces", "",
	}
	for _, tc := range []struct {
		name  string
		texts []string
	}{
		{"words", base},
		{"spaced", append(slices.Clone(base), "rm -rf", "a a", "-r -f")},
		{"empty", append(slices.Clone(base), "")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var ix index
			for i, s := range tc.texts {
				ix.literals = append(ix.literals, litList{s, []int32{int32(i)}})
			}
			slices.SortFunc(ix.literals, func(a, b litList) int { return strings.Compare(a.text, b.text) })
			ev := &evalEnv{}
			// The first lines go literal by literal, the rest through litScan.
			for round := 0; round < 3; round++ {
				for _, line := range lines {
					var want [][]int32
					for _, l := range ix.literals {
						if strings.Contains(line, l.text) {
							want = append(want, l.ords)
						}
					}
					words := strings.Split(line, " ")
					got := ix.literalHits(words[0], words[1:], &ev.lookups)
					if !slices.EqualFunc(got, want, slices.Equal) {
						t.Errorf("round %d, %q: hits %v, want %v", round, line, got, want)
					}
				}
			}
			if ev.lits == nil {
				t.Fatal("the scan was never built")
			}
		})
	}
}

// parseIndexHead reads exactly what formatIndex writes.
func TestParseIndexHead(t *testing.T) {
	if n, crc, cats, blocks, ok := parseIndexHead("v2 n=12 crc=4294967295 cats=n0-9 blocks=0,77"); !ok || n != 12 || crc != 4294967295 || cats != "n0-9" || blocks != "0,77" {
		t.Errorf("canonical head: %d %d %q %q %v", n, crc, cats, blocks, ok)
	}
	if _, _, cats, blocks, ok := parseIndexHead("v2 n=0 crc=7 cats= blocks="); !ok || cats != "" || blocks != "" {
		t.Errorf("empty policy head: %q %q %v", cats, blocks, ok)
	}
	for _, bad := range []string{
		"", "v2", "v1 n=1 crc=1 cats=x blocks=0", "v2 n=+1 crc=1 cats=x blocks=0", "v2 n=01 crc=1 cats=x blocks=0",
		"v2 n=-1 crc=1 cats=x blocks=0", "v2 n=1 crc=4294967296 cats=x blocks=0", "v2  n=1 crc=1 cats=x blocks=0",
		"v2 n=1 crc=1 cats=x blocks=0 ", "v2 n=1 crc=1 blocks=0 cats=x", "v2 n=1 crc=1 cats=x blocks=0 extra=1", "v2 n= crc=1 cats=x blocks=0",
	} {
		if _, _, _, _, ok := parseIndexHead(bad); ok {
			t.Errorf("%q read as a head", bad)
		}
	}
}
