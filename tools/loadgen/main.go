// Command loadgen measures `toolguard serve` on loopback: throughput and
// latency percentiles of POST /v1/hooks/claude-code (the agent's HTTP hook,
// -endpoint hook, the default) or POST /v1/check (-endpoint check) with 1, 8
// and 64 concurrent clients, beside the process hook's cost per call.
//
//	go build -o /tmp/toolguard ./cmd/toolguard && go build -o /tmp/toolguard-serve ./cmd/toolguard-serve
//	go run ./tools/loadgen -toolguard /tmp/toolguard -md      # file store, default policy
//	go run ./tools/loadgen -toolguard /tmp/toolguard -database "$TOOLGUARD_TEST_DATABASE" -md
//	go run ./tools/loadgen -url http://127.0.0.1:8787 -token-file ~/.config/toolguard/serve.tokens -endpoint check
//
// With -endpoint hook the bodies are Claude Code's own PreToolUse payloads
// (testdata/payloads/claude-code: -payloads), sent with a node token that
// loadgen writes to a --node-tokens file; the server decides and writes the
// audit line for each. With -database the server keeps its state in that
// PostgreSQL database instead of the state directory. -process-hook N (with
// -toolguard) also runs `toolguard hook --provider claude-code` N times, one
// process per call with the same payloads and policy, serially: the cost of
// a decision without the server, to set beside one HTTP call (1 client).
//
// With -toolguard it starts one server per policy (-rules: 0 is the
// default policy, N adds the N-rule layer of tools/hookbench/policygen) on
// 127.0.0.1:0 with a temporary HOME, and stops it with SIGTERM afterwards.
// Every level sends at most -n requests and runs at most -d; the bodies
// rotate over a shell pass, a shell denial, a file write and an MCP call.
// Only loopback addresses are accepted as targets. The machine is usually
// shared: repeat a run before trusting a difference of a few percent.
package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/toolguard/toolguard/tools/hookbench/policygen"
)

// Bounds of one run, whatever the flags say.
const (
	maxRequests = 1_000_000
	maxDuration = 2 * time.Minute
)

var bodies = []string{
	`{"command":"git status","cwd":"/tmp/proj"}`,
	`{"command":"git push --force origin main","cwd":"/tmp/proj"}`,
	`{"tool":"write","path":"/tmp/proj/.github/workflows/ci.yml","cwd":"/tmp/proj"}`,
	`{"mcp":"github/create_issue","input":{"repo":"widgets","title":"x"},"cwd":"/tmp/proj"}`,
}

func main() {
	target := flag.String("url", "", "a running server (loopback only)")
	token := flag.String("token", "", "bearer token (with -url)")
	tokenFile := flag.String("token-file", "", "serve's token file to take a token from (with -url)")
	bin := flag.String("toolguard", "", "start servers with this toolguard binary instead of -url")
	rules := flag.String("rules", "0", "with -toolguard: policies to measure (0: the default policy; N: plus an N-rule layer)")
	levels := flag.String("c", "1,8,64", "concurrent clients, comma-separated")
	n := flag.Int("n", 20000, "at most this many requests per level")
	d := flag.Duration("d", 10*time.Second, "at most this long per level")
	md := flag.Bool("md", false, "print a markdown table")
	flag.StringVar(&cfg.endpoint, "endpoint", "hook", "hook: POST /v1/hooks/claude-code with Claude Code payloads; check: POST /v1/check")
	flag.StringVar(&cfg.payloads, "payloads", "testdata/payloads/claude-code", "with -endpoint hook: the directory of Claude Code payloads (run from the repository root)")
	flag.StringVar(&cfg.database, "database", "", "with -toolguard: start serve with --database URL (PostgreSQL) instead of the file store")
	flag.IntVar(&cfg.processHook, "process-hook", 200, "with -toolguard and -endpoint hook: also time this many `toolguard hook` processes (0: none)")
	flag.Parse()
	if err := run(*target, *token, *tokenFile, *bin, *rules, *levels, *n, *d, *md); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// cfg holds the flags that choose what is measured.
var cfg struct {
	endpoint, payloads, database string
	processHook                  int
	bodies                       []string // what is POSTed, in rotation
}

// hookPayloads are the Claude Code payloads sent with -endpoint hook: a
// pass, a denial, a read and an MCP call, as Claude Code sends them.
var hookPayloads = []string{"git-status.json", "push-force.json", "read.json", "mcp.json"}

func loadBodies() error {
	switch cfg.endpoint {
	case "check":
		cfg.bodies = bodies
	case "hook":
		for _, f := range hookPayloads {
			data, err := os.ReadFile(filepath.Join(cfg.payloads, f))
			if err != nil {
				return fmt.Errorf("-payloads: %v (run from the repository root or set -payloads)", err)
			}
			cfg.bodies = append(cfg.bodies, string(bytes.TrimSpace(data)))
		}
	default:
		return fmt.Errorf("-endpoint %q: want hook or check", cfg.endpoint)
	}
	return nil
}

// path is the endpoint -endpoint names.
func path() string {
	if cfg.endpoint == "check" {
		return "/v1/check"
	}
	return "/v1/hooks/claude-code"
}

func ints(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v < 0 {
			return nil, fmt.Errorf("%q: want non-negative integers", s)
		}
		out = append(out, v)
	}
	return out, nil
}

