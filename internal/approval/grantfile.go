package approval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/filelock"
)

// GrantFile is a signed grant handed over as a file: a platform that
// cannot (or should not) write the sandbox's state directory signs the
// grant outside and puts it in a grants directory the hook reads
// ([Store.UseGrants]), which may be read-only for the hook. Its signature
// is the one a stored grant carries: it covers ID, Key and the grant's
// signed fields, so a grant file can be copied but not changed.
type GrantFile struct {
	Version string `json:"version"` // grantVersion, or grantVersionEdit for a grant with an Edit
	ID      string `json:"id"`
	Key     string `json:"key"`
	Summary string `json:"summary,omitempty"` // not signed: for the reader
	Grant   Grant  `json:"grant"`
}

// maxGrantFile bounds what a grant file may hold.
const maxGrantFile = 64 << 10

// NewGrant signs a grant of uses calls until now+ttl for request r.
func NewGrant(r Request, ttl time.Duration, uses int, now time.Time, signer Signer) (GrantFile, error) {
	return NewEditedGrant(r, ttl, uses, now, signer, nil)
}

// NewEditedGrant is NewGrant for the call as a human edited it (nil: as
// it is). The edit must name a field, an input and the edited call's key.
func NewEditedGrant(r Request, ttl time.Duration, uses int, now time.Time, signer Signer, edit *Edit) (GrantFile, error) {
	if ttl <= 0 {
		return GrantFile{}, fmt.Errorf("approve %s: ttl %v is not positive", r.ID, ttl)
	}
	if uses < 1 {
		return GrantFile{}, fmt.Errorf("approve %s: %d uses (want at least 1)", r.ID, uses)
	}
	g := Grant{Approved: now, Expires: now.Add(ttl), Uses: uses, UsesLeft: uses}
	version := grantVersion
	if edit != nil {
		if edit.Field == "" || edit.Input == "" || edit.Key == "" {
			return GrantFile{}, fmt.Errorf("approve %s: an edit needs a field, an input and a key", r.ID)
		}
		if edit.Key == r.Key {
			return GrantFile{}, fmt.Errorf("approve %s: the edited call is the call itself", r.ID)
		}
		e := *edit
		g.Edit = &e
		version = grantVersionEdit
	}
	if err := signer.sign(r.ID, r.Key, &g); err != nil {
		return GrantFile{}, err
	}
	return GrantFile{Version: version, ID: r.ID, Key: r.Key, Summary: r.Summary, Grant: g}, nil
}

// WriteGrantFile stores gf as dir/<id>.json, atomically (temporary file
// and rename), and returns the path.
func WriteGrantFile(dir string, gf GrantFile) (string, error) {
	if err := checkID(gf.ID); err != nil {
		return "", err
	}
	data, err := json.MarshalIndent(gf, "", "  ")
	if err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return "", err
	}
	tmp := f.Name()
	_, err = f.Write(append(data, '\n'))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	path := filepath.Join(dir, gf.ID+".json")
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return "", err
	}
	filelock.SyncDir(dir)
	return path, nil
}

// readGrantFile reads one grant file: a regular file (not a symlink) of at
// most 64 KiB holding one GrantFile of this version. Its mode is not
// checked: a grant is not secret, its signature is what counts.
func readGrantFile(path string) (GrantFile, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return GrantFile{}, err
	}
	if !fi.Mode().IsRegular() {
		return GrantFile{}, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return GrantFile{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxGrantFile+1))
	if err != nil {
		return GrantFile{}, err
	}
	if len(data) > maxGrantFile {
		return GrantFile{}, fmt.Errorf("%s: larger than %d bytes", path, maxGrantFile)
	}
	var gf GrantFile
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&gf); err != nil || dec.More() {
		return GrantFile{}, fmt.Errorf("%s: not a grant file", path)
	}
	if want := grantVersionOf(&gf.Grant); gf.Version != want {
		return GrantFile{}, fmt.Errorf("%s: version %q (want %s)", path, gf.Version, want)
	}
	if !ValidID(gf.ID) || gf.Key == "" {
		return GrantFile{}, fmt.Errorf("%s: bad id or key", path)
	}
	return gf, nil
}

// UseGrants makes Check also honour the grant files in dir (see
// GrantFile). A grant file counts only if its signature verifies against
// the trusted keys; its uses are counted in the store: the first use
// records the grant on the request of its id (made if there is none),
// and a grant file already recorded is not recorded again.
func (s *Store) UseGrants(dir string) { s.grantsDir = dir }

// importGrants lays the grant files for key over reqs (in memory; Check
// writes the one it consumes) and returns reqs.
func (s *Store) importGrants(t Tx, reqs []Request, key string, now time.Time) []Request {
	if s.grantsDir == "" {
		return reqs
	}
	entries, err := os.ReadDir(s.grantsDir)
	if err != nil {
		return reqs
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue
		}
		gf, err := readGrantFile(filepath.Join(s.grantsDir, name))
		if err != nil || gf.Key != key && (gf.Grant.Edit == nil || gf.Grant.Edit.Key != key) {
			continue
		}
		g := gf.Grant
		cand := Request{ID: gf.ID, Key: gf.Key, Grant: &g}
		if cand.verify(s.trusted) != nil || g.UsesLeft != g.Uses || !now.Before(g.Expires) {
			continue
		}
		i := -1
		for j := range reqs {
			if reqs[j].ID == gf.ID {
				i = j
				break
			}
		}
		if i < 0 {
			if exists, err := t.Exists(gf.ID); err != nil || exists {
				continue // a request of that id that could not be read
			}
			reqs = append(reqs, Request{ID: gf.ID, Key: gf.Key, Created: g.Approved, Status: StatusApproved,
				Summary: gf.Summary, Decided: g.Approved, Grant: &g})
			continue
		}
		r := &reqs[i]
		switch {
		case r.Key != gf.Key:
			continue
		case r.Grant != nil && r.Grant.Signature == g.Signature:
			continue // recorded already: the store counts its uses
		case r.Grant != nil && !g.Approved.After(r.Grant.Approved):
			continue // an older grant than the one recorded
		case r.Status == StatusRejected && !g.Approved.After(r.Decided):
			continue // rejected after this grant was signed
		}
		r.Status, r.Decided, r.RejectReason, r.Grant, r.Problem = StatusApproved, g.Approved, "", &g, ""
	}
	return reqs
}

// grantVersionOf is the encoding g is signed under.
func grantVersionOf(g *Grant) string {
	if g.Edit != nil {
		return grantVersionEdit
	}
	return grantVersion
}
