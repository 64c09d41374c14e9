package main

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/bundle"
	"github.com/toolguard/toolguard/internal/serve"
)

// The managed policy bundle through the real hook path (docs/bundles.md):
// a node whose platform (system) layer pins the bundle key fetches the
// bundle from serve, verifies it, keeps the last good one, and lays it
// over its own layers, tighten-only.

// bundleServer is serve on a Unix socket whose bundle the test changes.
type bundleServer struct {
	sock string
	key  ed25519.PrivateKey
	h    atomic.Pointer[http.Handler]
	hs   *http.Server
}

func newBundleServer(t *testing.T) *bundleServer {
	t.Helper()
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	b := &bundleServer{sock: remoteSocket(t), key: key}
	ln, err := net.Listen("unix", b.sock)
	if err != nil {
		t.Fatal(err)
	}
	b.hs = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*b.h.Load()).ServeHTTP(w, r) })}
	go b.hs.Serve(ln)
	t.Cleanup(func() { b.hs.Close() })
	b.publish(t, nil)
	return b
}

// publish makes the server answer with raw as its bundle.
func (b *bundleServer) publish(t *testing.T, raw []byte) {
	t.Helper()
	st, err := approval.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := serve.New(serve.Config{Store: st, Signer: approval.Signer{Key: b.key, User: "fleet"},
		Tokens: map[string]serve.Role{remoteHookTok: serve.RoleHook}, Bundle: raw})
	t.Cleanup(srv.Close)
	var h http.Handler = srv
	b.h.Store(&h)
}

func (b *bundleServer) pub() string { return approval.PublicText(b.key.Public().(ed25519.PublicKey)) }