type result struct {
	policy        string
	clients       int
	requests      int
	errors        int
	elapsed       time.Duration
	p50, p99, max time.Duration
}

func run(target, token, tokenFile, bin, rules, levels string, n int, d time.Duration, md bool) error {
	cs, err := ints(levels)
	if err != nil {
		return err
	}
	n, d = min(max(n, 1), maxRequests), min(max(d, time.Second), maxDuration)
	if err := loadBodies(); err != nil {
		return err
	}
	var results []result
	if bin == "" {
		if target == "" {
			return errors.New("give -url (and -token or -token-file) or -toolguard")
		}
		if token == "" && tokenFile != "" {
			if token, err = approverToken(tokenFile); err != nil {
				return err
			}
		}
		for _, c := range cs {
			r, err := level(target, token, c, n, d)
			if err != nil {
				return err
			}
			r.policy = target
			results = append(results, r)
		}
	} else {
		rs, err := ints(rules)
		if err != nil {
			return err
		}
		for _, nr := range rs {
			url, tok, stop, err := startServer(bin, nr)
			if err != nil {
				return err
			}
			name := "default policy"
			if nr > 0 {
				name = fmt.Sprintf("default + %d rules", nr)
			}
			if cfg.database != "" {
				name += ", PostgreSQL"
			} else {
				name += ", file store"
			}
			for _, c := range cs {
				r, err := level(url, tok, c, n, d)
				if err != nil {
					stop()
					return err
				}
				r.policy = name
				results = append(results, r)
			}
			if err := stop(); err != nil {
				return err
			}
			if cfg.endpoint == "hook" && cfg.processHook > 0 {
				r, err := processHooks(bin, nr, cfg.processHook)
				if err != nil {
					return err
				}
				r.policy = strings.SplitN(name, ",", 2)[0] + ", process hook"
				results = append(results, r)
			}
		}
	}
	report(results, md)
	return nil
}

// loopback refuses any target that is not on this machine's loopback.
func loopback(target string) error {
	u, err := url.Parse(target)
	if err != nil || u.Scheme != "http" && u.Scheme != "https" {
		return fmt.Errorf("-url %q: want http://127.0.0.1:PORT", target)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("-url %q: loadgen sends load to loopback addresses only", target)
}

func approverToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) == 2 && (f[0] == "hook" || f[0] == "approver") {
			return f[1], nil
		}
	}
	return "", fmt.Errorf("%s: no token", path)
}

var listening = regexp.MustCompile(`listening on (http://127\.0\.0\.1:\d+)`)

// startServer runs `toolguard serve` with the default policy, or with an
// nr-rule layer on top, in a temporary HOME.
func startServer(bin string, nr int) (string, string, func() error, error) {
	home, err := os.MkdirTemp("", "loadgen-")
	if err != nil {
		return "", "", nil, err
	}
	args := []string{"serve", "--addr", "127.0.0.1:0"}
	policyArgs, err := policyFlags(home, nr)
	if err != nil {
		return "", "", nil, err
	}
	args = append(args, policyArgs...)
	nodeTok := ""
	if cfg.endpoint == "hook" {
		nodeTok = fmt.Sprintf("loadgen-node-%d-%d", os.Getpid(), time.Now().UnixNano())
		p := filepath.Join(home, "nodes")
		if err := os.WriteFile(p, []byte("loadgen:"+nodeTok+"\n"), 0o600); err != nil {
			return "", "", nil, err
		}
		args = append(args, "--node-tokens", p)
	}
	if cfg.database != "" {
		args = append(args, "--database", cfg.database)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = home
	cmd.Env = sandboxEnv(home)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", "", nil, err
	}
	found := make(chan string, 1)
	var log bytes.Buffer
	var mu sync.Mutex
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			mu.Lock()
			log.WriteString(sc.Text() + "\n")
			mu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	stop := func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		<-readDone
		err := cmd.Wait()
		os.RemoveAll(home)
		if err != nil {
			mu.Lock()
			defer mu.Unlock()
			return fmt.Errorf("toolguard serve: %v\n%s", err, log.String())
		}
		return nil
	}
	select {
	case u := <-found:
		if nodeTok != "" {
			return u, nodeTok, stop, nil
		}
		tok, err := approverToken(filepath.Join(home, ".config", "toolguard", "serve.tokens"))
		if err != nil {
			stop()
			return "", "", nil, err
		}
		return u, tok, stop, nil
	case <-time.After(60 * time.Second):
		stop()
		return "", "", nil, errors.New("the server did not start within 60s")
	}
}

