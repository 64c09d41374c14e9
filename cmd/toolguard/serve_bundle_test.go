package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/bundle"
)

var bundleLine = regexp.MustCompile(`policy bundle ([0-9a-f]{64}) \(1 layers\) at GET /v1/policy/bundle; nodes pin settings.policy_pubkey = "(ed25519:[A-Za-z0-9+/=]+)"`)

// TestServeBundle: `serve --bundle-key` creates the key (0600), signs the
// policy it runs, serves it with its hash as ETag (304 to If-None-Match),
// and a node pinned to the printed key denies what the server's policy
// denies, through the real hook, over TCP.
func TestServeBundle(t *testing.T) {
	e := newServeEnv(t)
	if err := os.MkdirAll(filepath.Join(e.home, "etc", "toolguard"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.home, "etc", "toolguard", "policy.toml"), []byte(fleetLayer), 0o644); err != nil {
		t.Fatal(err)
	}
	keyPath := filepath.Join(e.home, "keys", "bundle.key")
	s := e.start(t, "--bundle-key", keyPath)
	if fi, err := os.Stat(keyPath); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("bundle key %v %v, want a 0600 file", fi, err)
	}
	m := bundleLine.FindStringSubmatch(s.stderr.String())
	if m == nil {
		t.Fatalf("no bundle line:\n%s", s.stderr)
	}
	hash, pubText := m[1], m[2]
	pub, err := approval.ParsePublic(pubText)
	if err != nil {
		t.Fatal(err)
	}

	req, _ := http.NewRequest("GET", s.base+"/v1/policy/bundle", nil)
	req.Header.Set("Authorization", "Bearer "+s.hook)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("ETag") != bundle.ETag(hash) {
		t.Fatalf("GET: %d, ETag %q, want 200 and %q", res.StatusCode, res.Header.Get("ETag"), bundle.ETag(hash))
	}
	b, err := bundle.Verify(raw, pub)
	if err != nil || b.Hash != hash || len(b.Layers) != 1 || b.Layers[0].Data != fleetLayer {
		t.Fatalf("served bundle: %v %+v", err, b)
	}
	req.Header.Set("If-None-Match", bundle.ETag(hash))
	if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != 304 {
		t.Fatalf("conditional GET: %v %v, want 304", res, err)
	}
	if code, _ := s.call(t, "GET", "/v1/policy/bundle", "", ""); code != 401 {
		t.Fatalf("no token: %d, want 401", code)
	}

	for _, agent := range []string{"claude-code", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			n := newTrustEnv(t)
			tok := n.write(filepath.Join(n.home, "run", "hook.token"), s.hook+"\n")
			n.write(filepath.Join(n.home, "etc", "toolguard", "policy.toml"), fmt.Sprintf(`version = 1
[settings]
approval_url = %q
approval_token_file = %q
policy_pubkey = %q
`, s.base, tok, pubText))
			r := n.hook(agent, n.project, "terraform destroy")
			wantDecision(t, "terraform", r, "deny")
			if !strings.Contains(r.stdout, "fleet: terraform runs in CI only") {
				t.Errorf("reply: %s", r.stdout)
			}
			wantDecision(t, "echo terraform", n.hook(agent, n.project, "echo terraform"), "")
			// The second call asked conditionally and kept the same bundle.
			if got, _ := os.ReadFile(bundleCache(n)); bundle.Hash(got) != hash {
				t.Errorf("cached bundle %s, want %s", bundle.Hash(got), hash)
			}
		})
	}
}
