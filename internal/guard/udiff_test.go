package guard

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestUnifiedDiffCases(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n", "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"insert at start", "b\n", "a\nb\n", "@@ -1 +1,2 @@\n+a\n b\n"},
		{"delete all", "a\nb\n", "", "@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{"create", "", "a\n", "@@ -0,0 +1 @@\n+a\n"},
		{"no newline at end", "a\nb", "a\nc", "@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"context of three", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nV\n6\n7\n8\n9\n",
			"@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+V\n 6\n 7\n 8\n"},
	}
	for _, tt := range tests {
		got, ok := unifiedDiff(tt.a, tt.b)
		if !ok || got != tt.want {
			t.Errorf("%s: unifiedDiff = %v\n%s\nwant\n%s", tt.name, ok, got, tt.want)
		}
	}
}

// TestUnifiedDiffMatchesDiffU compares with diff -u (GNU diffutils), where
// installed, on random line files: the same hunks, line for line, or at
// least the same number of changed lines (both are minimal).
func TestUnifiedDiffMatchesDiffU(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("diff")
	if err != nil {
		t.Skip("no diff(1) here")
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a", "b", "c", "d", "e"}
	gen := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))] + "\n")
		}
		return b.String()
	}
	for i := range 300 {
		a := gen(r.IntN(30))
		b := []byte(a)
		// mutate a little, so that there is common content
		lines := strings.SplitAfter(a, "\n")
		for range r.IntN(5) + 1 {
			if len(lines) > 1 && r.IntN(2) == 0 {
				j := r.IntN(len(lines) - 1)
				lines = append(lines[:j], lines[j+1:]...)
			} else {
				j := r.IntN(len(lines))
				lines = append(lines[:j], append([]string{words[r.IntN(len(words))] + "\n"}, lines[j:]...)...)
			}
		}
		b = []byte(strings.Join(lines, ""))
		got, ok := unifiedDiff(a, string(b))
		if !ok {
			t.Fatalf("case %d: gave up", i)
		}
		fa, fb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
		os.WriteFile(fa, []byte(a), 0o600)
		os.WriteFile(fb, b, 0o600)
		out, _ := exec.Command(bin, "-u", fa, fb).Output()
		want := ""
		if s := string(out); s != "" {
			want = s[strings.Index(s, "@@"):]
		}
		count := func(d string) (n int) {
			for _, l := range strings.Split(d, "\n") {
				if strings.HasPrefix(l, "+") || strings.HasPrefix(l, "-") {
					n++
				}
			}
			return n
		}
		if count(got) != count(want) {
			t.Fatalf("case %d: %d changed lines, diff -u has %d\na=%q\nb=%q\ngot:\n%s\nwant:\n%s", i, count(got), count(want), a, b, got, want)
		}
		if applyDiff(t, a, got) != string(b) {
			t.Fatalf("case %d: the diff does not turn a into b\n%s", i, got)
		}
	}
}

// applyDiff applies a unified diff of whole lines to a.
func applyDiff(t *testing.T, a, d string) string {
	t.Helper()
	src := splitLines(a)
	var out []string
	pos := 0
	for _, l := range strings.Split(strings.TrimSuffix(d, "\n"), "\n") {
		switch {
		case l == "":
		case strings.HasPrefix(l, "@@"):
			var as, al, bs, bl int
			if _, err := fmt.Sscanf(strings.ReplaceAll(strings.ReplaceAll(l, ",", " "), "@@", ""), " -%d %d +%d %d", &as, &al, &bs, &bl); err != nil {
				// single-number ranges
				var x, y string
				fmt.Sscanf(l, "@@ -%s +%s @@", &x, &y)
				fmt.Sscanf(x, "%d", &as)
				if !strings.Contains(x, ",") {
					al = 1
				}
			}
			start := as - 1
			if al == 0 {
				start = as
			}
			out = append(out, src[pos:start]...)
			pos = start
		case l[0] == ' ':
			out = append(out, src[pos])
			pos++
		case l[0] == '-':
			pos++
		case l[0] == '+':
			out = append(out, l[1:])
		}
	}
	out = append(out, src[pos:]...)
	if len(out) == 0 {
		return ""
	}
	return strings.Join(out, "\n") + "\n"
}

// TestUnifiedDiffBounds: a diff longer than diffMaxLines is cut with a
// marker; more changed lines than diffMaxEdits give up.
func TestUnifiedDiffBounds(t *testing.T) {
	t.Parallel()
	var a, b strings.Builder
	for i := range 450 {
		fmt.Fprintf(&a, "line %d\n", i)
		fmt.Fprintf(&b, "LINE %d\n", i)
	}
	if _, ok := unifiedDiff(a.String(), b.String()); ok {
		t.Error("900 changed lines: want no diff (over diffMaxEdits)")
	}
	a.Reset()
	b.Reset()
	for i := range 300 {
		fmt.Fprintf(&a, "line %d\n", i)
		if i%2 == 0 {
			fmt.Fprintf(&b, "line %d\n", i)
		} else {
			fmt.Fprintf(&b, "LINE %d\n", i)
		}
	}
	d, ok := unifiedDiff(a.String(), b.String())
	if !ok {
		t.Fatal("gave up")
	}
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if len(lines) != diffMaxLines+1 || !strings.HasPrefix(lines[diffMaxLines], "…(diff cut: ") {
		t.Errorf("%d lines, last %q: want %d and the cut marker", len(lines), lines[len(lines)-1], diffMaxLines+1)
	}
}
