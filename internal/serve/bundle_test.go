package serve

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/bundle"
	"github.com/toolguard/toolguard/internal/remote"
)

func signedBundle(t *testing.T) ([]byte, ed25519.PublicKey) {
	t.Helper()
	pub, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := bundle.Sign(bundle.Body{Created: time.Now(), Server: "t", Layers: []bundle.Layer{{Name: "system", Data: "version = 1\n"}}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return raw, pub
}

func TestBundleEndpoint(t *testing.T) {
	f := newFixture(t)
	if w := f.do(t, "GET", "/v1/policy/bundle", hookTok, ""); w.Code != http.StatusNotFound {
		t.Fatalf("no bundle configured: status %d, want 404", w.Code)
	}
	raw, pub := signedBundle(t)
	f.srv.cfg.Bundle = raw
	etag := bundle.ETag(bundle.Hash(raw))
	tests := []struct {
		name, token, ifNoneMatch string
		status                   int
	}{
		{"hook role reads it", hookTok, "", 200},
		{"approver too", approverTok, "", 200},
		{"no token", "", "", 401},
		{"unknown token", "nope-nope-nope", "", 401},
		{"current tag", hookTok, etag, 304},
		{"weak form of the tag", hookTok, "W/" + etag, 304},
		{"among others", hookTok, `"abc", ` + etag, 304},
		{"an old tag", hookTok, `"` + strings.Repeat("0", 64) + `"`, 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hdr []string
			if tt.ifNoneMatch != "" {
				hdr = []string{"If-None-Match", tt.ifNoneMatch}
			}
			w := f.do(t, "GET", "/v1/policy/bundle", tt.token, "", hdr...)
			if w.Code != tt.status {
				t.Fatalf("status %d, want %d (%s)", w.Code, tt.status, w.Body)
			}
			if tt.status/100 == 4 {
				return
			}
			if got := w.Header().Get("ETag"); got != etag {
				t.Fatalf("ETag %q, want %q", got, etag)
			}
			if tt.status == 304 && w.Body.Len() != 0 {
				t.Fatal("a 304 with a body")
			}
			if tt.status == 200 {
				if _, err := bundle.Verify(w.Body.Bytes(), pub); err != nil {
					t.Fatalf("the served bundle does not verify: %v", err)
				}
			}
		})
	}
	if w := f.do(t, "POST", "/v1/policy/bundle", hookTok, "{}"); w.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: status %d, want 405", w.Code)
	}
}

// The hook's client over a real loopback listener: the bundle, then 304
// for the tag it has (net/http sends a 304 without Content-Length).
func TestBundleClient(t *testing.T) {
	f := newFixture(t)
	raw, _ := signedBundle(t)
	f.srv.cfg.Bundle = raw
	hs := httptest.NewServer(f.srv)
	defer hs.Close()
	c, err := remote.New(hs.URL, hookTok)
	if err != nil {
		t.Fatal(err)
	}
	got, notModified, err := c.Bundle(context.Background(), "")
	if err != nil || notModified || string(got) != string(raw) {
		t.Fatalf("Bundle = %d bytes, %v, %v", len(got), notModified, err)
	}
	got, notModified, err = c.Bundle(context.Background(), bundle.ETag(bundle.Hash(raw)))
	if err != nil || !notModified || got != nil {
		t.Fatalf("conditional Bundle = %q, %v, %v", got, notModified, err)
	}
	bad, _ := remote.New(hs.URL, "wrong-token-xxxxxxxx")
	if _, _, err := bad.Bundle(context.Background(), ""); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong token: %v", err)
	}
}
