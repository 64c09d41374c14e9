package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
)

// Event is a change of an approval request, as /v1/events and the
// notifications send it.
type Event struct {
	Name string    `json:"event"` // approval.request, approval.decision or approval.result
	Data EventData `json:"request"`
}

// EventData is what an event says of its request.
type EventData struct {
	ID       string          `json:"id"`
	Status   approval.Status `json:"status"`
	Summary  string          `json:"summary,omitempty"`
	Session  string          `json:"session,omitempty"`
	Provider string          `json:"provider,omitempty"`
	Cwd      string          `json:"cwd,omitempty"`
	Reason   string          `json:"reason,omitempty"` // a rejection's reason
}

// eventName is the event for a request that is new or has changed.
func eventName(st approval.Status, isNew bool) string {
	switch st {
	case approval.StatusPending:
		if isNew {
			return "approval.request"
		}
		return "approval.decision" // a request re-opened
	case approval.StatusApproved, approval.StatusRejected:
		return "approval.decision"
	}
	return "approval.result" // consumed, expired, tampered, leftover
}

// subBuffer is how many events a slow /v1/events client may fall behind
// before it is dropped (it reconnects and lists again).
const subBuffer = 64

// watch looks at the store on each Config.Changes signal and every Poll,
// and publishes every change to the subscribers and the notifiers, until
// Close. Requests that exist when it starts are
// not announced.
func (s *Server) watch() {
	seen := map[string]approval.Status{}
	if reqs, err := s.cfg.Store.List(s.cfg.Now()); err == nil {
		for _, q := range reqs {
			seen[q.ID] = q.Status
		}
	}
	close(s.ready)
	tick := time.NewTicker(s.cfg.Poll)
	defer tick.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-tick.C:
		case <-s.cfg.Changes: // nil without Changes: never ready
		}
		reqs, err := s.cfg.Store.List(s.cfg.Now())
		if err != nil {
			s.cfg.Logf("toolguard serve: events: %v", err)
			continue
		}
		for _, q := range reqs {
			old, had := seen[q.ID]
			if had && old == q.Status {
				continue
			}
			seen[q.ID] = q.Status
			s.publish(Event{Name: eventName(q.Status, !had), Data: EventData{ID: q.ID, Status: q.Status,
				Summary: q.Summary, Session: q.Session, Provider: q.Provider, Cwd: q.Cwd, Reason: q.RejectReason}})
		}
	}
}

func (s *Server) publish(ev Event) {
	s.subMu.Lock()
	for ch := range s.subs {
		select {
		case ch <- ev:
		default: // too slow: drop it; the client reconnects
			delete(s.subs, ch)
			close(ch)
		}
	}
	s.subMu.Unlock()
	for _, n := range s.notifiers {
		n.offer(ev)
	}
}

func (s *Server) subscribe() chan Event {
	ch := make(chan Event, subBuffer)
	s.subMu.Lock()
	s.subs[ch] = struct{}{}
	s.subMu.Unlock()
	return ch
}

func (s *Server) unsubscribe(ch chan Event) {
	s.subMu.Lock()
	if _, ok := s.subs[ch]; ok {
		delete(s.subs, ch)
		close(ch)
	}
	s.subMu.Unlock()
}

// events streams approval.request, approval.decision and approval.result.
func (s *Server) events(w http.ResponseWriter, r *http.Request, _ Role) error {
	if _, err := query(r); err != nil {
		return err
	}
	fl, ok := w.(http.Flusher)
	if !ok {
		return Errorf(http.StatusInternalServerError, "streaming is not supported here")
	}
	// The stream is long: no read deadline of the server's applies to it.
	_ = http.NewResponseController(w).SetReadDeadline(time.Time{})
	<-s.ready
	ch := s.subscribe()
	defer s.unsubscribe(ch)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 2000\nevent: ready\ndata: {}\n\n")
	fl.Flush()
	keep := time.NewTicker(15 * time.Second)
	defer keep.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.done:
			return nil
		case <-keep.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return nil
			}
		case ev, ok := <-ch:
			if !ok {
				return nil
			}
			data, _ := json.Marshal(ev.Data)
			if _, err := fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev.Name, data); err != nil {
				return nil
			}
		}
		fl.Flush()
	}
}
