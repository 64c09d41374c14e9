package bundle

import (
	"bytes"
	"crypto/ed25519"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var (
	t0      = time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	key     = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{3}, ed25519.SeedSize))
	pub     = key.Public().(ed25519.PublicKey)
	other   = ed25519.NewKeyFromSeed(bytes.Repeat([]byte{4}, ed25519.SeedSize))
	policy1 = "version = 1\n[[rule]]\nid = \"no-push\"\ndecision = \"deny\"\ncommand = \"git push\"\n"
)

func mustSign(t *testing.T, text string, k ed25519.PrivateKey) Bundle {
	t.Helper()
	b, err := Sign("policy.toml", text, k, t0)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestVerify(t *testing.T) {
	b := mustSign(t, policy1, key)
	got, err := Verify(b.Encode(), []ed25519.PublicKey{pub})
	if err != nil || got.Policy != policy1 || got.ETag() != `"sha256:`+b.Hash+`"` || len(b.Hash) != 64 {
		t.Fatalf("Verify = %+v, %v", got, err)
	}
	// The same text, the same hash (the ETag is the content's).
	if again := mustSign(t, policy1, key); again.Hash != b.Hash {
		t.Error("the hash depends on more than the content")
	}
	tamper := func(f func(*Bundle)) []byte {
		c := b
		f(&c)
		return c.Encode()
	}
	for _, tc := range []struct {
		name string
		data []byte
		keys []ed25519.PublicKey
		want string
	}{
		{"text changed", tamper(func(c *Bundle) { c.Policy = strings.Replace(c.Policy, "deny", "allow", 1) }), []ed25519.PublicKey{pub}, "tampered"},
		{"name changed", tamper(func(c *Bundle) { c.Name = "policy.json" }), []ed25519.PublicKey{pub}, "tampered"},
		{"text and hash changed", tamper(func(c *Bundle) {
			c.Policy = strings.Replace(c.Policy, "deny", "allow", 1)
			c.Hash = hashOf(c.Name, c.Policy)
		}), []ed25519.PublicKey{pub}, "not signed by a pinned key"},
		{"another key", mustSign(t, policy1, other).Encode(), []ed25519.PublicKey{pub}, "not signed by a pinned key"},
		{"no pinned key", b.Encode(), nil, "no pinned key"},
		{"no signature", tamper(func(c *Bundle) { c.Signature = "" }), []ed25519.PublicKey{pub}, "no signature"},
		{"version", tamper(func(c *Bundle) { c.Version = "toolguard-bundle/0" }), []ed25519.PublicKey{pub}, "version"},
		{"trailing", append(b.Encode(), []byte("{}")...), []ed25519.PublicKey{pub}, "data after"},
		{"unknown field", []byte(strings.Replace(string(b.Encode()), `{"version"`, `{"allow_all":true,"version"`, 1)), []ed25519.PublicKey{pub}, "unknown field"},
		{"not json", []byte("version = 1"), []ed25519.PublicKey{pub}, "not a bundle"},
	} {
		if _, err := Verify(tc.data, tc.keys); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	// Another pinned key beside the signer's is fine.
	if _, err := Verify(b.Encode(), []ed25519.PublicKey{other.Public().(ed25519.PublicKey), pub}); err != nil {
		t.Errorf("two pinned keys: %v", err)
	}
}

// TestNode: none -> deny; a good bundle is cached; a tampered one is
// refused and the last good one stays; a tampered cache is no bundle.
func TestNode(t *testing.T) {
	n := &Node{Pinned: []ed25519.PublicKey{pub}, Cache: filepath.Join(t.TempDir(), "bundle", "policy.bundle")}
	if _, err := n.Current(); !errors.Is(err, ErrNoBundle) {
		t.Fatalf("Current with nothing cached: %v", err)
	}
	good := mustSign(t, policy1, key)
	serve := func(b []byte) Fetch {
		return func(etag string) ([]byte, bool, error) {
			if etag == `"sha256:`+hashOf("policy.toml", policy1)+`"` && bytes.Equal(b, good.Encode()) {
				return nil, true, nil
			}
			return b, false, nil
		}
	}
	// The server down and nothing cached: deny.
	if _, err := n.Refresh(func(string) ([]byte, bool, error) { return nil, false, errors.New("connection refused") }); !errors.Is(err, ErrNoBundle) {
		t.Fatalf("Refresh with the server down and no cache: %v", err)
	}
	// A tampered bundle and nothing cached: deny.
	bad := good
	bad.Policy = strings.Replace(bad.Policy, "deny", "allow", 1)
	if _, err := n.Refresh(serve(bad.Encode())); !errors.Is(err, ErrNoBundle) || !strings.Contains(err.Error(), "tampered") {
		t.Fatalf("Refresh of a tampered bundle, nothing cached: %v", err)
	}
	b, err := n.Refresh(serve(good.Encode()))
	if err != nil || b.Hash != good.Hash {
		t.Fatalf("Refresh = %+v, %v", b, err)
	}
	if fi, err := os.Stat(n.Cache); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache: %v %v", fi, err)
	}
	// Not modified: the cached one.
	if b, err := n.Refresh(serve(good.Encode())); err != nil || b.Hash != good.Hash {
		t.Fatalf("not modified: %+v, %v", b, err)
	}
	// Tampered: refused, the last good one answers, and stays cached.
	b, err = n.Refresh(serve(bad.Encode()))
	if err == nil || !strings.Contains(err.Error(), "tampered") || b.Hash != good.Hash {
		t.Fatalf("tampered refresh = %+v, %v", b, err)
	}
	if cur, err := n.Current(); err != nil || cur.Policy != policy1 {
		t.Fatalf("the cache after a refused bundle: %+v, %v", cur, err)
	}
	// Signed by another key: refused the same way.
	if b, err := n.Refresh(serve(mustSign(t, "version = 1\n", other).Encode())); err == nil || b.Hash != good.Hash {
		t.Fatalf("foreign refresh = %+v, %v", b, err)
	}
	// A newer good bundle replaces it.
	newer := mustSign(t, policy1+"# v2\n", key)
	if b, err := n.Refresh(serve(newer.Encode())); err != nil || b.Hash != newer.Hash {
		t.Fatalf("newer = %+v, %v", b, err)
	}
	// The cache edited on disk: no bundle (deny), not the edited policy.
	data, _ := os.ReadFile(n.Cache)
	os.WriteFile(n.Cache, bytes.Replace(data, []byte("deny"), []byte("allow"), 1), 0o600)
	if _, err := n.Current(); !errors.Is(err, ErrNoBundle) || !strings.Contains(err.Error(), "tampered") {
		t.Fatalf("tampered cache: %v", err)
	}
}
