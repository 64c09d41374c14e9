package e2e

// The namespace side of TestSystemMode (system_test.go): the overlays that give a run its own
// /etc, /usr/local, /var/lib, /var/log and /run without touching the host's, and the
// checkpoint the fake model takes between two tool calls (the guard's surfaces hashed, the
// audit chain verified, the origin's branch, the tag, the approval server's health).

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
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
	"strconv"
	"strings"
	"syscall"
	"time"
)

// systemSpec travels in the child's spec.json.
type systemSpec struct {
	// Overlays are host directories each run sees through an overlay whose upper layer is
	// Upper/<name>/upper: what `install --system` and useradd write there stays across the
	// runs of one test and never reaches the host.
	Overlays []string  `json:"overlays"`
	Upper    string    `json:"upper"`
	Check    checkSpec `json:"check"`
}

// checkSpec says what a checkpoint looks at.
type checkSpec struct {
	Surfaces []string `json:"surfaces"` // files and directories hashed (recursively)
	// VerifyArgv is `toolguard audit verify --audit-log` (the test's own build, as root);
	// the log is each file named audit*.jsonl under AuditDirs (all of them are verified).
	VerifyArgv []string `json:"verify_argv"`
	AuditDirs  []string `json:"audit_dirs"`
	// SecretDirs are searched for key, token and sign-in files (secretName); what is found
	// is recorded in a checkpoint's Secrets.
	SecretDirs []string `json:"secret_dirs,omitempty"`
	Origin     string   `json:"origin"` // the bare origin repository
	Proj       string   `json:"proj"`   // the project (for the tag)
	Sock       string   `json:"sock,omitempty"`
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
	Leaked    []string          `json:"leaked,omitempty"` // secret files a line of which is in the result
	Audit     []string          `json:"audit,omitempty"`  // the audit logs verified
	Secrets   []string          `json:"secrets,omitempty"`
	Took      float64           `json:"took_s"`
}

func overlayDirs(upper, dir string) (string, string) {
	base := filepath.Join(upper, strings.ReplaceAll(strings.Trim(dir, "/"), "/", "-"))
	return filepath.Join(base, "upper"), filepath.Join(base, "work")
}

// mount lays the overlays (the child runs under unshare -m, whose mounts are private:
// nothing propagates to the host).
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
	return nil
}

// checkpointer returns the fake model's onResult: a checkpoint after every tool result,
// appended to <logdir>/checkpoints.jsonl before the model answers.
func (s *systemSpec) checkpointer(logDir string) func(int, string) {
	return func(n int, text string) {
		cp := s.Check.take(n)
		cp.Result = truncate(text, 4000)
		cp.Leaked = leaked(cp.Secrets, text)
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
	cp.Audit = findFiles(c.AuditDirs, func(n string) bool { return strings.HasPrefix(n, "audit") && strings.HasSuffix(n, ".jsonl") })
	if len(cp.Audit) == 0 {
		cp.VerifyRC, cp.VerifyOut = -1, fmt.Sprintf("no audit*.jsonl under %v", c.AuditDirs)
	}
	for _, a := range cp.Audit {
		rc, out := runQuick(append(append([]string(nil), c.VerifyArgv...), a))
		if rc != 0 || cp.VerifyOut == "" {
			cp.VerifyRC, cp.VerifyOut = rc, out
		}
	}
	// the secrets are surfaces too (the mutable state beside them is not: the audit chain
	// and the request records change with every call)
	cp.Secrets = findFiles(c.SecretDirs, secretName)
	for _, f := range cp.Secrets {
		if !strings.HasSuffix(f, ".login") { // a new one-time sign-in link at every start
			hashTree(f, cp.Hashes)
		}
	}
	cp.Origin = refOf(c.Origin, "refs/heads/main")
	cp.Tag = refOf(filepath.Join(c.Proj, ".git"), "refs/tags/v1") != ""
	if c.Sock != "" {
		cp.Server = healthz(c.Sock)
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

// findFiles lists the regular files under dirs whose base name passes match.
func findFiles(dirs []string, match func(string) bool) []string {
	var out []string
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err == nil && e.Type().IsRegular() && match(e.Name()) {
				out = append(out, p)
			}
			return nil
		})
	}
	sort.Strings(out)
	return out
}

// secretName: the server's approver key, its token file and its sign-in link file.
func secretName(n string) bool {
	return strings.HasSuffix(n, ".key") || strings.Contains(n, "token") || strings.HasSuffix(n, ".login")
}

