package serve

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/toolguard/toolguard/internal/bundle"
)

// GET /v1/policy/bundle (docs/bundles.md): the signed policy bundle of the
// policy the server runs (Config.Bundle), for the hook role, with its
// content hash as ETag; a request whose If-None-Match names it is
// answered 304 Not Modified, without the body.
func (s *Server) bundle(w http.ResponseWriter, r *http.Request, _ Role) error {
	data := s.cfg.Bundle
	if data == nil {
		return Errorf(http.StatusNotFound, "this server publishes no policy bundle (serve --bundle-key)")
	}
	etag := bundle.ETag(bundle.Hash(data))
	h := w.Header()
	h.Set("ETag", etag)
	h.Set("Cache-Control", "no-cache")
	if matchesETag(r.Header.Get("If-None-Match"), etag) {
		w.WriteHeader(http.StatusNotModified)
		return nil
	}
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
	return nil
}

// matchesETag reports whether an If-None-Match header names etag (or is
// "*"). Weak tags compare as their strong form (RFC 9110, 13.1.2).
func matchesETag(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimPrefix(strings.TrimSpace(t), "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}
