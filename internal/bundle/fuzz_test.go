package bundle

import (
	"crypto/ed25519"
	"testing"
)

// fuzzSeed is a fixed key: the committed corpus holds bundles it signed.
var fuzzSeed = []byte("toolguard bundle fuzz seed 32 b!")

// FuzzVerify: no input panics Verify, and what verifies re-verifies with
// the same hash and loads its layers as sources.
func FuzzVerify(f *testing.F) {
	k := ed25519.NewKeyFromSeed(fuzzSeed)
	raw, err := Sign(body(), k)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Add([]byte(`{"toolguard_bundle":1,"key":"ed25519:AAAA","body":"e30=","sig":""}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(``))
	pinned := k.Public().(ed25519.PublicKey)
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := Verify(data, pinned)
		if err != nil {
			if b != nil {
				t.Fatal("a bundle with an error")
			}
			return
		}
		if b.Hash != Hash(data) {
			t.Fatal("hash is not of the bytes")
		}
		_ = b.Sources()
	})
}
