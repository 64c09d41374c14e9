// Package pgstore keeps toolguard's approval requests in PostgreSQL, so
// that any number of `toolguard serve` replicas share one truth: an
// approval.Backend (approval.OpenBackend) whose lock is a transaction
// holding an advisory lock, so a single-use grant is used once across
// replicas and a decision is final once, and whose every write sends a
// NOTIFY that each replica's event stream LISTENs for.
//
// The schema is created by the embedded migrations (migrations/*.sql),
// applied in order on Open under an advisory lock and recorded in
// toolguard_schema_migrations.
package pgstore

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/toolguard/toolguard/internal/approval"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Channel is the NOTIFY channel of request changes.
const Channel = "toolguard_approvals"

// Advisory lock keys (arbitrary constants, the same on every replica).
const (
	lockStore     int64 = 0x746f6f6c67756101 // "toolgua" + 1: the store lock
	lockMigration int64 = 0x746f6f6c67756102
)

// DB is a PostgreSQL approval backend.
type DB struct {
	pool *pgxpool.Pool
}

// Open connects to dsn (a postgres:// URL or key=value string) and
// applies the migrations the database lacks.
func Open(ctx context.Context, dsn string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("database: %v", err)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		// a database that does not answer fails a decision (deny), not hangs it
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("database: %v", err)
	}
	db := &DB{pool: pool}
	if err := db.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return db, nil
}

// Close closes the connections.
func (db *DB) Close() { db.pool.Close() }

// Store returns an approval store on db.
func (db *DB) Store() *approval.Store { return approval.OpenBackend(db) }

