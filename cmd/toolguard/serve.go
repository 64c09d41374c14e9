//go:build serve

package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/serve"
	"github.com/toolguard/toolguard/internal/workspace"
)

// defaultServeAddr is where serve listens unless told otherwise.
const defaultServeAddr = "127.0.0.1:8787"

type serveOptions struct {
	decideFlags
	addr      string
	socket    string
	tlsCert   string
	tlsKey    string
	tokenFile string
	key       string
	// notifications
	notifyJSON, notifySlack []string
	notifyEvents            []string
	publicURL               string
	bundleKey               string // serve_bundle.go
}

func newServeCmd(sys *system) *cobra.Command {
	var o serveOptions
	cmd := &cobra.Command{
		Use:   "serve [--addr HOST:PORT | --socket PATH]",
		Short: "Serve the check endpoint, policy validation and the approval inbox over HTTP",
		Long: `serve answers POST /v1/check (check --json's object), POST /v1/validate, the approval
requests of the state directory (list, show, approve, reject, Server-Sent Events), the audit
summary, and an inbox page at / (docs/api.md). The policy is loaded once, at start, as the
hook loads it (--policy, --layer, else discovery from the current directory).

It listens on 127.0.0.1:8787 (--addr) or a Unix socket (--socket), and refuses an address
that is not loopback unless --tls-cert and --tls-key are given. Every endpoint but /healthz
wants a bearer token from --token-file (default: the user's config dir, serve.tokens, created
on first start with one hook token, mode 0600; approver tokens are added by hand, in a file the
agent cannot read). The web page signs in, as an approver, with the one-time link printed at
start. Decisions are signed with --key (default: the user's approver.key, created on first
use). --notify and --notify-slack post events to webhooks. SIGINT or SIGTERM shut it down
gracefully.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), sys, &o) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.addr, "addr", defaultServeAddr, "TCP address to listen on (loopback unless TLS is set)")
	fl.StringVar(&o.socket, "socket", "", "listen on this Unix socket instead of TCP")
	fl.StringVar(&o.tlsCert, "tls-cert", "", "TLS certificate `FILE` (PEM)")
	fl.StringVar(&o.tlsKey, "tls-key", "", "TLS private key `FILE` (PEM)")
	fl.StringVar(&o.tokenFile, "token-file", "", "bearer tokens, one `ROLE TOKEN` a line (default: <config dir>/toolguard/serve.tokens)")
	fl.StringVar(&o.key, "key", "", "approver private key `FILE` that signs decisions (default: the user's approver.key)")
	fl.StringArrayVar(&o.notifyJSON, "notify", nil, "POST each event as JSON to this webhook `URL` (repeatable)")
	fl.StringArrayVar(&o.notifySlack, "notify-slack", nil, "POST each event to this Slack incoming-webhook `URL` (repeatable)")
	fl.StringSliceVar(&o.notifyEvents, "notify-events", []string{"approval.request"}, "events to notify: approval.request, approval.decision, approval.result")
	fl.StringVar(&o.publicURL, "public-url", "", "the inbox's address for links in notifications (default: where it listens)")
	fl.StringVar(&o.bundleKey, "bundle-key", "", "sign the policy as a bundle at GET /v1/policy/bundle with this private key `FILE` (created on first use)")
	o.register(cmd)
	o.registerDecide(fl)
	_ = fl.MarkHidden("grants-dir") // checks are dry runs: no grant is read
	return cmd
}

// isLoopback reports whether host names only loopback addresses.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func runServe(ctx context.Context, sys *system, o *serveOptions) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Mode != "" {
		if _, ok := policy.ParseMode(o.Mode); !ok {
			return usagef("unknown --mode %q (want interactive or headless)", o.Mode)
		}
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	useTLS := o.tlsCert != ""
	if o.socket == "" {
		host, _, err := net.SplitHostPort(o.addr)
		if err != nil {
			return usagef("--addr %q: %v", o.addr, err)
		}
		if !isLoopback(host) && !useTLS {
			return usagef("--addr %q is not a loopback address: serving beyond this machine wants --tls-cert and --tls-key", o.addr)
		}
	}
	ps, err := o.load(sys, sys.env().CurrentProject())
	if err != nil {
		return err
	}
	policyBundle, err := serveBundle(sys, o, sys.env().CurrentProject())
	if err != nil {
		return err
	}
	signer, keyPath, err := signerFor(sys, o.key, true)
	if err != nil {
		return err
	}
	dir := sys.env().StateDir(o.StateDir, ps.Pol)
	if dir == "" {
		return errors.New("no state directory: set --state-dir, settings.state_dir or HOME")
	}
	st, err := approval.Open(dir)
	if err != nil {
		return err
	}
	trusted, problems := guard.TrustedKeys(sys.env(), ps.Pol)
	for _, p := range problems {
		fmt.Fprintf(sys.stderr, "toolguard serve: warning: %s\n", p)
	}
	st.Trust(trusted)
	warnUntrusted(sys, st, signer, keyPath)

	notify, err := serve.NotifiersOf(ps.Pol.Settings.Notify) // settings.notify, then the flags
	if err != nil {
		return err
	}
	for _, f := range []struct {
		urls   []string
		format string
	}{{o.notifyJSON, "json"}, {o.notifySlack, "slack"}} {
		for _, u := range f.urls {
			n := serve.Notifier{URL: u, Format: f.format, Events: o.notifyEvents}
			if err := serve.ValidateNotifier(n); err != nil {
				return usagef("%v", err)
			}
			notify = append(notify, n)
		}
	}
	tokenPath, tokens, err := serveTokens(sys, o.tokenFile)
	if err != nil {
		return err
	}
	login, err := serve.RandomToken()
	if err != nil {
		return err
	}

	var ln net.Listener
	base := ""
	if o.socket != "" {
		path := argPath(o.socket, mustWd(sys), sys.home())
		if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSocket != 0 {
			_ = os.Remove(path) // a socket left by an earlier run
		}
		ln, err = net.Listen("unix", path)
		if err != nil {
			return err
		}
		if err := os.Chmod(path, 0o600); err != nil {
			ln.Close()
			return err
		}
		base = "unix:" + path
	} else {
		ln, err = net.Listen("tcp", o.addr)
		if err != nil {
			return err
		}
		scheme := "http"
		if useTLS {
			scheme = "https"
		}
		base = scheme + "://" + ln.Addr().String()
	}
	publicURL := o.publicURL
	if publicURL == "" && o.socket == "" {
		publicURL = base
	}
	srv := serve.New(serve.Config{
		Check:        func(_ context.Context, req serve.CheckRequest) (any, error) { return serveCheck(sys, o, ps, req) },
		Validate:     func(req serve.ValidateRequest) ([]serve.Problem, error) { return serveValidate(sys, req) },
		AuditSummary: func(since time.Time) (any, error) { return serveAuditSummary(sys, o, ps, since) },
		Audit:        func(ev serve.DecisionEvent) error { return serveAudit(sys, o, ps, ev) },
		Store:        st,
		Describe: func(ctx context.Context, c call.Call) (approval.Request, error) {
			return guard.Describe(ctx, sys.guardSys(), &o.Options, ps, c)
		},
		Signer:     signer,
		Tokens:     tokens,
		LoginToken: login,
		Secure:     useTLS,
		Notify:     notify,
		BaseURL:    publicURL,
		Now:        sys.now,
		Logf:       func(f string, a ...any) { fmt.Fprintf(sys.stderr, f+"\n", a...) },
		Bundle:     policyBundle,
	})
	defer srv.Close()
	hs := &http.Server{
		Handler:           srv,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	hs.RegisterOnShutdown(srv.Close)
	if useTLS {
		cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
		if err != nil {
			ln.Close()
			return fmt.Errorf("TLS: %v", err)
		}
		hs.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		ln = tls.NewListener(ln, hs.TLSConfig)
	}
	pub := signer.Key.Public().(ed25519.PublicKey)
	fmt.Fprintf(sys.stderr, "toolguard serve: listening on %s (policy %s, %d rules; state %s)\n", base, ps.Pol.Hash(), ps.Pol.RuleCount(), dir)
	fmt.Fprintf(sys.stderr, "toolguard serve: tokens in %s; decisions signed by %s (%s)\n", tokenPath, approval.Fingerprint(pub), keyPath)
	if o.socket == "" {
		fmt.Fprintf(sys.stderr, "toolguard serve: sign in once at %s/login?t=%s\n", base, login)
	} else {
		fmt.Fprintf(sys.stderr, "toolguard serve: sign in once at /login?t=%s\n", login)
	}

	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	fmt.Fprintln(sys.stderr, "toolguard serve: shutting down")
	srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		// Past the 5 s: connections still open are closed. Shutdown counts a
		// connection a client opened but never sent a request on (an HTTP
		// client dials ahead under concurrency) as busy until it is 5 s old,
		// so this is also the ordinary end of a busy server, not a failure.
		fmt.Fprintf(sys.stderr, "toolguard serve: closing the connections still open after 5 s (%v)\n", err)
		if err := hs.Close(); err != nil {
			return fmt.Errorf("shutdown: %v", err)
		}
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func mustWd(sys *system) string {
	wd, _ := sys.getwd()
	return wd
}

// serveCheck answers POST /v1/check with checkResult, the function behind
// check --json: the served policy, or the request's own policy text.
func serveCheck(sys *system, base *serveOptions, ps *workspace.Set, req serve.CheckRequest) (any, error) {
	forms := 0
	for _, set := range []bool{req.Command != "", req.Argv != nil, req.Tool != "" || req.Path != "" || len(req.Paths) > 0,
		req.MCP != "", req.URL != "", len(req.Payload) > 0} {
		if set {
			forms++
		}
	}
	if forms != 1 {
		return nil, serve.Errorf(http.StatusBadRequest, "want exactly one of \"command\", \"argv\", \"tool\"/\"path\", \"mcp\", \"url\" or \"payload\"")
	}
	if req.Argv != nil && len(req.Argv) == 0 {
		return nil, serve.Errorf(http.StatusBadRequest, "\"argv\" is empty")
	}
	o := checkOptions{decideFlags: base.decideFlags, json: true}
	o.command, o.tool, o.mcp, o.url, o.provider = req.Command, req.Tool, req.MCP, req.URL, req.Provider
	o.paths = append([]string(nil), req.Paths...)
	if req.Path != "" {
		o.paths = append(o.paths, req.Path)
	}
	if len(req.Input) > 0 {
		if req.MCP == "" {
			return nil, serve.Errorf(http.StatusBadRequest, "\"input\" goes with \"mcp\"")
		}
		o.input = string(req.Input)
	}
	if len(req.Payload) > 0 {
		o.payloadData = append([]byte(nil), req.Payload...)
	} else if req.Provider != "" {
		return nil, serve.Errorf(http.StatusBadRequest, "\"provider\" goes with \"payload\"")
	}
	for _, d := range []struct{ name, v string }{{"cwd", req.Cwd}, {"workspace", req.Workspace}} {
		if d.v != "" && !filepath.IsAbs(d.v) {
			return nil, serve.Errorf(http.StatusBadRequest, "%q must be an absolute path, got %q", d.name, d.v)
		}
	}
	o.cwd = req.Cwd
	if req.Workspace != "" {
		o.Workspace = req.Workspace
	}
	if req.Mode != "" {
		o.Mode = req.Mode
	}
	o.policySet = ps
	if req.Policy != "" {
		pol, err := policy.Load([]policy.Source{policyText(req.Policy, "")}, policy.LoadOptions{Home: sys.home()})
		if err != nil {
			return nil, serve.Errorf(http.StatusUnprocessableEntity, "the request's policy does not load: %v", err)
		}
		o.policySet = &workspace.Set{Pol: pol}
	}
	if o.cwd == "" {
		o.cwd = mustWd(sys)
	}
	j, err := checkResult(sys, &o, req.Argv)
	if err != nil {
		var ue *usageError
		if errors.As(err, &ue) {
			return nil, serve.Errorf(http.StatusBadRequest, "%s", ue.Msg)
		}
		return nil, err
	}
	return j, nil
}

// policyText is a policy's text as a source: JSON when it starts with "{".
func policyText(text, name string) policy.Source {
	json := strings.HasPrefix(strings.TrimSpace(text), "{")
	if name == "" {
		name = "policy.toml"
		if json {
			name = "policy.json"
		}
	}
	return policy.Source{Path: name, Data: []byte(text)}
}

func serveValidate(sys *system, req serve.ValidateRequest) ([]serve.Problem, error) {
	if strings.ContainsAny(req.Name, "/\\") {
		return nil, serve.Errorf(http.StatusBadRequest, "\"name\" is a file name, not a path")
	}
	pol, err := policy.Load([]policy.Source{policyText(req.Policy, req.Name)}, policy.LoadOptions{NoBuiltin: req.NoBuiltin, Home: sys.home()})
	var out []serve.Problem
	var perr *policy.Error
	if errors.As(err, &perr) {
		for _, p := range perr.Problems {
			out = append(out, serve.ProblemOf(p))
		}
		return out, nil
	}
	if err != nil {
		return nil, err
	}
	for _, p := range pol.Check() {
		out = append(out, serve.ProblemOf(p))
	}
	return out, nil
}

func serveAuditSummary(sys *system, o *serveOptions, ps *workspace.Set, since time.Time) (any, error) {
	path := sys.env().AuditPath(o.AuditLog, o.StateDir, ps.Pol)
	if path == "" {
		return nil, serve.Errorf(http.StatusNotFound, "auditing is off (settings.audit = \"off\")")
	}
	fh, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return audit.Aggregate(nil, since), nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	recs, _ := audit.Read(fh)
	return audit.Aggregate(recs, since), nil
}

// serveAudit records a decision made through serve in the audit log.
func serveAudit(sys *system, o *serveOptions, ps *workspace.Set, ev serve.DecisionEvent) error {
	path := sys.env().AuditPath(o.AuditLog, o.StateDir, ps.Pol)
	if path == "" {
		return nil
	}
	return audit.Append(path, guard.DecisionRecord(sys.now(), ev.Request, ev.Action, ev.Approver, ev.Via, "serve", ps.Pol.Hash()))
}

// defaultTokenPath is $XDG_CONFIG_HOME/toolguard/serve.tokens, else
// ~/.config/toolguard/serve.tokens.
func defaultTokenPath(sys *system) string {
	if p := sys.env().KeyPath(); p != "" {
		return filepath.Join(filepath.Dir(p), "serve.tokens")
	}
	return ""
}

// tokenFileHeader opens a token file serve creates.
const tokenFileHeader = `# toolguard serve tokens: ROLE TOKEN, one a line (mode 0600).
# hook:     POST /v1/check, POST /v1/validate, GET /v1/approvals/{id}, GET /v1/approvals?session=S
# approver: everything, including approve and reject. None is created by default: the agent runs
#           as you and may read this file. Add one for a platform that decides through the API, in a
#           file the agent cannot read (--token-file):  echo "approver $(head -c32 /dev/urandom | base64 | tr -d '/+=')"
`

// serveTokens reads the token file, creating it (mode 0600, one hook
// token; approver tokens are added by hand) when it does not exist. A file that others can read,
// or with a line that is not "ROLE TOKEN", is refused.
func serveTokens(sys *system, flag string) (string, map[string]serve.Role, error) {
	path := flag
	if path == "" {
		path = defaultTokenPath(sys)
		if path == "" {
			return "", nil, errors.New("no token file: set --token-file, XDG_CONFIG_HOME or HOME")
		}
	} else {
		path = argPath(path, mustWd(sys), sys.home())
	}
	data, err := readPrivate(path)
	if errors.Is(err, fs.ErrNotExist) {
		var b bytes.Buffer
		b.WriteString(tokenFileHeader)
		tok, err := serve.RandomToken()
		if err != nil {
			return "", nil, err
		}
		fmt.Fprintf(&b, "hook %s\n", tok)
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return "", nil, err
		}
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return "", nil, fmt.Errorf("token file: %v", err)
		}
		if _, err := fh.Write(b.Bytes()); err != nil {
			fh.Close()
			return "", nil, err
		}
		if err := fh.Close(); err != nil {
			return "", nil, err
		}
		fmt.Fprintf(sys.stderr, "toolguard serve: created token file %s\n", path)
		data = b.Bytes()
	} else if err != nil {
		return "", nil, err
	}
	tokens := map[string]serve.Role{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 {
			return "", nil, fmt.Errorf("%s:%d: want ROLE TOKEN", path, n)
		}
		role := map[string]serve.Role{"approver": serve.RoleApprover, "hook": serve.RoleHook}[f[0]]
		if role == serve.RoleNone {
			return "", nil, fmt.Errorf("%s:%d: unknown role %q (want approver or hook)", path, n, f[0])
		}
		if len(f[1]) < 16 {
			return "", nil, fmt.Errorf("%s:%d: token shorter than 16 characters", path, n)
		}
		if _, dup := tokens[f[1]]; dup {
			return "", nil, fmt.Errorf("%s:%d: token listed twice", path, n)
		}
		tokens[f[1]] = role
	}
	if len(tokens) == 0 {
		return "", nil, fmt.Errorf("%s: no tokens", path)
	}
	return path, tokens, nil
}

// readPrivate reads a small file that only its owner may read.
func readPrivate(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("token file %s: not a regular file", path)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("token file %s: mode %v lets others read it (want 0600)", path, fi.Mode().Perm())
	}
	if fi.Size() > 64<<10 {
		return nil, fmt.Errorf("token file %s: larger than 64 KiB", path)
	}
	return os.ReadFile(path)
}
