package approval

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var otherSigner = Signer{Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize)), User: "mallory"}

// approvedFile returns a store with one genuine, signed grant of uses uses
// for key "k", and the request.
func approvedFile(t *testing.T, uses int) (*Store, Request) {
	t.Helper()
	s := newStore(t)
	r := mustCreate(t, s, "k", t0)
	a, err := s.Approve(r.ID, time.Hour, uses, t0, testSigner)
	if err != nil {
		t.Fatal(err)
	}
	return s, a
}

// rewrite changes the stored request id with f, as an agent with write
// access to the state directory would.
func rewrite(t *testing.T, s *Store, id string, f func(m map[string]any)) {
	t.Helper()
	data, err := os.ReadFile(s.path(id))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	f(m)
	data, _ = json.Marshal(m)
	if err := os.WriteFile(s.path(id), data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func grantOf(m map[string]any) map[string]any { return m["grant"].(map[string]any) }

// TestForgedGrants: every way of making a grant without the trusted key's
// signature grants nothing, and List reports the request tampered.
func TestForgedGrants(t *testing.T) {
	t.Parallel()
	sigFor := func(sg Signer, id, key string, g Grant) string {
		if err := sg.sign(id, key, &g); err != nil {
			t.Fatal(err)
		}
		return g.Signature
	}
	tests := []struct {
		name    string
		forge   func(t *testing.T, s *Store, r Request)
		problem string
	}{
		{"pending edited to approved with grant fields", func(t *testing.T, s *Store, r Request) {
			p := mustCreate(t, s, "k", t0) // a new pending request (the first is consumed)
			rewrite(t, s, p.ID, func(m map[string]any) {
				m["status"] = "approved"
				m["grant"] = map[string]any{"approved": t0, "expires": t0.Add(time.Hour), "uses": 1, "uses_left": 1,
					"approver":  map[string]any{"key": PublicText(testKeyring[0]), "fingerprint": Fingerprint(testKeyring[0]), "user": "me"},
					"signature": base64.StdEncoding.EncodeToString(make([]byte, 64))}
			})
		}, "does not verify"},
		{"consumed reset to approved", func(t *testing.T, s *Store, r Request) {
			rewrite(t, s, r.ID, func(m map[string]any) {
				m["status"] = "approved"
				grantOf(m)["uses_left"] = 5
			})
		}, "outside the 1 use"},
		{"uses raised", func(t *testing.T, s *Store, r Request) {
			rewrite(t, s, r.ID, func(m map[string]any) {
				m["status"] = "approved"
				grantOf(m)["uses"], grantOf(m)["uses_left"] = 5, 5
			})
		}, "does not verify"},
		{"expiry extended", func(t *testing.T, s *Store, r Request) {
			rewrite(t, s, r.ID, func(m map[string]any) {
				m["status"] = "approved"
				grantOf(m)["uses_left"] = 1
				grantOf(m)["expires"] = t0.Add(48 * time.Hour)
			})
		}, "does not verify"},
		{"grant moved to another key", func(t *testing.T, s *Store, r Request) {
			p := mustCreate(t, s, "other", t0)
			rewrite(t, s, r.ID, func(m map[string]any) {
				m["status"], m["key"] = "approved", "other"
				grantOf(m)["uses_left"] = 1
			})
			_ = p
		}, "does not verify"},
		{"signed by an unknown key", func(t *testing.T, s *Store, r Request) {
			g := *r.Grant
			sig := sigFor(otherSigner, r.ID, r.Key, g)
			rewrite(t, s, r.ID, func(m map[string]any) {
				m["status"] = "approved"
				grantOf(m)["uses_left"] = 1
				grantOf(m)["approver"] = map[string]any{"key": PublicText(otherSigner.Key.Public().(ed25519.PublicKey)),
					"fingerprint": Fingerprint(otherSigner.Key.Public().(ed25519.PublicKey)), "user": "mallory"}
				grantOf(m)["signature"] = sig
			})
		}, "not a trusted approver key"},
		{"unknown key claiming the trusted fingerprint", func(t *testing.T, s *Store, r Request) {
			rewrite(t, s, r.ID, func(m map[string]any) {
				m["status"] = "approved"
				grantOf(m)["uses_left"] = 1
				grantOf(m)["approver"] = map[string]any{"key": PublicText(otherSigner.Key.Public().(ed25519.PublicKey)),
					"fingerprint": Fingerprint(testKeyring[0]), "user": "tester"}
			})
		}, "fingerprint does not match"},
		{"signature removed", func(t *testing.T, s *Store, r Request) {
			rewrite(t, s, r.ID, func(m map[string]any) {
				m["status"] = "approved"
				grantOf(m)["uses_left"] = 1
				delete(grantOf(m), "signature")
			})
		}, "not signed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, r := approvedFile(t, 1)
			mustCheck(t, s, "k", t0.Add(time.Second), Granted, r.ID) // the genuine use
			tc.forge(t, s, r)
			for _, key := range []string{"k", "other"} {
				out, err := s.Check(context.Background(), key, t0.Add(2*time.Second))
				if err != nil {
					t.Fatal(err)
				}
				if out.Kind == Granted {
					t.Fatalf("forged grant allowed %s: %+v", key, out)
				}
			}
			list, err := s.List(t0.Add(2 * time.Second))
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, l := range list {
				if l.Status == StatusTampered {
					found = true
					if !strings.Contains(l.Problem, tc.problem) {
						t.Errorf("problem %q, want it to mention %q", l.Problem, tc.problem)
					}
				}
			}
			if !found {
				t.Errorf("List reports nothing tampered: %+v", list)
			}
		})
	}
}

// TestNoTrustedKey: a store that trusts no key honours no grant.
func TestNoTrustedKey(t *testing.T) {
	t.Parallel()
	s, r := approvedFile(t, 3)
	s.Trust(nil)
	mustCheck(t, s, "k", t0.Add(time.Second), None, "")
	got, err := s.Get(r.ID)
	if err != nil || !strings.Contains(got.Problem, "no trusted approver key") {
		t.Errorf("Get = %+v, %v", got, err)
	}
	s.Trust(Keyring{otherSigner.Key.Public().(ed25519.PublicKey)})
	mustCheck(t, s, "k", t0.Add(time.Second), None, "")
	s.Trust(testKeyring)
	mustCheck(t, s, "k", t0.Add(time.Second), Granted, r.ID)
}

// TestApproveNeedsKey: no signer, no grant.
func TestApproveNeedsKey(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	r := mustCreate(t, s, "k", t0)
	if _, err := s.Approve(r.ID, time.Hour, 1, t0, Signer{}); err == nil {
		t.Fatal("Approve without a key: no error")
	}
	if got, _ := s.Get(r.ID); got.Status != StatusPending {
		t.Errorf("status %s after a failed approve", got.Status)
	}
}

// TestCheckAfterDeadline: once the caller's deadline is done, Check
// consumes nothing (issue 23 item 5).
func TestCheckAfterDeadline(t *testing.T) {
	t.Parallel()
	s, r := approvedFile(t, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if out, err := s.Check(ctx, "k", t0.Add(time.Second)); err == nil || out.Kind == Granted || !errors.Is(err, context.Canceled) {
		t.Fatalf("Check after cancel = %+v, %v", out, err)
	}
	// Cancelled between the decision and the rename: writeCtx gives up.
	got, _ := s.Get(r.ID)
	if err := s.be.(*fileBackend).writeCtx(ctx, got); err == nil {
		t.Fatal("writeCtx after cancel: no error")
	}
	if got, _ := s.Get(r.ID); got.Grant.UsesLeft != 3 {
		t.Errorf("uses left %d, want 3", got.Grant.UsesLeft)
	}
	entries, _ := os.ReadDir(filepath.Join(s.Dir(), "requests"))
	if len(entries) != 1 {
		t.Errorf("requests/ holds %v: a temporary file was left", entries)
	}
	mustCheck(t, s, "k", t0.Add(time.Second), Granted, r.ID)
}

// TestPruneStale: temporary files and unusable request files go a day
// after they were last modified; List reports them until then.
func TestPruneStale(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	good := mustCreate(t, s, "k", t0)
	dir := filepath.Join(s.Dir(), "requests")
	now := time.Now()
	files := map[string]time.Time{
		".tmp-old":            now.Add(-25 * time.Hour),
		".tmp-recent":         now.Add(-time.Hour),
		".tmp-inflight":       now,
		"req_garbageold.json": now.Add(-25 * time.Hour),
		"req_garbagenew.json": now.Add(-time.Hour),
	}
	for name, mod := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("{trunc"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	list, err := s.List(now)
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]Status{}
	for _, r := range list {
		status[r.ID] = r.Status
	}
	want := map[string]Status{good.ID: StatusPending, ".tmp-old": StatusLeftover, ".tmp-recent": StatusLeftover,
		"req_garbageold": StatusTampered, "req_garbagenew": StatusTampered}
	if len(status) != len(want) {
		t.Errorf("List = %v, want %v", status, want)
	}
	for id, st := range want {
		if status[id] != st {
			t.Errorf("List: %s is %q, want %q", id, status[id], st)
		}
	}
	n, err := s.Prune(now.Add(-time.Hour), now)
	if err != nil || n != (Pruned{Damaged: 1, Temp: 1}) {
		t.Fatalf("Prune = %+v, %v", n, err)
	}
	for name := range files {
		_, err := os.Lstat(filepath.Join(dir, name))
		if gone := errors.Is(err, fs.ErrNotExist); gone != strings.Contains(name, "old") {
			t.Errorf("%s: removed %v", name, gone)
		}
	}
}

func TestKeyFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "sub", "approver.key")
	k, err := GenerateKey(good)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(good); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated key: %v %v", fi, err)
	}
	if _, err := GenerateKey(good); err == nil {
		t.Error("GenerateKey overwrote a key")
	}
	if got, err := LoadKey(good); err != nil || !got.Equal(k) {
		t.Fatalf("LoadKey = %v, %v", got, err)
	}
	data, _ := os.ReadFile(good)
	write := func(name string, data []byte, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	link := filepath.Join(dir, "link.key")
	if err := os.Symlink(good, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, want string }{
		{"symlink", link, "symlink"},
		{"group readable", write("g.key", data, 0o640), "mode 0640"},
		{"world readable", write("w.key", data, 0o644), "mode 0644"},
		{"garbage", write("x.key", []byte("\x00\x01garbage"), 0o600), "not an approver key file"},
		{"truncated", write("t.key", data[:len(data)-20], 0o600), "truncated"},
		{"empty", write("e.key", nil, 0o600), "not an approver key file"},
		{"huge", write("h.key", bytes.Repeat([]byte("a"), 5000), 0o600), "larger than"},
		{"directory", dir, "not a regular file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadKey(tc.path)
			var kfe *KeyFileError
			if !errors.As(err, &kfe) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("LoadKey = %v, want a KeyFileError mentioning %q", err, tc.want)
			}
		})
	}
	if _, err := LoadKey(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing key: %v", err)
	}
}

