package pgstore

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/approval/pgstore/pgtest"
)

var (
	t0      = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	signer  = approval.Signer{Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{7}, ed25519.SeedSize)), User: "tester"}
	keyring = approval.Keyring{signer.Key.Public().(ed25519.PublicKey)}
)

// replicas opens n connections to one fresh database, as n servers
// would, each with its own approval store.
func replicas(t *testing.T, n int) ([]*DB, []*approval.Store) {
	t.Helper()
	dsn := pgtest.DSN(t)
	lastDSN = dsn
	var dbs []*DB
	var sts []*approval.Store
	for range n {
		db, err := Open(context.Background(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(db.Close)
		st := db.Store()
		st.Trust(keyring)
		dbs, sts = append(dbs, db), append(sts, st)
	}
	return dbs, sts
}

func create(t *testing.T, st *approval.Store, key string) approval.Request {
	t.Helper()
	r, err := st.Create(approval.Request{Key: key, Summary: "git tag v1", Tool: "Bash", Session: "s1"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestLifecycle: the store's rules hold on PostgreSQL as on files, and
// what one replica writes the other reads.
func TestLifecycle(t *testing.T) {
	_, st := replicas(t, 2)
	a, b := st[0], st[1]
	r := create(t, a, "k1")
	if again := create(t, b, "k1"); again.ID != r.ID {
		t.Fatalf("the other replica made a second pending request %s (want %s)", again.ID, r.ID)
	}
	if out, err := b.Check(context.Background(), "k1", t0); err != nil || out.Kind != approval.Pending || out.ID != r.ID {
		t.Fatalf("Check = %+v, %v", out, err)
	}
	if h, err := a.SessionHold("s1", t0); err != nil || h.Kind != approval.HoldPending {
		t.Fatalf("SessionHold = %+v, %v", h, err)
	}
	if _, err := a.Approve(r.ID, time.Hour, 1, t0, signer); err != nil {
		t.Fatal(err)
	}
	if out, err := b.Check(context.Background(), "k1", t0.Add(time.Second)); err != nil || out.Kind != approval.Granted {
		t.Fatalf("Check after approve = %+v, %v", out, err)
	}
	if out, _ := a.Check(context.Background(), "k1", t0.Add(2*time.Second)); out.Kind != approval.None {
		t.Fatalf("the single use was given twice: %+v", out)
	}
	got, err := b.Get(r.ID)
	if err != nil || got.Status != approval.StatusConsumed || got.Problem != "" {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	if _, ok, err := a.RecordResult("k1", approval.Result{Time: t0.Add(3 * time.Second), Outcome: "success"}); err != nil || !ok {
		t.Fatalf("RecordResult: %v %v", ok, err)
	}
	list, err := b.List(t0.Add(time.Minute))
	if err != nil || len(list) != 1 || len(list[0].Results) != 1 {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if _, err := a.Get("req_none"); !errors.Is(err, approval.ErrNotFound) {
		t.Errorf("Get of nothing: %v", err)
	}
	// A grant signed by a key the store does not trust allows nothing.
	r2 := create(t, a, "k2")
	other := approval.Signer{Key: ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))}
	if _, err := a.Approve(r2.ID, time.Hour, 1, t0, other); err != nil {
		t.Fatal(err)
	}
	if out, _ := b.Check(context.Background(), "k2", t0); out.Kind == approval.Granted {
		t.Fatal("an untrusted grant allowed the call")
	}
	// Migrations are applied once: opening again changes nothing.
	if _, err := Open(context.Background(), pgtestDSN(t, a)); err != nil {
		t.Fatal(err)
	}
}

// pgtestDSN is the DSN of st's database (for a second Open).
func pgtestDSN(t *testing.T, _ *approval.Store) string {
	t.Helper()
	return lastDSN
}

var lastDSN string

// TestGrantUsedOnceAcrossReplicas: 200 concurrent uses of one single-use
// grant, split across two replicas, 10 rounds: exactly one is granted.
func TestGrantUsedOnceAcrossReplicas(t *testing.T) {
	_, st := replicas(t, 2)
	for round := range 10 {
		key := fmt.Sprintf("k%d", round)
		r := create(t, st[0], key)
		if _, err := st[1].Approve(r.ID, time.Hour, 1, t0, signer); err != nil {
			t.Fatal(err)
		}
		var granted, errs atomic.Int32
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				out, err := st[i%2].Check(context.Background(), key, t0.Add(time.Second))
				switch {
				case err != nil:
					errs.Add(1)
					t.Log(err)
				case out.Kind == approval.Granted:
					granted.Add(1)
				}
			}()
		}
		close(start)
		wg.Wait()
		if granted.Load() != 1 || errs.Load() != 0 {
			t.Fatalf("round %d: %d uses granted, %d errors (want exactly 1, 0)", round, granted.Load(), errs.Load())
		}
	}
}

// TestDecisionFinalAcrossReplicas: approve against reject from two
// replicas at once, 20 rounds: exactly one wins, the other is told which.
func TestDecisionFinalAcrossReplicas(t *testing.T) {
	_, st := replicas(t, 2)
	for round := range 20 {
		r := create(t, st[0], fmt.Sprintf("k%d", round))
		var wg sync.WaitGroup
		errs := make([]error, 8)
		start := make(chan struct{})
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if i%2 == 0 {
					_, errs[i] = st[i%2].Approve(r.ID, time.Hour, 1, t0, signer)
				} else {
					_, errs[i] = st[i%2].Reject(r.ID, "no", t0)
				}
			}()
		}
		close(start)
		wg.Wait()
		wins := 0
		got, _ := st[0].Get(r.ID)
		for i, err := range errs {
			var de *approval.DecidedError
			switch {
			case err == nil:
				wins++
			case errors.As(err, &de):
				if want := map[approval.Status]approval.Status{approval.StatusApproved: approval.StatusApproved, approval.StatusRejected: approval.StatusRejected}[got.Status]; de.Won != want {
					t.Errorf("round %d: loser %d told %s won, the store says %s", round, i, de.Won, got.Status)
				}
			default:
				t.Fatalf("round %d: %v", round, err)
			}
		}
		if wins != 1 {
			t.Fatalf("round %d: %d decisions succeeded, want 1", round, wins)
		}
	}
}

// TestNotify: a change committed by one replica wakes the other's
// listener within a second.
func TestNotify(t *testing.T) {
	dbs, st := replicas(t, 2)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	woke := make(chan struct{}, 16)
	listening := make(chan struct{}, 1)
	go dbs[1].Listen(ctx, func() {
		select {
		case listening <- struct{}{}:
		default:
		}
		select {
		case woke <- struct{}{}:
		default:
		}
	}, t.Logf)
	select {
	case <-listening: // the first wake comes once LISTEN is in place
	case <-time.After(5 * time.Second):
		t.Fatal("the listener never started")
	}
	for len(woke) > 0 {
		<-woke
	}
	start := time.Now()
	create(t, st[0], "k")
	select {
	case <-woke:
		t.Logf("notified after %v", time.Since(start))
	case <-time.After(time.Second):
		t.Fatal("no notification within 1 s")
	}
	// A transaction that fails writes nothing and notifies nothing.
	err := dbs[0].Locked(context.Background(), func(tx approval.Tx) error {
		if err := tx.Write(context.Background(), approval.Request{ID: "req_rolledback", Key: "x", Status: approval.StatusPending}); err != nil {
			return err
		}
		return errors.New("abort")
	})
	if err == nil {
		t.Fatal("Locked returned no error")
	}
	if _, err := st[1].Get("req_rolledback"); !errors.Is(err, approval.ErrNotFound) {
		t.Errorf("a rolled-back write is visible: %v", err)
	}
	select {
	case <-woke:
		t.Error("a rolled-back write notified")
	case <-time.After(300 * time.Millisecond):
	}
}

// TestStopOnceAcrossReplicas: a reject with stop (the inbox's "cancel the
// turn") made on one replica is the session's next hold on the other, and
// of 20 concurrent holds split across both replicas exactly one is the
// stop: it is given once.
func TestStopOnceAcrossReplicas(t *testing.T) {
	_, st := replicas(t, 2)
	r := create(t, st[0], "k-stop")
	out, err := st[0].RejectStop(r.ID, "not on main", t0)
	if err != nil || !out.Stop || out.Status != approval.StatusRejected {
		t.Fatalf("RejectStop = %+v, %v", out, err)
	}
	if h, err := st[1].SessionHold("s2", t0); err != nil || h.Kind == approval.HoldStop {
		t.Fatalf("another session is stopped: %+v, %v", h, err)
	}
	var stops atomic.Int32
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := st[i%2].SessionHold("s1", t0.Add(time.Second))
			if err != nil {
				t.Error(err)
				return
			}
			if h.Kind == approval.HoldStop {
				if h.Request.ID != r.ID || h.Request.RejectReason != "not on main" {
					t.Errorf("the stop names %+v", h.Request)
				}
				stops.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := stops.Load(); n != 1 {
		t.Fatalf("the stop was given %d times (want once)", n)
	}
	got, err := st[1].Get(r.ID)
	if err != nil || !got.Stop || got.StopDelivered.IsZero() {
		t.Fatalf("after the stop: %+v, %v", got, err)
	}
}
