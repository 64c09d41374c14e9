package guard

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// TrustedKeys is the set of keys whose grants the hook honours: the public
// half of the user's default approver key, when that file exists and is
// sound, and every key of settings.approvers. problems says what was left
// out and why; a missing default key is not a problem (no grant of it can
// exist), it only means fewer keys are trusted.
func TrustedKeys(sys workspace.Env, pol *policy.Policy) (ring approval.Keyring, problems []string) {
	if path := sys.KeyPath(); path != "" {
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

// ApproverName is the user name a grant records.
func ApproverName(sys workspace.Env) string {
	for _, k := range []string{"USER", "LOGNAME", "USERNAME"} {
		if v := sys.Var(k); v != "" {
			return v
		}
	}
	return "unknown"
}

// SignerFor loads the key that signs a decision: the file given with
// --key (which must exist), else the user's default key, generated on
// first use when generate is set.
func SignerFor(sys System, keyFlag string, generate bool) (approval.Signer, string, error) {
	path := keyFlag
	if path == "" {
		path = sys.KeyPath()
		if path == "" {
			return approval.Signer{}, "", errors.New("no approver key: set --key, XDG_CONFIG_HOME or HOME")
		}
	} else {
		path = sys.Path(path)
	}
	key, err := approval.LoadKey(path)
	if errors.Is(err, fs.ErrNotExist) && keyFlag == "" && generate {
		key, err = approval.GenerateKey(path)
		if err == nil {
			fmt.Fprintf(sys.Stderr, "toolguard: created approver key %s (%s)\n", path,
				approval.Fingerprint(key.Public().(ed25519.PublicKey)))
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return approval.Signer{}, path, fmt.Errorf("no approver key at %s (create one with `toolguard approvals key --generate --key %s`)", path, path)
	}
	if err != nil {
		return approval.Signer{}, path, fmt.Errorf("approver key: %w", err)
	}
	return approval.Signer{Key: key, User: ApproverName(sys.Env)}, path, nil
}

// WarnUntrusted says so when the hook, with the policy in effect here,
// would not honour grants signed by signer.
func WarnUntrusted(sys System, st *approval.Store, signer approval.Signer, path string) {
	pub := signer.Key.Public().(ed25519.PublicKey)
	if st.Trusts(pub) {
		return
	}
	if path == "" {
		path = "this key"
	}
	fmt.Fprintf(sys.Stderr, "toolguard: warning: the hook does not trust %s, so this grant allows nothing;\n"+
		"add it to settings.approvers of a user or platform policy: approvers = [%q]\n", path, approval.PublicText(pub))
}
