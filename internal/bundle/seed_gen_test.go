package bundle

import (
	"crypto/ed25519"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestWriteFuzzSeeds writes the committed corpus of FuzzVerify when
// TOOLGUARD_WRITE_SEEDS=1: a bundle signed by the fuzz key, and that
// bundle with one byte flipped.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("TOOLGUARD_WRITE_SEEDS") != "1" {
		t.Skip("set TOOLGUARD_WRITE_SEEDS=1 to rewrite testdata/fuzz/FuzzVerify")
	}
	raw, err := Sign(body(), ed25519.NewKeyFromSeed(fuzzSeed))
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)/2] ^= 1
	dir := filepath.Join("testdata", "fuzz", "FuzzVerify")
	for name, data := range map[string][]byte{"signed": raw, "flipped": flipped} {
		text := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
