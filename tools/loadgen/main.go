// Command loadgen measures POST /v1/check of `toolguard serve` on loopback:
// throughput and latency percentiles with 1, 16 and 64 concurrent clients.
//
//	go build -o /tmp/toolguard ./cmd/toolguard && go build -o /tmp/toolguard-serve ./cmd/toolguard-serve
//	go run ./tools/loadgen -toolguard /tmp/toolguard -md      # default and 10,000-rule policy
//	go run ./tools/loadgen -url http://127.0.0.1:8787 -token-file ~/.config/toolguard/serve.tokens
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
	rules := flag.String("rules", "0,10000", "with -toolguard: policies to measure (0: the default policy; N: plus an N-rule layer)")
	levels := flag.String("c", "1,16,64", "concurrent clients, comma-separated")
	n := flag.Int("n", 20000, "at most this many requests per level")
	d := flag.Duration("d", 10*time.Second, "at most this long per level")
	md := flag.Bool("md", false, "print a markdown table")
	flag.Parse()
	if err := run(*target, *token, *tokenFile, *bin, *rules, *levels, *n, *d, *md); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
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
	if nr > 0 {
		p := filepath.Join(home, "org.toml")
		if err := os.WriteFile(p, []byte(policygen.TOML(nr)), 0o600); err != nil {
			return "", "", nil, err
		}
		args = append(args, "--policy", p)
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "XDG_STATE_HOME=" + home + "/state",
		"PATH=" + os.Getenv("PATH"), "USER=loadgen"}
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
	endpoint := strings.TrimSuffix(target, "/") + "/v1/check"
	one := func(i int) error {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(bodies[i%len(bodies)]))
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
	slices.Sort(all)
	r := result{clients: c, requests: len(all), errors: int(errs.Load()), elapsed: elapsed}
	if len(all) > 0 {
		r.p50 = all[len(all)/2]
		r.p99 = all[min(len(all)-1, len(all)*99/100)]
		r.max = all[len(all)-1]
	}
	return r, nil
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
	fmt.Fprintf(&b, "(%d CPUs, %s/%s; loopback)\n", runtime.NumCPU(), runtime.GOOS, runtime.GOARCH)
	os.Stdout.Write(b.Bytes())
}
