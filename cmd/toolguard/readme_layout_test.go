package main

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// TestReadmeLayout: the README's Layout block lists every directory of
// cmd/ and internal/ (one level) and nothing that is not there,
// so the newcomer's map stays true as packages come and go.
func TestReadmeLayout(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i := strings.Index(text, "## Layout\n")
	if i < 0 {
		t.Fatal("README.md has no ## Layout section")
	}
	block := text[i:]
	if j := strings.Index(block[len("## Layout\n"):], "\n## "); j >= 0 {
		block = block[:j+len("## Layout\n")]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^([a-z0-9_./-]+)/ `).FindAllStringSubmatch(block, -1) {
		listed[m[1]] = true
	}
	var want []string
	for _, top := range []string{"cmd", "internal"} {
		entries, err := os.ReadDir(filepath.Join("../..", top))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				want = append(want, top+"/"+e.Name())
			}
		}
	}
	sort.Strings(want)
	for _, d := range want {
		if !listed[d] {
			t.Errorf("README.md's Layout does not list %s/", d)
		}
	}
	for d := range listed {
		if _, err := os.Stat(filepath.Join("../..", d)); err != nil {
			t.Errorf("README.md's Layout lists %s/, which is not in the tree", d)
		}
	}
}
