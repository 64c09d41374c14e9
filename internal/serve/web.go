package serve

import (
	"embed"
	"html/template"
	"net/http"
	"sync"
	"time"
)

//go:embed web
var webFS embed.FS

// pages are parsed on first use: every toolguard process (each hook call)
// would otherwise parse them at start-up.
var pages = sync.OnceValue(func() *template.Template {
	return template.Must(template.ParseFS(webFS, "web/*.html"))
})

// loginLinkTTL is how long a link from POST /v1/login-links works.
const loginLinkTTL = 15 * time.Minute

// csp keeps every script and style to the embedded files: a preview that
// holds markup is text, and if it were not, it could run nothing.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; " +
	"form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

func (s *Server) webRoutes() {
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("GET /login", s.loginPage)
	s.mux.HandleFunc("GET /static/{file}", func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("file")
		types := map[string]string{"app.js": "text/javascript; charset=utf-8", "signin.js": "text/javascript; charset=utf-8",
			"style.css": "text/css; charset=utf-8"}
		ct, ok := types[name]
		data, err := webFS.ReadFile("web/" + name)
		if !ok || err != nil {
			writeError(w, Errorf(http.StatusNotFound, "no file %s", r.URL.Path))
			return
		}
		w.Header().Set("Content-Type", ct)
		_, _ = w.Write(data)
	})
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, Errorf(http.StatusNotFound, "no page %s", r.URL.Path))
	})
}

func (s *Server) page(w http.ResponseWriter, status int, name string, data any) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	w.WriteHeader(status)
	if err := pages().ExecuteTemplate(w, name, data); err != nil {
		s.cfg.Logf("toolguard serve: page %s: %v", name, err)
	}
}

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	c, err := r.Cookie(sessionCookie)
	var sess session
	ok := false
	if err == nil {
		sess, ok = s.session(c.Value)
	}
	if !ok {
		s.page(w, http.StatusUnauthorized, "signin.html", nil)
		return
	}
	s.page(w, http.StatusOK, "index.html", map[string]string{"CSRF": sess.csrf})
}

// loginPage spends a one-time token: a new session, its cookie (HttpOnly,
// SameSite=Strict) and a redirect to the inbox.
func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	tok := r.URL.Query().Get("t")
	now := s.cfg.Now()
	s.mu.Lock()
	var found string
	for t, exp := range s.logins {
		if equal(tok, t) && (exp.IsZero() || now.Before(exp)) {
			found = t
		}
		if !exp.IsZero() && !now.Before(exp) {
			delete(s.logins, t)
		}
	}
	delete(s.logins, found)
	s.mu.Unlock()
	if found == "" {
		s.page(w, http.StatusForbidden, "signin.html", map[string]string{"Error": "This sign-in link is not valid, or has been used already."})
		return
	}
	id, err1 := RandomToken()
	csrf, err2 := RandomToken()
	if err1 != nil || err2 != nil {
		writeError(w, Errorf(http.StatusInternalServerError, "no randomness for a session"))
		return
	}
	s.mu.Lock()
	for k, v := range s.sessions {
		if !now.Before(v.expires) {
			delete(s.sessions, k)
		}
	}
	s.sessions[id] = session{csrf: csrf, expires: now.Add(sessionTTL)}
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: id, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: s.cfg.Secure, MaxAge: int(sessionTTL / time.Second)})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

func (s *Server) session(id string) (session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k, v := range s.sessions {
		if equal(id, k) && s.cfg.Now().Before(v.expires) {
			return v, true
		}
	}
	return session{}, false
}

// NewLoginToken adds a one-time login token valid for ttl (0: until used).
func (s *Server) NewLoginToken(ttl time.Duration) (string, error) {
	tok, err := RandomToken()
	if err != nil {
		return "", err
	}
	var exp time.Time
	if ttl > 0 {
		exp = s.cfg.Now().Add(ttl)
	}
	s.mu.Lock()
	s.logins[tok] = exp
	s.mu.Unlock()
	return tok, nil
}

func (s *Server) newLoginLink(w http.ResponseWriter, r *http.Request, _ Role) error {
	if _, err := query(r); err != nil {
		return err
	}
	tok, err := s.NewLoginToken(loginLinkTTL)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{"path": "/login?t=" + tok, "expires": s.cfg.Now().Add(loginLinkTTL)})
	return nil
}
