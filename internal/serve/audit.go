package serve

import (
	"net/http"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/audit"
)

// POST /v1/audit (system mode): the hook, which runs as the agent's user
// and cannot write the log, sends each audit line here and the server —
// its own account — appends it to the hash-chained log. The hook role may
// append the lines a hook writes (decision, approval.result), never an
// approval.decision: those the server writes itself when an approver
// decides. What a line says is the hook's word, as it is when the hook
// writes the file; that the line is there, in order, and unchanged after,
// is the server's.

// auditEvents are the events a hook appends.
var auditEvents = map[string]bool{audit.EventDecision: true, "approval.result": true}

// maxAuditField bounds each text field of a line the server takes.
const maxAuditField = 16 << 10

func (s *Server) appendAudit(w http.ResponseWriter, r *http.Request, _ Role) error {
	if s.cfg.AppendAudit == nil {
		return Errorf(http.StatusNotFound, "this server does not keep the audit log (serve runs without one)")
	}
	var rec audit.Record
	if err := readRemote(w, r, &rec); err != nil {
		return err
	}
	if rec.Event == "" {
		rec.Event = audit.EventDecision
	}
	if !auditEvents[rec.Event] {
		return Errorf(http.StatusForbidden, "a hook appends decision and approval.result lines only, not %q", rec.Event)
	}
	if rec.Approver != "" || rec.ApproverKey != "" || rec.CallKey != "" || rec.Uses != 0 || !rec.Expires.IsZero() {
		return Errorf(http.StatusBadRequest, "approver fields belong to approval.decision lines, which the server writes itself")
	}
	for _, f := range []string{rec.Summary, rec.Reason, rec.Error, rec.Cwd, rec.Workspace, rec.Session,
		rec.Tool, rec.Provider, rec.Rule, rec.Source, rec.Layer, strings.Join(rec.Ignored, "\n")} {
		if len(f) > maxAuditField {
			return Errorf(http.StatusBadRequest, "a field longer than %d bytes", maxAuditField)
		}
	}
	now := s.cfg.Now()
	if rec.Time.IsZero() || rec.Time.After(now.Add(time.Minute)) {
		rec.Time = now // a line from the future would break the log's order
	}
	rec.Prev = "" // the server's Append chains it
	if err := s.cfg.AppendAudit(rec); err != nil {
		s.cfg.Logf("toolguard serve: audit: %v", err)
		return Errorf(http.StatusServiceUnavailable, "the audit line was not written: %v", err)
	}
	writeJSON(w, http.StatusOK, map[string]bool{"appended": true})
	return nil
}
