package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Trust in project policies (docs/trust.md). A project policy — the
// .toolguard/policy.toml found at the workspace root — is untrusted, and
// can only tighten, until the user runs `toolguard trust`, which records
// the file's path and SHA-256 in the user's state: one file per trusted
// (path, content) pair under $XDG_STATE_HOME/toolguard/trust/, written by
// rename. A changed file has another hash, so it is untrusted again.

// TrustRecord is one trusted project policy.
type TrustRecord struct {
	Path    string    `json:"path"`
	Hash    string    `json:"hash"` // "sha256:…" of the file's bytes
	Trusted time.Time `json:"trusted"`
}

// TrustKey is the path a record is kept under: absolute, with the
// symlinks of the project directory resolved (so that /home and its real
// path agree) but not those of its last two elements: a repository whose
// .toolguard is a link to a trusted project's .toolguard is not that
// project (its policy applies to another tree).
func TrustKey(path string) string {
	path = filepath.Clean(path)
	dir, file := filepath.Split(path)
	parent, sub := filepath.Split(filepath.Clean(dir))
	if root, err := filepath.EvalSymlinks(parent); err == nil {
		return filepath.Join(root, sub, file)
	}
	return path
}

func ContentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// RecordName is the file name of the record for a path and content hash.
func RecordName(key, hash string) string {
	sum := sha256.Sum256([]byte(key + "\x00" + hash))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// IsTrusted reports whether the user trusted exactly these bytes at path.
func (e Env) IsTrusted(path string, data []byte) bool {
	dir := e.TrustDir()
	if dir == "" {
		return false
	}
	key, hash := TrustKey(path), ContentHash(data)
	b, err := ReadPolicyFile(filepath.Join(dir, RecordName(key, hash))) // regular, bounded, not torn
	if err != nil {
		return false
	}
	// Only what the check compares: decoding the record's time as well
	// (time.Time's parser, run once in a hook) cost ~20 us of the 30.
	var rec struct {
		Path string `json:"path"`
		Hash string `json:"hash"`
	}
	return json.Unmarshal(b, &rec) == nil && rec.Path == key && rec.Hash == hash
}

func readTrustRecord(file string) (TrustRecord, error) {
	var rec TrustRecord
	data, err := ReadPolicyFile(file) // regular, bounded, not torn
	if err != nil {
		return rec, err
	}
	err = json.Unmarshal(data, &rec)
	return rec, err
}

// TrustRecords reads every record in dir, sorted by path then time.
func TrustRecords(dir string) ([]TrustRecord, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []TrustRecord
	for _, n := range names {
		if rec, err := readTrustRecord(n); err == nil && RecordName(rec.Path, rec.Hash) == filepath.Base(n) {
			out = append(out, rec)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Trusted.Before(out[j].Trusted)
	})
	return out, nil
}

// WriteFileAtomic writes data to path by a temporary file in the same
// directory and a rename, so that a reader sees the old file or the new
// one, never a part.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".tmp-"+strings.TrimSuffix(filepath.Base(path), ".json")+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// Trust records that the user trusts the policy file's present bytes, in
// dir (Env.TrustDir); it returns the record.
func Trust(dir, file string, now time.Time) (TrustRecord, error) {
	key := TrustKey(file)
	data, err := ReadPolicyFile(file)
	if err != nil {
		return TrustRecord{}, fmt.Errorf("policy %s: %w", file, err)
	}
	rec := TrustRecord{Path: key, Hash: ContentHash(data), Trusted: now.UTC()}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return rec, err
	}
	return rec, WriteFileAtomic(filepath.Join(dir, RecordName(key, rec.Hash)), append(b, '\n'))
}

// RevokeTrust removes every record of the file key from dir; it returns
// how many.
func RevokeTrust(dir, key string) (int, error) {
	recs, err := TrustRecords(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range recs {
		if r.Path != key {
			continue
		}
		if err := os.Remove(filepath.Join(dir, RecordName(r.Path, r.Hash))); err != nil && !os.IsNotExist(err) {
			return n, err
		}
		n++
	}
	return n, nil
}

// State says whether the record's file still holds the trusted bytes:
// "current", "missing", or "changed (untrusted until trusted again)".
func (r TrustRecord) State() string {
	if data, err := ReadPolicyFile(r.Path); err != nil {
		return "missing"
	} else if ContentHash(data) != r.Hash {
		return "changed (untrusted until trusted again)"
	}
	return "current"
}

// WritePolicyFile writes data to path whole (mode 0644): to a temporary
// file in the same directory, then into place, so that a hook reading the
// policy at that moment sees no file or all of it, never a part. Without
// overwrite the file is put in place with a hard link, which fails if path
// appeared meanwhile (no clobbering what another process wrote); with
// overwrite, or where links are not supported, by a rename.
func WritePolicyFile(path string, data []byte, overwrite bool) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".policy-*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // after a link the name is extra; after a rename it is gone
	err = f.Chmod(0o644)
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if !overwrite {
		err := os.Link(tmp, path)
		if err == nil || errors.Is(err, fs.ErrExist) {
			if err != nil {
				return fmt.Errorf("%s exists; nothing written (use --force to overwrite)", path)
			}
			return nil
		}
		if _, serr := os.Lstat(path); serr == nil {
			return fmt.Errorf("%s exists; nothing written (use --force to overwrite)", path)
		}
	}
	return os.Rename(tmp, path)
}
