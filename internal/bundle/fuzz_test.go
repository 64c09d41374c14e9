package bundle

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/toolguard/toolguard/internal/approval"
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

// FuzzBody reaches past the signature: any body bytes, signed with the
// pinned key, are checked without a panic, and what verifies loads its
// layers as untrusted sources.
func FuzzBody(f *testing.F) {
	k := ed25519.NewKeyFromSeed(fuzzSeed)
	good, _ := json.Marshal(body())
	f.Add(good)
	f.Add([]byte(`{"created":"2026-12-04T17:00:00Z","layers":[{"name":"m","path":"x.json","data":"{\"materialized\":{}}"}]}`))
	f.Add([]byte(`{"created":"2026-12-04T17:00:00Z","layers":null}`))
	f.Add([]byte(`{"created":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		env, _ := json.Marshal(envelope{Version: Version, Key: approval.PublicText(k.Public().(ed25519.PublicKey)),
			Body: base64.StdEncoding.EncodeToString(b), Sig: base64.StdEncoding.EncodeToString(ed25519.Sign(k, signed(b)))})
		got, err := Verify(env, k.Public().(ed25519.PublicKey))
		if err != nil {
			return
		}
		for _, s := range got.Sources() {
			if !s.Untrusted {
				t.Fatal("a bundle layer that is trusted")
			}
		}
	})
}
