package e2e

// The sandbox: every CLI run happens in a child process of this test binary started as
//
//	unshare -n -m -- <e2e.test>        (env TOOLGUARD_E2E_CHILD=<spec.json>)
//
// i.e. in a fresh network namespace (only a loopback interface, nothing can leave the
// machine) and a private mount namespace. The child brings `lo` up, bind-mounts a
// resolv.conf pointing at 127.0.0.1 over /etc/resolv.conf, answers every DNS query on
// 127.0.0.1:53/udp with NXDOMAIN while logging the name, serves the fake model on
// 127.0.0.1:fakePort, runs the steps of the spec (codex hook trust, the CLI), writes
// result.json and kills whatever is left in the namespace.

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

const (
	childEnv = "TOOLGUARD_E2E_CHILD"
	// fakePort is fixed: every run gets its own network namespace, so the port is always free,
	// and config files written before the run (Codex's base_url) stay valid across runs.
	fakePort = 41337
)

var fakeBaseURL = fmt.Sprintf("http://127.0.0.1:%d", fakePort)

type childSpec struct {
	LogDir string      `json:"log_dir"`
	Resolv string      `json:"resolv"` // file bind-mounted over /etc/resolv.conf
	Script fakeScript  `json:"script"`
	Steps  []childStep `json:"steps"`
	// System, when set, lays the system-mode mounts over /etc etc. before anything else
	// and checks the surfaces after each tool result (system_ns_test.go).
	System *systemSpec `json:"system,omitempty"`
}

type childStep struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // "exec" or "codex-trust"
	Argv    []string `json:"argv"`
	Env     []string `json:"env"`
	Dir     string   `json:"dir"`
	Timeout float64  `json:"timeout_s"`
	Strace  bool     `json:"strace"`
	// codex-trust only
	CodexHome string `json:"codex_home,omitempty"`
	// UID/GID, when UID > 0, run the step as that unprivileged user (system_test.go).
	UID int `json:"uid,omitempty"`
	GID int `json:"gid,omitempty"`
	// serve only (system_ns_test.go): the systemd unit to run, and its socket
	Unit       string `json:"unit,omitempty"`
	SocketUnit string `json:"socket_unit,omitempty"` // its .socket unit: the listener is passed as systemd would (fd 3)
	Sock       string `json:"sock,omitempty"`
	// background only: GET this URL until it answers 200 (the process then stays up until
	// a "stop" step names it, or the namespace's leftovers are killed)
	Ready string `json:"ready,omitempty"`
	// stop only: the Name of the background step to stop (SIGTERM, then SIGKILL)
	Target string `json:"target,omitempty"`
}

type stepResult struct {
	Name     string  `json:"name"`
	RC       int     `json:"rc"`
	TimedOut bool    `json:"timed_out"`
	Elapsed  float64 `json:"elapsed_s"`
	Err      string  `json:"err,omitempty"`
	Info     string  `json:"info,omitempty"`
}

type childResult struct {
	SetupErr string       `json:"setup_err,omitempty"`
	Steps    []stepResult `json:"steps"`
	Killed   []string     `json:"killed_leftovers,omitempty"`
}

// childMain is the entry point of the re-executed test binary inside the namespace.
func childMain(specPath string) int {
	var spec childSpec
	data, err := os.ReadFile(specPath)
	if err == nil {
		err = json.Unmarshal(data, &spec)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e child: bad spec:", err)
		return 2
	}
	res := childResult{}
	defer func() {
		b, _ := json.MarshalIndent(res, "", " ")
		os.WriteFile(filepath.Join(spec.LogDir, "result.json"), b, 0o644)
	}()
	if spec.System != nil {
		if err := spec.System.mount(); err != nil {
			res.SetupErr = "system mounts: " + err.Error()
			fmt.Fprintln(os.Stderr, "e2e child:", err)
			return 3
		}
	}
	if err := sandboxNet(spec.Resolv); err != nil {
		res.SetupErr = err.Error()
		fmt.Fprintln(os.Stderr, "e2e child:", err)
		return 3
	}
	dnsLog := filepath.Join(spec.LogDir, "dns-queries.log")
	if err := startDNSSink(dnsLog); err != nil {
		res.SetupErr = "dns sink: " + err.Error()
		return 3
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", fakePort))
	if err != nil {
		res.SetupErr = "fake model listen: " + err.Error()
		return 3
	}
	fake := newFakeLLM(spec.Script, spec.LogDir)
	if spec.System != nil {
		fake.onResult = spec.System.checkpointer(spec.LogDir)
	}
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)

	bg := map[string]*background{}
	for _, st := range spec.Steps {
		var r stepResult
		switch st.Kind {
		case "background":
			r = startBackground(st, spec.LogDir, bg)
		case "stop":
			r = stopBackground(st, bg)
		case "codex-trust":
			r = runCodexTrust(st, spec.LogDir)
		case "checkpoint":
			r = spec.System.checkpointStep(st, spec.LogDir)
		case "serve":
			r = startUnit(st, spec.LogDir)
		default:
			r = runStep(st, spec.LogDir)
		}
		res.Steps = append(res.Steps, r)
	}
	srv.Close()
	res.Killed = killNamespaceLeftovers()
	return 0
}

