package serve

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/tls"
	"errors"
	"fmt"
	"github.com/toolguard/toolguard/internal/audit"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/cliflags"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

// defaultServeAddr is where serve listens unless told otherwise.
const defaultServeAddr = "127.0.0.1:8787"

// Options are serve's command line: the decision's (policy, mode, state
// and audit log) and the server's own.
type Options struct {
	guard.Options
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
	system                  serveSystemFlags               // serve_system.go
	nodeTokens              string                         // --node-tokens: POST /v1/hooks/{agent} (serve_hooks.go)
	database                string                         // --database: approvals in PostgreSQL (serve_db.go)
	readAudit               func() ([]audit.Record, error) // the audit chain in the database (nil: the file)
	appendLine              appendLine                     // append to the database's chain, telling the line's hash (nil: the file; otel.go)
	otlp                    otlpFlags                      // --otlp-endpoint: audit lines to OpenTelemetry (otel.go)
	bundleKey               string                         // --bundle-key: signbundle.go
	amendFile               string                         // --amend-file: the inbox's "approve and add rule" (inbox_edit.go)
}

// NewCommand is the `serve` command (cmd/toolguard-serve). sys is the
// process's: environment, clock, stderr.
func NewCommand(sys guard.System) *cobra.Command {
	var o Options
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
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return workspace.Usagef("%s takes no arguments (got %q)", cmd.CommandPath(), strings.Join(args, " "))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return Run(cmd.Context(), sys, &o) },
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
	fl.StringVar(&o.database, "database", "", "keep approval requests in PostgreSQL at this postgres:// `URL` (shared by every replica) instead of the state directory")
	fl.StringVar(&o.nodeTokens, "node-tokens", "", "answer the agents' hooks at POST /v1/hooks/{agent} for the nodes in this `FILE` (NAME:TOKEN a line, mode 0600)")
	fl.StringVar(&o.publicURL, "public-url", "", "the inbox's address for links in notifications (default: where it listens)")
	fl.StringVar(&o.bundleKey, "bundle-key", "", "sign the policy as a bundle at GET /v1/policy/bundle with this private key `FILE` (created on first use)")
	fl.StringVar(&o.amendFile, "amend-file", "", "let approvers add allow rules (approve and add rule) to this policy `FILE`; without it the inbox adds none")
	cliflags.Policy(fl, &o.Selection)
	cliflags.Decide(fl, &o.Options)
	o.system.register(cmd)
	o.otlp.register(cmd)
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

