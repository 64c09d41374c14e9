package approval

import (
	"errors"
	"fmt"
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