// sign signs layers (TOML texts) with key.
func signLayers(t *testing.T, key ed25519.PrivateKey, layers ...string) []byte {
	t.Helper()
	body := bundle.Body{Created: time.Now(), Server: "fleet-1"}
	for i, l := range layers {
		body.Layers = append(body.Layers, bundle.Layer{Name: fmt.Sprintf("l%d", i), Path: "/etc/toolguard/policy.toml", Data: l})
	}
	raw, err := bundle.Sign(body, key)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// tamper flips one byte in the middle of the signed body.
func tamper(t *testing.T, raw []byte) []byte {
	t.Helper()
	var env struct {
		Body string `json:"body"`
	}
	if err := json.Unmarshal(raw, &env); err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(raw, []byte(env.Body))
	out := bytes.Clone(raw)
	// A base64 letter for another: the body still decodes.
	j := i + len(env.Body)/2
	if out[j] == 'A' {
		out[j] = 'B'
	} else {
		out[j] = 'A'
	}
	if _, err := base64.StdEncoding.DecodeString(string(out[i : i+len(env.Body)])); err != nil {
		t.Fatalf("tampered body no longer base64: %v", err)
	}
	return out
}

// nodePolicy is the node's platform layer: the server, the hook token,
// the pinned key, and the node's own deny of wget.
func nodePolicy(e *trustEnv, sock, pinned string) {
	tok := e.write(filepath.Join(e.home, "run", "hook.token"), remoteHookTok+"\n")
	e.write(filepath.Join(e.home, "etc", "toolguard", "policy.toml"), fmt.Sprintf(`version = 1
[settings]
approval_url = %q
approval_token_file = %q
policy_pubkey = %q

[[rule]]
id = "node-no-wget"
decision = "deny"
command = "wget"
justification = "node: no wget"
`, "unix://"+sock, tok, pinned))
}

const fleetLayer = `version = 1
[[rule]]
id = "fleet-no-terraform"
decision = "deny"
command = "terraform"
justification = "fleet: terraform runs in CI only"
`

// A bundle that tries to loosen: allow what the node denies (by its own
// id and by a new one), disable the node's rule, default allow, and allow
// what the defaults deny.
const looseLayer = `version = 1
[settings]
default = "allow"
disable = ["node-no-wget", "git-push-force"]
approval_url = "http://127.0.0.1:1"

[[rule]]
id = "node-no-wget"
decision = "allow"
command = "wget"

[[rule]]
id = "fleet-wget-ok"
decision = "allow"
command = "wget"
priority = 1000

[[rule]]
id = "fleet-push-ok"
decision = "allow"
command = "git"
args = ["push"]
priority = 1000
` + `
[[rule]]
id = "fleet-no-terraform"
decision = "deny"
command = "terraform"
justification = "fleet: terraform runs in CI only"
`

func bundleCache(e *trustEnv) string {
	return filepath.Join(e.home, ".local", "state", "toolguard", "bundle", "last-good.json")
}

func auditLines(t *testing.T, e *trustEnv) []audit.Record {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(e.home, ".local", "state", "toolguard", "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []audit.Record
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		var r audit.Record
		if err := json.Unmarshal(line, &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

func TestBundleHook(t *testing.T) {
	for _, agent := range []string{"claude-code", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			srv := newBundleServer(t)
			nodePolicy(e, srv.sock, srv.pub())
			good := signLayers(t, srv.key, fleetLayer)
			srv.publish(t, good)

			// A good bundle: its deny applies; look-alikes pass.
			r := e.hook(agent, e.project, "terraform destroy -auto-approve")
			wantDecision(t, "good bundle: terraform", r, "deny")
			if !strings.Contains(r.stdout, "fleet: terraform runs in CI only") {
				t.Errorf("reason does not carry the bundle's rule: %s", r.stdout)
			}
			wantDecision(t, "good bundle: echo terraform", e.hook(agent, e.project, "echo terraform"), "")
			wantDecision(t, "good bundle: ls", e.hook(agent, e.project, "ls -la"), "")
			wantDecision(t, "good bundle: node's own deny", e.hook(agent, e.project, "wget http://example.com/x"), "deny")
			cached, err := os.ReadFile(bundleCache(e))
			if err != nil || !bytes.Equal(cached, good) {
				t.Fatalf("last good bundle not cached (%v)", err)
			}
			recs := auditLines(t, e)
			if last := recs[len(recs)-1]; last.Bundle != bundle.Hash(good) || last.Decision != "deny" {
				t.Errorf("audit line %+v does not name bundle %s", last, bundle.Hash(good))
			}

			// A tampered byte: refused, the last good one kept.
			srv.publish(t, tamper(t, good))
			r = e.hook(agent, e.project, "terraform apply")
			wantDecision(t, "tampered: terraform", r, "deny")
			if !strings.Contains(r.stdout, "fleet: terraform runs in CI only") || !strings.Contains(r.stderr, "does not verify") || !strings.Contains(r.stderr, "refused") {
				t.Errorf("tampered: stdout %s\nstderr %s", r.stdout, r.stderr)
			}
			wantDecision(t, "tampered: ls", e.hook(agent, e.project, "ls"), "")
			if cached, _ := os.ReadFile(bundleCache(e)); !bytes.Equal(cached, good) {
				t.Error("the tampered bundle replaced the last good one")
			}
			refused := false
			for _, rec := range auditLines(t, e) {
				if rec.Event == audit.EventBundle && strings.Contains(rec.Error, "does not verify") && rec.Bundle != "" {
					refused = true
				}
			}
			if !refused {
				t.Error("no policy.bundle audit line for the tampered bundle")
			}

			// Signed by another key: refused, last good kept.
			_, other, _ := ed25519.GenerateKey(rand.Reader)
			srv.publish(t, signLayers(t, other, "version = 1\n"))
			r = e.hook(agent, e.project, "terraform plan")
			wantDecision(t, "wrong key: terraform", r, "deny")
			if !strings.Contains(r.stderr, "not by the pinned key") {
				t.Errorf("wrong key: stderr %s", r.stderr)
			}

			// The server down: the last good one answers.
			srv.hs.Close()
			wantDecision(t, "server down, cached: terraform", e.hook(agent, e.project, "terraform plan"), "deny")
			wantDecision(t, "server down, cached: ls", e.hook(agent, e.project, "ls"), "")

			// A cache altered on disk is refused too: nothing verified, deny.
			if err := os.WriteFile(bundleCache(e), tamper(t, good), 0o600); err != nil {
				t.Fatal(err)
			}
			r = e.hook(agent, e.project, "ls")
			wantDecision(t, "server down, cache tampered: ls", r, "deny")
			if !strings.Contains(r.stdout, "policy bundle") {
				t.Errorf("the deny does not name the bundle: %s", r.stdout)
			}
		})
	}
}

// No cache and no verified bundle: every call is denied, the reason
// naming the bundle's problem.
func TestBundleHookNone(t *testing.T) {
	for _, agent := range []string{"claude-code", "gemini"} {
		for _, tc := range []struct {
			name string
			set  func(t *testing.T, srv *bundleServer)
			why  string
		}{
			{"server down", func(t *testing.T, srv *bundleServer) { srv.hs.Close() }, "policy bundle"},
			{"no bundle published", func(t *testing.T, srv *bundleServer) {}, "status 404"},
			{"tampered", func(t *testing.T, srv *bundleServer) { srv.publish(t, tamper(t, signLayers(t, srv.key, fleetLayer))) }, "does not verify"},
			{"wrong key", func(t *testing.T, srv *bundleServer) {
				_, other, _ := ed25519.GenerateKey(rand.Reader)
				srv.publish(t, signLayers(t, other, fleetLayer))
			}, "not by the pinned key"},
			{"does not load", func(t *testing.T, srv *bundleServer) {
				srv.publish(t, signLayers(t, srv.key, "version = 1\n[[rule]]\nid = 3\n"))
			}, "does not load over this node's policy"},
		} {
			t.Run(agent+"/"+tc.name, func(t *testing.T) {
				e := newTrustEnv(t)
				srv := newBundleServer(t)
				nodePolicy(e, srv.sock, srv.pub())
				tc.set(t, srv)
				for _, cmd := range []string{"ls", "git status"} {
					r := e.hook(agent, e.project, cmd)
					wantDecision(t, cmd, r, "deny")
					if !strings.Contains(r.stdout, "managed policy bundle required") || !strings.Contains(r.stdout, tc.why) {
						t.Errorf("%s: the reason does not name the bundle problem (%q): %s", cmd, tc.why, r.stdout)
					}
				}
				if _, err := os.Stat(bundleCache(e)); err == nil {
					t.Error("a bundle was cached")
				}
			})
		}
	}
}

// A bundle cannot loosen what the node's platform layer (or the
// defaults) deny: its allow rules, disable, default and approval_url are
// left out; its deny still applies.
func TestBundleHookCannotLoosen(t *testing.T) {
	for _, agent := range []string{"claude-code", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			srv := newBundleServer(t)
			nodePolicy(e, srv.sock, srv.pub())
			srv.publish(t, signLayers(t, srv.key, looseLayer))
			for _, c := range []struct{ cmd, want string }{
				{"wget http://example.com/x", "deny"},
				{"git push --force origin main", "deny"},
				{"terraform destroy", "deny"},
				{"ls", ""},
				{"git status", ""},
			} {
				r := e.hook(agent, e.project, c.cmd)
				wantDecision(t, c.cmd, r, c.want)
			}
			// check answers as the hook does: with the bundle.
			if out, _ := e.cli(e.project, "check", "terraform", "destroy"); !strings.Contains(out, "fleet-no-terraform") ||
				strings.Contains(out, "toolguard trust bundle:") || !strings.Contains(out, "managed policy bundle only tightens") {
				t.Errorf("check does not apply the bundle, or says to trust it: %s", out)
			}
			out, _ := e.cli(e.project, "doctor", "--no-probe", "--json")
			var rep struct {
				Policy struct {
					Bundle string `json:"bundle"`
				} `json:"policy"`
			}
			if err := json.Unmarshal([]byte(out[:strings.LastIndex(out, "}")+1]), &rep); err != nil || rep.Policy.Bundle == "" {
				t.Errorf("doctor does not name the bundle (%v): %s", err, out)
			}
		})
	}
}
