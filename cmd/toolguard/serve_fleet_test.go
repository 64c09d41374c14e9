package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval/pgstore"
	"github.com/toolguard/toolguard/internal/approval/pgstore/pgtest"
	"github.com/toolguard/toolguard/internal/audit"
)

// TestServeFleetPostgres is issue 34's test of the shared store: two
// `toolguard serve --database` replicas on one PostgreSQL database.
//   - 10 rounds: a hook call on replica A records a request, replica B's
//     API approves it for one use, and 200 concurrent identical hook calls
//     split across A and B get exactly one allow;
//   - 10 rounds: approve on one replica against reject on the other:
//     exactly one 200, the other a 409 naming the decision that won;
//   - a request recorded through A arrives on B's event stream within 1 s;
//   - the audit lines both replicas wrote make one chain that verifies.
func TestServeFleetPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	e := newServeEnv(t)
	pol := filepath.Join(e.home, "policy.toml")
	if err := os.WriteFile(pol, []byte(`version = 1
[settings]
mode = "headless"
[[rule]]
id = "ask-tag"
decision = "ask"
command = "git tag"
`), 0o600); err != nil {
		t.Fatal(err)
	}
	nodes := e.nodeTokens(t)
	a := e.start(t, "--database", dsn, "--policy", pol, "--node-tokens", nodes)
	b := e.start(t, "--database", dsn, "--policy", pol, "--node-tokens", nodes)
	replicas := []*served{a, b}
	if !strings.Contains(a.stderr.String(), "state postgres://") {
		t.Fatalf("replica A does not say it keeps state in PostgreSQL:\n%s", a.stderr)
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 200, MaxConnsPerHost: 64}}
	hook := func(s *served, payload string) (string, error) {
		req, _ := http.NewRequest("POST", s.base+"/v1/hooks/codex", strings.NewReader(payload))
		req.Header.Set("Authorization", "Bearer "+testNodeToken)
		res, err := client.Do(req)
		if err != nil {
			return "", err
		}
		defer res.Body.Close()
		body, err := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			return "", fmt.Errorf("status %d: %s", res.StatusCode, body)
		}
		return string(body), err
	}
	d := approvalDialects[1] // codex: an allow is an empty reply
	if d.provider != "codex" {
		t.Fatal("approvalDialects[1] is not codex")
	}
	shell := func(session, cmd string) string {
		return strings.Replace(d.shell(cmd), `"session_id":"s1"`, `"session_id":"`+session+`"`, 1)
	}

	// The event stream of replica B, opened first.
	events := make(chan string, 256)
	req, _ := http.NewRequest("GET", b.base+"/v1/events", nil)
	req.Header.Set("Authorization", "Bearer "+b.approver)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			events <- sc.Text()
		}
		close(events)
	}()
	for l := range events {
		if l == "event: ready" {
			break
		}
	}

	late := 0 // calls answered deny at the server's hook deadline: no audit line, as the process hook's watchdog
	for round := range 10 {
		payload := shell(fmt.Sprintf("grant-%d", round), fmt.Sprintf("git tag v%d", round))
		out, err := hook(a, payload)
		id := approvalID.FindString(out)
		if err != nil || !strings.Contains(out, d.deny) || id == "" {
			t.Fatalf("round %d: the ask: %v %s", round, err, out)
		}
		if round == 0 {
			// The request recorded through A reaches B's stream.
			sent := time.Now()
			deadline := time.After(time.Second)
		wait:
			for {
				select {
				case l := <-events:
					if strings.HasPrefix(l, "data: ") && strings.Contains(l, id) {
						t.Logf("replica A's request on replica B's stream within %v of A's reply", time.Since(sent))
						break wait
					}
				case <-deadline:
					t.Fatalf("request %s made on replica A did not reach replica B's stream within 1 s", id)
				}
			}
		}
		if st, body := b.call(t, "POST", "/v1/approvals/"+id+"/approve", b.approver, `{"uses":1}`); st != 200 {
			t.Fatalf("round %d: approve on B: %d %s", round, st, body)
		}
		var allowed, denied, failed int
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range 200 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				out, err := hook(replicas[i%2], payload)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err != nil:
					failed++
					t.Log(err)
				case out == "":
					allowed++
				case strings.Contains(out, d.deny):
					denied++
					if strings.Contains(out, "hook deadline") {
						late++
					}
				default:
					failed++
					t.Log(out)
				}
			}()
		}
		close(start)
		wg.Wait()
		if allowed != 1 || denied != 199 || failed != 0 {
			t.Fatalf("round %d: %d allowed, %d denied, %d failed (want 1, 199, 0)", round, allowed, denied, failed)
		}
	}

	// The audit lines of both replicas make one chain in the database,
	// and either replica's summary counts them all.
	db, err := pgstore.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Per round: the ask, 200 uses (1 allowed by the approval, 199
	// denied) and the approval. A line is written after its reply is
	// sent: wait for the last ones (under -race they trail by 10 s and
	// more: 200 appends queue on the chain's lock).
	want := 10*(1+200+1) - late
	var rep audit.VerifyReport
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var chain bytes.Buffer
		if err := db.WriteAudit(context.Background(), &chain); err != nil {
			t.Fatal(err)
		}
		rep, err = audit.Verify(bytes.NewReader(chain.Bytes()))
		if err != nil || rep.Problem != nil || rep.Lines > want {
			t.Fatalf("the audit chain: %+v %v (want %d lines)", rep, err, want)
		}
		if rep.Lines == want {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the audit chain has %d lines, want %d\n%s%s", rep.Lines, want, a.stderr, b.stderr)
		}
	}
	// The summary counts the hook's decisions, not the approvals.
	if st, body := a.call(t, "GET", "/v1/audit/summary", a.approver, ""); st != 200 || !strings.Contains(body, fmt.Sprintf(`"total": %d`, 10*201-late)) {
		t.Errorf("replica A's audit summary (want total %d): %d %.300s", 10*201-late, st, body)
	}
	if late > 0 {
		t.Logf("%d calls answered deny at the hook deadline (a loaded machine)", late)
	}

	for round := range 10 {
		out, _ := hook(a, shell(fmt.Sprintf("race-%d", round), fmt.Sprintf("git tag r%d", round)))
		id := approvalID.FindString(out)
		if id == "" {
			t.Fatalf("race round %d: no request: %s", round, out)
		}
		type answer struct {
			status int
			body   string
		}
		answers := make([]answer, 2)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i, s := range replicas {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				if i == 0 {
					answers[i].status, answers[i].body = s.call(t, "POST", "/v1/approvals/"+id+"/approve", s.approver, `{}`)
				} else {
					answers[i].status, answers[i].body = s.call(t, "POST", "/v1/approvals/"+id+"/reject", s.approver, `{"reason":"no"}`)
				}
			}()
		}
		close(start)
		wg.Wait()
		won := map[bool]string{true: "approved", false: "rejected"}[answers[0].status == 200]
		ok := 0
		for _, an := range answers {
			switch an.status {
			case 200:
				ok++
			case 409:
				if !strings.Contains(an.body, "already "+won) {
					t.Errorf("race round %d: the 409 does not name %s: %s", round, won, an.body)
				}
			default:
				t.Fatalf("race round %d: %d %s", round, an.status, an.body)
			}
		}
		if ok != 1 {
			t.Fatalf("race round %d: %d decisions succeeded: %+v", round, ok, answers)
		}
	}
}
