// Package bundle is a signed policy bundle (docs/bundles.md): the policy
// layers a toolguard serve runs, with when and by which server it was made,
// signed with ed25519, so that the nodes of a fleet can run it and prove
// which one they ran.
//
// A bundle is one JSON object, the envelope:
//
//	{"toolguard_bundle": 1, "key": "ed25519:<base64>", "body": "<base64>", "sig": "<base64>"}
//
// body is the base64 of the body's JSON (Body: created, server, layers);
// sig is the ed25519 signature by key of Domain followed by those exact
// body bytes, so nothing is canonicalized: what was signed is what is
// read. The bundle's identity is the SHA-256 of the envelope's exact bytes
// (Hash), which serve sends as its HTTP ETag.
//
// Verify checks a bundle against one pinned public key and returns its
// body; every problem is an error naming where it is (a JSON offset, a
// field, a layer), never a panic. The layers load through the normal road
// (Sources): as untrusted layers, which only tighten.
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
	"strings"
	"time"
	"unicode/utf8"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/policy"
)

// Version is the envelope's toolguard_bundle.
const Version = 1

// Domain prefixes the signed bytes: a bundle signature is never a valid
// signature of anything else the same key might sign.
const Domain = "toolguard-policy-bundle-v1\x00"

// Limits: a bundle is read whole by the hook (the remote client's own
// cap is 1 MiB).
const (
	MaxSize   = 1 << 20
	MaxLayers = 16
	maxName   = 64
	maxServer = 256
)

// Layer is one policy file of the server, as its bytes.
type Layer struct {
	Name string `json:"name"`           // the layer's name on the server
	Path string `json:"path,omitempty"` // where it was on the server (provenance; ".json" selects the JSON form)
	Data string `json:"data"`           // the file's text
}

// Body is what a bundle carries.
type Body struct {
	Created time.Time `json:"created"`
	Server  string    `json:"server,omitempty"`
	Layers  []Layer   `json:"layers"`
}

// envelope is the signed wrapper.
type envelope struct {
	Version int    `json:"toolguard_bundle"`
	Key     string `json:"key"`
	Body    string `json:"body"`
	Sig     string `json:"sig"`
}

// Bundle is a verified bundle: its body, its hash and its bytes.
type Bundle struct {
	Body
	Hash string // Hash(Raw)
	Key  string // the signer's key, approval.PublicText form
	Raw  []byte
}

// Hash is the identity of a bundle's bytes: the hex SHA-256.
func Hash(raw []byte) string {
	sum := sha256.Sum256(raw)
	return hex.EncodeToString(sum[:])
}

// ETag is the HTTP entity tag of a bundle with this hash (quoted).
func ETag(hash string) string { return `"` + hash + `"` }

// Sign builds the envelope of b, signed with key.
func Sign(b Body, key ed25519.PrivateKey) ([]byte, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	body, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	sig := ed25519.Sign(key, signed(body))
	env := envelope{
		Version: Version,
		Key:     approval.PublicText(key.Public().(ed25519.PublicKey)),
		Body:    base64.StdEncoding.EncodeToString(body),
		Sig:     base64.StdEncoding.EncodeToString(sig),
	}
	out, err := json.Marshal(env)
	if err != nil {
		return nil, err
	}
	if len(out) > MaxSize {
		return nil, fmt.Errorf("bundle: %d bytes, larger than %d", len(out), MaxSize)
	}
	return append(out, '\n'), nil
}

func signed(body []byte) []byte { return append([]byte(Domain), body...) }

// Error is a bundle that is refused, and why.
type Error struct {
	Hash string // of the refused bytes ("" when there were none)
	Msg  string
}

