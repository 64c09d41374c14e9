package approval

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Backend is where a Store keeps its requests. The Store holds every rule
// of what a request may become (Check, Create, Approve, Reject, the
// session holds); a backend only stores, under one lock: the file store
// (Open) a directory of JSON files with a file lock, PostgreSQL
// (internal/approval/pgstore) a table and a transaction holding an
// advisory lock, so that any number of servers share one truth.
type Backend interface {
	// Locked runs fn holding the store's exclusive lock; every read and
	// write of fn goes through the Tx it is given and takes effect when
	// fn returns nil (a database rolls back on an error; a file store
	// has written each request as it went).
	Locked(ctx context.Context, fn func(Tx) error) error
	// Get reads one request without the lock: ErrNotFound (wrapped)
	// when there is none.
	Get(id string) (Request, error)
}

// Tx is the store's view inside Backend.Locked.
type Tx interface {
	// Load returns every request, and those that cannot be used as
	// StatusTampered entries in bad (with the reason in Problem).
	Load() (reqs, bad []Request, err error)
	Read(id string) (Request, error) // ErrNotFound (wrapped) when there is none
	// Write stores r, whole; it gives up, storing nothing, if ctx is done.
	Write(ctx context.Context, r Request) error
	Remove(id string) error // ErrNotFound (wrapped) when there is none
	Exists(id string) (bool, error)
}

// ValidateStored reports why r, stored under id, is not a usable request:
// its id differs, its key is empty, its status unknown, or it is approved
// without a grant. A backend checks every request it reads with it.
func ValidateStored(r *Request, id string) error { return r.validate(id) }

// VerifyGrant reports why r's grant does not verify against k (nil when
// it does, or r has none to verify).
func (k Keyring) VerifyRequest(r *Request) error {
	if r.Status == StatusApproved || r.Grant != nil {
		return r.verify(k)
	}
	return nil
}

// locked runs fn under the backend's lock.
func (s *Store) locked(fn func(Tx) error) error {
	return s.be.Locked(context.Background(), fn)
}

// fileBackend is the directory store: requests/<id>.json, written
// atomically, under an flock on the file lock.
type fileBackend struct{ dir string }

func (b *fileBackend) Locked(_ context.Context, fn func(Tx) error) error {
	return b.lock(func() error { return fn(fileTx{b}) })
}

func (b *fileBackend) Get(id string) (Request, error) { return b.read(id) }

type fileTx struct{ b *fileBackend }

func (t fileTx) Load() ([]Request, []Request, error)        { return t.b.loadFiles() }
func (t fileTx) Read(id string) (Request, error)            { return t.b.read(id) }
func (t fileTx) Write(ctx context.Context, r Request) error { return t.b.writeCtx(ctx, r) }

func (t fileTx) Remove(id string) error {
	err := os.Remove(t.b.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	return err
}

func (t fileTx) Exists(id string) (bool, error) {
	_, err := os.Lstat(t.b.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return true, nil // a file that exists, or one that cannot even be looked at
}

// path is the file of request id in a file store.
func (s *Store) path(id string) string { return (&fileBackend{dir: s.dir}).path(id) }