// sandboxNet checks that we are in a private network namespace, brings lo up and points
// the resolver at 127.0.0.1.
func sandboxNet(resolv string) error {
	if err := ifUp("lo"); err != nil {
		return fmt.Errorf("bring lo up: %w", err)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("list interfaces: %w", err)
	}
	for _, i := range ifs {
		if i.Name != "lo" {
			return fmt.Errorf("not a private network namespace: interface %q is visible (run under unshare -n)", i.Name)
		}
	}
	target := "/etc/resolv.conf"
	if real, err := filepath.EvalSymlinks(target); err == nil {
		target = real
	} else {
		return fmt.Errorf("/etc/resolv.conf: %w (need an existing file to bind-mount over)", err)
	}
	if err := syscall.Mount(resolv, target, "", syscall.MS_BIND, ""); err != nil {
		return fmt.Errorf("bind-mount %s over %s: %w", resolv, target, err)
	}
	return nil
}

// ifUp sets IFF_UP on an interface with the classic SIOCGIFFLAGS/SIOCSIFFLAGS ioctls.
func ifUp(name string) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr [40]byte // struct ifreq: char name[16]; union { short flags; ... }
	copy(ifr[:15], name)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCGIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	flags := binary.NativeEndian.Uint16(ifr[16:18]) | syscall.IFF_UP
	binary.NativeEndian.PutUint16(ifr[16:18], flags)
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.SIOCSIFFLAGS, uintptr(unsafe.Pointer(&ifr[0]))); e != 0 {
		return e
	}
	return nil
}

// startDNSSink answers every DNS query on 127.0.0.1:53/udp with NXDOMAIN and logs
// "<unix time> <name> type=<qtype>" per query (a port of dns_logger.py).
func startDNSSink(logPath string) error {
	pc, err := net.ListenPacket("udp", "127.0.0.1:53")
	if err != nil {
		return err
	}
	lf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, addr, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			name, qtype, qend, perr := parseDNSQuestion(buf[:n])
			if perr != nil {
				fmt.Fprintf(lf, "%.3f bad-query %v\n", float64(time.Now().UnixMilli())/1000, perr)
				continue
			}
			fmt.Fprintf(lf, "%.3f %s type=%d\n", float64(time.Now().UnixMilli())/1000, name, qtype)
			resp := make([]byte, 12, 12+qend-12)
			copy(resp[0:2], buf[0:2])                     // id
			binary.BigEndian.PutUint16(resp[2:4], 0x8183) // response, RD, RA, NXDOMAIN
			binary.BigEndian.PutUint16(resp[4:6], 1)      // one question, no answers
			resp = append(resp, buf[12:qend]...)
			pc.WriteTo(resp, addr)
		}
	}()
	return nil
}

// parseDNSQuestion returns the first question's name, type and the offset where it ends.
func parseDNSQuestion(b []byte) (string, uint16, int, error) {
	if len(b) < 12 {
		return "", 0, 0, errors.New("short packet")
	}
	i := 12
	var labels []string
	for {
		if i >= len(b) {
			return "", 0, 0, errors.New("truncated name")
		}
		l := int(b[i])
		if l == 0 {
			i++
			break
		}
		if l&0xc0 != 0 || i+1+l > len(b) {
			return "", 0, 0, errors.New("bad label")
		}
		labels = append(labels, string(b[i+1:i+1+l]))
		i += 1 + l
	}
	if i+4 > len(b) {
		return "", 0, 0, errors.New("truncated question")
	}
	return strings.Join(labels, "."), binary.BigEndian.Uint16(b[i : i+2]), i + 4, nil
}

// lookPathIn resolves name against the PATH of env (the CLI's environment, not ours).
func lookPathIn(env []string, name string) string {
	if strings.Contains(name, "/") {
		return name
	}
	for _, kv := range env {
		if p, ok := strings.CutPrefix(kv, "PATH="); ok {
			for _, dir := range filepath.SplitList(p) {
				cand := filepath.Join(dir, name)
				if fi, err := os.Stat(cand); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
					return cand
				}
			}
		}
	}
	return name
}

