package approval

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"time"
)

// The grant a remote approval server hands the hook (internal/remote):
// the hook trusts the server for nothing but transport, so it checks the
// grant itself, exactly as Check checks a stored one.

// GrantFileOf returns r's grant in the form a grant file holds, and
// whether r has one.
func GrantFileOf(r Request) (GrantFile, bool) {
	if r.Grant == nil {
		return GrantFile{}, false
	}
	return GrantFile{Version: grantVersion, ID: r.ID, Key: r.Key, Summary: r.Summary, Grant: *r.Grant}, true
}

// VerifyGrant reports why gf does not allow the call with key at now, or
// nil when it does: its version is this one, it is for key, its
// signature verifies against a key in trusted (the approver key's
// fingerprint and uses included), and it has not expired.
func (k Keyring) VerifyGrant(gf GrantFile, key string, now time.Time) error {
	switch {
	case gf.Version != grantVersion:
		return fmt.Errorf("grant version %q (want %s)", gf.Version, grantVersion)
	case !ValidID(gf.ID):
		return fmt.Errorf("grant for a malformed request id %q", gf.ID)
	case gf.Key != key:
		return errors.New("the grant is for another call")
	}
	g := gf.Grant
	r := Request{ID: gf.ID, Key: gf.Key, Grant: &g}
	if err := r.verify(k); err != nil {
		return err
	}
	if !now.Before(g.Expires) {
		return fmt.Errorf("the grant expired at %s", g.Expires.UTC().Format(time.RFC3339))
	}
	return nil
}

// useVersion starts the encoding a use receipt's signature covers.
const useVersion = "toolguard-use/1"

// usePayload is what a use receipt signs: the grant (its id, call key and
// signature) and the nonce the hook sent for this one use.
func usePayload(gf GrantFile, nonce string) []byte {
	var b bytes.Buffer
	b.WriteString(useVersion + "\n")
	for _, f := range [][2]string{{"id", gf.ID}, {"key", gf.Key}, {"grant_signature", gf.Grant.Signature}, {"nonce", nonce}} {
		b.WriteString(f[0] + " " + strconv.Itoa(len(f[1])) + ":" + f[1] + "\n")
	}
	return b.Bytes()
}

// SignUse signs the receipt of one use of gf, for the nonce the hook
// sent: proof that the server holding a trusted key spent a use just
// now, so that a grant seen once cannot be answered again (replayed) by
// whoever sits between the hook and the server.
func (s Signer) SignUse(gf GrantFile, nonce string) (string, error) {
	if len(s.Key) != ed25519.PrivateKeySize {
		return "", errors.New("no approver key to sign the use")
	}
	return base64.StdEncoding.EncodeToString(ed25519.Sign(s.Key, usePayload(gf, nonce))), nil
}

// VerifyUse reports why receipt is not a use of gf for nonce signed by a
// key in k, or nil.
func (k Keyring) VerifyUse(gf GrantFile, nonce, receipt string) error {
	if nonce == "" {
		return errors.New("no nonce")
	}
	sig, err := base64.StdEncoding.DecodeString(receipt)
	if err != nil || len(sig) != ed25519.SignatureSize {
		return errors.New("no use receipt, or not base64 of 64 bytes")
	}
	msg := usePayload(gf, nonce)
	for _, pub := range k {
		if ed25519.Verify(pub, msg, sig) {
			return nil
		}
	}
	return errors.New("the use receipt is not signed by a trusted approver key (a replayed grant?)")
}
