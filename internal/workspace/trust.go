package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
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
