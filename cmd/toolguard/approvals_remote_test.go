package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/approval/pgstore/pgtest"
)

// `toolguard approvals --server` (approvals_remote.go) against a real
// `toolguard serve`: a sandboxed hook records its ask with the server
// (settings.approval_url), an operator on another account — no approver
// key, no store — lists, shows, approves, rejects and waits through the
// server's API, and the hook's next calls are decided accordingly.

// operator is the approver's side: their own home, no key, no store.
type operator struct {
	home     string
	env      map[string]string
	terminal bool
}

func newOperator(t *testing.T) *operator {
	home := t.TempDir()
	return &operator{home: home, env: map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"XDG_STATE_HOME": filepath.Join(home, ".local", "state"), "USER": "olga"}}
}

// run runs one toolguard command line as the operator.
func (op *operator) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	sys := &system{stdin: bytes.NewReader(nil), stdout: &out, stderr: &errb,
		getenv: func(k string) string { return op.env[k] }, now: time.Now,
		getwd:      func() (string, error) { return op.home, nil },
		executable: func() (string, error) { return "/usr/local/bin/toolguard", nil },
		etc:        filepath.Join(op.home, "etc"), isTerminal: func() bool { return op.terminal }}
	code := run(context.Background(), args, sys)
	return code, out.String(), errb.String()
}

