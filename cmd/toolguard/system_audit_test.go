package main

import (
	"crypto/ed25519"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/serve"
)

// TestSystemModeAudit: the hook of a system install (the platform policy
// pinned with --policy, audit_log = "server", approval_url on the serve
// socket) holds no token and writes no audit file: the server knows it
// by its peer credentials and keeps the hash-chained log. With the server
// gone the hook still decides from the policy (a deny stays a deny, a
// look-alike still passes), reports the lost audit line on stderr, and a
// headless ask fails closed saying the approval service is down.
func TestSystemModeAudit(t *testing.T) {
	if !serve.PeerSupported {
		t.Skip("peer credentials are read on Linux only")
	}
	outside := t.TempDir()
	key, err := approval.GenerateKey(filepath.Join(outside, "approver.key"))
	if err != nil {
		t.Fatal(err)
	}
	st, err := approval.Open(filepath.Join(outside, "state"))
	if err != nil {
		t.Fatal(err)
	}
	st.Trust(approval.Keyring{key.Public().(ed25519.PublicKey)})
	logPath := filepath.Join(outside, "state", "audit.jsonl")
	roles, err := serve.PeerRoles("", 4_000_000) // nobody but root is an approver here
	if err != nil {
		t.Fatal(err)
	}
	srv := serve.New(serve.Config{Store: st, Signer: approval.Signer{Key: key, User: "root"}, PeerRole: roles,
		AppendAudit: func(r audit.Record) error { return audit.Append(logPath, r) }})
	t.Cleanup(srv.Close)
	sock := remoteSocket(t)
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: srv, ConnContext: serve.PeerConnContext}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })

	platform := filepath.Join(outside, "etc", "toolguard", "policy.toml")
	if err := os.MkdirAll(filepath.Dir(platform), 0o755); err != nil {
		t.Fatal(err)
	}
	text := fmt.Sprintf("version = 1\n[settings]\napproval_url = %q\naudit_log = \"server\"\napprovers = [%q]\n",
		"unix://"+sock, approval.PublicText(key.Public().(ed25519.PublicKey)))
	if err := os.WriteFile(platform, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	headless := filepath.Join(outside, "etc", "toolguard", "headless.toml")
	if err := os.WriteFile(headless, []byte(strings.Replace(text, "[settings]\n", "[settings]\nmode = \"headless\"\n", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := func() []audit.Record {
		f, err := os.Open(logPath)
		if err != nil {
			return nil
		}
		defer f.Close()
		recs, errs := audit.Read(f)
		if len(errs) > 0 {
			t.Fatalf("server log: %v", errs)
		}
		return recs
	}
	for _, agent := range []string{"claude-code", "codex", "gemini"} {
		t.Run(agent, func(t *testing.T) {
			e := newTrustEnv(t)
			// A user policy that would allow everything: not read, the
			// platform policy is pinned.
			e.write(filepath.Join(e.home, ".config", "toolguard", "policy.toml"), "version = 1\n[settings]\nbuiltin = false\ndefault = \"allow\"\n")
			e.env["TOOLGUARD_POLICY"] = e.write(filepath.Join(e.home, "allow.toml"), "version = 1\n[settings]\nbuiltin = false\ndefault = \"allow\"\n")
			before := len(lines())
			r := e.hook(agent, e.project, "rm -rf ~", "--policy", platform)
			wantDecision(t, "destructive call", r, "deny")
			got := lines()
			if len(got) != before+1 || got[len(got)-1].Decision != "deny" || got[len(got)-1].Summary != "rm -rf ~" {
				t.Fatalf("server log after the deny: %d lines (before %d) %+v\nstderr: %s", len(got), before, got, r.stderr)
			}
			if _, err := os.Stat(filepath.Join(e.home, ".local", "state", "toolguard", "audit.jsonl")); err == nil {
				t.Error("the hook wrote an audit file of its own in system mode")
			}
			f, _ := os.Open(logPath)
			rep, err := audit.Verify(f)
			f.Close()
			if err != nil || rep.Problem != nil {
				t.Errorf("audit verify of the server log: %v %+v", err, rep.Problem)
			}
			wantDecision(t, "look-alike", e.hook(agent, e.project, "ls -la", "--policy", platform), "")
		})
	}

	// The server goes away.
	hs.Close()
	os.Remove(sock)
	for _, agent := range []string{"claude-code", "codex"} {
		t.Run(agent+"/server down", func(t *testing.T) {
			e := newTrustEnv(t)
			r := e.hook(agent, e.project, "rm -rf ~", "--policy", platform)
			wantDecision(t, "destructive call, server down", r, "deny")
			if !strings.Contains(r.stderr, "the approval service did not take the audit line") || !strings.Contains(r.stderr, "the decision (deny) stands") {
				t.Errorf("the lost audit line is not reported: %q", r.stderr)
			}
			// Codex has no ask, so toolguard runs it headless: there the
			// session's hold is state the hook cannot read now, and every
			// call stops (below). Claude Code asks its user: ls passes.
			if agent != "codex" {
				wantDecision(t, "look-alike, server down", e.hook(agent, e.project, "ls -la", "--policy", platform), "")
			}
			r = e.hook(agent, e.project, "npm publish", "--policy", headless)
			wantDecision(t, "headless ask, server down", r, "deny")
			if !strings.Contains(r.stdout, "approval server did not answer") {
				t.Errorf("the ask's deny does not say the approval service is down: %s", r.stdout)
			}
			// Headless, whether the session waits for a human is state
			// too: unknown, every call stops (on_error), saying why.
			r = e.hook(agent, e.project, "ls -la", "--policy", headless)
			wantDecision(t, "headless look-alike, server down", r, "deny")
			if !strings.Contains(r.stdout, "approval server did not answer") {
				t.Errorf("the headless stop does not say the approval service is down: %s", r.stdout)
			}
			if _, err := os.Stat(filepath.Join(e.home, ".local", "state", "toolguard", "audit.jsonl")); err == nil {
				t.Error("the hook wrote an audit file of its own with the server down")
			}
		})
	}
}

// TestServeLoginLinkSecret: the file serve keeps its sign-in link in when
// stderr is not a terminal (beside serve.tokens) is a secret surface: the
// agent may not read it, whatever it runs; reading the policy beside it
// passes.
func TestServeLoginLinkSecret(t *testing.T) {
	for _, agent := range []string{"claude-code", "codex"} {
		e := newTrustEnv(t)
		e.write(filepath.Join(e.home, ".config", "toolguard", "serve.login"), "/login?t=x\n")
		for _, c := range []struct{ cmd, want string }{
			{"cat ~/.config/toolguard/serve.login", "deny"},
			{"python3 -c 'print(open(\"/\" + \"tmp\"))' < ~/.config/toolguard/serve.login", "deny"},
			{"cp ~/.config/toolguard/serve.login /tmp/l", "deny"},
			{"cat ~/.config/toolguard/policy.toml", ""},
		} {
			r := e.hook(agent, e.project, c.cmd)
			wantDecision(t, agent+": "+c.cmd, r, c.want)
		}
	}
}
