package install

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// FuzzDecodeJSON: whatever decodes re-encodes, in its own detected style, to
// the same JSON value; nothing panics.
func FuzzDecodeJSON(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "fixtures", "*.json"))
	for _, s := range seeds {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"a":[1,{"b":"\u00e9<&>"}],"a":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := decodeJSON(data)
		stripComments(data)
		if err != nil || !utf8.Valid(data) {
			return
		}
		out, err := encodeJSON(v, detectStyle(data))
		if err != nil {
			t.Fatal(err)
		}
		w, err := decodeJSON(out)
		if err != nil {
			t.Fatalf("re-encoded value does not parse: %v\n%s", err, out)
		}
		if !equalJSON(v, w) {
			t.Fatalf("value changed:\n%s\n%s", data, out)
		}
	})
}

// FuzzSplitWords: the splitter never panics and recognition is stable.
func FuzzSplitWords(f *testing.F) {
	for _, s := range []string{`"/opt/my tools/toolguard" hook`, `a\ b 'c' "d\"e" ;|&`, `'unterminated`, `"x\`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		splitWords(s)
		IsToolguardCommand(s)
	})
}
