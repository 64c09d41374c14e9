package approval

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// grantVersion starts every signed grant encoding; change it when the
// encoding changes. A grant signed under another version does not verify.
const grantVersion = "toolguard-grant/1"

// grantVersionEdit is the encoding of a grant with an Edit: version 1's
// fields, then the edit's. Which one a grant is verified under follows
// from whether it has an Edit, so an edit added to (or removed from) a
// grant signed under the other version does not verify.
const grantVersionEdit = "toolguard-grant/2"

// keyFileHeader is the first line of an approver key file.
const keyFileHeader = "toolguard-approver-key/1"

// publicPrefix starts a public key in its text form, as settings.approvers
// lists it.
const publicPrefix = "ed25519:"

// maxKeyFile bounds what LoadKey reads.
const maxKeyFile = 4 << 10

// Signer signs grants: an approver's private key and the user name the
// grant records.
type Signer struct {
	Key  ed25519.PrivateKey
	User string
}

// Approver names who signed a grant. Every field is covered by the
// signature.
type Approver struct {
	Key         string `json:"key"`         // "ed25519:<base64 public key>"
	Fingerprint string `json:"fingerprint"` // Fingerprint of Key
	User        string `json:"user"`
}

// PublicText returns pub in the form settings.approvers lists:
// "ed25519:" and the standard base64 of the 32 bytes.
func PublicText(pub ed25519.PublicKey) string {
	return publicPrefix + base64.StdEncoding.EncodeToString(pub)
}

// ParsePublic parses the text form of PublicText.
func ParsePublic(s string) (ed25519.PublicKey, error) {
	b64, ok := strings.CutPrefix(strings.TrimSpace(s), publicPrefix)
	if !ok {
		return nil, fmt.Errorf("approver key %q: want %s<base64>", s, publicPrefix)
	}
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil || len(b) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("approver key %q: want %s and the base64 of %d bytes", s, publicPrefix, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(b), nil
}

// Fingerprint returns "SHA256:" and the unpadded base64 of the SHA-256 of
// pub, as ssh-keygen -l prints key fingerprints.
func Fingerprint(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return "SHA256:" + base64.RawStdEncoding.EncodeToString(sum[:])
}

// Trusts reports whether grants signed with pub verify in s.
func (s *Store) Trusts(pub ed25519.PublicKey) bool { return s.trusted.Contains(pub) }

// Keyring is the set of public keys whose grants the hook honours.
type Keyring []ed25519.PublicKey

// Contains reports whether pub is in k.
func (k Keyring) Contains(pub ed25519.PublicKey) bool {
	return slices.ContainsFunc(k, func(t ed25519.PublicKey) bool { return t.Equal(pub) })
}

// grantPayload is the canonical encoding a grant's signature covers: the
// version line, then length-prefixed fields in a fixed order (see the
// package documentation). Times are UTC RFC 3339 with nanoseconds.
func grantPayload(id, key string, g *Grant) []byte {
	var b bytes.Buffer
	if g.Edit != nil {
		b.WriteString(grantVersionEdit + "\n")
	} else {
		b.WriteString(grantVersion + "\n")
	}
	put := func(name, value string) {
		b.WriteString(name + " " + strconv.Itoa(len(value)) + ":")
		b.WriteString(value)
		b.WriteByte('\n')
	}
	ts := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	put("id", id)
	put("key", key)
	put("uses", strconv.Itoa(g.Uses))
	put("expires", ts(g.Expires))
	put("approved", ts(g.Approved))
	put("approver_key", g.Approver.Key)
	put("approver_fingerprint", g.Approver.Fingerprint)
	put("approver_user", g.Approver.User)
	if e := g.Edit; e != nil {
		put("edit_field", e.Field)
		put("edit_input", e.Input)
		put("edit_key", e.Key)
	}
	return b.Bytes()
}

// sign fills in g's approver and signature for request id with key.
func (s Signer) sign(id, key string, g *Grant) error {
	if len(s.Key) != ed25519.PrivateKeySize {
		return errors.New("approve: no approver key")
	}
	pub := s.Key.Public().(ed25519.PublicKey)
	g.Approver = Approver{Key: PublicText(pub), Fingerprint: Fingerprint(pub), User: s.User}
	g.Signature = base64.StdEncoding.EncodeToString(ed25519.Sign(s.Key, grantPayload(id, key, g)))
	return nil
}

// verify reports why the grant of r cannot be honoured, or nil when its
// signature verifies against a key in trusted and its fields hold together.
func (r *Request) verify(trusted Keyring) error {
	g := r.Grant
	if g == nil {
		return errors.New("no grant")
	}
	if g.Signature == "" {
		return errors.New("grant is not signed")
	}
	pub, err := ParsePublic(g.Approver.Key)
	if err != nil {
		return err
	}
	if g.Approver.Fingerprint != Fingerprint(pub) {
		return errors.New("approver fingerprint does not match the approver key")
	}
	if len(trusted) == 0 {
		return errors.New("no trusted approver key (no approver.key and no settings.approvers)")
	}
	if !trusted.Contains(pub) {
		return fmt.Errorf("signed by %s, which is not a trusted approver key", g.Approver.Fingerprint)
	}
	sig, err := base64.StdEncoding.DecodeString(g.Signature)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return errors.New("signature is not base64 of 64 bytes")
	}
	if !ed25519.Verify(pub, grantPayload(r.ID, r.Key, g), sig) {
		return errors.New("signature does not verify (the request id, key, uses, expiry, approver or edit was changed)")
	}
	if g.Uses < 1 || g.UsesLeft > g.Uses {
		return fmt.Errorf("uses_left %d outside the %d use(s) signed", g.UsesLeft, g.Uses)
	}
	return nil
}

