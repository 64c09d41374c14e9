package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"

	"github.com/toolguard/toolguard/internal/approval"
)

// approverName is the user name a grant records.
func approverName(sys *system) string {
	for _, k := range []string{"USER", "LOGNAME", "USERNAME"} {
		if v := sys.getenv(k); v != "" {
			return v
		}
	}
	return "unknown"
}

// signerFor loads the key that signs a decision: the file given with
// --key (which must exist), else the user's default key, generated on
// first use when generate is set.
func signerFor(sys *system, keyFlag string, generate bool) (approval.Signer, string, error) {
	path := keyFlag
	if path == "" {
		path = sys.env().KeyPath()
		if path == "" {
			return approval.Signer{}, "", errors.New("no approver key: set --key, XDG_CONFIG_HOME or HOME")
		}
	} else {
		path = sys.env().Path(path)
	}
	key, err := approval.LoadKey(path)
	if errors.Is(err, fs.ErrNotExist) && keyFlag == "" && generate {
		key, err = approval.GenerateKey(path)
		if err == nil {
			fmt.Fprintf(sys.stderr, "toolguard: created approver key %s (%s)\n", path,
				approval.Fingerprint(key.Public().(ed25519.PublicKey)))
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return approval.Signer{}, path, fmt.Errorf("no approver key at %s (create one with `toolguard approvals key --generate --key %s`)", path, path)
	}
	if err != nil {
		return approval.Signer{}, path, fmt.Errorf("approver key: %w", err)
	}
	return approval.Signer{Key: key, User: approverName(sys)}, path, nil
}

// warnUntrusted says so when the hook, with the policy in effect here,
// would not honour grants signed by signer.
func warnUntrusted(sys *system, st *approval.Store, signer approval.Signer, path string) {
	pub := signer.Key.Public().(ed25519.PublicKey)
	if st.Trusts(pub) {
		return
	}
	if path == "" {
		path = "this key"
	}
	fmt.Fprintf(sys.stderr, "toolguard: warning: the hook does not trust %s, so this grant allows nothing;\n"+
		"add it to settings.approvers of a user or platform policy: approvers = [%q]\n", path, approval.PublicText(pub))
}
