package e2e

// The namespace side of TestSystemMode (system_test.go): the mounts that give a run its own
// /etc, /usr/local, /var/lib, /var/log and /run without touching the host's, and the
// checkpoint the fake model takes between two tool calls (the guard's surfaces hashed, the
// audit chain verified, the origin's branch, the tag, the approval server's health).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// systemSpec travels in the child's spec.json.
type systemSpec struct {
	// Overlays are host directories each run sees through an overlay whose upper layer is
	// Upper/<name>/upper: what `install --system` and useradd write there stays across the
	// runs of one test and never reaches the host.
	Overlays []string `json:"overlays"`
	Upper    string   `json:"upper"`
	// Tmpfs are directories given a fresh tmpfs in every run (e.g. /run/toolguard made by
	// the install; listed only when it must not persist).
	Tmpfs []string  `json:"tmpfs,omitempty"`
	Check checkSpec `json:"check"`
}

// checkSpec says what a checkpoint looks at.
type checkSpec struct {
	Surfaces   []string `json:"surfaces"`    // files and directories hashed (recursively)
	VerifyArgv []string `json:"verify_argv"` // `toolguard audit verify …` (the test's own build, as root)
	Origin     string   `json:"origin"`      // the bare origin repository
	Proj       string   `json:"proj"`        // the project (for the tag)
	Sock       string   `json:"sock,omitempty"`
	// Request, when set, is an approval request id whose status is read with StatusArgv
	// (root) and recorded.
	StatusArgv []string `json:"status_argv,omitempty"`
}

// checkpoint is one look at the guard between two tool calls.
type checkpoint struct {
	N         int               `json:"n"` // tool results so far in this run (0: a step)
	Result    string            `json:"result,omitempty"`
	Hashes    map[string]string `json:"hashes"`
	VerifyRC  int               `json:"verify_rc"`
	VerifyOut string            `json:"verify_out"`
	Origin    string            `json:"origin"`
	Tag       bool              `json:"tag"`
	Server    string            `json:"server,omitempty"` // "ok" or why not ("" when no socket)
	Status    string            `json:"status,omitempty"`
	Took      float64           `json:"took_s"`
}

func overlayDirs(upper, dir string) (string, string) {
	base := filepath.Join(upper, strings.ReplaceAll(strings.Trim(dir, "/"), "/", "-"))
	return filepath.Join(base, "upper"), filepath.Join(base, "work")
}

// mount lays the overlays and tmpfs mounts (the child runs under unshare -m, whose mounts
// are private: nothing propagates to the host).
func (s *systemSpec) mount() error {
	for _, d := range s.Overlays {
		up, work := overlayDirs(s.Upper, d)
		for _, x := range []string{up, work} {
			if err := os.MkdirAll(x, 0o755); err != nil {
				return err
			}
		}
		opts := fmt.Sprintf("lowerdir=%s,upperdir=%s,workdir=%s", d, up, work)
		if err := syscall.Mount("overlay", d, "overlay", 0, opts); err != nil {
			return fmt.Errorf("overlay on %s (%s): %w", d, opts, err)
		}
	}
	for _, d := range s.Tmpfs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
		if err := syscall.Mount("tmpfs", d, "tmpfs", 0, "mode=0755"); err != nil {
			return fmt.Errorf("tmpfs on %s: %w", d, err)
		}
	}
	return nil
}

// checkpointer returns the fake model's onResult: a checkpoint after every tool result,
// appended to <logdir>/checkpoints.jsonl before the model answers.
func (s *systemSpec) checkpointer(logDir string) func(int, string) {
	return func(n int, text string) {
		cp := s.Check.take(n)
		cp.Result = truncate(text, 4000)
		appendJSON(filepath.Join(logDir, "checkpoints.jsonl"), cp)
	}
}

