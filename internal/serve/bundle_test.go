package serve

import (
	"bytes"
	"crypto/ed25519"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/bundle"
)

// TestPolicyBundle: a node fetches the bundle with its token, verifies it
// against its pinned key and caches it; the ETag gives 304; a bundle
// swapped on the way (a tampering proxy) is refused and the node keeps
// the last good one; without a token, 401.
func TestPolicyBundle(t *testing.T) {
	key := ed25519.NewKeyFromSeed(bytes.Repeat([]byte{5}, ed25519.SeedSize))
	b, err := bundle.Sign("policy.toml", "version = 1\n", key, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	f := hookFixture(t, nil)
	f.srv.Close()
	cfg := f.srv.cfg
	cfg.Bundle = &b
	f.srv = New(cfg)
	t.Cleanup(f.srv.Close)
	ts := httptest.NewServer(f.srv)
	defer ts.Close()

	tamper, url := false, ts.URL
	fetch := func(etag string) ([]byte, bool, error) {
		req, _ := http.NewRequest("GET", url+"/v1/policy/bundle", nil)
		req.Header.Set("Authorization", "Bearer "+nodeTok)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, false, err
		}
		defer res.Body.Close()
		data, _ := io.ReadAll(res.Body)
		if res.StatusCode == http.StatusNotModified {
			return nil, true, nil
		}
		if res.StatusCode != 200 || res.Header.Get("ETag") != b.ETag() {
			t.Fatalf("GET bundle: %d %v %s", res.StatusCode, res.Header, data)
		}
		if tamper {
			data = bytes.Replace(data, []byte("version = 1"), []byte("version = 2"), 1)
		}
		return data, false, nil
	}
	n := &bundle.Node{Pinned: []ed25519.PublicKey{key.Public().(ed25519.PublicKey)}, Cache: filepath.Join(t.TempDir(), "bundle")}
	got, err := n.Refresh(fetch)
	if err != nil || got.Hash != b.Hash {
		t.Fatalf("first fetch: %+v %v", got, err)
	}
	if _, nm, _ := fetch(got.ETag()); !nm {
		t.Error("the ETag did not give 304")
	}
	// The server now answers a different bundle body, changed on the way:
	// the node refuses it and keeps its last good one.
	b2, _ := bundle.Sign("policy.toml", "version = 1\n# v2\n", key, time.Now())
	cfg.Bundle = &b2
	srv2 := New(cfg)
	t.Cleanup(srv2.Close)
	ts2 := httptest.NewServer(srv2)
	defer ts2.Close()
	tamper, url = true, ts2.URL
	b.Hash = b2.Hash // the test's ETag check follows the server's bundle
	got, err = n.Refresh(fetch)
	if err == nil || !strings.Contains(err.Error(), "tampered") || got.Policy != "version = 1\n" {
		t.Fatalf("tampered fetch: %+v %v", got, err)
	}
	for _, auth := range []string{"", "Bearer " + approverTok, "Bearer nope-nope-nope-nope"} {
		req := httptest.NewRequest("GET", "/v1/policy/bundle", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		w := httptest.NewRecorder()
		f.srv.ServeHTTP(w, req)
		if w.Code != 401 || strings.Contains(w.Body.String(), "policy") {
			t.Errorf("auth %q: %d %s", auth, w.Code, w.Body)
		}
	}
}
