package main

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/testenv"
)

// TestAutoAllowCorpus runs the peer corpus with auto_allow = "read-only":
// no block record may be allowed, and the share of allow records it
// auto-allows is logged (docs/auto-allow.md reports it). The one
// exception is a record whose verdict rests on a symlink the corpus does
// not carry (nah "read-symlink-alias": innocent-key links to a key):
// without a file system there is no link to resolve. The hook resolves
// links (Env.Resolve); internal/policy TestAutoAllowPolicy and the
// cmd/toolguard hook test prove the same command is not allowed there.
func TestAutoAllowCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the peer corpus run is left out")
	}
	dir := testenv.NeedShared(t, "corpus")
	a, err := autoScoreDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	a.report(&sb, false)
	t.Log(sb.String())
	for _, b := range a.BlockAllow {
		t.Errorf("block record allowed: %s", b)
	}
	if len(a.BlockAllowLink) > 1 {
		t.Errorf("more block records resting on a symlink allowed than the one known: %v", a.BlockAllowLink)
	}
	if a.AutoAllowed == 0 {
		t.Error("nothing auto-allowed")
	}
}
