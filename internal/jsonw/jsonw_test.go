package jsonw

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// encoderString is what AppendString (html: AppendStringHTML) writes, by
// encoding/json.
func encoderString(s string, html ...bool) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(len(html) > 0 && html[0])
	_ = enc.Encode(s)
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestAppendStringAsEncoder(t *testing.T) {
	for _, s := range []string{"", "plain", `q"uo\te`, "<a&b>", "tab\tnl\ncr\rbs\bff\f", "\x00\x01\x1f\x7f",
		"bad \xff\xfe utf8 \xc3", "sep \u2028 \u2029 end", "ünïcödé ✓ 𝄞", "\xed\xa0\x80 surrogate",
		"\xf4\x90\x80\x80 past U+10FFFF", "\uFFFD literal", strings.Repeat("x\"", 2000)} {
		got := AppendString([]byte("prefix:"), s)
		want := append([]byte("prefix:"), encoderString(s)...)
		if !bytes.Equal(got, want) {
			t.Errorf("%q:\n got %s\nwant %s", s, got, want)
		}
		if got, want := AppendStringHTML(nil, s), encoderString(s, true); !bytes.Equal(got, want) {
			t.Errorf("%q (HTML):\n got %s\nwant %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("deny <x> & \"y\" \u2028 \xff")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := AppendString(nil, s), encoderString(s); !bytes.Equal(got, want) {
			t.Fatalf("%q:\n got %s\nwant %s", s, got, want)
		}
		if got, want := AppendStringHTML(nil, s), encoderString(s, true); !bytes.Equal(got, want) {
			t.Fatalf("%q (HTML):\n got %s\nwant %s", s, got, want)
		}
	})
}
