package e2e

// TestHTTPHook (issue 34, docs/fleet.md "Claude Code with only the HTTP hook"): real Claude
// Code whose only toolguard hook is the `type: "http"` hook `toolguard install --http`
// writes, answered by the real `toolguard serve --node-tokens` running in the CLI's own
// network namespace (its loopback). The force-push is denied with exactly the tool result
// the command hook gives; a harmless call passes through the HTTP hook and runs; with the
// server stopped, or without the node token, onFailure "block" keeps a harmless call from
// running.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// httpClaude is the Claude Code the HTTP hook needs: onFailure is honoured from 2.1.295 on
// (PROTOCOLS.md §11.1). The same pin and prefix as TestSystemMode (system_test.go), so the
// two share one npm install.
var httpClaude = [2]string{"@anthropic-ai/claude-code", "2.1.332"}

const (
	serveAddr = "127.0.0.1:48787" // inside the run's namespace: always free
	nodeToken = "e2e-node-token-" + "0123456789abcdef"
)

// claudeSuite is setupSuite for the tests that need only Claude Code, at pkg's version in
// prefix (default node dir when prefix is ""): the gate, root, the npm install of that one
// package, the toolguard build (and toolguard-serve beside it).
func claudeSuite(t *testing.T, pkg [2]string, prefixEnv, prefix string) *suite {
	t.Helper()
	if os.Getenv("TOOLGUARD_E2E") != "1" {
		t.Skip(gateHelp)
	}
	if mode := os.Getenv("TOOLGUARD_E2E_HOOK"); mode != "" {
		t.Skipf("TOOLGUARD_E2E_HOOK=%s: this test needs the real toolguard", mode)
	}
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (unshare -n -m needs CAP_SYS_ADMIN)")
	}
	for _, bin := range []string{"unshare", "node", "npm", "git", "go"} {
		if _, err := exec.LookPath(bin); err != nil {
			missing = append(missing, bin+" in PATH")
		}
	}
	if len(missing) > 0 {
		t.Fatalf("TOOLGUARD_E2E=1 but the test cannot run: missing %s", strings.Join(missing, ", "))
	}
	s := &suite{timeout: 90}
	if v := os.Getenv("TOOLGUARD_E2E_CLI_TIMEOUT"); v != "" {
		fmt.Sscan(v, &s.timeout)
	}
	if os.Getenv("TOOLGUARD_E2E_STRACE") != "0" {
		_, err := exec.LookPath("strace")
		s.strace = err == nil
	}
	base := filepath.Join(os.TempDir(), "toolguard-e2e")
	s.nodeDir = envOr(prefixEnv, filepath.Join(base, prefix))
	t0 := time.Now()
	if err := npmInstallPkgs(t, s.nodeDir, [][2]string{pkg}); err != nil {
		t.Fatalf("installing %s@%s into %s failed: %v", pkg[0], pkg[1], s.nodeDir, err)
	}
	t.Logf("%s@%s ready in %s (%.1fs)", pkg[0], pkg[1], s.nodeDir, time.Since(t0).Seconds())
	s.path = filepath.Join(s.nodeDir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")
	runs := envOr("TOOLGUARD_E2E_WORK", filepath.Join(base, "runs"))
	if err := os.MkdirAll(runs, 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	if s.runDir, err = os.MkdirTemp(runs, "run-"+time.Now().Format("20060102-150405")+"-"); err != nil {
		t.Fatal(err)
	}
	t.Logf("work dir: %s (kept on failure or with TOOLGUARD_E2E_KEEP=1)", s.runDir)
	t.Cleanup(func() {
		if !t.Failed() && os.Getenv("TOOLGUARD_E2E_KEEP") != "1" {
			os.RemoveAll(s.runDir)
		}
	})
	s.resolv = filepath.Join(s.runDir, "resolv.conf")
	if err := os.WriteFile(s.resolv, []byte("nameserver 127.0.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if s.testBin, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	if bin := os.Getenv("TOOLGUARD_E2E_BIN"); bin != "" {
		if s.toolguard, err = filepath.Abs(bin); err != nil {
			t.Fatal(err)
		}
		checkToolguard(t, s.toolguard)
	} else {
		s.toolguard = buildToolguard(t, s.runDir)
	}
	return s
}

// claudeVersion is what `claude --version` prints with the suite's PATH.
func (s *suite) claudeVersion(t *testing.T) string {
	cmd := exec.Command(filepath.Join(s.nodeDir, "node_modules", ".bin", "claude"), "--version")
	cmd.Env = append(os.Environ(), "PATH="+s.path, "DISABLE_AUTOUPDATER=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("claude --version: %v\n%s", err, out)
	}
	return strings.TrimSpace(string(out))
}

// claudeAgent is the suite's Claude Code driver with another permission mode and extra
// environment for the CLI.
func claudeAgent(mode string, env ...string) *agent {
	var base *agent
	for _, a := range agents {
		if a.name == "claude" {
			base = a
		}
	}
	a := *base
	a.command = func(c *caseEnv, prompt, resume string) ([]string, []string) {
		argv, e := base.command(c, prompt, resume)
		for i := range argv {
			if argv[i] == "bypassPermissions" {
				argv[i] = mode
			}
		}
		return argv, append(e, env...)
	}
	return &a
}

func TestHTTPHook(t *testing.T) {
	start := time.Now()
	s := claudeSuite(t, httpClaude, "TOOLGUARD_E2E_SYSTEM_NODE", "node-system")
	version := s.claudeVersion(t)
	t.Logf("Claude Code: %s", version)

	// The command hook's tool results for the force-push and its dodge: the reference the
	// HTTP hook's must equal, byte for byte.
	denied := fakeScript{Seq: []string{pushForce, dodge}}
	var commandReasons []string
	t.Run("command-hook-reference", func(t *testing.T) {
		count(t, start)
		c := newCase(t, s, claudeAgent("bypassPermissions"), "http/command-hook")
		c.writePolicy(t, false, false)
		c.install(t)
		denied.Cwd = c.Proj
		r := c.run(t, "push", denied, "do it", "")
		checkPushDenied(t, c, r)
		commandReasons = resultTexts(t, r, len(denied.Seq))
		t.Logf("the command hook's tool results: %q", commandReasons)
	})

	t.Run("http-only", func(t *testing.T) {
		count(t, start)
		if len(commandReasons) == 0 {
			t.Fatal("no reference reason from the command hook (command-hook-reference failed)")
		}
		withToken := claudeAgent("bypassPermissions", "TOOLGUARD_NODE_TOKEN="+nodeToken)
		c := newCase(t, s, withToken, "http/http-only")
		c.writePolicy(t, false, false) // serve's policy: the same rules, serve writes the audit
		c.noHookExec = "the only toolguard hook installed is the HTTP hook"
		tokens := filepath.Join(c.W, "nodes.tokens")
		if err := os.WriteFile(tokens, []byte("# e2e\ne2e-node:"+nodeToken+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		out, err := c.toolguardCmd("install", "--provider", "claude-code", "--scope", "project", "--dir", c.Proj, "--http", "http://"+serveAddr)
		if err != nil {
			t.Fatalf("toolguard install --http: %v\n%s", err, out)
		}
		t.Logf("install --http:\n%s", out)
		checkHTTPSettings(t, filepath.Join(c.Proj, ".claude", "settings.json"))

		platform := filepath.Join(c.W, "platform")
		if err := os.MkdirAll(platform, 0o700); err != nil {
			t.Fatal(err)
		}
		serve := childStep{Name: "serve", Kind: "background", Timeout: 30, Dir: platform,
			Argv: []string{c.s.toolguard, "serve", "--addr", serveAddr, "--policy", c.Policy, "--node-tokens", tokens},
			Env: []string{"PATH=" + c.s.path, "HOME=" + platform, "XDG_CONFIG_HOME=" + filepath.Join(platform, ".config"),
				"XDG_STATE_HOME=" + filepath.Join(platform, ".local", "state"), "USER=platform"},
			Ready: "http://" + serveAddr + "/healthz"}
		stop := childStep{Name: "stop-serve", Kind: "stop", Target: "serve", Timeout: 10}

		// 1. the force-push and its dodge, over HTTP: denied, the same tool results as the
		// command hook's
		c.pre = []childStep{serve}
		denied.Cwd = c.Proj
		r := c.run(t, "push", denied, "do it", "")
		checkPushDenied(t, c, r) // origin did not move; serve audited the deny
		for i, got := range resultTexts(t, r, len(denied.Seq)) {
			if got != commandReasons[i] {
				t.Errorf("%q: the HTTP hook's deny reached the model as\n  %q\nthe command hook's as\n  %q", denied.Seq[i], got, commandReasons[i])
			}
		}
		if n := len(c.auditLines()); n != len(denied.Seq) {
			t.Errorf("serve audited %d line(s) for the %d denied calls", n, len(denied.Seq))
		}

		// 2. the look-alike: a harmless call passes through the HTTP hook and runs
		marker := func(name string) bool {
			_, err := os.Stat(filepath.Join(c.Proj, name))
			return err == nil
		}
		r = c.run(t, "harmless", fakeScript{Shell: "touch http-ran && git log --oneline -1", Cwd: c.Proj}, "do it", "")
		if res := requireResult(t, c, r); !marker("http-ran") || !strings.Contains(res, "second commit") {
			t.Errorf("the harmless call did not run through the HTTP hook (marker %v); tool result %q", marker("http-ran"), truncate(res, 400))
		}

		// 3. the server stopped: onFailure "block" keeps the harmless call from running
		c.pre = []childStep{serve, stop}
		r = c.run(t, "stopped", fakeScript{Shell: "touch stopped-ran", Cwd: c.Proj}, "do it", "")
		res := requireResult(t, c, r)
		t.Logf("server stopped: the model got %q", truncate(res, 400))
		if marker("stopped-ran") {
			t.Errorf("with the server stopped the call ran (onFailure \"block\" not honoured); tool result %q", truncate(res, 400))
		}
		if !strings.Contains(res, "onFailure") || !strings.Contains(res, "ECONNREFUSED") {
			t.Errorf("the stopped server's block does not name onFailure and the refused connection (measured on 2.1.332): %q", truncate(res, 400))
		}

		// 4. no node token in the environment: serve answers 401, onFailure blocks
		noToken := claudeAgent("bypassPermissions")
		c.a = noToken
		c.pre = []childStep{serve}
		r = c.run(t, "no-token", fakeScript{Shell: "touch notoken-ran", Cwd: c.Proj}, "do it", "")
		res = requireResult(t, c, r)
		t.Logf("no token: the model got %q", truncate(res, 400))
		if marker("notoken-ran") {
			t.Errorf("without the node token the call ran; tool result %q", truncate(res, 400))
		}
		if !strings.Contains(res, "onFailure") || !strings.Contains(res, "HTTP 401") {
			t.Errorf("the block without a token does not name onFailure and serve's 401 (measured on 2.1.332): %q", truncate(res, 400))
		}
		c.a = withToken
	})
}

// checkHTTPSettings: the file install --http wrote holds one PreToolUse handler, of type
// http, at serve's hook endpoint, the token read from TOOLGUARD_NODE_TOKEN (never written),
// onFailure block; and no command hook for any event.
func checkHTTPSettings(t *testing.T, path string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), nodeToken) {
		t.Errorf("%s holds the node token", path)
	}
	var doc struct {
		Hooks map[string][]struct {
			Matcher string           `json:"matcher"`
			Hooks   []map[string]any `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	n := 0
	for event, groups := range doc.Hooks {
		for _, g := range groups {
			for _, h := range g.Hooks {
				if h["type"] != "http" {
					t.Errorf("%s: a %v handler for %s: %v (want only the HTTP hook)", path, h["type"], event, h)
					continue
				}
				n++
				hdr, _ := h["headers"].(map[string]any)
				envs, _ := json.Marshal(h["allowedEnvVars"])
				if event != "PreToolUse" || g.Matcher != "*" || h["url"] != "http://"+serveAddr+"/v1/hooks/claude-code" ||
					h["onFailure"] != "block" || hdr["Authorization"] != "Bearer ${TOOLGUARD_NODE_TOKEN}" || string(envs) != `["TOOLGUARD_NODE_TOKEN"]` {
					t.Errorf("%s: the HTTP hook is not as wanted: %s %s %v", path, event, g.Matcher, h)
				}
			}
		}
	}
	if n != 1 {
		t.Errorf("%s: %d HTTP handlers, want 1:\n%s", path, n, data)
	}
}
