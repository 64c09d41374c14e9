package serve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
)

// hookSink is a webhook on loopback that records what it gets and fails
// the first fail calls.
type hookSink struct {
	mu     sync.Mutex
	bodies []string
	calls  atomic.Int32
	fail   int32
	hang   chan struct{}
}

func (h *hookSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := h.calls.Add(1)
	if h.hang != nil {
		select {
		case <-h.hang:
		case <-r.Context().Done():
		}
		return
	}
	if n <= h.fail {
		w.WriteHeader(500)
		return
	}
	b, _ := io.ReadAll(r.Body)
	h.mu.Lock()
	h.bodies = append(h.bodies, string(b))
	h.mu.Unlock()
}

func (h *hookSink) wait(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		h.mu.Lock()
		got := append([]string(nil), h.bodies...)
		h.mu.Unlock()
		if len(got) >= n {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("webhook got %d bodies in 5s, want %d (calls %d)", len(h.bodies), n, h.calls.Load())
	return nil
}

func notifyFixture(t *testing.T, ns ...Notifier) *fixture {
	t.Helper()
	f := newFixture(t)
	f.srv.Close()
	cfg := f.srv.cfg
	cfg.Notify = ns
	cfg.BaseURL = "http://127.0.0.1:8787"
	cfg.NotifyBackoff = 10 * time.Millisecond
	f.srv = New(cfg)
	t.Cleanup(f.srv.Close)
	<-f.srv.ready
	return f
}

// TestNotify: a new request is posted as JSON and in Slack's shape (with a
// link to the card), a failing webhook is retried, the event filter holds.
func TestNotify(t *testing.T) {
	js, sl, flaky := &hookSink{}, &hookSink{}, &hookSink{fail: 2}
	tsJSON := httptest.NewServer(js)
	defer tsJSON.Close()
	tsSlack := httptest.NewServer(sl)
	defer tsSlack.Close()
	tsFlaky := httptest.NewServer(flaky)
	defer tsFlaky.Close()
	f := notifyFixture(t,
		Notifier{URL: tsJSON.URL, Events: []string{"approval.request", "approval.decision"}},
		Notifier{URL: tsSlack.URL, Format: "slack"},
		Notifier{URL: tsFlaky.URL},
	)
	r, err := f.st.Create(approval.Request{Key: "k9", Summary: "rm -rf <build> & more", Session: "s9", Provider: "codex"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	got := js.wait(t, 1)
	var ev struct {
		Event   string
		Request EventData
		URL     string
	}
	if err := json.Unmarshal([]byte(got[0]), &ev); err != nil || ev.Event != "approval.request" || ev.Request.ID != r.ID ||
		ev.URL != "http://127.0.0.1:8787/#"+r.ID || ev.Request.Session != "s9" {
		t.Fatalf("json notification %s (%v)", got[0], err)
	}
	got = sl.wait(t, 1)
	var slack struct{ Text string }
	if err := json.Unmarshal([]byte(got[0]), &slack); err != nil ||
		!strings.Contains(slack.Text, "rm -rf &lt;build&gt; &amp; more") ||
		!strings.Contains(slack.Text, "<http://127.0.0.1:8787/#"+r.ID+"|open the inbox>") {
		t.Fatalf("slack notification %s (%v)", got[0], err)
	}
	flaky.wait(t, 1)
	if c := flaky.calls.Load(); c != 3 {
		t.Errorf("flaky webhook called %d times, want 3 (two failures, then delivered)", c)
	}
	// A decision goes to the webhook that asked for decisions only.
	if w := f.do(t, "POST", "/v1/approvals/"+r.ID+"/reject", approverTok, `{"reason":"no"}`); w.Code != 200 {
		t.Fatalf("reject: %d", w.Code)
	}
	got = js.wait(t, 2)
	if !strings.Contains(got[1], `"approval.decision"`) || !strings.Contains(got[1], `"reason":"no"`) {
		t.Errorf("decision notification %s", got[1])
	}
	time.Sleep(100 * time.Millisecond)
	sl.mu.Lock()
	n := len(sl.bodies)
	sl.mu.Unlock()
	if n != 1 {
		t.Errorf("slack webhook (requests only) got %d notifications", n)
	}
}

// TestNotifyNeverBlocks: a webhook that hangs holds up no decision, and
// Close does not wait for it.
func TestNotifyNeverBlocks(t *testing.T) {
	h := &hookSink{hang: make(chan struct{})}
	ts := httptest.NewServer(h)
	defer ts.Close()
	defer close(h.hang)
	f := notifyFixture(t, Notifier{URL: ts.URL, Events: []string{"approval.request", "approval.decision"}})
	for i := 0; i < 3; i++ {
		if _, err := f.st.Create(approval.Request{Key: "k" + string(rune('a'+i)), Summary: "x"}, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for h.calls.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	start := time.Now()
	if w := f.do(t, "POST", "/v1/approvals/"+f.id+"/approve", approverTok, `{}`); w.Code != 200 {
		t.Fatalf("approve: %d", w.Code)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("approve took %v with a hanging webhook", d)
	}
	start = time.Now()
	f.srv.Close()
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Close took %v with a hanging webhook", d)
	}
}

func TestValidateNotifier(t *testing.T) {
	for _, n := range []Notifier{{URL: "ftp://x"}, {URL: "http://x", Format: "xml"}, {URL: "http://x", Events: []string{"approval.maybe"}}} {
		if ValidateNotifier(n) == nil {
			t.Errorf("%+v accepted", n)
		}
	}
	if err := ValidateNotifier(Notifier{URL: "https://hooks.example/x", Format: "slack", Events: []string{"approval.result"}}); err != nil {
		t.Error(err)
	}
}