// tokenFile writes tok into a 0600 file of the operator's.
func (op *operator) tokenFile(t *testing.T, tok string) string {
	t.Helper()
	p := filepath.Join(op.home, "approver.token")
	if err := os.WriteFile(p, []byte(tok+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// untouched fails when the operator's home gained an approver key or a
// state directory: --server signs and stores nothing here.
func (op *operator) untouched(t *testing.T) {
	t.Helper()
	for _, p := range []string{filepath.Join(op.home, ".config", "toolguard"), filepath.Join(op.home, ".local", "state", "toolguard")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("approvals --server made %s on the operator's machine", p)
		}
	}
}

// servePub is the public key serve signs with: the default approver key
// of its environment, created at its start.
func servePub(t *testing.T, e *serveEnv) (string, string) {
	t.Helper()
	key, err := approval.LoadKey(filepath.Join(e.env["XDG_CONFIG_HOME"], "toolguard", "approver.key"))
	if err != nil {
		t.Fatal(err)
	}
	pub := key.Public().(ed25519.PublicKey)
	return approval.PublicText(pub), approval.Fingerprint(pub)
}

// sandboxAt is a headless sandbox whose hook records its asks with the
// server at url and trusts its key pub.
func sandboxAt(t *testing.T, url, hookTok, pub string) *trustEnv {
	sb := newTrustEnv(t)
	tokLine := "" // none: the socket's peer credentials
	if hookTok != "" {
		tokLine = fmt.Sprintf("approval_token_file = %q\n", sb.write(filepath.Join(sb.home, "run", "hook.token"), hookTok+"\n"))
	}
	sb.write(filepath.Join(sb.home, ".config", "toolguard", "policy.toml"), fmt.Sprintf(
		"version = 1\n[settings]\nmode = \"headless\"\napproval_url = %q\n%sapprovers = [%q]\n", url, tokLine, pub))
	return sb
}

// ask makes the sandbox's hook call cmd, wants a deny, and returns the
// request id it names.
func ask(t *testing.T, sb *trustEnv, agent, cmd string) string {
	t.Helper()
	r := sb.hook(agent, sb.project, cmd)
	wantDecision(t, "ask "+cmd, r, "deny")
	id := approvalID.FindString(r.stdout)
	if id == "" {
		t.Fatalf("no request id in the reply: %s\n%s", r.stdout, r.stderr)
	}
	return id
}

// TestApprovalsServer: the CLI's whole round through a real serve on
// loopback, for Claude Code and Codex: list (table, --json, filters),
// show, approve → the hook's identical retry is allowed once, reject
// --reason → the next identical call is denied with it, a second decision
// is exit 1 naming the decision that won (409), wait reports decisions
// with its exit codes and sees a decision made while it waits.
func TestApprovalsServer(t *testing.T) {
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent, func(t *testing.T) {
			se := newServeEnv(t)
			s := se.start(t)
			pub, fp := servePub(t, se)
			sb := sandboxAt(t, s.base, s.hook, pub)
			op := newOperator(t)
			srv := []string{"--server", s.base, "--token-file", op.tokenFile(t, s.approver)}
			cli := func(sub string, args ...string) (int, string, string) {
				t.Helper()
				line := append([]string{"approvals", sub}, srv...)
				return op.run(t, append(line, args...)...)
			}

			id := ask(t, sb, agent, remoteAsk1)
			code, out, errs := cli("list")
			if code != 0 || !strings.Contains(out, id) || !strings.Contains(out, "pending") || !strings.Contains(out, remoteAsk1) || errs != "" {
				t.Fatalf("list: exit %d\n%s%s", code, out, errs)
			}
			code, out, _ = cli("list", "--json", "--status", "pending", "--provider", agent)
			var reqs []approval.Request
			if code != 0 || json.Unmarshal([]byte(out), &reqs) != nil || len(reqs) != 1 || reqs[0].ID != id || reqs[0].ToolInput != "" {
				t.Fatalf("list --json: exit %d %s", code, out)
			}
			if code, out, _ := cli("list", "--status", "approved"); code != 0 || strings.Contains(out, id) {
				t.Errorf("list --status approved: exit %d %s", code, out)
			}
			code, out, _ = cli("show", id)
			if code != 0 || !strings.Contains(out, remoteAsk1) || !strings.Contains(out, "package-publish") {
				t.Errorf("show: exit %d\n%s", code, out)
			}

			code, out, errs = cli("approve", id)
			if code != 0 || !strings.Contains(out, "approved "+id+": "+remoteAsk1+" (1 use(s)") || !strings.Contains(out, "signed by the server's key "+fp) {
				t.Fatalf("approve: exit %d\n%s%s", code, out, errs)
			}
			wantDecision(t, "approved retry", sb.hook(agent, sb.project, remoteAsk1), "allow")
			id2 := ask(t, sb, agent, remoteAsk1) // the one use is spent: a new request
			if id2 == id {
				t.Fatalf("the spent request %s answered again", id)
			}
			code, out, errs = cli("approve", id)
			if code != 1 || out != "" || !strings.Contains(errs, "cannot approve "+id+": it was already approved") || !strings.Contains(errs, "status 409") {
				t.Errorf("second approve: exit %d\n%s%s", code, out, errs)
			}

			code, out, errs = cli("reject", id2, "--reason", "releases go through CI")
			if code != 0 || !strings.Contains(out, "rejected "+id2) {
				t.Fatalf("reject: exit %d\n%s%s", code, out, errs)
			}
			r := sb.hook(agent, sb.project, remoteAsk1)
			wantDecision(t, "rejected", r, "deny")
			if !strings.Contains(r.stdout, "a human rejected this call (request "+id2+"): releases go through CI") {
				t.Errorf("the rejection's reason does not reach the next call: %s", r.stdout)
			}
			code, out, errs = cli("approve", id2)
			if code != 1 || out != "" || !strings.Contains(errs, "cannot approve "+id2+": it was already rejected") || !strings.Contains(errs, "status 409") {
				t.Errorf("approve after reject: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = cli("reject", id, "--reason", "no")
			if code != 1 || !strings.Contains(errs, "cannot reject "+id+": it was already approved") {
				t.Errorf("reject after approve: exit %d\n%s%s", code, out, errs)
			}

			var w waitResult
			if code, out, _ := cli("wait", id2); code != waitRejected || json.Unmarshal([]byte(out), &w) != nil || w.Decision != "rejected" || w.Reason != "releases go through CI" {
				t.Errorf("wait rejected: exit %d %s", code, out)
			}
			if code, out, _ := cli("wait", id); code != waitApproved || json.Unmarshal([]byte(out), &w) != nil || w.Decision != "approved" || w.Approver == nil || w.Approver.Fingerprint != fp {
				t.Errorf("wait approved: exit %d %s", code, out)
			}
			id3 := ask(t, sb, agent, "git reset --hard HEAD~1")
			if code, out, _ := cli("wait", id3, "--timeout", "300ms"); code != waitTimedOut || !strings.Contains(out, `"timeout"`) {
				t.Errorf("wait on a pending request: exit %d %s", code, out)
			}
			// A decision made while wait waits.
			type result struct {
				code int
				out  string
			}
			done := make(chan result, 1)
			go func() {
				code, out, _ := cli("wait", id3, "--timeout", "30s")
				done <- result{code, out}
			}()
			time.Sleep(200 * time.Millisecond)
			if code, out, errs := cli("approve", id3, "--uses", "2", "--ttl", "5m"); code != 0 || !strings.Contains(out, "2 use(s)") {
				t.Fatalf("approve --uses 2: exit %d %s%s", code, out, errs)
			}
			res := <-done
			if res.code != waitApproved || json.Unmarshal([]byte(res.out), &w) != nil || w.Uses != 2 {
				t.Errorf("wait while approving: exit %d %s", res.code, res.out)
			}
			op.untouched(t)
		})
	}
}

// TestApprovalsServerErrors: a bad URL, a server that is down, a wrong or
// missing token, a token file others can read, the hook's token, flags
// that mean nothing through a server: exit 1 with a message saying what
// to do, nothing on stdout, nothing decided.
func TestApprovalsServerErrors(t *testing.T) {
	se := newServeEnv(t)
	s := se.start(t)
	pub, _ := servePub(t, se)
	sb := sandboxAt(t, s.base, s.hook, pub)
	id := ask(t, sb, "claude-code", remoteAsk1)
	op := newOperator(t)
	good := op.tokenFile(t, s.approver)
	loose := filepath.Join(op.home, "loose.token")
	os.WriteFile(loose, []byte(s.approver), 0o644)
	hookFile := filepath.Join(op.home, "hook.token")
	os.WriteFile(hookFile, []byte(s.hook), 0o600)
	wrongFile := filepath.Join(op.home, "wrong.token")
	os.WriteFile(wrongFile, []byte("wrong-token-wrong-token-wrong"), 0o600)
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	down := "http://" + ln.Addr().String()
	ln.Close()

	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"ftp url", []string{"list", "--server", "ftp://x:1", "--token-file", good}, "want unix:///path"},
		{"https", []string{"list", "--server", "https://guard.example:8787", "--token-file", good}, "https is not supported"},
		{"not loopback", []string{"approve", id, "--server", "http://10.0.0.5:8787", "--token-file", good}, "not loopback"},
		{"relative socket", []string{"list", "--server", "unix://serve.sock"}, "unix:///absolute"},
		{"server down", []string{"list", "--server", down, "--token-file", good}, "connection refused"},
		{"socket missing", []string{"list", "--server", "unix://" + filepath.Join(op.home, "none.sock")}, "no such file"},
		{"no token", []string{"approve", id, "--server", s.base}, "no approver token"},
		{"wrong token", []string{"approve", id, "--server", s.base, "--token-file", wrongFile}, "refused this caller (401"},
		{"hook token", []string{"approve", id, "--server", s.base, "--token-file", hookFile}, "not an approver (403"},
		{"hook token list", []string{"list", "--server", s.base, "--token-file", hookFile}, "not an approver (403"},
		{"loose token file", []string{"approve", id, "--server", s.base, "--token-file", loose}, "readable by its owner only"},
		{"missing token file", []string{"list", "--server", s.base, "--token-file", filepath.Join(op.home, "nope")}, "no such file"},
		{"no such request", []string{"approve", "req_nonesuch00", "--server", s.base, "--token-file", good}, "no approval request req_nonesuch00 (status 404)"},
		{"wait for no such request", []string{"wait", "req_nonesuch00", "--server", s.base, "--token-file", good}, "(status 404)"},
		{"bad status filter", []string{"list", "--status", "bogus", "--server", s.base, "--token-file", good}, "unknown status"},
		{"bad id", []string{"approve", "../../healthz", "--server", s.base, "--token-file", good}, "invalid approval request id"},
		{"--key", []string{"approve", id, "--server", s.base, "--token-file", good, "--key", good}, "server signs the grant with its own key"},
		{"--session", []string{"approve", id, "--server", s.base, "--token-file", good, "--session"}, "--session does not work with --server"},
		{"--edit", []string{"approve", id, "--server", s.base, "--token-file", good, "--edit"}, "--edit does not work with --server"},
		{"--amend", []string{"approve", id, "--server", s.base, "--token-file", good, "--amend"}, "--amend does not work with --server"},
		{"--grants-dir", []string{"approve", id, "--server", s.base, "--token-file", good, "--grants-dir", op.home}, "--grants-dir does not work"},
		{"uses over the cap", []string{"approve", id, "--server", s.base, "--token-file", good, "--uses", "5000"}, "uses must be 1 to 1000"},
		{"no reason", []string{"reject", id, "--server", s.base, "--token-file", good}, "reject wants --reason"},
		{"state dir", []string{"list", "--server", s.base, "--state-dir", op.home}, "exclude each other"},
		{"token file alone", []string{"list", "--token-file", good}, "--token-file goes with --server"},
		{"prune", []string{"prune", "--server", s.base}, "works on this machine only"},
		{"key", []string{"key", "--server", s.base}, "works on this machine only"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := op.run(t, append([]string{"approvals"}, tc.args...)...)
			if code != 1 || out != "" || !strings.Contains(errs, tc.want) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errs, tc.want)
			}
			if strings.Contains(errs, s.approver) {
				t.Errorf("the approver token is in the message: %s", errs)
			}
		})
	}
	// Nothing of the above decided anything.
	code, out, _ := op.run(t, "approvals", "show", id, "--json", "--server", s.base, "--token-file", good)
	var r approval.Request
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Status != approval.StatusPending {
		t.Fatalf("after the refused commands: exit %d %s", code, out)
	}
	wantDecision(t, "still pending", sb.hook("claude-code", sb.project, remoteAsk1), "deny")
	// Without a terminal, approve wants a token given on purpose: the
	// environment's counts, a socket's peer credentials do not.
	op.env[approverTokenEnv] = s.approver
	if code, out, errs := op.run(t, "approvals", "approve", id, "--server", s.base); code != 0 || !strings.Contains(out, "approved "+id) {
		t.Errorf("approve with $%s: exit %d %s%s", approverTokenEnv, code, out, errs)
	}
	op.untouched(t)
}