// migrate applies every migration not yet recorded, each in its own
// transaction, holding a session advisory lock so that replicas starting
// together apply each once.
func (db *DB) migrate(ctx context.Context) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("database: %v", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", lockMigration); err != nil {
		return fmt.Errorf("database: migration lock: %v", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", lockMigration)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS toolguard_schema_migrations (
		version int PRIMARY KEY, name text NOT NULL, applied timestamptz NOT NULL DEFAULT now())`); err != nil {
		return fmt.Errorf("database: %v", err)
	}
	names, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return err
	}
	slices.Sort(names)
	for _, name := range names {
		base := strings.TrimPrefix(name, "migrations/")
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return fmt.Errorf("migration %s: no version number", base)
		}
		var done bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM toolguard_schema_migrations WHERE version = $1)", v).Scan(&done); err != nil {
			return fmt.Errorf("database: %v", err)
		}
		if done {
			continue
		}
		sql, err := migrations.ReadFile(name)
		if err != nil {
			return err
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, string(sql)); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO toolguard_schema_migrations (version, name) VALUES ($1, $2)", v, base)
			return err
		})
		if err != nil {
			return fmt.Errorf("database: migration %s: %v", base, err)
		}
	}
	return nil
}

// Locked runs fn in a transaction holding the store's advisory lock:
// every replica's decisions on requests are serialized, and what fn
// wrote is committed, with one NOTIFY, when it returns nil.
func (db *DB) Locked(ctx context.Context, fn func(approval.Tx) error) error {
	return pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockStore); err != nil {
			return fmt.Errorf("approval store: lock: %v", err)
		}
		t := &dbTx{ctx: ctx, tx: tx}
		if err := fn(t); err != nil {
			return err
		}
		if t.wrote {
			if _, err := tx.Exec(ctx, "SELECT pg_notify($1, '')", Channel); err != nil {
				return fmt.Errorf("approval store: notify: %v", err)
			}
		}
		return nil
	})
}

// Get reads one request outside the lock.
func (db *DB) Get(id string) (approval.Request, error) {
	return readRow(db.pool.QueryRow(context.Background(), "SELECT doc FROM toolguard_approval_requests WHERE id = $1", id), id)
}

func readRow(row pgx.Row, id string) (approval.Request, error) {
	var doc []byte
	if err := row.Scan(&doc); errors.Is(err, pgx.ErrNoRows) {
		return approval.Request{}, fmt.Errorf("%w: %s", approval.ErrNotFound, id)
	} else if err != nil {
		return approval.Request{}, fmt.Errorf("approval store: %v", err)
	}
	return decode(doc, id)
}

func decode(doc []byte, id string) (approval.Request, error) {
	var r approval.Request
	if err := json.Unmarshal(doc, &r); err != nil {
		return approval.Request{}, fmt.Errorf("request %s: %v", id, err)
	}
	if err := approval.ValidateStored(&r, id); err != nil {
		return approval.Request{}, fmt.Errorf("request %s: %v", id, err)
	}
	r.Problem = ""
	return r, nil
}

// dbTx is the store's view inside Locked.
type dbTx struct {
	ctx   context.Context
	tx    pgx.Tx
	wrote bool
}

func (t *dbTx) Load() (reqs, bad []approval.Request, err error) {
	rows, err := t.tx.Query(t.ctx, "SELECT id, doc, updated FROM toolguard_approval_requests")
	if err != nil {
		return nil, nil, fmt.Errorf("approval store: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var doc []byte
		var updated time.Time
		if err := rows.Scan(&id, &doc, &updated); err != nil {
			return nil, nil, fmt.Errorf("approval store: %v", err)
		}
		r, err := decode(doc, id)
		if err != nil {
			bad = append(bad, approval.Request{ID: id, Created: updated, Status: approval.StatusTampered, Problem: err.Error()})
			continue
		}
		reqs = append(reqs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("approval store: %v", err)
	}
	return reqs, bad, nil
}

func (t *dbTx) Read(id string) (approval.Request, error) {
	return readRow(t.tx.QueryRow(t.ctx, "SELECT doc FROM toolguard_approval_requests WHERE id = $1", id), id)
}

func (t *dbTx) Write(ctx context.Context, r approval.Request) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("approval store: %w", err)
	}
	r.Problem = ""
	doc, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode request %s: %v", r.ID, err)
	}
	_, err = t.tx.Exec(t.ctx, `INSERT INTO toolguard_approval_requests (id, key, session, status, created, doc)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (id) DO UPDATE SET key = EXCLUDED.key, session = EXCLUDED.session,
			status = EXCLUDED.status, doc = EXCLUDED.doc, updated = now()`,
		r.ID, r.Key, r.Session, string(r.Status), r.Created, doc)
	if err != nil {
		return fmt.Errorf("approval store: write %s: %v", r.ID, err)
	}
	t.wrote = true
	return nil
}

func (t *dbTx) Remove(id string) error {
	tag, err := t.tx.Exec(t.ctx, "DELETE FROM toolguard_approval_requests WHERE id = $1", id)
	if err != nil {
		return fmt.Errorf("approval store: %v", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %s", approval.ErrNotFound, id)
	}
	t.wrote = true
	return nil
}

func (t *dbTx) Exists(id string) (bool, error) {
	var ok bool
	err := t.tx.QueryRow(t.ctx, "SELECT EXISTS (SELECT 1 FROM toolguard_approval_requests WHERE id = $1)", id).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("approval store: %v", err)
	}
	return ok, nil
}

// Listen calls wake after each committed change of any replica, until
// ctx ends: a dedicated connection LISTENs on Channel, and is dialed
// again (after a pause, calling wake once it is back, for what was missed
// meanwhile) when it breaks.
func (db *DB) Listen(ctx context.Context, wake func(), logf func(string, ...any)) {
	pause := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := db.listenOnce(ctx, wake, func() { pause = 100 * time.Millisecond })
		if ctx.Err() != nil {
			return
		}
		logf("toolguard serve: database notifications: %v (listening again in %v)", err, pause)
		select {
		case <-ctx.Done():
			return
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

func (db *DB) listenOnce(ctx context.Context, wake, ok func()) error {
	conn, err := db.pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "LISTEN "+Channel); err != nil {
		return err
	}
	ok()
	wake() // whatever changed while no one listened
	for {
		if _, err := conn.Conn().WaitForNotification(ctx); err != nil {
			conn.Conn().Close(context.Background()) // not back into the pool, LISTENing
			return err
		}
		wake()
	}
}
