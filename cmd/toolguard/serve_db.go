//go:build serve

package main

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"sync"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/approval/pgstore"
	"github.com/toolguard/toolguard/internal/audit"
)

// serveStore opens serve's approval store: the state directory dir, or
// with --database the PostgreSQL store every replica shares. In database
// mode the hook calls serve decides (POST /v1/hooks) use it too, the
// audit lines go to the database's chain (the summary reads it), and
// changes is signalled on every change any replica commits (LISTEN) for
// the event streams and webhooks. where names the store for the log (a
// URL without its password); closeDB stops the listener and closes the
// connections.
func serveStore(ctx context.Context, sys *system, o *serveOptions, dir string) (st *approval.Store, changes <-chan struct{}, where string, closeDB func(), err error) {
	if o.database == "" {
		st, err = approval.Open(dir)
		return st, nil, dir, func() {}, err
	}
	u, perr := url.Parse(o.database)
	if perr != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, nil, "", nil, usagef("--database wants a postgres:// URL")
	}
	db, err := pgstore.Open(ctx, o.database)
	if err != nil {
		return nil, nil, "", nil, err
	}
	lctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	ch := make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		db.Listen(lctx, func() {
			select {
			case ch <- struct{}{}:
			default: // a look at the store is due already
			}
		}, func(f string, a ...any) { fmt.Fprintf(sys.stderr, f+"\n", a...) })
	}()
	sys.openApprovals = func(string) (*approval.Store, error) { return db.Store(), nil }
	sys.appendAudit = func(ctx context.Context, _ string, rec audit.Record) error { return db.AppendAudit(ctx, rec) }
	o.readAudit = func() ([]audit.Record, error) {
		var b bytes.Buffer
		if err := db.WriteAudit(context.Background(), &b); err != nil {
			return nil, err
		}
		recs, _ := audit.Read(&b)
		return recs, nil
	}
	closeDB = func() {
		cancel()
		wg.Wait()
		db.Close()
	}
	return db.Store(), ch, u.Redacted(), closeDB, nil
}
