package guard

import (
	"crypto/ed25519"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/workspace"
)

// TestOpenStore: every opening trusts the user's approver key (the hold
// and the result recording opened the store without it before), a
// missing state directory is ErrNoStateDir, and an opening for a store
// that must exist creates nothing.
func TestOpenStore(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	sys := workspace.Env{Getenv: func(k string) string { return env[k] }, Getwd: func() (string, error) { return home, nil }}
	state := filepath.Join(home, ".local", "state", "toolguard")

	if st, _, err := OpenStore(sys, "", nil, true); st != nil || err != nil {
		t.Fatalf("existing, none made: %v %v", st, err)
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Fatalf("an opening of an existing store made %s (%v)", state, err)
	}
	key, err := approval.GenerateKey(sys.KeyPath())
	if err != nil {
		t.Fatal(err)
	}
	st, problems, err := OpenStore(sys, "", nil, false)
	if err != nil || len(problems) != 0 {
		t.Fatalf("open: %v %v", err, problems)
	}
	if !st.Trusts(key.Public().(ed25519.PublicKey)) {
		t.Error("the store does not trust the user's approver key")
	}
	if _, err := st.Create(approval.Request{Key: "k", Summary: "x"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	st, _, err = OpenStore(sys, "", nil, true)
	if st == nil || err != nil || !st.Trusts(key.Public().(ed25519.PublicKey)) {
		t.Errorf("existing store: %v %v, or its keys are not trusted", st, err)
	}
	if _, _, err := OpenStore(workspace.Env{}, "", nil, false); err != ErrNoStateDir {
		t.Errorf("no home: %v, want ErrNoStateDir", err)
	}
}