// runStep runs one command with a timeout; stdout/stderr go to <logdir>/<name>.stdout/.stderr.
func runStep(st childStep, logDir string) stepResult {
	r := stepResult{Name: st.Name}
	argv := st.Argv
	if st.Strace {
		argv = append([]string{"strace", "-f", "-qq", "-e", "trace=connect,execve", "-o", filepath.Join(logDir, st.Name+".strace")}, argv...)
	}
	stdout, _ := os.Create(filepath.Join(logDir, st.Name+".stdout"))
	stderr, _ := os.Create(filepath.Join(logDir, st.Name+".stderr"))
	defer stdout.Close()
	defer stderr.Close()
	cmd := exec.Command(lookPathIn(st.Env, argv[0]), argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = st.Dir, st.Env, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if st.UID > 0 {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(st.UID), Gid: uint32(st.GID)}
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		r.RC, r.Err = -1, err.Error()
		return r
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(time.Duration(st.Timeout * float64(time.Second))):
		r.TimedOut = true
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
	}
	// whatever the CLI left behind in its process group goes too
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	r.Elapsed = time.Since(t0).Seconds()
	r.RC = cmd.ProcessState.ExitCode()
	if err != nil && r.RC == -1 {
		r.Err = err.Error()
	}
	return r
}

// runCodexTrust ports codex_trust_hooks.py: ask `codex app-server` (JSON-RPC over stdio) for
// hooks/list and persist trust for every untrusted hook as
// [hooks.state."<key>"] trusted_hash = "<currentHash>" in CODEX_HOME/config.toml.
func runCodexTrust(st childStep, logDir string) (r stepResult) {
	r = stepResult{Name: st.Name}
	t0 := time.Now()
	defer func() { r.Elapsed = time.Since(t0).Seconds() }()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(st.Timeout*float64(time.Second)))
	defer cancel()
	cmd := exec.CommandContext(ctx, lookPathIn(st.Env, st.Argv[0]), st.Argv[1:]...)
	cmd.Dir, cmd.Env = st.Dir, st.Env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	stderr, _ := os.Create(filepath.Join(logDir, st.Name+".stderr"))
	defer stderr.Close()
	cmd.Stderr = stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		r.RC, r.Err = -1, err.Error()
		return r
	}
	defer func() {
		stdin.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		wait := make(chan struct{})
		go func() { cmd.Wait(); close(wait) }()
		select {
		case <-wait:
		case <-time.After(3 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-wait
		}
	}()
	rd := bufio.NewReaderSize(stdout, 1<<20)
	transcript, _ := os.Create(filepath.Join(logDir, st.Name+".jsonrpc"))
	defer transcript.Close()
	send := func(v any) error {
		b, _ := json.Marshal(v)
		fmt.Fprintf(transcript, "> %s\n", b)
		_, err := stdin.Write(append(b, '\n'))
		return err
	}
	call := func(id int, method string, params any) (map[string]any, error) {
		if err := send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params}); err != nil {
			return nil, err
		}
		for {
			line, err := rd.ReadBytes('\n')
			if len(line) > 0 {
				fmt.Fprintf(transcript, "< %s", truncate(string(line), 20000))
				var m map[string]any
				if json.Unmarshal(line, &m) == nil {
					if idv, ok := m["id"].(float64); ok && int(idv) == id {
						return m, nil
					}
				}
			}
			if err != nil {
				if err == io.EOF {
					return nil, fmt.Errorf("app-server closed stdout while waiting for %s", method)
				}
				return nil, err
			}
		}
	}
	fail := func(err error) stepResult {
		if ctx.Err() != nil {
			err = fmt.Errorf("timed out after %.0fs: %w", st.Timeout, err)
		}
		r.RC, r.Err = 1, err.Error()
		return r
	}
	if _, err := call(1, "initialize", map[string]any{"clientInfo": map[string]any{"name": "toolguard-e2e", "version": "0"}}); err != nil {
		return fail(err)
	}
	if err := send(map[string]any{"jsonrpc": "2.0", "method": "initialized", "params": map[string]any{}}); err != nil {
		return fail(err)
	}
	resp, err := call(2, "hooks/list", map[string]any{"cwds": []string{st.Dir}})
	if err != nil {
		return fail(err)
	}
	if e, ok := resp["error"]; ok {
		b, _ := json.Marshal(e)
		return fail(fmt.Errorf("hooks/list error: %s", b))
	}
	var entries []map[string]any
	var walk func(any)
	walk = func(x any) {
		switch v := x.(type) {
		case map[string]any:
			if _, ok := v["currentHash"]; ok {
				if _, ok := v["key"]; ok {
					entries = append(entries, v)
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(resp["result"])
	if len(entries) == 0 {
		return fail(errors.New("hooks/list returned no hooks (is the toolguard hook installed where codex looks?)"))
	}
	f, err := os.OpenFile(filepath.Join(st.CodexHome, "config.toml"), os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	var keys []string
	for _, e := range entries {
		key, hash := asString(e["key"]), asString(e["currentHash"])
		keys = append(keys, key)
		if asString(e["trustStatus"]) == "trusted" {
			continue
		}
		fmt.Fprintf(f, "\n[hooks.state.%s]\ntrusted_hash = %s\n", strconv.Quote(key), strconv.Quote(hash))
	}
	r.Info = fmt.Sprintf("trusted %d hook(s): %v", len(entries), keys)
	return r
}

// killNamespaceLeftovers kills every process that shares our network namespace except us
// (background children the CLIs left behind) and returns their command lines.
func killNamespaceLeftovers() []string {
	self, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return nil
	}
	var killed []string
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/net", pid))
		if err != nil || ns != self {
			continue
		}
		cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, fmt.Sprintf("%d %s", pid, truncate(strings.ReplaceAll(string(cmdline), "\x00", " "), 200)))
		}
	}
	return killed
}

