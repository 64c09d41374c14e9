package serve

import (
	"net/http"
	"strconv"
	"strings"
)

// GET /v1/policy/bundle (node token): the signed policy bundle the
// server publishes (internal/bundle; Config.Bundle), with its content
// hash as ETag; a node sending that ETag in If-None-Match gets 304. The
// node verifies the bundle against its pinned key itself: the server is
// trusted for transport only.

func (s *Server) bundleRoutes() {
	s.mux.HandleFunc("GET /v1/policy/bundle", s.policyBundle)
	s.methodNotAllowed("/v1/policy/bundle", "GET")
}

func (s *Server) policyBundle(w http.ResponseWriter, r *http.Request) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if _, known := s.nodes.node(tok); !ok || !known {
		unauthorized(w)
		return
	}
	b := s.cfg.Bundle
	if b == nil {
		writeError(w, Errorf(http.StatusNotFound, "this server publishes no policy bundle"))
		return
	}
	etag := b.ETag()
	w.Header().Set("ETag", etag)
	for _, t := range strings.Split(r.Header.Get("If-None-Match"), ",") {
		if strings.TrimSpace(t) == etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
	}
	data := b.Encode()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(data)
}
