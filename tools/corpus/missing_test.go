package main

import (
	"bytes"
	"strings"
	"testing"
)

// Without the peer corpus the tool says what it needs and where it comes
// from, and exits 1.
func TestNoCorpus(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-shared", t.TempDir()}, &out, &errb); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{"no peer corpus at", "cc-safety-net", "-shared", "docs/corpus.md"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
	if out.Len() != 0 {
		t.Errorf("stdout: %s", out.String())
	}
}
