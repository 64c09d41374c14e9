package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
)

// autoScore is what settings.auto_allow = "read-only" does to the corpus
// (docs/auto-allow.md): of the allow records the defaults pass, how many
// are auto-allowed, and why the others are not; and the block records it
// allowed, which must be none.
type autoScore struct {
	Allow       int            // allow records scored
	Passed      int            // … that the defaults pass (the ones auto-allow can change)
	AutoAllowed int            // … that auto-allow allows
	Why         map[string]int // reasons the other passed ones are not, by kind
	Block       int
	BlockAllow  []string // block records the auto-allowing policy allowed
	// BlockAllowLink are those whose verdict rests on a symlink the corpus
	// does not carry (its note says so): with no file system there is no
	// link to resolve; the hook resolves it (Env.Resolve).
	BlockAllowLink []string
	Detail         map[string]int // the full reasons, for -v
}

// autoScoreDir scores every *.jsonl file of dir with auto_allow = "read-only".
func autoScoreDir(dir string) (*autoScore, error) {
	s, err := newScorer()
	if err != nil {
		return nil, err
	}
	s.pol.Settings.AutoAllow = policy.AutoAllowReadOnly
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no *.jsonl files in %s", dir)
	}
	sort.Strings(files)
	a := &autoScore{Why: map[string]int{}, Detail: map[string]int{}}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 1<<16), 16<<20)
		for line := 1; sc.Scan(); line++ {
			text := bytes.TrimSpace(sc.Bytes())
			if len(text) == 0 {
				continue
			}
			var r record
			if err := json.Unmarshal(text, &r); err != nil {
				return nil, fmt.Errorf("%s:%d: %v", file, line, err)
			}
			res, ok := s.result(r)
			if !ok {
				continue
			}
			switch r.Expect {
			case "block":
				a.Block++
				if res.Decision == call.Allow {
					b := fmt.Sprintf("%s:%d (%s, %s)", filepath.Base(file), line, res.Cause, r.Note)
					if strings.Contains(r.Note, "symlink") {
						a.BlockAllowLink = append(a.BlockAllowLink, b)
					} else {
						a.BlockAllow = append(a.BlockAllow, b)
					}
				}
			case "allow":
				a.Allow++
				if res.Decision == call.Allow && res.Cause == policy.AutoReadOnly {
					a.Passed++
					a.AutoAllowed++
				} else if res.Decision == call.Pass {
					a.Passed++
					a.Why[whyKind(res.Auto)]++
					a.Detail[res.Auto]++
				}
			}
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

var whyNoise = regexp.MustCompile(`(?: [^ ]*/[^ ]*| [a-z0-9._-]+\.[a-z]+| \(.*\))`)

// whyKind shortens a reason to its kind: "git push is not in the
// read-only table" stays, paths and details go.
func whyKind(auto string) string {
	w := strings.TrimPrefix(auto, "no — ")
	if i := strings.Index(w, " is not in the read-only table"); i >= 0 {
		return "not in the table: " + w[:i]
	}
	if strings.HasPrefix(w, "unknown option") {
		f := strings.Fields(w)
		if len(f) > 2 {
			return "unknown option of " + f[2]
		}
	}
	if strings.Contains(w, "outside the workspace") {
		return "reads outside the workspace"
	}
	if strings.HasPrefix(w, "rule ") {
		return "a rule asks for a read (secrets)"
	}
	return whyNoise.ReplaceAllString(w, "")
}

func (a *autoScore) report(w io.Writer, verbose bool) {
	share := 0.0
	if a.Allow > 0 {
		share = 100 * float64(a.AutoAllowed) / float64(a.Allow)
	}
	fmt.Fprintf(w, "auto_allow = \"read-only\": %d of %d allow records auto-allowed (%.1f%%); %d passed by the defaults\n",
		a.AutoAllowed, a.Allow, share, a.Passed)
	fmt.Fprintf(w, "block records allowed: %d of %d\n", len(a.BlockAllow), a.Block)
	for _, b := range a.BlockAllow {
		fmt.Fprintf(w, "  ALLOWED %s\n", b)
	}
	for _, b := range a.BlockAllowLink {
		fmt.Fprintf(w, "  allowed without the symlink the record assumes (no file system here; the hook resolves links): %s\n", b)
	}
	type kv struct {
		k string
		n int
	}
	var why []kv
	src := a.Why
	if verbose {
		src = a.Detail
	}
	for k, n := range src {
		why = append(why, kv{k, n})
	}
	sort.Slice(why, func(i, j int) bool { return why[i].n > why[j].n || why[i].n == why[j].n && why[i].k < why[j].k })
	fmt.Fprintln(w, "why the other passed allow records are not auto-allowed (most common first):")
	for i, e := range why {
		if i == 15 && !verbose {
			break
		}
		fmt.Fprintf(w, "  %4d  %s\n", e.n, e.k)
	}
}