// checkpointStep is a step that only takes a checkpoint (the baseline after the install).
func (s *systemSpec) checkpointStep(st childStep, logDir string) stepResult {
	t0 := time.Now()
	cp := s.Check.take(0)
	appendJSON(filepath.Join(logDir, st.Name+".json"), cp)
	return stepResult{Name: st.Name, Elapsed: time.Since(t0).Seconds(), Info: fmt.Sprintf("%d surface entries", len(cp.Hashes))}
}

func appendJSON(path string, v any) {
	b, _ := json.Marshal(v)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.Write(append(b, '\n'))
}

func (c checkSpec) take(n int) checkpoint {
	t0 := time.Now()
	cp := checkpoint{N: n, Hashes: map[string]string{}}
	for _, root := range c.Surfaces {
		hashTree(root, cp.Hashes)
	}
	if len(c.VerifyArgv) > 0 {
		cp.VerifyRC, cp.VerifyOut = runQuick(c.VerifyArgv)
	}
	cp.Origin = refOf(c.Origin, "refs/heads/main")
	cp.Tag = refOf(filepath.Join(c.Proj, ".git"), "refs/tags/v1") != ""
	if c.Sock != "" {
		cp.Server = healthz(c.Sock)
	}
	if len(c.StatusArgv) > 0 {
		_, cp.Status = runQuick(c.StatusArgv)
	}
	cp.Took = time.Since(t0).Seconds()
	return cp
}

// hashTree records every entry under root: type, mode, owner, and a file's SHA-256 or a
// link's target. A missing root is recorded as missing.
func hashTree(root string, out map[string]string) {
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			out[p] = "error: " + err.Error()
			return nil
		}
		fi, err := os.Lstat(p)
		if err != nil {
			out[p] = "error: " + err.Error()
			return nil
		}
		st, _ := fi.Sys().(*syscall.Stat_t)
		own := ""
		if st != nil {
			own = fmt.Sprintf("%d:%d", st.Uid, st.Gid)
		}
		desc := fmt.Sprintf("%s %s", fi.Mode(), own)
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			desc += " -> " + target
		case fi.Mode().IsRegular():
			f, err := os.Open(p)
			if err != nil {
				desc += " unreadable: " + err.Error()
				break
			}
			h := sha256.New()
			io.Copy(h, f)
			f.Close()
			desc += " sha256:" + hex.EncodeToString(h.Sum(nil))
		}
		out[p] = desc
		return nil
	})
}

// runQuick runs argv (20 s at most) and returns its exit code and combined output.
func runQuick(argv []string) (int, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	rc := 0
	if err != nil {
		rc = -1
		if ee, ok := err.(*exec.ExitError); ok {
			rc = ee.ExitCode()
		}
	}
	return rc, truncate(strings.TrimSpace(string(out)), 2000)
}

// refOf reads a ref from a git dir (loose, else packed-refs); "" when absent.
func refOf(gitDir, ref string) string {
	if b, err := os.ReadFile(filepath.Join(gitDir, ref)); err == nil {
		return strings.TrimSpace(string(b))
	}
	b, _ := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[1] == ref {
			return f[0]
		}
	}
	return ""
}

// healthz asks the approval server on sock for GET /healthz.
func healthz(sock string) string {
	c := &http.Client{Timeout: 3 * time.Second, Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", sock)
	}}}
	res, err := c.Get("http://toolguard/healthz")
	if err != nil {
		return err.Error()
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		return fmt.Sprintf("GET /healthz: %d", res.StatusCode)
	}
	return "ok"
}

// diffHashes lists the entries of got that differ from want (added, removed or changed).
func diffHashes(want, got map[string]string) []string {
	var d []string
	for k, v := range want {
		if g, ok := got[k]; !ok {
			d = append(d, "removed "+k)
		} else if g != v {
			d = append(d, fmt.Sprintf("changed %s: %s -> %s", k, v, g))
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			d = append(d, "added "+k+" ("+g+")")
		}
	}
	sort.Strings(d)
	return d
}
