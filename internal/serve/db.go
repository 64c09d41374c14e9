package serve

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"sync"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/approval/pgstore"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/workspace"
)

// openStore opens serve's approval store: the state directory dir, or
// with --database the PostgreSQL store every replica shares. In database
// mode sys is pointed at it (sys.Approvals, sys.AppendAudit), so the hook
// calls serve decides (POST /v1/hooks) use it too and their audit lines go
// to the database's chain (the summary reads it, o.readAudit); changes is
// signalled on every change any replica commits (LISTEN) for the event
// streams and webhooks. where names the store for the log (a URL without
// its password); closeDB stops the listener and closes the connections.
func openStore(ctx context.Context, sys *guard.System, o *Options, ps *workspace.Set, dir string) (st *approval.Store, changes <-chan struct{}, where string, closeDB func(), problems []string, err error) {
	if o.database == "" {
		st, problems, err = guard.OpenStore(sys.Env, o.StateDir, ps.Pol, false)
		return st, nil, dir, func() {}, problems, err
	}
	u, perr := url.Parse(o.database)
	if perr != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		return nil, nil, "", nil, nil, workspace.Usagef("--database wants a postgres:// URL")
	}
	db, err := pgstore.Open(ctx, o.database)
	if err != nil {
		return nil, nil, "", nil, nil, err
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
		}, func(f string, a ...any) { fmt.Fprintf(sys.Stderr, f+"\n", a...) })
	}()
	st = db.Store()
	trusted, problems := guard.TrustedKeys(sys.Env, ps.Pol)
	st.Trust(trusted)
	sys.Approvals = st
	sys.AppendAudit = func(ctx context.Context, _ string, rec audit.Record) error { return db.AppendAudit(ctx, rec) }
	o.appendLine = func(ctx context.Context, _ string, rec audit.Record) (audit.Record, string, error) {
		return db.AppendAuditLine(ctx, rec)
	}
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
	return st, ch, u.Redacted(), closeDB, problems, nil
}