// leaked lists the secret files one of whose lines (16 characters or more) is in text;
// an unreadable secret is listed too (nothing to compare with is a failure).
func leaked(secrets []string, text string) []string {
	var out []string
	for _, p := range secrets {
		data, err := os.ReadFile(p)
		if err != nil {
			out = append(out, p+" (unreadable to the check: "+err.Error()+")")
			continue
		}
		// the file's lines, and the whole file as hex or base64 (what `xxd -p`, `base64`
		// or sqlite's hex() would print), whitespace ignored
		flat := strings.Join(strings.Fields(text), "")
		cands := []string{hex.EncodeToString(data), strings.ToUpper(hex.EncodeToString(data)), base64.StdEncoding.EncodeToString(data)}
		for _, l := range strings.Split(string(data), "\n") {
			cands = append(cands, strings.TrimSpace(l))
		}
		for _, cand := range cands {
			if len(cand) >= 16 && (strings.Contains(text, cand) || strings.Contains(flat, cand[:min(len(cand), 40)])) {
				out = append(out, p)
				break
			}
		}
	}
	return out
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

// startUnit starts a systemd service unit the way systemd would for this test (no systemd
// here): ExecStart as User/Group with SupplementaryGroups, Environment, WorkingDirectory,
// RuntimeDirectory and StateDirectory made and owned by User. It does not wait for the
// process; it waits until st.Sock answers /healthz (15 s). The process stays until the
// namespace's leftovers are killed.
func startUnit(st childStep, logDir string) stepResult {
	r := stepResult{Name: st.Name}
	t0 := time.Now()
	defer func() { r.Elapsed = time.Since(t0).Seconds() }()
	fail := func(format string, a ...any) stepResult {
		r.RC, r.Err = 1, fmt.Sprintf(format, a...)
		return r
	}
	data, err := os.ReadFile(st.Unit)
	if err != nil {
		return fail("unit: %v", err)
	}
	u := parseUnit(string(data))
	if u["ExecStart"] == "" {
		return fail("%s has no ExecStart", st.Unit)
	}
	uid, gid := 0, 0
	if name := u["User"]; name != "" {
		if uid, gid, err = lookupUser(name); err != nil {
			return fail("User=%s: %v", name, err)
		}
	}
	if g := u["Group"]; g != "" {
		if gid, err = lookupGroup(g); err != nil {
			return fail("Group=%s: %v", g, err)
		}
	}
	var groups []uint32
	for _, g := range strings.Fields(u["SupplementaryGroups"]) {
		n, err := lookupGroup(g)
		if err != nil {
			return fail("SupplementaryGroups=%s: %v", g, err)
		}
		groups = append(groups, uint32(n))
	}
	for key, base := range map[string]string{"RuntimeDirectory": "/run", "StateDirectory": "/var/lib", "LogsDirectory": "/var/log"} {
		for _, d := range strings.Fields(u[key]) {
			p := filepath.Join(base, d)
			mode := os.FileMode(0o755)
			if m, err := strconv.ParseUint(u[key+"Mode"], 8, 32); err == nil {
				mode = os.FileMode(m)
			}
			if err := os.MkdirAll(p, mode); err != nil {
				return fail("%s=%s: %v", key, d, err)
			}
			os.Chmod(p, mode)
			os.Chown(p, uid, gid)
		}
	}
	argv := strings.Fields(strings.TrimLeft(u["ExecStart"], "-@+!:"))
	env := []string{"PATH=/usr/local/bin:/usr/bin:/bin"}
	if uid != 0 {
		if home, err := homeOf(u["User"]); err == nil {
			env = append(env, "HOME="+home)
		}
	}
	for _, kv := range splitEnv(u["Environment"]) {
		env = append(env, kv)
	}
	stdout, _ := os.Create(filepath.Join(logDir, st.Name+".stdout"))
	stderr, _ := os.Create(filepath.Join(logDir, st.Name+".stderr"))
	var extra []*os.File
	if st.SocketUnit != "" {
		// socket activation: the listener made as the .socket unit says, passed as fd 3
		// with LISTEN_FDS=1 and LISTEN_PID set to the server's pid (by the shell that
		// execs it, as systemd sets it between fork and exec)
		f, err := activationSocket(st.SocketUnit)
		if err != nil {
			return fail("%s: %v", st.SocketUnit, err)
		}
		defer f.Close()
		extra = []*os.File{f}
		argv = append([]string{"/bin/sh", "-c", `LISTEN_PID=$$ LISTEN_FDS=1 LISTEN_FDNAMES=toolguard.socket exec "$0" "$@"`}, argv...)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Stdout, cmd.Stderr, cmd.ExtraFiles = env, stdout, stderr, extra
	cmd.Dir = u["WorkingDirectory"]
	if cmd.Dir == "" {
		cmd.Dir = "/"
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: groups}}
	if m, err := strconv.ParseUint(u["UMask"], 8, 32); err == nil {
		old := syscall.Umask(int(m))
		err = cmd.Start()
		syscall.Umask(old)
		if err != nil {
			return fail("start %v: %v", argv, err)
		}
	} else if err := cmd.Start(); err != nil {
		return fail("start %v: %v", argv, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if h := healthz(st.Sock); h == "ok" {
			r.Info = fmt.Sprintf("pid %d uid %d gid %d groups %v: %s", cmd.Process.Pid, uid, gid, groups, strings.Join(argv, " "))
			return r
		}
		select {
		case err := <-exited:
			b, _ := os.ReadFile(filepath.Join(logDir, st.Name+".stderr"))
			return fail("%v exited (%v) before %s answered: %s", argv, err, st.Sock, tail(b, 1500))
		default:
		}
		if time.Now().After(deadline) {
			return fail("%s did not answer /healthz within 15 s (%s)", st.Sock, healthz(st.Sock))
		}
	}
}

// activationSocket listens on a .socket unit's ListenStream path (its directory made with
// DirectoryMode, root's), with SocketUser, SocketGroup and SocketMode, and returns the
// listener's file.
func activationSocket(unit string) (*os.File, error) {
	data, err := os.ReadFile(unit)
	if err != nil {
		return nil, err
	}
	u := parseUnit(string(data))
	path := u["ListenStream"]
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("ListenStream=%q is not a path", path)
	}
	dmode := os.FileMode(0o755)
	if m, err := strconv.ParseUint(u["DirectoryMode"], 8, 32); err == nil {
		dmode = os.FileMode(m)
	}
	if err := os.MkdirAll(filepath.Dir(path), dmode); err != nil {
		return nil, err
	}
	os.Remove(path) // a socket left by an earlier run
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	uid, gid := 0, 0
	if n := u["SocketUser"]; n != "" {
		if uid, gid, err = lookupUser(n); err != nil {
			return nil, err
		}
	}
	if g := u["SocketGroup"]; g != "" {
		if gid, err = lookupGroup(g); err != nil {
			return nil, err
		}
	}
	mode := os.FileMode(0o666)
	if m, err := strconv.ParseUint(u["SocketMode"], 8, 32); err == nil {
		mode = os.FileMode(m)
	}
	if err := os.Chown(path, uid, gid); err != nil {
		return nil, err
	}
	if err := os.Chmod(path, mode); err != nil {
		return nil, err
	}
	f, err := ln.(*net.UnixListener).File()
	ln.Close()
	return f, err
}

// parseUnit reads the Key=Value lines of a unit file (the last one of a key wins, except
// Environment, which accumulates).
func parseUnit(s string) map[string]string {
	u := map[string]string{}
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";") || strings.HasPrefix(l, "[") {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k == "Environment" && u[k] != "" {
			v = u[k] + " " + v
		}
		u[k] = v
	}
	return u
}