// KeyFileError is a key file that must not be used, and why.
type KeyFileError struct {
	Path string
	Msg  string
}

func (e *KeyFileError) Error() string { return e.Path + ": " + e.Msg }

// LoadKey reads an approver private key file. The file must be a regular
// file (not a symlink), with no access for group or others (on systems with
// Unix permissions), of the form written by GenerateKey. Anything else is
// a *KeyFileError; a missing file is an error wrapping fs.ErrNotExist.
func LoadKey(path string) (ed25519.PrivateKey, error) {
	bad := func(format string, a ...any) error { return &KeyFileError{Path: path, Msg: fmt.Sprintf(format, a...)} }
	f, err := openPrivate(path, bad)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, bad("%v", err)
	}
	if len(data) > maxKeyFile {
		return nil, bad("larger than %d bytes: not a key file", maxKeyFile)
	}
	head, rest, _ := strings.Cut(string(data), "\n")
	if head != keyFileHeader {
		return nil, bad("not an approver key file (want first line %q)", keyFileHeader)
	}
	seed, err := base64.StdEncoding.DecodeString(strings.TrimSpace(rest))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, bad("truncated or damaged key (want the base64 of a %d-byte seed on the second line)", ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// openPrivate opens path for reading after checking that it is a regular
// file, not a symlink, readable by its owner only; the open file is checked
// to be the one inspected.
func openPrivate(path string, bad func(string, ...any) error) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if err := privateMode(fi); err != "" {
		return nil, bad("%s", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	got, err := f.Stat()
	if err != nil || !os.SameFile(fi, got) {
		f.Close()
		return nil, bad("changed while being opened")
	}
	return f, nil
}

// privateMode says what is wrong with fi for a private file, or "".
func privateMode(fi os.FileInfo) string {
	switch m := fi.Mode(); {
	case m&os.ModeSymlink != 0:
		return "is a symlink (refused: a link can point anywhere)"
	case !m.IsRegular():
		return fmt.Sprintf("not a regular file (%s)", m.Type())
	case runtime.GOOS != "windows" && m.Perm()&0o077 != 0:
		return fmt.Sprintf("mode %04o gives group or others access (want 0600)", m.Perm())
	}
	return ""
}

// GenerateKey creates a new approver key file at path (mode 0600, its
// directory 0700 if it must be made) and returns the key. It never
// overwrites: an existing file is an error.
func GenerateKey(path string) (ed25519.PrivateKey, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	text := keyFileHeader + "\n" + base64.StdEncoding.EncodeToString(seed) + "\n"
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), nil
}
