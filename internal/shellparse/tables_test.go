package shellparse

import (
	"slices"
	"strings"
	"testing"
)

// TestTablesSorted checks the static tables lookup searches: each must be
// sorted by name, without duplicates.
func TestTablesSorted(t *testing.T) {
	check := func(what string, names []string) {
		t.Helper()
		if !slices.IsSorted(names) {
			t.Errorf("%s is not sorted: %v", what, names)
		}
		if len(slices.Compact(slices.Clone(names))) != len(names) {
			t.Errorf("%s has duplicates: %v", what, names)
		}
	}
	names := func(n int, at func(int) string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = at(i)
		}
		return out
	}
	check("wrappers", names(len(wrappers), func(i int) string { return wrappers[i].name }))
	check("subWrappers", names(len(subWrappers), func(i int) string { return subWrappers[i].name }))
	for _, s := range subWrappers {
		check("subWrappers "+s.name, names(len(s.v), func(i int) string { return s.v[i].name }))
	}
	check("hiddenOpts", names(len(hiddenOpts), func(i int) string { return hiddenOpts[i].name }))
	check("readerTable", names(len(readerTable), func(i int) string { return readerTable[i].name }))
}

func TestLookup(t *testing.T) {
	table := []named[int]{{"a", 1}, {"b", 2}, {"d", 4}}
	for _, tc := range []struct {
		name string
		v    int
		ok   bool
	}{{"a", 1, true}, {"b", 2, true}, {"c", 0, false}, {"d", 4, true}, {"", 0, false}, {"e", 0, false}} {
		if v, ok := lookup(table, tc.name); v != tc.v || ok != tc.ok {
			t.Errorf("lookup(%q) = %d, %v; want %d, %v", tc.name, v, ok, tc.v, tc.ok)
		}
	}
	if _, ok := lookup([]named[int](nil), "a"); ok {
		t.Error("lookup in an empty table found a name")
	}
	if v, ok := lookup(wrappers, "sudo"); !ok || !strings.Contains(v.opts.short, "u") {
		t.Errorf("lookup(wrappers, sudo) = %+v, %v", v, ok)
	}
}
