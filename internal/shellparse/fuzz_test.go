package shellparse

import (
	"errors"
	"runtime/metrics"
	"testing"
)

// FuzzAnalyze checks that any input analyzes without panicking, returns
// only typed errors, and yields well-formed commands.
func FuzzAnalyze(f *testing.F) {
	for _, d := range dodges {
		f.Add(d.src)
	}
	for _, s := range lookAlikes {
		f.Add(s)
	}
	for _, s := range []string{
		"cd / && rm -rf etc > out", "c=rm; $c -rf /", "echo {a,b}{c,d}", "bash <<EOF\n$(x)\nEOF",
		"python3 -c 'exec(\"exec(\\\"import os\\\")\")'", "env -S '-S -S'", "printf '%s%b' 'a\\c' b | sh",
		"X=1; X+=2; ${X/1/2} ${X:1:9} ${#X}", "a | b |& c", "f() ( g; ); coproc x { y; }",
		"echo $'\\u00e9\\U0001F600\\cA\\0101'", "for ((;;)); do :; done", "select x in a; do b; done",
	} {
		f.Add(s)
	}
	for _, b := range bombs() {
		f.Add(b.src) // values that double: bounded (maxValue, maxValueTotal)
	}
	opts := Options{Cwd: "/w", Home: "/h", MaxBytes: 1 << 14, MaxDepth: 8, MaxNodes: 1 << 14}
	sample := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	f.Fuzz(func(t *testing.T, src string) {
		metrics.Read(sample)
		before := sample[0].Value.Uint64()
		r, err := Analyze(src, opts)
		metrics.Read(sample)
		// Bounded work (maxValue, maxValueTotal, maxScripts): an input of
		// 4 KiB or less allocates at most 64 MB, whatever it describes.
		if alloc := sample[0].Value.Uint64() - before; len(src) <= 4<<10 && alloc > bombLimit {
			t.Errorf("%d bytes in allocated %d bytes, want at most %d", len(src), alloc, bombLimit)
		}
		if err != nil {
			var pe *ParseError
			var le *LimitError
			if !errors.As(err, &pe) && !errors.As(err, &le) {
				t.Fatalf("unexpected error %T: %v", err, err) // *InternalError is a recovered panic
			}
			if r != nil {
				t.Fatal("result with an error")
			}
			return
		}
		for _, c := range r.Commands {
			if c.Dynamic != (c.Name == "") {
				t.Errorf("Dynamic=%v with Name %q", c.Dynamic, c.Name)
			}
			if len(c.Wrappers) > opts.MaxDepth {
				t.Errorf("%d wrappers past MaxDepth", len(c.Wrappers))
			}
		}
	})
}
