// Package bundle is a policy a server publishes for a fleet, signed: the
// policy's text, its SHA-256 (the HTTP ETag), and an Ed25519 signature
// over the hash by the server's bundle key. A node pins the public key,
// verifies each bundle it fetches, keeps the last good one in a cache,
// and answers from it; a bundle that does not verify is refused and the
// cached one stays; with no verified bundle at all the node denies (Node,
// ErrNoBundle). Issue 34 item 3; docs/fleet.md.
package bundle

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Version is the format of a bundle and what its signature covers.
const Version = "toolguard-bundle/1"

// MaxSize bounds a bundle (the policy text and its envelope).
const MaxSize = 16 << 20

// Bundle is a signed policy.
type Bundle struct {
	Version string    `json:"version"`
	Created time.Time `json:"created"`
	// Name is the policy file name the text is loaded as (policy.toml,
	// or policy.json for JSON text).
	Name   string `json:"name"`
	Policy string `json:"policy"` // the policy's text
	// Hash is the SHA-256 of Name, a NUL and Policy, in hex: what the
	// signature covers, and the ETag ("sha256:" + Hash).
	Hash      string `json:"hash"`
	Key       string `json:"key"`       // the signer's public key, ed25519:<base64>, for the reader
	Signature string `json:"signature"` // base64 Ed25519 over signed(Hash)
}

// ETag is the bundle's HTTP entity tag.
func (b Bundle) ETag() string { return `"sha256:` + b.Hash + `"` }

func hashOf(name, policy string) string {
	h := sha256.New()
	io.WriteString(h, name)
	h.Write([]byte{0})
	io.WriteString(h, policy)
	return hex.EncodeToString(h.Sum(nil))
}

func signed(hash string) []byte { return []byte(Version + "\n" + hash + "\n") }

// Sign makes the bundle of a policy text named name.
func Sign(name, policy string, key ed25519.PrivateKey, now time.Time) (Bundle, error) {
	if len(key) != ed25519.PrivateKeySize {
		return Bundle{}, errors.New("bundle: no signing key")
	}
	if name == "" {
		name = "policy.toml"
	}
	b := Bundle{Version: Version, Created: now.UTC(), Name: name, Policy: policy, Hash: hashOf(name, policy)}
	pub := key.Public().(ed25519.PublicKey)
	b.Key = "ed25519:" + base64.StdEncoding.EncodeToString(pub)
	b.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(key, signed(b.Hash)))
	return b, nil
}

// Encode returns the bundle as JSON, as served and cached.
func (b Bundle) Encode() []byte {
	data, _ := json.Marshal(b) // strings and a time: cannot fail
	return append(data, '\n')
}

// Verify decodes data and checks it against the pinned keys: its version,
// that Hash is the hash of its name and text, and that Signature is an
// Ed25519 signature of that hash by one of pinned. Anything else — a
// changed byte of the text, a hash that does not match, a signature by a
// key not pinned, trailing data — is an error and no bundle.
func Verify(data []byte, pinned []ed25519.PublicKey) (Bundle, error) {
	if len(data) > MaxSize {
		return Bundle{}, fmt.Errorf("bundle: larger than %d bytes", MaxSize)
	}
	var b Bundle
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&b); err != nil {
		return Bundle{}, fmt.Errorf("bundle: not a bundle: %v", err)
	}
	if dec.More() {
		return Bundle{}, errors.New("bundle: data after the bundle")
	}
	if b.Version != Version {
		return Bundle{}, fmt.Errorf("bundle: version %q (want %s)", b.Version, Version)
	}
	if b.Hash != hashOf(b.Name, b.Policy) {
		return Bundle{}, errors.New("bundle: the policy does not match its hash (tampered)")
	}
	sig, err := base64.StdEncoding.DecodeString(b.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return Bundle{}, errors.New("bundle: no signature, or not base64 of 64 bytes")
	}
	if len(pinned) == 0 {
		return Bundle{}, errors.New("bundle: no pinned key to verify it against")
	}
	for _, k := range pinned {
		if len(k) == ed25519.PublicKeySize && ed25519.Verify(k, signed(b.Hash), sig) {
			return b, nil
		}
	}
	return Bundle{}, errors.New("bundle: not signed by a pinned key (tampered, or another server's)")
}

// ErrNoBundle is the error of a node with no verified bundle: it must
// deny every call (Node.Current).
var ErrNoBundle = errors.New("no verified policy bundle: every call is denied until one is fetched")

// Node is a node's side: the pinned keys and the cache of the last good
// bundle (one file, 0600).
type Node struct {
	Pinned []ed25519.PublicKey
	Cache  string // the cache file
}

// Accept verifies data; a good bundle replaces the cached one (written
// atomically) and is returned. A bad one is refused with the reason, and
// the cached bundle stays as it was.
func (n *Node) Accept(data []byte) (Bundle, error) {
	b, err := Verify(data, n.Pinned)
	if err != nil {
		return Bundle{}, err
	}
	if err := writeAtomic(n.Cache, b.Encode()); err != nil {
		return b, fmt.Errorf("bundle: caching it: %v", err)
	}
	return b, nil
}

// Current returns the cached bundle, verified again (the cache is a file
// someone may have changed): a missing, unreadable or tampered cache is
// ErrNoBundle, wrapping why.
func (n *Node) Current() (Bundle, error) {
	f, err := os.Open(n.Cache)
	if errors.Is(err, fs.ErrNotExist) {
		return Bundle{}, ErrNoBundle
	}
	if err != nil {
		return Bundle{}, fmt.Errorf("%w (%v)", ErrNoBundle, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxSize+1))
	if err != nil {
		return Bundle{}, fmt.Errorf("%w (%v)", ErrNoBundle, err)
	}
	b, err := Verify(data, n.Pinned)
	if err != nil {
		return Bundle{}, fmt.Errorf("%w (the cached one: %v)", ErrNoBundle, err)
	}
	return b, nil
}

func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".bundle-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.Write(data)
	if werr == nil {
		werr = f.Sync()
	}
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}

// Fetch asks a server for its bundle, sending etag (the cached bundle's,
// or "") as If-None-Match: data is the new bundle, or notModified is set.
// The transport is the caller's (HTTP in the server build; a test's).
type Fetch func(etag string) (data []byte, notModified bool, err error)

// Refresh fetches the server's bundle and returns the one the node
// answers from: the new one if it verifies (and is cached), else the
// last good one. err says what went wrong — the server unreachable, a
// bundle refused — even when a cached bundle is returned; with no bundle
// at all the error wraps ErrNoBundle.
func (n *Node) Refresh(fetch Fetch) (Bundle, error) {
	cur, curErr := n.Current()
	etag := ""
	if curErr == nil {
		etag = cur.ETag()
	}
	data, notModified, err := fetch(etag)
	switch {
	case err != nil:
		err = fmt.Errorf("bundle: fetch: %v", err)
	case notModified && curErr == nil:
		return cur, nil
	case notModified:
		err = errors.New("bundle: the server answered not modified, but nothing verified is cached")
	default:
		b, aerr := n.Accept(data)
		if aerr == nil {
			return b, nil
		}
		err = aerr
	}
	if curErr != nil {
		return Bundle{}, fmt.Errorf("%w; %v", curErr, err)
	}
	return cur, err
}
