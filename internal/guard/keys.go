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
