package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/shellparse"
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
	rec, err := readTrustRecord(filepath.Join(dir, recordName(key, hash)))
	return err == nil && rec.Path == key && rec.Hash == hash
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

type trustOptions struct {
	list   bool
	revoke bool
}

func newTrustCmd(sys *system) *cobra.Command {
	var o trustOptions
	cmd := &cobra.Command{
		Use:   "trust [FILE]",
		Short: "Trust a project policy, so that it may loosen the policy (list, revoke)",
		Long: `trust records the SHA-256 of a project policy (default: .toolguard/policy.toml at
the top of the current directory's project) in the user's state. Until then the
file is untrusted: its deny and ask rules apply, but nothing that would loosen the
policy (allow rules, builtin = false, disable, a looser default, ...). Editing the
file makes it untrusted again. See docs/trust.md.

  toolguard trust                     trust this project's .toolguard/policy.toml
  toolguard trust --list              the trusted files, and whether each still matches
  toolguard trust --revoke [FILE]     forget every trust record of the file`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return usagef("trust takes at most one file (got %q)", strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runTrust(sys, &o, args) },
	}
	cmd.Flags().BoolVar(&o.list, "list", false, "list the trusted project policies")
	cmd.Flags().BoolVar(&o.revoke, "revoke", false, "revoke the trust in FILE")
	return cmd
}

func runTrust(sys *system, o *trustOptions, args []string) error {
	dir := trustDir(sys)
	if dir == "" {
		return fmt.Errorf("no state directory: set HOME or XDG_STATE_HOME")
	}
	if o.list {
		if o.revoke || len(args) > 0 {
			return usagef("trust --list takes no file and no --revoke")
		}
		return listTrust(sys, dir)
	}
	cwd, err := sys.getwd()
	if err != nil {
		return err
	}
	file := filepath.Join(projectDir(sys), ".toolguard", "policy.toml")
	if len(args) == 1 {
		file = argPath(args[0], cwd, sys.home())
	}
	key := trustKey(file)
	if o.revoke {
		n, err := revokeTrust(dir, key)
		if err != nil {
			return err
		}
		fmt.Fprintf(sys.stdout, "revoked %d trust record(s) for %s\n", n, key)
		return nil
	}
	data, err := readPolicyFile(file)
	if err != nil {
		return fmt.Errorf("policy %s: %w", file, err)
	}
	rec := trustRecord{Path: key, Hash: contentHash(data), Trusted: sys.now().UTC()}
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, recordName(key, rec.Hash)), append(b, '\n')); err != nil {
		return err
	}
	fmt.Fprintf(sys.stdout, "trusted %s (%s)\n", key, rec.Hash)
	return nil
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

func listTrust(sys *system, dir string) error {
	recs, err := trustRecords(dir)
	if err != nil {
		return err
	}
	for _, r := range recs {
		state := "current"
		if data, err := readPolicyFile(r.Path); err != nil {
			state = "missing"
		} else if contentHash(data) != r.Hash {
			state = "changed (untrusted until trusted again)"
		}
		fmt.Fprintf(sys.stdout, "%s\t%s\t%s\t%s\n", r.Path, r.Hash, r.Trusted.Format(time.RFC3339), state)
	}
	return nil
}

// revokeTrust removes every record of the file key; it returns how many.
func revokeTrust(dir, key string) (int, error) {
	recs, err := trustRecords(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, r := range recs {
		if r.Path != key {
			continue
		}
		if err := os.Remove(filepath.Join(dir, recordName(r.Path, r.Hash))); err != nil && !os.IsNotExist(err) {
			return n, err
		}
		n++
	}
	return n, nil
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

// ignoredPart is one part of an untrusted project policy that was not
// applied, as check, doctor and the audit log report it.
type ignoredPart struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	Rule string `json:"rule,omitempty"`
	What string `json:"what"`
	Fix  string `json:"fix"`
}

// ignoredParts lists what the untrusted layers of pol asked for and did
// not get, each with the command that would trust its file.
func ignoredParts(sys *system, pol *policy.Policy) []ignoredPart {
	if pol == nil || len(pol.Ignored) == 0 {
		return nil
	}
	cwd, _ := sys.getwd()
	out := make([]ignoredPart, 0, len(pol.Ignored))
	for _, p := range pol.Ignored {
		name := p.File
		if rel, err := filepath.Rel(cwd, p.File); err == nil && !strings.HasPrefix(rel, "..") {
			name = rel
		}
		out = append(out, ignoredPart{File: p.File, Line: p.Line, Rule: p.Rule, What: p.Msg,
			Fix: fmt.Sprintf("run `toolguard trust %s` to apply it", shellparse.Quote(name))})
	}
	return out
}

func (p ignoredPart) String() string {
	where := p.File
	if p.Line > 0 {
		where = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	rule := ""
	if p.Rule != "" {
		rule = fmt.Sprintf("rule %q: ", p.Rule)
	}
	return fmt.Sprintf("%s: %s%s — %s", where, rule, p.What, p.Fix)
}

// writeIgnored prints the ignored parts of untrusted policies, if any.
func writeIgnored(w io.Writer, parts []ignoredPart) {
	if len(parts) == 0 {
		return
	}
	fmt.Fprintln(w, "ignored (untrusted project policy, it can only tighten):")
	for _, p := range parts {
		fmt.Fprintf(w, "  %s\n", p)
	}
}

// nestedMax bounds the directories nestedPolicies looks at.
const nestedMax = 20000

// nestedPolicies lists the .toolguard/policy.toml files below the
// workspace root (not the root's own), which discovery never reads, for
// doctor. It looks at most at nestedMax directories and skips .git and
// node_modules.
func nestedPolicies(root string) []string {
	if root == "" {
		return nil
	}
	var out []string
	seen := 0
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		if seen++; seen > nestedMax {
			return filepath.SkipAll
		}
		switch d.Name() {
		case ".git", "node_modules":
			return filepath.SkipDir
		case ".toolguard":
			if filepath.Dir(p) != root {
				if _, err := os.Lstat(filepath.Join(p, "policy.toml")); err == nil {
					out = append(out, filepath.Join(p, "policy.toml"))
				}
			}
			return filepath.SkipDir
		}
		return nil
	})
	return out
}
