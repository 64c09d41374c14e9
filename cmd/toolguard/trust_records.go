package main

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

// trustRecord is one trusted project policy.
type trustRecord struct {
	Path    string    `json:"path"`
	Hash    string    `json:"hash"` // "sha256:…" of the file's bytes
	Trusted time.Time `json:"trusted"`
}

// trustDir is where trust records live: $XDG_STATE_HOME/toolguard/trust,
// else ~/.local/state/toolguard/trust. Neither settings.state_dir nor
// --state-dir moves it: a policy cannot vouch for itself.
func trustDir(sys *system) string {
	if x := sys.getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "toolguard", "trust")
	}
	if h := sys.home(); h != "" {
		return filepath.Join(h, ".local", "state", "toolguard", "trust")
	}
	return ""
}

// trustKey is the path a record is kept under: absolute, with the
// symlinks of the project directory resolved (so that /home and its real
// path agree) but not those of its last two elements: a repository whose
// .toolguard is a link to a trusted project's .toolguard is not that
// project (its policy applies to another tree).
func trustKey(path string) string {
	path = filepath.Clean(path)
	dir, file := filepath.Split(path)
	parent, sub := filepath.Split(filepath.Clean(dir))
	if root, err := filepath.EvalSymlinks(parent); err == nil {
		return filepath.Join(root, sub, file)
	}
	return path
}

func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// recordName is the file name of the record for a path and content hash.
func recordName(key, hash string) string {
	sum := sha256.Sum256([]byte(key + "\x00" + hash))
	return hex.EncodeToString(sum[:16]) + ".json"
}

// isTrusted reports whether the user trusted exactly these bytes at path.
func isTrusted(sys *system, path string, data []byte) bool {
	dir := trustDir(sys)
	if dir == "" {
		return false
	}
	key, hash := trustKey(path), contentHash(data)
	b, err := readPolicyFile(filepath.Join(dir, recordName(key, hash))) // regular, bounded, not torn
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

func readTrustRecord(file string) (trustRecord, error) {
	var rec trustRecord
	data, err := readPolicyFile(file) // regular, bounded, not torn
	if err != nil {
		return rec, err
	}
	err = json.Unmarshal(data, &rec)
	return rec, err
}

// trustRecords reads every record in dir, sorted by path then time.
func trustRecords(dir string) ([]trustRecord, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	var out []trustRecord
	for _, n := range names {
		if rec, err := readTrustRecord(n); err == nil && recordName(rec.Path, rec.Hash) == filepath.Base(n) {
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

// writeFileAtomic writes data to path by a temporary file in the same
// directory and a rename, so that a reader sees the old file or the new
// one, never a part.
func writeFileAtomic(path string, data []byte) error {
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