// policyFlags writes the nr-rule layer into dir (none for 0) and returns
// the flags that load it, the same for serve and for the process hook.
func policyFlags(dir string, nr int) ([]string, error) {
	if nr == 0 {
		return nil, nil
	}
	p := filepath.Join(dir, "org.toml")
	if err := os.WriteFile(p, []byte(policygen.TOML(nr)), 0o600); err != nil {
		return nil, err
	}
	return []string{"--policy", p}, nil
}

// sandboxEnv is the environment of a server or hook loadgen starts: a
// temporary HOME, so no user's policy, grants or audit log is touched.
func sandboxEnv(home string) []string {
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "XDG_STATE_HOME=" + home + "/state",
		"PATH=" + os.Getenv("PATH"), "USER=loadgen"}
}

// processHooks runs `toolguard hook --provider claude-code` calls times,
// one process after the other, each fed one of the payloads on stdin: what a
// node without the HTTP hook pays per tool call. Exit 0 (a reply on stdout,
// or none for a plain pass) and 2 (a denial) count; anything else is an error.
func processHooks(bin string, nr, calls int) (result, error) {
	home, err := os.MkdirTemp("", "loadgen-hook-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(home)
	args := []string{"hook", "--provider", "claude-code"}
	policyArgs, err := policyFlags(home, nr)
	if err != nil {
		return result{}, err
	}
	args = append(args, policyArgs...)
	one := func(i int) error {
		cmd := exec.Command(bin, args...)
		cmd.Dir = home
		cmd.Env = sandboxEnv(home)
		cmd.Stdin = strings.NewReader(cfg.bodies[i%len(cfg.bodies)])
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 2) {
			return fmt.Errorf("toolguard hook: %v: %s", err, errb.String())
		}
		return nil
	}
	for i := range 5 {
		if err := one(i); err != nil {
			return result{}, fmt.Errorf("process hook warm-up: %v", err)
		}
	}
	var lat []time.Duration
	errs := 0
	start := time.Now()
	for i := range min(calls, maxRequests) {
		t0 := time.Now()
		if err := one(i); err != nil {
			errs++
			continue
		}
		lat = append(lat, time.Since(t0))
	}
	return summarize(lat, 1, errs, time.Since(start)), nil
}

// summarize turns latencies into a result row.
func summarize(all []time.Duration, clients, errs int, elapsed time.Duration) result {
	slices.Sort(all)
	r := result{clients: clients, requests: len(all), errors: errs, elapsed: elapsed}
	if len(all) > 0 {
		r.p50 = all[len(all)/2]
		r.p99 = all[min(len(all)-1, len(all)*99/100)]
		r.max = all[len(all)-1]
	}
	return r
}

// level runs c clients until n requests are sent or d has passed.
func level(target, token string, c, n int, d time.Duration) (result, error) {
	if err := loopback(target); err != nil {
		return result{}, err
	}
	if c < 1 {
		return result{}, errors.New("-c: at least 1 client")
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		MaxIdleConns: c, MaxIdleConnsPerHost: c, IdleConnTimeout: time.Minute}}
	endpoint := strings.TrimSuffix(target, "/") + path()
	one := func(i int) error {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(cfg.bodies[i%len(cfg.bodies)]))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		res, err := client.Do(req)
		if err != nil {
			return err
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	// Warm up (and fail early on a wrong token).
	for i := range 20 {
		if err := one(i); err != nil {
			return result{}, fmt.Errorf("warm-up: %v", err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	var next, errs atomic.Int64
	lat := make([][]time.Duration, c)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range c {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				t0 := time.Now()
				if err := one(i); err != nil {
					errs.Add(1)
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	return summarize(all, c, int(errs.Load()), elapsed), nil
}

func report(rs []result, md bool) {
	var b bytes.Buffer
	if md {
		fmt.Fprintf(&b, "| policy | clients | requests | errors | throughput | p50 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	} else {
		fmt.Fprintf(&b, "%-26s %7s %9s %6s %12s %9s %9s %9s\n", "POLICY", "CLIENTS", "REQUESTS", "ERRORS", "REQ/S", "P50", "P99", "MAX")
	}
	for _, r := range rs {
		tput := float64(r.requests) / r.elapsed.Seconds()
		ms := func(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
		if md {
			fmt.Fprintf(&b, "| %s | %d | %d | %d | %.0f req/s | %s | %s | %s |\n", r.policy, r.clients, r.requests, r.errors, tput, ms(r.p50), ms(r.p99), ms(r.max))
		} else {
			fmt.Fprintf(&b, "%-26s %7d %9d %6d %12.0f %9s %9s %9s\n", r.policy, r.clients, r.requests, r.errors, tput, ms(r.p50), ms(r.p99), ms(r.max))
		}
	}
	load, _ := os.ReadFile("/proc/loadavg")
	fmt.Fprintf(&b, "(POST %s; %d CPUs, %s/%s; loopback; load average at the end: %s)\n", path(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, strings.TrimSpace(string(load)))
	os.Stdout.Write(b.Bytes())
}
