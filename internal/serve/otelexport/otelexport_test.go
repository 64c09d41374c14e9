package otelexport_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/serve/otelexport"
	"github.com/toolguard/toolguard/internal/serve/otelexport/otlptest"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		cfg      otelexport.Config
		want     string // "" and no wantErr: off
		wantErr  string
		insecure bool
	}{
		{name: "off by default", cfg: otelexport.Config{}},
		{name: "flag on loopback, path added", cfg: otelexport.Config{Endpoint: "http://127.0.0.1:4318"}, want: "http://127.0.0.1:4318/v1/logs"},
		{name: "flag localhost with path", cfg: otelexport.Config{Endpoint: "http://localhost:4318/custom/logs"}, want: "http://localhost:4318/custom/logs"},
		{name: "flag ipv6 loopback", cfg: otelexport.Config{Endpoint: "http://[::1]:4318/"}, want: "http://[::1]:4318/v1/logs"},
		{name: "https anywhere", cfg: otelexport.Config{Endpoint: "https://collector.example:4318"}, want: "https://collector.example:4318/v1/logs"},
		{name: "plain http beyond loopback refused", cfg: otelexport.Config{Endpoint: "http://collector.example:4318"}, wantErr: "plain http to a host that is not loopback"},
		{name: "plain http beyond loopback, asked for", cfg: otelexport.Config{Endpoint: "http://10.0.0.9:4318", Insecure: true}, want: "http://10.0.0.9:4318/v1/logs"},
		{name: "a look-alike of loopback is not", cfg: otelexport.Config{Endpoint: "http://127.0.0.1.example:4318"}, wantErr: "not loopback"},
		{name: "grpc scheme", cfg: otelexport.Config{Endpoint: "grpc://127.0.0.1:4317"}, wantErr: "want an http:// or https:// URL"},
		{name: "no scheme", cfg: otelexport.Config{Endpoint: "127.0.0.1:4318"}, wantErr: "--otlp-endpoint"},
		{name: "not a URL", cfg: otelexport.Config{Endpoint: "http://[::1"}, wantErr: "not a URL"},
		{name: "no host", cfg: otelexport.Config{Endpoint: "https:///v1/logs"}, wantErr: "no host"},
		{name: "bad port", cfg: otelexport.Config{Endpoint: "http://127.0.0.1:99999"}, wantErr: "bad port"},
		{name: "credentials in the URL", cfg: otelexport.Config{Endpoint: "https://user:secret@collector.example"}, wantErr: "credentials in the URL"},
		{name: "query", cfg: otelexport.Config{Endpoint: "https://collector.example/v1/logs?x=1"}, wantErr: "query"},
		{name: "env logs endpoint is exact", cfg: otelexport.Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://c.example/ingest"})}, want: "https://c.example/ingest"},
		{name: "env base endpoint gets the signal path", cfg: otelexport.Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c.example/otlp/"})}, want: "https://c.example/otlp/v1/logs"},
		{name: "env logs wins over base", cfg: otelexport.Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://a.example", "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "https://b.example/v1/logs"})}, want: "https://b.example/v1/logs"},
		{name: "flag wins over env", cfg: otelexport.Config{Endpoint: "https://flag.example", Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://env.example"})}, want: "https://flag.example/v1/logs"},
		{name: "env plain http refused", cfg: otelexport.Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})}, wantErr: "OTEL_EXPORTER_OTLP_ENDPOINT"},
		{name: "env plain http with the env's insecure", cfg: otelexport.Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_INSECURE": "true"})}, want: "http://collector:4318/v1/logs"},
		{name: "SDK disabled", cfg: otelexport.Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c.example", "OTEL_SDK_DISABLED": "true"})}},
		{name: "logs exporter none", cfg: otelexport.Config{Getenv: env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c.example", "OTEL_LOGS_EXPORTER": "none"})}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := otelexport.Resolve(tc.cfg)
			if tc.wantErr != "" {
				var ce *otelexport.ConfigError
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !errors.As(err, &ce) {
					t.Fatalf("Resolve = %q, %v; want a ConfigError with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("Resolve = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// lines are three audit lines as the server writes them: a hook's deny, a
// headless ask, and a human's approval.
func lines() []audit.Record {
	t0 := time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)
	return []audit.Record{
		{Time: t0, Event: audit.EventDecision, Provider: "claude-code", Session: "s1", Tool: "Bash", Kind: "shell",
			Summary: "git push --force origin main", Decision: "deny", Rule: "git-push-force", Layer: "defaults",
			Reason: "force push rewrites history", PolicyHash: "sha256:abc", Mode: "interactive", DurationMS: 0.75, Prev: audit.Genesis},
		{Time: t0.Add(time.Second), Event: audit.EventDecision, Provider: "codex", Tool: "Bash", Summary: "git tag v1",
			Decision: "ask", Rule: "ask-tag", ApprovalID: "req_abcdefghij", Prev: "11"},
		{Time: t0.Add(2 * time.Second), Event: audit.EventApproval, Provider: "codex", Summary: "git tag v1", Decision: "allow",
			ApprovalID: "req_abcdefghij", Reason: "approved by alice (SHA256:x) via token: 1 use(s)", Mode: "serve", Prev: "22"},
	}
}

func TestExportRecords(t *testing.T) {
	rcv := otlptest.Start(t)
	var logs lockedLines
	x, err := otelexport.New(context.Background(), otelexport.Config{Endpoint: rcv.URL, Version: "v9.9.9", Logf: logs.add, Interval: 20 * time.Millisecond})
	if err != nil || x == nil {
		t.Fatalf("New: %v %v", x, err)
	}
	for i, rec := range lines() {
		node := ""
		if i == 0 {
			node = "runner-1"
		}
		x.Export(context.Background(), rec, fmt.Sprintf("hash-%d", i), node)
	}
	got := rcv.Wait(t, 30*time.Second, func(l []otlptest.Log) bool { return len(l) >= 3 })
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("%d records: %+v", len(got), got)
	}
	deny, ask, appr := got[0], got[1], got[2]
	check := func(name string, l otlptest.Log, event, sevText, body string, sev int32, attrs map[string]string) {
		t.Helper()
		if l.EventName != event || l.SeverityText != sevText || l.Severity != sev || l.Body != body {
			t.Errorf("%s: event %q severity %d %q body %q; want %q %d %q %q", name, l.EventName, l.Severity, l.SeverityText, l.Body, event, sev, sevText, body)
		}
		for k, v := range attrs {
			if l.Attrs[k] != v {
				t.Errorf("%s: attribute %s = %q, want %q (all: %v)", name, k, l.Attrs[k], v, l.Attrs)
			}
		}
		if l.Resource["service.name"] != "toolguard-serve" || l.Resource["service.version"] != "v9.9.9" || l.Resource["host.name"] == "" {
			t.Errorf("%s: resource %v", name, l.Resource)
		}
	}
	check("deny", deny, "policy.decision", "WARN", "force push rewrites history", 13, map[string]string{
		"toolguard.decision": "deny", "toolguard.agent": "claude-code", "toolguard.tool": "Bash", "toolguard.kind": "shell",
		"toolguard.rule": "git-push-force", "toolguard.rule.layer": "defaults", "toolguard.session": "s1",
		"toolguard.summary": "git push --force origin main", "toolguard.policy_hash": "sha256:abc", "toolguard.node": "runner-1",
		"toolguard.audit.prev": audit.Genesis, "toolguard.audit.hash": "hash-0", "toolguard.duration_ms": "0.75",
	})
	check("ask", ask, "policy.decision", "INFO4", "git tag v1", 12, map[string]string{
		"toolguard.decision": "ask", "toolguard.approval_id": "req_abcdefghij", "toolguard.audit.hash": "hash-1", "toolguard.node": "",
	})
	check("approval", appr, "approval.decision", "INFO", "approved by alice (SHA256:x) via token: 1 use(s)", 9, map[string]string{
		"toolguard.decision": "allow", "toolguard.event": "approval.decision", "toolguard.approval_id": "req_abcdefghij", "toolguard.mode": "serve",
	})
	if _, ok := ask.Attrs["toolguard.node"]; ok {
		t.Errorf("an empty field was exported: %v", ask.Attrs)
	}
	if !deny.Time.Equal(lines()[0].Time) {
		t.Errorf("time %v, want the line's %v", deny.Time, lines()[0].Time)
	}
	if s := x.Stats(); s != (otelexport.Stats{Emitted: 3, Exported: 3}) {
		t.Errorf("stats %+v", s)
	}
	if logs.String() != "" {
		t.Errorf("stderr: %s", logs.String())
	}
}

func TestSeverity(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		rec  audit.Record
		want string
	}{
		{audit.Record{Decision: "allow"}, "INFO"},
		{audit.Record{Decision: "pass"}, "INFO"},
		{audit.Record{Event: "approval.result", Decision: "allow"}, "INFO"},
		{audit.Record{Decision: "ask"}, "INFO4"},
		{audit.Record{Decision: "deny"}, "WARN"},
		{audit.Record{Event: audit.EventApproval, Decision: "deny"}, "WARN"},
		{audit.Record{Decision: "deny", Error: "cannot read the hook payload"}, "ERROR"},
		{audit.Record{Event: audit.EventBundle, Decision: "refuse"}, "ERROR"},
	} {
		sev, text := otelexport.Severity(tc.rec)
		if text != tc.want {
			t.Errorf("%+v: %s (%d), want %s", tc.rec, text, sev, tc.want)
		}
	}
	a, _ := otelexport.Severity(audit.Record{Decision: "allow"})
	k, _ := otelexport.Severity(audit.Record{Decision: "ask"})
	d, _ := otelexport.Severity(audit.Record{Decision: "deny"})
	if !(a < k && k < d) {
		t.Errorf("severities allow %d, ask %d, deny %d: want increasing", a, k, d)
	}
}

// TestExportQueueFull: with the collector stalled, Export never waits:
// past the queue's bound each record is dropped and counted, stderr is
// told once, and once the collector answers every record is accounted
// for.
func TestExportQueueFull(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	received := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release
		mu.Lock()
		received++
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	defer func() {
		select {
		case <-release:
		default:
			close(release)
		}
	}()
	var logs lockedLines
	x, err := otelexport.New(context.Background(), otelexport.Config{Endpoint: srv.URL, Logf: logs.add, QueueSize: 4, Interval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	for i := range n {
		x.Export(context.Background(), audit.Record{Time: time.Now(), Decision: "deny", Summary: fmt.Sprint(i)}, "h", "")
	}
	s := x.Stats()
	if s.Emitted != n || s.Dropped < n-4 {
		t.Errorf("stats with the collector stalled %+v: want at least %d dropped", s, n-4)
	}
	if c := strings.Count(logs.String(), "\n"); c != 1 || !strings.Contains(logs.String(), "the queue is full") {
		t.Errorf("stderr (want one report):\n%s", logs.String())
	}
	close(release)
	if err := x.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	s = x.Stats()
	if s.Exported+s.Failed+s.Dropped != n || s.Exported == 0 || s.Exported > 4 {
		t.Errorf("stats after shutdown %+v: every record exported, failed or dropped, at most the queue exported", s)
	}
	if !strings.Contains(logs.String(), fmt.Sprintf("%d dropped", s.Dropped)) {
		t.Errorf("the shutdown report does not say what was dropped:\n%s", logs.String())
	}
	// After shutdown a line is dropped, counted, and Export still returns.
	x.Export(context.Background(), audit.Record{Decision: "deny"}, "h", "")
	if x.Stats().Dropped != s.Dropped+1 {
		t.Errorf("after shutdown: %+v", x.Stats())
	}
}

// TestExportFailures: a collector answering 500, then one not listening:
// every record is counted failed, stderr hears of it at most once per
// report interval (a fake clock), and Export never fails or waits.
func TestExportFailures(t *testing.T) {
	rcv := otlptest.Start(t)
	rcv.SetStatus(http.StatusInternalServerError)
	var logs lockedLines
	var clock struct {
		sync.Mutex
		t time.Time
	}
	clock.t = time.Date(2026, 12, 5, 7, 0, 0, 0, time.UTC)
	now := func() time.Time { clock.Lock(); defer clock.Unlock(); return clock.t }
	x, err := otelexport.New(context.Background(), otelexport.Config{Endpoint: rcv.URL, Logf: logs.add, Interval: 10 * time.Millisecond, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	waitFailed := func(n uint64) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for x.Stats().Failed < n {
			if time.Now().After(deadline) {
				t.Fatalf("failed count %+v, want %d", x.Stats(), n)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	for i := range 5 {
		x.Export(context.Background(), audit.Record{Decision: "deny", Summary: fmt.Sprint(i)}, "h", "")
		waitFailed(uint64(i + 1)) // one batch each: five failed exports
	}
	if rcv.Requests() < 5 {
		t.Errorf("%d requests", rcv.Requests())
	}
	if c := strings.Count(logs.String(), "\n"); c != 1 || !strings.Contains(logs.String(), "500") {
		t.Errorf("stderr after five failures within a minute (want one report naming the status):\n%s", logs.String())
	}
	clock.Lock()
	clock.t = clock.t.Add(61 * time.Second)
	clock.Unlock()
	rcv.Close() // now nothing listens
	x.Export(context.Background(), audit.Record{Decision: "deny"}, "h", "")
	waitFailed(6)
	if c := strings.Count(logs.String(), "\n"); c != 2 || !strings.Contains(logs.String(), "6 failed") {
		t.Errorf("stderr a minute later (want a second report):\n%s", logs.String())
	}
	_ = x.Shutdown(context.Background())
	if s := x.Stats(); s.Exported != 0 || s.Failed != 6 || s.Dropped != 0 {
		t.Errorf("stats %+v", s)
	}
}

type lockedLines struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedLines) add(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprintf(&l.b, format+"\n", args...)
}

func (l *lockedLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// BenchmarkExport is what an audit line costs the request that wrote it
// once the export is on: the record built and queued. The batch goes out
// at shutdown, outside the timing (a batch is sent early at 512 records):
// run it with -benchtime=500x.
func BenchmarkExport(b *testing.B) {
	rcv := otlptest.Start(b)
	x, err := otelexport.New(context.Background(), otelexport.Config{Endpoint: rcv.URL, Interval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	rec := lines()[0]
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		x.Export(context.Background(), rec, "eeab44f3a497f3a2491ea705c78b6f17c6a3725894893214c730d06100e37694", "runner-1")
	}
	b.StopTimer()
	if err := x.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
	if s := x.Stats(); s.Dropped != 0 || s.Failed != 0 {
		b.Fatalf("stats %+v", s)
	}
}
