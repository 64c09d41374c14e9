package pgstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/jackc/pgx/v5"

	"github.com/toolguard/toolguard/internal/audit"
)

// lockAudit serializes appends to the audit chain across replicas.
const lockAudit int64 = 0x746f6f6c67756103

// AppendAudit appends rec to the audit chain in the database: in a
// transaction holding the chain's advisory lock, rec.Prev is set to the
// SHA-256 of the last line (audit.Genesis for the first), as the file log
// chains its lines, so WriteAudit's output passes `toolguard audit
// verify` (audit.Verify).
func (db *DB) AppendAudit(ctx context.Context, rec audit.Record) error {
	_, _, err := db.AppendAuditLine(ctx, rec)
	return err
}

// AppendAuditLine is AppendAudit that also returns the line as written:
// rec with its Prev set, and the line's hash (the prev of the line after
// it), as audit.AppendLine does for the file.
func (db *DB) AppendAuditLine(ctx context.Context, rec audit.Record) (written audit.Record, hash string, err error) {
	err = pgx.BeginFunc(ctx, db.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", lockAudit); err != nil {
			return fmt.Errorf("audit: lock: %v", err)
		}
		var last string
		prev := audit.Genesis
		err := tx.QueryRow(ctx, "SELECT line FROM toolguard_audit ORDER BY seq DESC LIMIT 1").Scan(&last)
		switch {
		case err == nil:
			sum := sha256.Sum256([]byte(last))
			prev = hex.EncodeToString(sum[:])
		case !errors.Is(err, pgx.ErrNoRows):
			return fmt.Errorf("audit: %v", err)
		}
		rec.Prev = prev
		line, err := rec.MarshalLine()
		if err != nil {
			return err
		}
		body := bytes.TrimSuffix(line, []byte("\n"))
		if _, err := tx.Exec(ctx, "INSERT INTO toolguard_audit (line) VALUES ($1)", string(body)); err != nil {
			return fmt.Errorf("audit: %v", err)
		}
		sum := sha256.Sum256(body)
		written, hash = rec, hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		return rec, "", err
	}
	return written, hash, nil
}

// WriteAudit writes the audit chain to w as the JSONL log, oldest first.
func (db *DB) WriteAudit(ctx context.Context, w io.Writer) error {
	rows, err := db.pool.Query(ctx, "SELECT line FROM toolguard_audit ORDER BY seq")
	if err != nil {
		return fmt.Errorf("audit: %v", err)
	}
	defer rows.Close()
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return fmt.Errorf("audit: %v", err)
		}
		if _, err := io.WriteString(w, line+"\n"); err != nil {
			return err
		}
	}
	return rows.Err()
}
