package main

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/policy"
)

// defaultKeyPath is the user's approver key:
// $XDG_CONFIG_HOME/toolguard/approver.key, else
// ~/.config/toolguard/approver.key; "" when neither is known.
func defaultKeyPath(sys *system) string {
	if x := sys.getenv("XDG_CONFIG_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "toolguard", "approver.key")
	}
	if h := sys.home(); h != "" {
		return filepath.Join(h, ".config", "toolguard", "approver.key")
	}
	return ""
}

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
		path = defaultKeyPath(sys)
		if path == "" {
			return approval.Signer{}, "", errors.New("no approver key: set --key, XDG_CONFIG_HOME or HOME")
		}
	} else {
		cwd, _ := sys.getwd()
		path = argPath(path, cwd, sys.home())
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

// trustedKeys is the set of keys whose grants the hook honours: the public
// half of the user's default approver key, when that file exists and is
// sound, and every key of settings.approvers. problems says what was left
// out and why; a missing default key is not a problem (no grant of it can
// exist), it only means fewer keys are trusted.
func trustedKeys(sys *system, pol *policy.Policy) (ring approval.Keyring, problems []string) {
	if path := defaultKeyPath(sys); path != "" {
		key, err := approval.LoadKey(path)
		switch {
		case err == nil:
			ring = append(ring, key.Public().(ed25519.PublicKey))
		case !errors.Is(err, fs.ErrNotExist):
			problems = append(problems, fmt.Sprintf("approver key not trusted: %v", err))
		}
	}
	if pol != nil {
		for _, s := range pol.Settings.Approvers {
			pub, err := approval.ParsePublic(s)
			if err != nil {
				problems = append(problems, fmt.Sprintf("settings.approvers: %v", err))
				continue
			}
			ring = append(ring, pub)
		}
	}
	return ring, problems
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
