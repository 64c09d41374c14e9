package guard

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// ErrNoStateDir is a store asked for where no state directory is known.
var ErrNoStateDir = errors.New("no state directory: set --state-dir, settings.state_dir or HOME")

// OpenStore opens the local approval store — the one way every part of
// toolguard opens it: the state directory of the flag (--state-dir) and
// the policy, trusting the keys the hook trusts (TrustedKeys; problems
// says which were left out) and with pending requests expiring after the
// policy's pending_ttl. With existing, a store no request was ever
// recorded in (no state directory known, or no requests/ in it) is not
// made: nil, nil, nil.
func OpenStore(sys workspace.Env, stateFlag string, pol *policy.Policy, existing bool) (*approval.Store, []string, error) {
	dir := sys.StateDir(stateFlag, pol)
	if dir == "" {
		if existing {
			return nil, nil, nil
		}
		return nil, nil, ErrNoStateDir
	}
	if existing {
		if _, err := os.Stat(filepath.Join(dir, "requests")); errors.Is(err, fs.ErrNotExist) {
			return nil, nil, nil // do not create the directory
		}
	}
	st, err := approval.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	trusted, problems := TrustedKeys(sys, pol)
	st.Trust(trusted)
	ttl := policy.DefaultPendingTTL
	if pol != nil {
		ttl = pol.Settings.PendingTTL
	}
	st.ExpirePending(ttl)
	return st, problems, nil
}

// OpenGate opens where approvals are kept for pol: the approval server of
// settings.approval_url, else the local store (OpenStore, existing: nil,
// nil where no request was ever recorded).
func OpenGate(sys workspace.Env, stateFlag string, pol *policy.Policy) (approval.Gate, error) {
	if pol != nil && pol.Settings.ApprovalURL != "" {
		c, err := remoteClient(sys, pol)
		if err != nil {
			return nil, err
		}
		return remoteGate{c}, nil
	}
	st, _, err := OpenStore(sys, stateFlag, pol, true)
	if st == nil {
		return nil, err
	}
	return approval.LocalGate{Store: st}, nil
}

// openStore is OpenStore for a decision: sys.Approvals when set (serve
// --database), trusting pol's keys, else the state directory's store.
func (s System) openStore(stateFlag string, pol *policy.Policy, existing bool) (*approval.Store, []string, error) {
	if s.Approvals == nil {
		return OpenStore(s.Env, stateFlag, pol, existing)
	}
	trusted, problems := TrustedKeys(s.Env, pol)
	s.Approvals.Trust(trusted)
	return s.Approvals, problems, nil
}

// openGate is OpenGate for a decision: the approval server of
// settings.approval_url, else sys.Approvals when set, else the state
// directory's store.
func (s System) openGate(stateFlag string, pol *policy.Policy) (approval.Gate, error) {
	if s.Approvals != nil && (pol == nil || pol.Settings.ApprovalURL == "") {
		st, _, err := s.openStore(stateFlag, pol, true)
		if err != nil {
			return nil, err
		}
		return approval.LocalGate{Store: st}, nil
	}
	return OpenGate(s.Env, stateFlag, pol)
}