func TestPublicText(t *testing.T) {
	t.Parallel()
	pub := testKeyring[0]
	got, err := ParsePublic(PublicText(pub))
	if err != nil || !got.Equal(pub) {
		t.Fatalf("round trip: %v %v", got, err)
	}
	for _, bad := range []string{"", "ed25519:", "ed25519:AAAA", "ssh-ed25519 " + PublicText(pub)[8:], PublicText(pub) + "AA"} {
		if _, err := ParsePublic(bad); err == nil {
			t.Errorf("ParsePublic(%q): no error", bad)
		}
	}
}

// TestGrantFiles: a signed grant handed over as a file allows its uses
// once each, counted in the store; a grant file that does not verify
// allows nothing.
func TestGrantFiles(t *testing.T) {
	t.Parallel()
	writeGF := func(t *testing.T, dir string, gf GrantFile) {
		t.Helper()
		if _, err := WriteGrantFile(dir, gf); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("uses counted in the store", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		r := mustCreate(t, s, "k", t0)
		grants := t.TempDir()
		gf, err := NewGrant(r, time.Hour, 2, t0, testSigner)
		if err != nil {
			t.Fatal(err)
		}
		writeGF(t, grants, gf)
		mustCheck(t, s, "k", t0.Add(time.Second), Pending, r.ID) // not used yet
		s.UseGrants(grants)
		mustCheck(t, s, "k", t0.Add(time.Second), Granted, r.ID)
		mustCheck(t, s, "k", t0.Add(2*time.Second), Granted, r.ID)
		mustCheck(t, s, "k", t0.Add(3*time.Second), None, "")
		if got, _ := s.Get(r.ID); got.Status != StatusConsumed || got.Problem != "" {
			t.Errorf("after the uses: %+v", got)
		}
		// A newer grant for the same request re-arms it.
		gf2, _ := NewGrant(r, time.Hour, 1, t0.Add(time.Minute), testSigner)
		writeGF(t, grants, gf2)
		mustCheck(t, s, "k", t0.Add(2*time.Minute), Granted, r.ID)
		mustCheck(t, s, "k", t0.Add(3*time.Minute), None, "")
	})
	t.Run("no stored request", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		grants := t.TempDir()
		gf, _ := NewGrant(Request{ID: "req_platform01", Key: "k"}, time.Hour, 1, t0, testSigner)
		writeGF(t, grants, gf)
		s.UseGrants(grants)
		mustCheck(t, s, "other", t0.Add(time.Second), None, "")
		mustCheck(t, s, "k", t0.Add(time.Second), Granted, "req_platform01")
		mustCheck(t, s, "k", t0.Add(2*time.Second), None, "")
	})
	bad := []struct {
		name  string
		spoil func(t *testing.T, dir string, gf GrantFile)
	}{
		{"unknown key", func(t *testing.T, dir string, gf GrantFile) {
			gf, _ = NewGrant(Request{ID: gf.ID, Key: gf.Key}, time.Hour, 1, t0, otherSigner)
			writeGF(t, dir, gf)
		}},
		{"uses raised", func(t *testing.T, dir string, gf GrantFile) {
			gf.Grant.Uses, gf.Grant.UsesLeft = 9, 9
			writeGF(t, dir, gf)
		}},
		{"key changed", func(t *testing.T, dir string, gf GrantFile) {
			gf.Key = "k2"
			writeGF(t, dir, gf)
		}},
		{"expired", func(t *testing.T, dir string, gf GrantFile) {
			gf, _ = NewGrant(Request{ID: gf.ID, Key: gf.Key}, time.Millisecond, 1, t0, testSigner)
			writeGF(t, dir, gf)
		}},
		{"symlink", func(t *testing.T, dir string, gf GrantFile) {
			other := t.TempDir()
			writeGF(t, other, gf)
			if err := os.Symlink(filepath.Join(other, gf.ID+".json"), filepath.Join(dir, gf.ID+".json")); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbage", func(t *testing.T, dir string, gf GrantFile) {
			os.WriteFile(filepath.Join(dir, gf.ID+".json"), []byte(`{"version":"toolguard-grant/1","id":`), 0o644)
		}},
		{"other version", func(t *testing.T, dir string, gf GrantFile) {
			gf.Version = "toolguard-grant/0"
			writeGF(t, dir, gf)
		}},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := newStore(t)
			r := mustCreate(t, s, "k", t0)
			for _, k := range []string{"k2"} {
				mustCreate(t, s, k, t0)
			}
			grants := t.TempDir()
			gf, _ := NewGrant(r, time.Hour, 1, t0, testSigner)
			tc.spoil(t, grants, gf)
			s.UseGrants(grants)
			for _, key := range []string{"k", "k2"} {
				out, err := s.Check(context.Background(), key, t0.Add(time.Second))
				if err != nil || out.Kind == Granted {
					t.Errorf("Check(%s) = %+v, %v", key, out, err)
				}
			}
		})
	}
}
