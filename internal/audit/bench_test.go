package audit

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/call"
)

func BenchmarkRedact(b *testing.B) {
	s := "GITHUB_TOKEN=" + ghToken + " curl -sS -H 'Authorization: Bearer abcdefgh12345678' https://api.github.com/repos/o/r/pulls | jq '.[0].title'"
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		Redact(s)
	}
}

func BenchmarkCallSummary(b *testing.B) {
	c := call.Call{Kind: call.KindShell, Command: "git push --force origin main && echo done"}
	b.ReportAllocs()
	for b.Loop() {
		CallSummary(c, 512)
	}
}

func BenchmarkAppend(b *testing.B) {
	path := filepath.Join(b.TempDir(), "audit.jsonl")
	rec := testRecord(1, 1)
	rec.Summary = "git push --force origin main"
	rec.Time = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	for b.Loop() {
		if err := Append(path, rec); err != nil {
			b.Fatal(err)
		}
	}
}