// TestApprovalsServerSocket: system mode's server — `serve --socket
// --peer-credentials` — and an operator with no token: the caller's uid
// (the test's, serve's own: an approver) is the credential. Without
// --server the platform policy's settings.approval_url names the server.
// Approve without a terminal and without a token is refused.
func TestApprovalsServerSocket(t *testing.T) {
	se := newServeEnv(t)
	se.tokensFor(t)
	sock := remoteSocket(t)
	ctx, cancel := context.WithCancel(context.Background())
	var errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"serve", "--socket", sock, "--peer-credentials"}, se.sys(nil, io.Discard, &errb))
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("serve exited %d: %s", code, errb.String())
		}
	}()
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(errb.String(), "listening on unix:"); {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start: %s", errb.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	pub, fp := servePub(t, se)
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent, func(t *testing.T) {
			sb := sandboxAt(t, "unix://"+sock, "", pub)
			op := newOperator(t)
			platform := filepath.Join(op.home, "platform.toml")
			os.WriteFile(platform, []byte(fmt.Sprintf("version = 1\n[settings]\napproval_url = %q\napprovers = [%q]\n", "unix://"+sock, pub)), 0o644)

			id := ask(t, sb, agent, remoteAsk1)
			// No terminal, no token: refused before anything is sent.
			code, out, errs := op.run(t, "approvals", "approve", id, "--policy", platform)
			if code != 1 || out != "" || !strings.Contains(errs, "want a human") {
				t.Errorf("approve without a terminal: exit %d %s%s", code, out, errs)
			}
			op.terminal = true
			code, out, errs = op.run(t, "approvals", "approve", id, "--key", filepath.Join(op.home, "k"), "--policy", platform)
			if code != 1 || out != "" || !strings.Contains(errs, "settings.approval_url (unix://"+sock) || !strings.Contains(errs, "--state-dir DIR") {
				t.Errorf("approve --key through settings.approval_url: exit %d %s%s", code, out, errs)
			}
			code, out, errs = op.run(t, "approvals", "list", "--status", "pending", "--policy", platform)
			if code != 0 || !strings.Contains(out, id) {
				t.Fatalf("list through settings.approval_url: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = op.run(t, "approvals", "approve", id, "--server", "unix://"+sock)
			if code != 0 || !strings.Contains(out, "signed by the server's key "+fp) || errs != "" {
				t.Fatalf("approve over the socket: exit %d\n%s%s", code, out, errs)
			}
			wantDecision(t, "approved retry", sb.hook(agent, sb.project, remoteAsk1), "allow")
			id2 := ask(t, sb, agent, remoteAsk1)
			code, out, errs = op.run(t, "approvals", "reject", id2, "--reason", "not from here", "--stop", "--policy", platform)
			if code != 0 || !strings.Contains(out, "ends the turn") {
				t.Fatalf("reject --stop: exit %d\n%s%s", code, out, errs)
			}
			r := sb.hook(agent, sb.project, "ls")
			wantDecision(t, "stopped", r, "deny")
			if !strings.Contains(r.stdout, "stopped this turn: not from here") {
				t.Errorf("the stop does not reach the session's next call: %s", r.stdout)
			}
			// --state-dir is the local store, whatever the policy says.
			code, out, _ = op.run(t, "approvals", "list", "--policy", platform, "--state-dir", filepath.Join(op.home, "st"))
			if code != 0 || strings.Contains(out, id) {
				t.Errorf("--state-dir went to the server: exit %d %s", code, out)
			}
			// The policy names another key: the approver is told the hook
			// will not honour the server's grant.
			other := approval.PublicText(make(ed25519.PublicKey, ed25519.PublicKeySize))
			os.WriteFile(platform, []byte(fmt.Sprintf("version = 1\n[settings]\napproval_url = %q\napprovers = [%q]\n", "unix://"+sock, other)), 0o644)
			id3 := ask(t, sb, agent, "git reset --hard HEAD~1")
			code, _, errs = op.run(t, "approvals", "approve", id3, "--policy", platform)
			if code != 0 || !strings.Contains(errs, "does not name the server's key") || !strings.Contains(errs, pub) {
				t.Errorf("approve with the server's key untrusted here: exit %d %s", code, errs)
			}
		})
	}
}

