package shellparse

import (
	"strings"
	"testing"

	"github.com/toolguard/toolguard/tools/hookbench/policygen"
)

func benchAnalyze(b *testing.B, src string) {
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Analyze(src, Options{Cwd: "/w", Home: "/home/u"}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTypical(b *testing.B) {
	benchAnalyze(b, `cd repo && git add -A && git commit -m "fix: handle empty input" && git push origin HEAD`)
}

func BenchmarkWrapped(b *testing.B) {
	benchAnalyze(b, `sudo -u root env FOO=1 nice -n 5 bash -lc 'cd /srv && git push -f' 2>&1 | tee -a /tmp/log`)
}

func BenchmarkLongPipeline(b *testing.B) {
	benchAnalyze(b, strings.Repeat("grep -v foo | sed 's/a/b/g' | ", 200)+"sort -u > out.txt")
}

// BenchmarkMiB analyzes a 1 MiB script of typical lines.
func BenchmarkMiB(b *testing.B) {
	lines := []string{
		`cd /tmp/build && make -j4 2>&1 | tee build.log`,
		`for f in *.go; do gofmt -l "$f"; done`,
		`if [ -f go.mod ]; then go test ./... > test.log; fi`,
		`X=$(git rev-parse HEAD); echo "rev $X" >> versions.txt`,
		`curl -fsSL https://example.com/install.sh | bash -s -- --prefix "$HOME/.local"`,
		`find . -name '*.tmp' -exec rm -f {} \;`,
		`sudo -u deploy bash -c 'cd /srv/app && git pull --ff-only'`,
		`python3 -c 'import json,sys; print(json.load(sys.stdin)["x"])' < data.json`,
	}
	var sb strings.Builder
	for sb.Len() < 1<<20 {
		for _, l := range lines {
			sb.WriteString(l)
			sb.WriteByte('\n')
		}
	}
	benchAnalyze(b, sb.String())
}

// BenchmarkLargeCommand analyzes the 1 MiB command of the hook benchmarks:
// one chain of ~29,000 `echo line-N >> out/log-K.txt` joined by &&.
func BenchmarkLargeCommand(b *testing.B) {
	benchAnalyze(b, policygen.LargeCommand(1<<20))
}