func (e *Error) Error() string {
	if e.Hash == "" {
		return "policy bundle: " + e.Msg
	}
	return fmt.Sprintf("policy bundle %s: %s", short(e.Hash), e.Msg)
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Verify decodes raw and checks it is a bundle signed by pinned. The
// returned bundle's body has been checked (Body.check); its layers have
// not been compiled (the loader does that).
func Verify(raw []byte, pinned ed25519.PublicKey) (*Bundle, error) {
	h := Hash(raw)
	bad := func(format string, a ...any) error { return &Error{Hash: h, Msg: fmt.Sprintf(format, a...)} }
	if len(raw) > MaxSize {
		return nil, bad("%d bytes, larger than %d", len(raw), MaxSize)
	}
	if len(pinned) != ed25519.PublicKeySize {
		return nil, &Error{Msg: "no pinned public key to verify it against"}
	}
	var env envelope
	if err := strictJSON(raw, &env); err != nil {
		return nil, bad("envelope: %v", err)
	}
	if env.Version != Version {
		return nil, bad("envelope: toolguard_bundle = %d, want %d", env.Version, Version)
	}
	pub, err := approval.ParsePublic(env.Key)
	if err != nil {
		return nil, bad("envelope: key: %v", err)
	}
	if !pub.Equal(pinned) {
		return nil, bad("signed by %s, not by the pinned key %s", approval.Fingerprint(pub), approval.Fingerprint(pinned))
	}
	body, err := base64.StdEncoding.DecodeString(env.Body)
	if err != nil {
		return nil, bad("envelope: body: not base64: %v", err)
	}
	sig, err := base64.StdEncoding.DecodeString(env.Sig)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return nil, bad("envelope: sig: want the base64 of %d bytes", ed25519.SignatureSize)
	}
	if !ed25519.Verify(pinned, signed(body), sig) {
		return nil, bad("the signature does not verify against the pinned key %s (altered or forged)", approval.Fingerprint(pinned))
	}
	b := &Bundle{Hash: h, Key: env.Key, Raw: raw}
	if err := strictJSON(body, &b.Body); err != nil {
		return nil, bad("body: %v", err)
	}
	if err := b.check(); err != nil {
		return nil, bad("body: %v", err)
	}
	return b, nil
}

// check says what is wrong with a body's fields.
func (b *Body) check() error {
	if b.Created.IsZero() {
		return errors.New("created: missing")
	}
	if len(b.Server) > maxServer || !utf8.ValidString(b.Server) {
		return fmt.Errorf("server: longer than %d bytes or not UTF-8", maxServer)
	}
	if len(b.Layers) > MaxLayers {
		return fmt.Errorf("layers: %d, more than %d", len(b.Layers), MaxLayers)
	}
	for i, l := range b.Layers {
		if l.Name == "" || len(l.Name) > maxName || strings.ContainsAny(l.Name, "\x00\r\n") || !utf8.ValidString(l.Name) {
			return fmt.Errorf("layers[%d].name: want 1 to %d characters on one line", i, maxName)
		}
		if !utf8.ValidString(l.Data) {
			return fmt.Errorf("layers[%d] (%s): data is not UTF-8", i, l.Name)
		}
		if strings.HasSuffix(l.Path, ".json") {
			var top map[string]json.RawMessage
			if json.Unmarshal([]byte(l.Data), &top) == nil && top["materialized"] != nil {
				// Loaded beside the node's layers it would take the place
				// of the node's defaults (policy.Load).
				return fmt.Errorf("layers[%d] (%s): a materialized policy cannot be a bundle layer; serve the TOML layers it was made from", i, l.Name)
			}
		}
	}
	return nil
}

// strictJSON decodes one JSON object into v: unknown fields and trailing
// data are errors, and a syntax error names its byte offset.
func strictJSON(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("byte %d: %v", se.Offset, err)
		case errors.As(err, &te):
			return fmt.Errorf("byte %d: field %s: %s where %s is wanted", te.Offset, te.Field, te.Value, te.Type)
		case errors.Is(err, io.EOF):
			return errors.New("empty")
		}
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("byte %d: data after the object", dec.InputOffset())
	}
	return nil
}

// LayerPrefix begins the name every bundle layer takes on a node.
const LayerPrefix = "bundle"

// Sources are the bundle's layers as policy sources for a node: each
// untrusted (it only tightens what the layers before it allow: deny and
// ask rules and stricter settings are added, allow rules and loosening
// settings are left out into Policy.Ignored), named "bundle", "bundle-2",
// … whatever the server called it, with its path "bundle:<hash>/<server
// path>" for provenance.
func (b *Bundle) Sources() []policy.Source {
	out := make([]policy.Source, 0, len(b.Layers))
	for i, l := range b.Layers {
		name := LayerPrefix
		if i > 0 {
			name = fmt.Sprintf("%s-%d", LayerPrefix, i+1)
		}
		p := l.Path
		if p == "" {
			p = l.Name + ".toml"
		}
		out = append(out, policy.Source{
			Layer:     name,
			Path:      "bundle:" + short(b.Hash) + "/" + strings.TrimLeft(p, "/"),
			Data:      []byte(l.Data),
			Untrusted: true,
		})
	}
	return out
}