// TestApprovalsServerPostgres: two `serve --database` replicas on one
// PostgreSQL database. The hook records its ask through replica A; the
// CLI lists and approves it through replica B (nothing of it is in any
// state directory), and the hook's retry through A is allowed; a reject
// through A of what B approved is exit 1 naming the approval.
func TestApprovalsServerPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	se := newServeEnv(t)
	a := se.start(t, "--database", dsn)
	b := se.start(t, "--database", dsn)
	pub, fp := servePub(t, se)
	op := newOperator(t)
	tok := op.tokenFile(t, a.approver)
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent, func(t *testing.T) {
			sb := sandboxAt(t, a.base, a.hook, pub)
			id := ask(t, sb, agent, remoteAsk1)
			code, out, errs := op.run(t, "approvals", "list", "--server", b.base, "--token-file", tok, "--status", "pending")
			if code != 0 || !strings.Contains(out, id) {
				t.Fatalf("list through replica B: exit %d\n%s%s", code, out, errs)
			}
			code, out, errs = op.run(t, "approvals", "approve", id, "--server", b.base, "--token-file", tok)
			if code != 0 || !strings.Contains(out, fp) {
				t.Fatalf("approve through replica B: exit %d\n%s%s", code, out, errs)
			}
			wantDecision(t, "retry through replica A", sb.hook(agent, sb.project, remoteAsk1), "allow")
			code, out, errs = op.run(t, "approvals", "reject", id, "--server", a.base, "--token-file", tok, "--reason", "late")
			if code != 1 || out != "" || !strings.Contains(errs, "already approved") || !strings.Contains(errs, "status 409") {
				t.Errorf("reject through A of B's approval: exit %d\n%s%s", code, out, errs)
			}
		})
	}
	// The store is the database: serve's state directory holds no request.
	if _, err := os.Stat(filepath.Join(se.env["XDG_STATE_HOME"], "toolguard", "requests")); err == nil {
		t.Error("serve --database recorded requests in its state directory")
	}
	op.untouched(t)
}
