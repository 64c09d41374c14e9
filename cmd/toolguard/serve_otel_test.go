package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval/pgstore"
	"github.com/toolguard/toolguard/internal/approval/pgstore/pgtest"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/serve/otelexport/otlptest"
)

// otelPolicy is a headless policy with an ask rule, its state and audit
// log in the test's home (auditLog "": the database's chain).
func otelPolicy(t *testing.T, e *serveEnv, auditLog string) string {
	t.Helper()
	log := ""
	if auditLog != "" {
		log = "audit_log = \"" + auditLog + "\"\n"
	}
	pol := filepath.Join(e.home, "policy.toml")
	if err := os.WriteFile(pol, []byte(`version = 1
[settings]
mode = "headless"
state_dir = "`+filepath.Join(e.home, "state")+`"
`+log+`
[[rule]]
id = "ask-tag"
decision = "ask"
command = "git tag"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	return pol
}

// chainLines are the audit chain's lines by their hash (the prev of the
// line after), in order.
func chainLines(t *testing.T, data []byte) (map[string]audit.Record, []string) {
	t.Helper()
	byHash := map[string]audit.Record{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec audit.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			t.Fatalf("audit line %q: %v", sc.Text(), err)
		}
		sum := sha256.Sum256(sc.Bytes())
		h := hex.EncodeToString(sum[:])
		byHash[h] = rec
		order = append(order, h)
	}
	return byHash, order
}

// otelCalls makes the calls both export tests make and returns the
// approval request's id: a /v1/check of a force push (a dry run: no audit
// line, nothing exported), the same force push through POST
// /v1/hooks/{agent} for Claude Code and Codex (deny), a look-alike that
// passes (no line), a headless ask (deny with a request) and its
// approval through the API (an approval.decision line).
func otelCalls(t *testing.T, s *served) string {
	t.Helper()
	code, body := s.call(t, "POST", "/v1/check", s.hook, `{"command":"git push --force origin check-only","cwd":"/tmp"}`)
	if code != 200 || !strings.Contains(body, `"decision": "deny"`) {
		t.Fatalf("check: %d %s", code, body)
	}
	for _, d := range approvalDialects[:2] {
		if _, out, _ := s.hookPost(t, d.provider, testNodeToken, []byte(d.shell("git push --force origin main"))); !strings.Contains(out, d.deny) {
			t.Fatalf("%s: force push not denied: %s", d.provider, out)
		}
		if _, out, _ := s.hookPost(t, d.provider, testNodeToken, []byte(d.shell("git push origin main"))); strings.Contains(out, "deny") {
			t.Fatalf("%s: look-alike denied: %s", d.provider, out)
		}
	}
	_, out, _ := s.hookPost(t, "claude-code", testNodeToken, []byte(approvalDialects[0].shell("git tag v1")))
	id := approvalID.FindString(out)
	if id == "" {
		t.Fatalf("headless ask recorded no request: %s", out)
	}
	if st, body := s.call(t, "POST", "/v1/approvals/"+id+"/approve", s.approver, `{}`); st != 200 {
		t.Fatalf("approve: %d %s", st, body)
	}
	return id
}

// checkExported: the records are exactly the chain's lines (each named by
// its hash, in order, with the line's fields), with the severity of
// their decision and the node of the hook calls.
func checkExported(t *testing.T, logs []otlptest.Log, data []byte, id string) {
	t.Helper()
	byHash, order := chainLines(t, data)
	if len(logs) != len(order) || len(order) != 4 {
		t.Fatalf("%d records for %d audit lines (want 4: two denies, the ask, the approval):\n%s\n%+v", len(logs), len(order), data, logs)
	}
	var denies, asks, approvals int
	for i, l := range logs {
		h := l.Attrs["toolguard.audit.hash"]
		rec, ok := byHash[h]
		if !ok || order[i] != h {
			t.Errorf("record %d: hash %q is not line %d of the chain", i, h, i+1)
			continue
		}
		if l.Attrs["toolguard.audit.prev"] != rec.Prev || l.Attrs["toolguard.decision"] != rec.Decision ||
			l.EventName != rec.Event || l.Attrs["toolguard.summary"] != rec.Summary || !l.Time.Equal(rec.Time) {
			t.Errorf("record %d differs from its line:\n%+v\n%+v", i, l, rec)
		}
		if strings.Contains(rec.Summary, "check-only") {
			t.Errorf("a /v1/check dry run was exported: %+v", l)
		}
		switch {
		case rec.Event == audit.EventApproval:
			approvals++
			if l.Severity != 9 || l.SeverityText != "INFO" || rec.Decision != "allow" || l.Attrs["toolguard.approval_id"] != id ||
				!strings.HasPrefix(l.Body, "approved by ") || l.Attrs["toolguard.node"] != "" {
				t.Errorf("approval record: %+v", l)
			}
		case rec.ApprovalID != "":
			asks++
			if l.Severity != 13 || l.Attrs["toolguard.approval_id"] != id || l.Attrs["toolguard.rule"] != "ask-tag" || l.Attrs["toolguard.node"] != "runner-1" {
				t.Errorf("ask record: %+v", l)
			}
		default:
			denies++
			if l.Severity != 13 || l.SeverityText != "WARN" || rec.Decision != "deny" || l.Attrs["toolguard.tool"] != "Bash" ||
				l.Attrs["toolguard.rule"] == "" || l.Attrs["toolguard.node"] != "runner-1" || l.Body != rec.Reason || l.Body == "" {
				t.Errorf("deny record: %+v", l)
			}
		}
		if l.Attrs["toolguard.policy_hash"] == "" || l.Resource["service.name"] != "toolguard-serve" {
			t.Errorf("record %d: policy hash or service name missing: %+v", i, l)
		}
	}
	agents := map[string]bool{}
	for _, l := range logs {
		agents[l.Attrs["toolguard.agent"]] = true
	}
	if denies != 2 || asks != 1 || approvals != 1 || !agents["claude-code"] || !agents["codex"] {
		t.Errorf("denies %d, asks %d, approvals %d, agents %v", denies, asks, approvals, agents)
	}
}

// TestServeOTLPExport: serve --otlp-endpoint at a loopback OTLP/HTTP
// receiver. The hook calls it decides (Claude Code and Codex), the ask's
// request and the approval through the API arrive as log records that
// are exactly the audit chain's lines; a /v1/check and a look-alike that
// passes write no line and send nothing.
func TestServeOTLPExport(t *testing.T) {
	rcv := otlptest.Start(t)
	e := newServeEnv(t)
	auditLog := filepath.Join(e.home, "audit.jsonl")
	s := e.start(t, "--policy", otelPolicy(t, e, auditLog), "--node-tokens", e.nodeTokens(t), "--otlp-endpoint", rcv.URL)
	if !strings.Contains(s.stderr.String(), "exporting audit lines to "+rcv.URL) {
		t.Fatalf("serve does not say it exports:\n%s", s.stderr)
	}
	id := otelCalls(t, s)
	logs := rcv.Wait(t, 60*time.Second, func(l []otlptest.Log) bool { return len(l) >= 4 })
	data, err := os.ReadFile(auditLog)
	if err != nil {
		t.Fatal(err)
	}
	checkExported(t, logs, data, id)
	if rep, err := audit.Verify(bytes.NewReader(data)); err != nil || rep.Problem != nil {
		t.Errorf("the chain does not verify: %+v %v", rep, err)
	}
	if p := rcv.Problems(); len(p) > 0 {
		t.Errorf("the receiver could not read: %v", p)
	}
}

// TestServeOTLPExportDatabase: the same over serve --database: the
// records name the lines of the database's chain.
func TestServeOTLPExportDatabase(t *testing.T) {
	dsn := pgtest.DSN(t)
	rcv := otlptest.Start(t)
	e := newServeEnv(t)
	s := e.start(t, "--database", dsn, "--policy", otelPolicy(t, e, ""), "--node-tokens", e.nodeTokens(t), "--otlp-endpoint", rcv.URL)
	id := otelCalls(t, s)
	logs := rcv.Wait(t, 60*time.Second, func(l []otlptest.Log) bool { return len(l) >= 4 })
	db, err := pgstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b bytes.Buffer
	if err := db.WriteAudit(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	checkExported(t, logs, b.Bytes(), id)
}

// TestServeOTLPCollectorFailing: a collector answering 500, then one not
// listening at all: every decision is the same, the server keeps
// answering, the audit log has every line, and stderr hears of the
// failure once (at most once a minute).
func TestServeOTLPCollectorFailing(t *testing.T) {
	rcv := otlptest.Start(t)
	rcv.SetStatus(http.StatusInternalServerError)
	e := newServeEnv(t)
	auditLog := filepath.Join(e.home, "audit.jsonl")
	start := time.Now()
	s := e.start(t, "--policy", otelPolicy(t, e, auditLog), "--node-tokens", e.nodeTokens(t), "--otlp-endpoint", rcv.URL)
	deny := func(round int) {
		t.Helper()
		for _, d := range approvalDialects[:2] {
			if code, out, _ := s.hookPost(t, d.provider, testNodeToken, []byte(d.shell("git push --force origin main"))); code != 0 || !strings.Contains(out, d.deny) {
				t.Fatalf("round %d, %s: exit %d %s", round, d.provider, code, out)
			}
			if _, out, _ := s.hookPost(t, d.provider, testNodeToken, []byte(d.shell("git status"))); out != "" && strings.Contains(out, "deny") {
				t.Fatalf("round %d, %s: git status: %s", round, d.provider, out)
			}
		}
	}
	deny(1)
	deadline := time.Now().Add(60 * time.Second)
	for rcv.Requests() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if rcv.Requests() == 0 {
		t.Fatal("no export was attempted")
	}
	deny(2)
	rcv.Close() // the collector is gone
	deny(3)
	if st, body := s.call(t, "GET", "/healthz", "", ""); st != 200 {
		t.Errorf("healthz: %d %s", st, body)
	}
	// The last line is written after its reply: wait for all six.
	var data []byte
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, _ = os.ReadFile(auditLog)
		if bytes.Count(data, []byte("\n")) >= 6 {
			break
		}
	}
	if n := bytes.Count(data, []byte("\n")); n != 6 {
		t.Errorf("audit log has %d lines, want the 6 denies:\n%s", n, data)
	}
	reports := strings.Count(s.stderr.String(), "OpenTelemetry export to "+rcv.URL+": failed")
	if limit := 1 + int(time.Since(start)/time.Minute); reports < 1 || reports > limit {
		t.Errorf("%d failure reports on stderr (want 1 to %d):\n%s", reports, limit, s.stderr)
	}
}

// TestServeOTLPBadEndpoint: serve refuses to start with an endpoint it
// cannot use, saying why, before it listens.
func TestServeOTLPBadEndpoint(t *testing.T) {
	for _, tc := range []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--otlp-endpoint", "grpc://127.0.0.1:4317"}, nil, "want an http:// or https:// URL"},
		{[]string{"--otlp-endpoint", "127.0.0.1:4318"}, nil, "--otlp-endpoint"},
		{[]string{"--otlp-endpoint", "http://[::1"}, nil, "not a URL"},
		{[]string{"--otlp-endpoint", "http://collector.example:4318"}, nil, "plain http to a host that is not loopback"},
		{[]string{"--otlp-endpoint", "https://u:p@collector.example"}, nil, "credentials in the URL"},
		{nil, map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector.example:4318"}, "OTEL_EXPORTER_OTLP_ENDPOINT"},
	} {
		e := newServeEnv(t)
		e.tokensFor(t)
		for k, v := range tc.env {
			e.env[k] = v
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		var errb lockedBuffer
		code := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0"}, tc.args...), e.sys(nil, io.Discard, &errb))
		cancel()
		if code != 1 || !strings.Contains(errb.String(), tc.want) || strings.Contains(errb.String(), "listening on") {
			t.Errorf("%v %v: exit %d\n%s\n(want exit 1 before listening, saying %q)", tc.args, tc.env, code, errb.String(), tc.want)
		}
	}
}

// TestServeOTLPFromEnvironment: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT alone
// turns the export on; a line a system-mode hook sends (POST /v1/audit)
// is exported as the server appends it.
func TestServeOTLPFromEnvironment(t *testing.T) {
	rcv := otlptest.Start(t)
	e := newServeEnv(t)
	e.env["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"] = rcv.URL
	auditLog := filepath.Join(e.home, "audit.jsonl")
	s := e.start(t, "--policy", otelPolicy(t, e, auditLog), "--node-tokens", e.nodeTokens(t))
	d := approvalDialects[1]
	if _, out, _ := s.hookPost(t, d.provider, testNodeToken, []byte(d.shell("git push --force origin main"))); !strings.Contains(out, d.deny) {
		t.Fatalf("not denied: %s", out)
	}
	if st, body := s.call(t, "POST", "/v1/audit", s.hook, `{"event":"policy.decision","provider":"gemini","tool":"run_shell_command","summary":"rm -rf /srv","decision":"deny","rule":"rm-rf"}`); st != 200 {
		t.Fatalf("POST /v1/audit: %d %s", st, body)
	}
	logs := rcv.Wait(t, 60*time.Second, func(l []otlptest.Log) bool { return len(l) >= 2 })
	if l := logs[0]; l.Attrs["toolguard.decision"] != "deny" || l.Attrs["toolguard.agent"] != "codex" || l.Attrs["toolguard.node"] != "runner-1" {
		t.Errorf("hook record %+v", l)
	}
	if l := logs[1]; l.Attrs["toolguard.agent"] != "gemini" || l.Body != "rm -rf /srv" || l.Severity != 13 ||
		l.Attrs["toolguard.node"] != "" || l.Attrs["toolguard.audit.prev"] != logs[0].Attrs["toolguard.audit.hash"] {
		t.Errorf("POST /v1/audit record (chained after the first) %+v", l)
	}
}