// background is a process a "background" step started (http_hook_test.go: toolguard serve
// inside the namespace, where the CLI's loopback is).
type background struct {
	cmd    *exec.Cmd
	exited chan error
}

// startBackground starts st and waits until st.Ready answers 200 (or st.Timeout passes).
func startBackground(st childStep, logDir string, bg map[string]*background) stepResult {
	r := stepResult{Name: st.Name}
	t0 := time.Now()
	defer func() { r.Elapsed = time.Since(t0).Seconds() }()
	stdout, _ := os.Create(filepath.Join(logDir, st.Name+".stdout"))
	stderr, _ := os.Create(filepath.Join(logDir, st.Name+".stderr"))
	cmd := exec.Command(lookPathIn(st.Env, st.Argv[0]), st.Argv[1:]...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = st.Dir, st.Env, stdout, stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.RC, r.Err = -1, err.Error()
		return r
	}
	b := &background{cmd: cmd, exited: make(chan error, 1)}
	go func() { b.exited <- cmd.Wait(); stdout.Close(); stderr.Close() }()
	bg[st.Name] = b
	client := &http.Client{Timeout: 2 * time.Second}
	for deadline := t0.Add(time.Duration(st.Timeout * float64(time.Second))); ; time.Sleep(100 * time.Millisecond) {
		if res, err := client.Get(st.Ready); err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				r.Info = fmt.Sprintf("pid %d: %s answers %s", cmd.Process.Pid, strings.Join(st.Argv, " "), st.Ready)
				return r
			}
		}
		select {
		case err := <-b.exited:
			b.exited <- err
			r.RC, r.Err = 1, fmt.Sprintf("%v exited (%v) before %s answered", st.Argv, err, st.Ready)
			return r
		default:
		}
		if time.Now().After(deadline) {
			r.RC, r.Err = 1, fmt.Sprintf("%s did not answer 200 within %.0f s", st.Ready, st.Timeout)
			return r
		}
	}
}

// stopBackground ends the background step st.Target: SIGTERM to its process group, SIGKILL
// after st.Timeout; Info says how it ended.
func stopBackground(st childStep, bg map[string]*background) stepResult {
	r := stepResult{Name: st.Name}
	t0 := time.Now()
	defer func() { r.Elapsed = time.Since(t0).Seconds() }()
	b := bg[st.Target]
	if b == nil {
		r.RC, r.Err = 1, fmt.Sprintf("no background step %q to stop", st.Target)
		return r
	}
	syscall.Kill(-b.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case err := <-b.exited:
		r.Info = fmt.Sprintf("%s stopped by SIGTERM (%v)", st.Target, err)
	case <-time.After(time.Duration(st.Timeout * float64(time.Second))):
		syscall.Kill(-b.cmd.Process.Pid, syscall.SIGKILL)
		err := <-b.exited
		r.Info = fmt.Sprintf("%s killed after %.0f s (%v)", st.Target, st.Timeout, err)
	}
	delete(bg, st.Target)
	return r
}