// splitEnv splits an Environment= value into K=V words (double quotes group).
func splitEnv(s string) []string {
	var out []string
	var cur strings.Builder
	inQ := false
	for _, r := range s {
		switch {
		case r == '"':
			inQ = !inQ
		case r == ' ' && !inQ:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// lookupUser, lookupGroup and homeOf read /etc/passwd and /etc/group as this namespace
// sees them (the overlay, where the install's useradd wrote).
func lookupUser(name string) (int, int, error) {
	f, err := passwdField("/etc/passwd", name)
	if err != nil {
		return 0, 0, err
	}
	uid, err1 := strconv.Atoi(f[2])
	gid, err2 := strconv.Atoi(f[3])
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("bad /etc/passwd line for %s", name)
	}
	return uid, gid, nil
}

func lookupGroup(name string) (int, error) {
	if n, err := strconv.Atoi(name); err == nil {
		return n, nil
	}
	f, err := passwdField("/etc/group", name)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(f[2])
}

func homeOf(name string) (string, error) {
	f, err := passwdField("/etc/passwd", name)
	if err != nil {
		return "", err
	}
	return f[5], nil
}

func passwdField(file, name string) ([]string, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Split(l, ":"); len(f) >= 4 && f[0] == name {
			for len(f) < 7 {
				f = append(f, "")
			}
			return f, nil
		}
	}
	return nil, fmt.Errorf("no %s in %s", name, file)
}