// Run serves until ctx is done or SIGINT or SIGTERM arrives.
func Run(ctx context.Context, sys guard.System, o *Options) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if o.Mode != "" {
		if _, ok := policy.ParseMode(o.Mode); !ok {
			return workspace.Usagef("unknown --mode %q (want interactive or headless)", o.Mode)
		}
	}
	if (o.tlsCert == "") != (o.tlsKey == "") {
		return workspace.Usagef("--tls-cert and --tls-key go together")
	}
	useTLS := o.tlsCert != ""
	if err := o.system.check(o.socket); err != nil {
		return err
	}
	peerRole, err := o.system.peerRole()
	if err != nil {
		return err
	}
	if o.socket == "" {
		host, _, err := net.SplitHostPort(o.addr)
		if err != nil {
			return workspace.Usagef("--addr %q: %v", o.addr, err)
		}
		if !isLoopback(host) && !useTLS {
			return workspace.Usagef("--addr %q is not a loopback address: serving beyond this machine wants --tls-cert and --tls-key", o.addr)
		}
	}
	ps, err := sys.Load(o.Selection, sys.CurrentProject())
	if err != nil {
		return err
	}
	policyBundle, err := serveBundle(sys, o, sys.CurrentProject())
	if err != nil {
		return err
	}
	signer, keyPath, err := guard.SignerFor(sys, o.key, true)
	if err != nil {
		return err
	}
	dir := sys.StateDir(o.StateDir, ps.Pol)
	if dir == "" {
		return errors.New("no state directory: set --state-dir, settings.state_dir or HOME")
	}
	st, changes, where, closeDB, problems, err := openStore(ctx, &sys, o, ps, dir) // db.go
	if err == nil {
		defer closeDB()
	}
	for _, p := range problems {
		fmt.Fprintf(sys.Stderr, "toolguard serve: warning: %s\n", p)
	}
	if err != nil {
		return err
	}
	guard.WarnUntrusted(sys, st, signer, keyPath)
	stopExport, err := startExport(ctx, &sys, o, ps) // otel.go: before sys is handed on
	if err != nil {
		return err
	}
	defer stopExport()

	notify, err := NotifiersOf(ps.Pol.Settings.Notify) // settings.notify, then the flags
	if err != nil {
		return err
	}
	for _, f := range []struct {
		urls   []string
		format string
	}{{o.notifyJSON, "json"}, {o.notifySlack, "slack"}} {
		for _, u := range f.urls {
			n := Notifier{URL: u, Format: f.format, Events: o.notifyEvents}
			if err := ValidateNotifier(n); err != nil {
				return workspace.Usagef("%v", err)
			}
			notify = append(notify, n)
		}
	}
	tokenPath, tokens, err := serveTokens(sys, o.tokenFile)
	if err != nil {
		return err
	}
	login, err := RandomToken()
	if err != nil {
		return err
	}
	nodes, err := nodeTokensFile(sys, o.nodeTokens)
	if err != nil {
		return err
	}

	var ln net.Listener
	base := ""
	if o.socket != "" {
		path := sys.Path(o.socket)
		ln, err = listenUnix(sys, path, peerRole != nil) // system.go
		if err != nil {
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
	amendFile := ""
	if o.amendFile != "" {
		amendFile = sys.Path(o.amendFile)
	}
	e := &Engine{Sys: sys, Options: o.Options, Set: ps, ReadAudit: o.readAudit}
	srv := New(Config{
		Check:        e.Check,
		Validate:     e.Validate,
		AuditSummary: e.AuditSummary,
		Audit:        e.Audit,
		Store:        st,
		Describe:     e.Describe,
		Signer:       signer,
		Tokens:       tokens,
		LoginToken:   login,
		Secure:       useTLS,
		Notify:       notify,
		BaseURL:      publicURL,
		Now:          sys.Now,
		Logf:         func(f string, a ...any) { fmt.Fprintf(sys.Stderr, f+"\n", a...) },
		PeerRole:     peerRole,
		AppendAudit:  appendAuditFunc(sys, o, ps),
		Hook:         e.Hook,
		NodeTokens:   nodes,
		Changes:      changes,
		Bundle:       policyBundle,
		EditText:     e.EditText,
		JudgeEdit:    e.JudgeEdit,
		PlanAmend:    e.amender(amendFile),
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
	if peerRole != nil {
		hs.ConnContext = PeerConnContext
	}
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
	fmt.Fprintf(sys.Stderr, "toolguard serve: listening on %s (policy %s, %d rules; state %s)\n", base, ps.Pol.Hash(), ps.Pol.RuleCount(), where)
	fmt.Fprintf(sys.Stderr, "toolguard serve: tokens in %s; decisions signed by %s (%s)\n", tokenPath, approval.Fingerprint(pub), keyPath)
	if amendFile != "" {
		fmt.Fprintf(sys.Stderr, "toolguard serve: approvers may add allow rules to %s (--amend-file)\n", amendFile)
		if !slices.Contains(ps.Files, amendFile) {
			fmt.Fprintf(sys.Stderr, "toolguard serve: note: %s is not among the policy files serve loaded (%s): its rules reach only the hooks that load it\n",
				amendFile, strings.Join(ps.Files, ", "))
		}
	}
	if o.socket == "" {
		announceLogin(sys, base+"/login?t="+login, tokenPath)
	} else {
		announceLogin(sys, "/login?t="+login, tokenPath)
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
	fmt.Fprintln(sys.Stderr, "toolguard serve: shutting down")
	srv.Close()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		// Past the 5 s: connections still open are closed. Shutdown counts a
		// connection a client opened but never sent a request on (an HTTP
		// client dials ahead under concurrency) as busy until it is 5 s old,
		// so this is also the ordinary end of a busy server, not a failure.
		fmt.Fprintf(sys.Stderr, "toolguard serve: closing the connections still open after 5 s (%v)\n", err)
		if err := hs.Close(); err != nil {
			return fmt.Errorf("shutdown: %v", err)
		}
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
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
func serveTokens(sys guard.System, flag string) (string, map[string]Role, error) {
	path := flag
	if path == "" {
		path = sys.TokenPath()
		if path == "" {
			return "", nil, errors.New("no token file: set --token-file, XDG_CONFIG_HOME or HOME")
		}
	} else {
		path = sys.Path(path)
	}
	data, err := readPrivate(path)
	if errors.Is(err, fs.ErrNotExist) {
		var b bytes.Buffer
		b.WriteString(tokenFileHeader)
		tok, err := RandomToken()
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
		fmt.Fprintf(sys.Stderr, "toolguard serve: created token file %s\n", path)
		data = b.Bytes()
	} else if err != nil {
		return "", nil, err
	}
	tokens := map[string]Role{}
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
		role := map[string]Role{"approver": RoleApprover, "hook": RoleHook}[f[0]]
		if role == RoleNone {
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
