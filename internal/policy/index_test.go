package policy

import (
	"slices"
	"strings"
	"testing"
)

// TestLiteralHits checks the one-pass literal scan a long script uses
// against testing every literal with strings.Contains.
func TestLiteralHits(t *testing.T) {
	t.Parallel()
	texts := []string{"$", "$(", "SECRET_1_", "SECRET_12_", "SE", "E", "--force", "rm -rf", "aa", "aaa", "é", "x"}
	var ix index
	for i, s := range texts {
		ix.literals = append(ix.literals, litList{s, []int32{int32(i)}})
	}
	slices.SortFunc(ix.literals, func(a, b litList) int { return strings.Compare(a.text, b.text) })
	lines := []string{
		"", "echo", "echo $(date)", "x=SECRET_12_ABC", "SECRET_1_SECRET_1_", "rm -rf --force /", "aaaa",
		"café", "E", "S", "SE", "$", "git push --force-with-lease", "printf x",
	}
	ev := &evalEnv{}
	for round := 0; round < 3; round++ { // the first lines go literal by literal, the rest through litScan
		for _, line := range lines {
			var want [][]int32
			for _, l := range ix.literals {
				if strings.Contains(line, l.text) {
					want = append(want, l.ords)
				}
			}
			got := ix.literalHits(line, ev)
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("round %d, %q: hits %v, want %v", round, line, got, want)
			}
		}
	}
	if ev.lits == nil {
		t.Fatal("the scan was never built")
	}
}
