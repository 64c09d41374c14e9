package serve

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/approval/pgstore"
	"github.com/toolguard/toolguard/internal/approval/pgstore/pgtest"
	"github.com/toolguard/toolguard/internal/remote"
)

// replica is one server on the shared database, on loopback.
type replica struct {
	db *pgstore.DB
	st *approval.Store
	ts *httptest.Server
}

func newReplica(t *testing.T, dsn string, key ed25519.PrivateKey) *replica {
	t.Helper()
	db, err := pgstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	st := db.Store()
	st.Trust(approval.Keyring{key.Public().(ed25519.PublicKey)})
	srv := New(Config{Store: st, Signer: approval.Signer{Key: key, User: "alice"},
		Tokens: map[string]Role{approverTok: RoleApprover, hookTok: RoleHook}})
	r := &replica{db: db, st: st, ts: httptest.NewServer(srv)}
	t.Cleanup(func() { r.ts.Close(); srv.Close(); db.Close() })
	return r
}

// TestReplicaKilledMidRun: 5 rounds of 200 concurrent uses of one
// single-use grant, split across two replicas, the first of which has its
// connections cut and its listener closed after 5 ms (a crash as its
// clients see it; what it was doing either commits or rolls back). Each
// round: at most one use is answered granted; the store says consumed
// exactly when one use was taken (answered or not), and a grant whose use
// no answer carried is either recorded consumed once or still usable
// once on the surviving replica — never used twice, never lost.
func TestReplicaKilledMidRun(t *testing.T) {
	if testing.Short() {
		t.Skip("200 concurrent uses x 5 rounds")
	}
	dsn := pgtest.DSN(t)
	key, err := approval.GenerateKey(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	survivor := newReplica(t, dsn, key)
	client := &http.Client{Transport: authTransport{hookTok, &http.Transport{MaxIdleConnsPerHost: 200}}, Timeout: 30 * time.Second}
	use := func(base, k string) (string, error) {
		res, err := client.Post(base+"/v1/grants/use", "application/json", strings.NewReader(`{"key":"`+k+`"}`))
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		data, err := io.ReadAll(res.Body)
		if err != nil {
			return "", err
		}
		var a remote.UseAnswer
		if res.StatusCode != 200 || json.Unmarshal(data, &a) != nil {
			return "", fmt.Errorf("%d %s", res.StatusCode, data)
		}
		return a.Outcome, nil
	}
	for round := range 5 {
		doomed := newReplica(t, dsn, key)
		sum := sha256.Sum256([]byte(fmt.Sprint("call ", round)))
		k := hex.EncodeToString(sum[:])
		r, err := survivor.st.Create(approval.Request{Key: k, Summary: "git tag", Tool: "Bash"}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := doomed.st.Approve(r.ID, time.Hour, 1, time.Now(), approval.Signer{Key: key}); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		granted, failed := 0, 0
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				base := survivor.ts.URL
				if i%2 == 0 {
					base = doomed.ts.URL
				}
				out, err := use(base, k)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					failed++ // the doomed replica's clients
				case out == "granted":
					granted++
				}
			}()
		}
		close(start)
		time.Sleep(5 * time.Millisecond)
		doomed.ts.CloseClientConnections()
		doomed.ts.Listener.Close()
		wg.Wait()
		if granted > 1 {
			t.Fatalf("round %d: %d uses granted", round, granted)
		}
		// Let the doomed replica's last transactions end, then look.
		doomed.ts.Close()
		got, err := survivor.st.Get(r.ID)
		if err != nil {
			t.Fatal(err)
		}
		switch got.Status {
		case approval.StatusConsumed:
			if got.Grant.UsesLeft != 0 || got.Grant.LastUsed.IsZero() {
				t.Fatalf("round %d: consumed with %+v", round, got.Grant)
			}
		case approval.StatusApproved:
			if granted != 0 {
				t.Fatalf("round %d: a use was answered granted but the store has it unused", round)
			}
			if out, err := use(survivor.ts.URL, k); err != nil || out != "granted" {
				t.Fatalf("round %d: the unused grant is lost: %q %v", round, out, err)
			}
		default:
			t.Fatalf("round %d: status %s", round, got.Status)
		}
		if out, _ := use(survivor.ts.URL, k); out == "granted" {
			t.Fatalf("round %d: the grant was used twice", round)
		}
		t.Logf("round %d: %d granted, %d cut off, store %s", round, granted, failed, got.Status)
	}
}

// authTransport adds the hook token to every request.
type authTransport struct {
	token string
	base  *http.Transport
}

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.token)
	return a.base.RoundTrip(r)
}
