package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// Notifier posts approval events to a webhook.
type Notifier struct {
	URL    string
	Format string   // "json" (default) or "slack" (an incoming webhook's {"text": …})
	Events []string // which events; empty: approval.request
}

// Bounds of a notification.
const (
	notifyQueue   = 100
	notifyTimeout = 5 * time.Second
	notifyRetries = 3 // after the first try
)

type notifier struct {
	Notifier
	s      *Server
	q      chan Event
	client *http.Client
}

// ValidateNotifier says what is wrong with n, if anything.
func ValidateNotifier(n Notifier) error {
	if !strings.HasPrefix(n.URL, "http://") && !strings.HasPrefix(n.URL, "https://") {
		return fmt.Errorf("notify URL %q: want http:// or https://", n.URL)
	}
	if n.Format != "" && n.Format != "json" && n.Format != "slack" {
		return fmt.Errorf("notify format %q: want json or slack", n.Format)
	}
	for _, e := range n.Events {
		if e != "approval.request" && e != "approval.decision" && e != "approval.result" {
			return fmt.Errorf("notify event %q: want approval.request, approval.decision or approval.result", e)
		}
	}
	return nil
}

func (s *Server) startNotifiers() {
	for _, cfg := range s.cfg.Notify {
		n := &notifier{Notifier: cfg, s: s, q: make(chan Event, notifyQueue),
			client: &http.Client{Timeout: notifyTimeout, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
		if len(n.Events) == 0 {
			n.Events = []string{"approval.request"}
		}
		s.notifiers = append(s.notifiers, n)
		s.workers.Add(1)
		go func() {
			defer s.workers.Done()
			n.run()
		}()
	}
}

// offer queues ev without waiting: a slow or failing webhook never holds
// up the watcher, an event stream or a decision.
func (n *notifier) offer(ev Event) {
	if !slices.Contains(n.Events, ev.Name) {
		return
	}
	select {
	case n.q <- ev:
	default:
		n.s.cfg.Logf("toolguard serve: notify %s: queue full, %s of %s dropped", n.URL, ev.Name, ev.Data.ID)
	}
}

func (n *notifier) run() {
	for {
		select {
		case <-n.s.done:
			return
		case ev := <-n.q:
			n.send(ev)
		}
	}
}

// send posts ev, retrying a failure (a network error or a status that is
// not 2xx) with a growing pause.
func (n *notifier) send(ev Event) {
	body, err := n.body(ev)
	if err != nil {
		n.s.cfg.Logf("toolguard serve: notify %s: %v", n.URL, err)
		return
	}
	pause := n.s.cfg.NotifyBackoff
	if pause <= 0 {
		pause = time.Second
	}
	var last error
	for try := 0; try <= notifyRetries; try++ {
		if try > 0 {
			select {
			case <-n.s.done:
				return
			case <-time.After(pause):
			}
			pause *= 2
		}
		if last = n.post(body); last == nil {
			return
		}
	}
	n.s.cfg.Logf("toolguard serve: notify %s: %s of %s not delivered after %d tries: %v", n.URL, ev.Name, ev.Data.ID, notifyRetries+1, last)
}

func (n *notifier) post(body []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), notifyTimeout)
	defer cancel()
	go func() { // shutdown does not wait for a hanging webhook
		select {
		case <-n.s.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	req, err := http.NewRequestWithContext(ctx, "POST", n.URL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "toolguard-serve")
	res, err := n.client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("status %d", res.StatusCode)
	}
	return nil
}

// link is the inbox URL of a request's card.
func (n *notifier) link(id string) string {
	if n.s.cfg.BaseURL == "" {
		return ""
	}
	return strings.TrimSuffix(n.s.cfg.BaseURL, "/") + "/#" + id
}

func (n *notifier) body(ev Event) ([]byte, error) {
	if n.Format != "slack" {
		return json.Marshal(struct {
			Event
			URL string `json:"url,omitempty"`
		}{ev, n.link(ev.Data.ID)})
	}
	d := ev.Data
	var text string
	switch ev.Name {
	case "approval.request":
		text = fmt.Sprintf("toolguard: approval request %s (%s, session %s): `%s`", d.ID, d.Provider, d.Session, d.Summary)
	case "approval.decision":
		text = fmt.Sprintf("toolguard: request %s %s: `%s`", d.ID, d.Status, d.Summary)
		if d.Reason != "" {
			text += " — " + d.Reason
		}
	default:
		text = fmt.Sprintf("toolguard: request %s is %s: `%s`", d.ID, d.Status, d.Summary)
	}
	text = slackEscape(text)
	if l := n.link(d.ID); l != "" {
		text += fmt.Sprintf(" <%s|open the inbox>", slackEscape(l))
	}
	return json.Marshal(map[string]string{"text": text})
}

// slackEscape escapes the three characters Slack's mrkdwn reserves.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
