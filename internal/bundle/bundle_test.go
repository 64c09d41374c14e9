package bundle

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/policy"
)

func key(t testing.TB) ed25519.PrivateKey {
	t.Helper()
	_, k, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func body() Body {
	return Body{Created: time.Date(2026, 12, 4, 17, 0, 0, 0, time.UTC), Server: "srv-1", Layers: []Layer{
		{Name: "system", Path: "/etc/toolguard/policy.toml", Data: "version = 1\n[[rule]]\nid = \"no-curl\"\ndecision = \"deny\"\ncommand = \"curl\"\njustification = \"fleet: no curl\"\n"},
	}}
}

func pub(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

func TestSignVerify(t *testing.T) {
	k := key(t)
	raw, err := Sign(body(), k)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Verify(raw, pub(k))
	if err != nil {
		t.Fatal(err)
	}
	if b.Hash != Hash(raw) || len(b.Hash) != 64 || b.Server != "srv-1" || len(b.Layers) != 1 || b.Layers[0].Data != body().Layers[0].Data {
		t.Fatalf("verified bundle = %+v", b.Body)
	}
	if got := ETag(b.Hash); got != `"`+b.Hash+`"` {
		t.Fatalf("ETag = %s", got)
	}
	// Signing again (same body, same key) gives the same bytes: ed25519
	// is deterministic, so the ETag is stable for an unchanged policy.
	raw2, _ := Sign(body(), k)
	if !bytes.Equal(raw, raw2) {
		t.Fatal("two signatures of one body differ")
	}
	// The layers load through the normal road, untrusted.
	srcs := b.Sources()
	if len(srcs) != 1 || !srcs[0].Untrusted || srcs[0].Layer != "bundle" || !strings.HasPrefix(srcs[0].Path, "bundle:"+b.Hash[:12]+"/") {
		t.Fatalf("Sources = %+v", srcs)
	}
	if _, err := policy.Load(srcs, policy.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
}

// Every way a bundle can be wrong is refused with an error naming it.
func TestVerifyRefuses(t *testing.T) {
	k, other := key(t), key(t)
	raw, err := Sign(body(), k)
	if err != nil {
		t.Fatal(err)
	}
	var env envelope
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	reenvelope := func(f func(*envelope)) []byte {
		e := env
		f(&e)
		out, _ := json.Marshal(e)
		return out
	}
	// A body changed under the same signature.
	bodyBytes, _ := base64.StdEncoding.DecodeString(env.Body)
	altered := bytes.Replace(bodyBytes, []byte(`\"deny\"`), []byte(`\"allow\"`), 1)
	if bytes.Equal(altered, bodyBytes) {
		t.Fatal("test setup: nothing altered")
	}
	otherSigned, _ := Sign(body(), other)
	badBody := func(b Body) []byte {
		bb, _ := json.Marshal(b)
		return reenvelope(func(e *envelope) {
			e.Body = base64.StdEncoding.EncodeToString(bb)
			e.Sig = base64.StdEncoding.EncodeToString(ed25519.Sign(k, signed(bb)))
		})
	}
	noCreated := body()
	noCreated.Created = time.Time{}
	materialized := body()
	materialized.Layers = []Layer{{Name: "m", Path: "/etc/toolguard/policy.json", Data: `{"version":1,"materialized":{"hash":"x"}}`}}
	tests := []struct {
		name string
		raw  []byte
		want string
	}{
		{"empty", nil, "envelope: empty"},
		{"not JSON", []byte("{\"toolguard_bundle\": 1,,}"), "envelope: byte 24"},
		{"trailing data", append(bytes.Clone(raw), []byte("{}")...), "data after the object"},
		{"unknown field", reenvelopeExtra(t, raw), "unknown field"},
		{"version", reenvelope(func(e *envelope) { e.Version = 2 }), "toolguard_bundle = 2, want 1"},
		{"wrong key", otherSigned, "not by the pinned key"},
		{"key swapped to pinned, other's signature", reenvelope(func(e *envelope) {
			var o envelope
			_ = json.Unmarshal(otherSigned, &o)
			e.Sig = o.Sig
		}), "does not verify"},
		{"body altered", reenvelope(func(e *envelope) { e.Body = base64.StdEncoding.EncodeToString(altered) }), "does not verify"},
		{"body not base64", reenvelope(func(e *envelope) { e.Body = "%%%" }), "body: not base64"},
		{"sig short", reenvelope(func(e *envelope) { e.Sig = "AAAA" }), "sig: want the base64 of 64 bytes"},
		{"key not a key", reenvelope(func(e *envelope) { e.Key = "rsa:xyz" }), "envelope: key"},
		{"signed body without created", badBody(noCreated), "created: missing"},
		{"materialized layer", badBody(materialized), "materialized policy cannot be a bundle layer"},
		{"oversized", bytes.Repeat([]byte(" "), MaxSize+1), "larger than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Verify(tt.raw, pub(k))
			if err == nil || b != nil {
				t.Fatalf("Verify accepted it: %+v", b)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q does not say %q", err, tt.want)
			}
			var be *Error
			if !errors.As(err, &be) || (len(tt.raw) > 0 && be.Hash != Hash(tt.raw)) {
				t.Fatalf("error %v is not a *Error naming the bundle's hash", err)
			}
		})
	}
	// One flipped byte anywhere in the body's base64 is refused.
	i := bytes.Index(raw, []byte(env.Body)) + len(env.Body)/2
	flipped := bytes.Clone(raw)
	flipped[i] ^= 0x01
	if _, err := Verify(flipped, pub(k)); err == nil {
		t.Fatal("a flipped byte verified")
	}
	if _, err := Verify(raw, nil); err == nil {
		t.Fatal("verified without a pinned key")
	}
}

func reenvelopeExtra(t *testing.T, raw []byte) []byte {
	t.Helper()
	return append([]byte(`{"extra":1,`), raw[1:]...)
}

func TestSignRefusesBadBody(t *testing.T) {
	b := body()
	b.Layers[0].Name = ""
	if _, err := Sign(b, key(t)); err == nil || !strings.Contains(err.Error(), "layers[0].name") {
		t.Fatalf("Sign = %v", err)
	}
}
