package serve

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/workspace"
)

// inbox is a served policy (the embedded defaults, as serve loads them
// for a user without a policy file) deciding the inbox's edits and
// amendments through the real Engine.
type inbox struct {
	home, amendFile string
	e               *Engine
}

// newInboxFixture is newFixture with the Engine's EditText, JudgeEdit
// and, with amend, PlanAmend for a policy file in a temporary home.
func newInboxFixture(t *testing.T, amend bool) (*fixture, *inbox) {
	t.Helper()
	home := t.TempDir()
	vars := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_STATE_HOME": filepath.Join(home, ".state")}
	env := workspace.Env{Getenv: func(k string) string { return vars[k] }, Getwd: func() (string, error) { return home, nil }}
	set, err := env.Load(workspace.Selection{}, home)
	if err != nil {
		t.Fatal(err)
	}
	in := &inbox{home: home, e: &Engine{Sys: guard.System{Env: env, Now: time.Now, Stderr: io.Discard}, Set: set}}
	if amend {
		in.amendFile = filepath.Join(home, ".config", "toolguard", "policy.toml")
	}
	f := newFixture(t, func(c *Config) {
		c.EditText, c.JudgeEdit, c.PlanAmend = in.e.EditText, in.e.JudgeEdit, in.e.amender(in.amendFile)
	})
	return f, in
}

// call is the shell call an agent makes, decoded as the hook decodes it.
func (in *inbox) call(t *testing.T, provider, session, input string) call.Call {
	t.Helper()
	codec, err := protocol.Lookup(provider)
	if err != nil {
		t.Fatal(err)
	}
	c, err := guard.RebuildCall(codec, in.home, "Bash", "/tmp/proj", session, "", input)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// record stores the request the hook records for a shell call of input:
// what the served policy shows of it, and its tool input.
func (in *inbox) record(t *testing.T, st *approval.Store, provider, session, input string) approval.Request {
	t.Helper()
	c := in.call(t, provider, session, input)
	d, err := in.e.Describe(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Create(approval.Request{Key: approval.Key(c), Summary: d.Summary, Tool: "Bash", Kind: "shell", Cwd: "/tmp/proj",
		Session: session, Provider: provider, Rules: d.Rules, Reason: "ask", Preview: d.Preview, ToolInput: input}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func shellInput(cmd string) string {
	b, _ := json.Marshal(map[string]string{"command": cmd})
	return string(b)
}

// TestApproveEdit: the edit endpoint names the command; an approval with
// an edit the policy does not deny allows the edited call only — the
// original's key is a redirect to it, nothing consumed — for two agents'
// dialects; the decision is final and audited.
func TestApproveEdit(t *testing.T) {
	for _, provider := range []string{"claude-code", "codex"} {
		t.Run(provider, func(t *testing.T) {
			f, in := newInboxFixture(t, false)
			orig := "git reset --hard HEAD~1"
			r := in.record(t, f.st, provider, "s1", shellInput(orig))
			if len(r.Rules) == 0 {
				t.Fatalf("the defaults did not ask about %q: %+v", orig, r)
			}
			w := f.do(t, "GET", "/v1/approvals/"+r.ID+"/edit", approverTok, "")
			var et struct{ ID, Kind, Field, Text, Call string }
			if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &et) != nil || et.Field != "command" || et.Text != orig || et.Kind != "shell" || et.Call != orig {
				t.Fatalf("GET edit: %d %s", w.Code, w.Body)
			}
			edited := "git reset --soft HEAD~1"
			w = f.do(t, "POST", "/v1/approvals/"+r.ID+"/approve", approverTok, `{"uses":1,"ttl":"30m","edit":{"field":"command","text":`+quote(edited)+`}}`)
			if w.Code != 200 || !strings.Contains(w.Body.String(), `"edit": {`) {
				t.Fatalf("approve edited: %d %s", w.Code, w.Body)
			}
			editedKey := approval.Key(in.call(t, provider, "s1", shellInput(edited)))
			got, _ := f.st.Get(r.ID)
			if got.Grant == nil || got.Grant.Edit == nil || got.Grant.Edit.Key != editedKey || got.Problem != "" {
				t.Fatalf("the grant: %+v", got.Grant)
			}
			// the original call: not allowed as it is (a redirect to the edit)
			out, err := f.st.Check(context.Background(), r.Key, time.Now())
			if err != nil || out.Kind != approval.Redirect || out.Edit == nil || !strings.Contains(out.Edit.Input, edited) {
				t.Fatalf("the original call: %+v %v", out, err)
			}
			// a look-alike is nothing
			if out, _ := f.st.Check(context.Background(), approval.Key(in.call(t, provider, "s1", shellInput("git reset --soft HEAD~2"))), time.Now()); out.Kind == approval.Granted {
				t.Fatalf("a look-alike of the edit was granted: %+v", out)
			}
			out, err = f.st.Check(context.Background(), editedKey, time.Now())
			if err != nil || out.Kind != approval.Granted || out.ID != r.ID {
				t.Fatalf("the edited call: %+v %v", out, err)
			}
			// decided: a second approval, and reading the edit, are 409s
			w = f.do(t, "POST", "/v1/approvals/"+r.ID+"/approve", approverTok, `{"edit":{"text":"git status"}}`)
			if w.Code != 409 || !strings.Contains(errorOf(t, w), "already approved") {
				t.Fatalf("approve twice: %d %s", w.Code, w.Body)
			}
			if w = f.do(t, "GET", "/v1/approvals/"+r.ID+"/edit", approverTok, ""); w.Code != 409 {
				t.Fatalf("GET edit of a decided request: %d %s", w.Code, w.Body)
			}
			if len(f.audited) != 1 || f.audited[0].Action != "approve" || f.audited[0].Request.Grant.Edit == nil {
				t.Fatalf("audited: %+v", f.audited)
			}
		})
	}
}

// TestEditNamesTheVerifiedCall: the edit endpoint says which call the
// edit changes from the recorded input checked against the key, not from
// the request's preview, which the agent can rewrite.
func TestEditNamesTheVerifiedCall(t *testing.T) {
	f, in := newInboxFixture(t, false)
	codec, _ := protocol.Lookup("claude-code")
	input := `{"file_path":"/tmp/proj/.bashrc","content":"alias ls=rm\n"}`
	c, err := guard.RebuildCall(codec, in.home, "Write", "/tmp/proj", "s1", "", input)
	if err != nil {
		t.Fatal(err)
	}
	r, err := f.st.Create(approval.Request{Key: approval.Key(c), Summary: "write /tmp/proj/README.md", Tool: "Write", Kind: "write", Cwd: "/tmp/proj",
		Session: "s1", Provider: "claude-code", Reason: "ask", Preview: &approval.Preview{Path: "/tmp/proj/README.md"}, ToolInput: input}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	w := f.do(t, "GET", "/v1/approvals/"+r.ID+"/edit", approverTok, "")
	var et struct{ Field, Text, Call string }
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &et) != nil || et.Field != "content" || et.Text != "alias ls=rm\n" ||
		!strings.Contains(et.Call, "/tmp/proj/.bashrc") || strings.Contains(et.Call, "README") {
		t.Fatalf("GET edit of a Write with a swapped preview: %d %s", w.Code, w.Body)
	}
}

// TestApproveEditUnchanged: the text as it was approves the call as it is.
func TestApproveEditUnchanged(t *testing.T) {
	f, in := newInboxFixture(t, false)
	r := in.record(t, f.st, "claude-code", "s1", shellInput("git reset --hard HEAD~1"))
	w := f.do(t, "POST", "/v1/approvals/"+r.ID+"/approve", approverTok, `{"edit":{"text":"git reset --hard HEAD~1"}}`)
	if w.Code != 200 || strings.Contains(w.Body.String(), `"edit"`) {
		t.Fatalf("approve unchanged: %d %s", w.Code, w.Body)
	}
	if out, _ := f.st.Check(context.Background(), r.Key, time.Now()); out.Kind != approval.Granted || out.Edit != nil {
		t.Fatalf("the call as it is: %+v", out)
	}
}

// TestApproveEditRefused: bad input, a denied edit, a request that cannot
// be edited, and roles: each is refused with its status and reason, the
// request stays pending and nothing is audited.
func TestApproveEditRefused(t *testing.T) {
	cases := []struct {
		name, method, path, token, body string
		status                          int
		want                            string
	}{
		{"denied edit", "POST", "/approve", approverTok, `{"edit":{"text":"git push --force origin main"}}`, 422, "the policy denies the edited call: toolguard: denied by rule"},
		{"denied edit hidden in a chain", "POST", "/approve", approverTok, `{"edit":{"text":"git status && git push -f origin main"}}`, 422, "the policy denies the edited call"},
		{"empty edit", "POST", "/approve", approverTok, `{"edit":{"text":"  "}}`, 422, "the edited command is empty"},
		{"edit without text", "POST", "/approve", approverTok, `{"edit":{}}`, 400, `"edit.text" is required`},
		{"edit not an object", "POST", "/approve", approverTok, `{"edit":"git status"}`, 400, `field "edit"`},
		{"edit text not a string", "POST", "/approve", approverTok, `{"edit":{"text":1}}`, 400, `field "edit.text"`},
		{"edit unknown field", "POST", "/approve", approverTok, `{"edit":{"txt":"git status"}}`, 400, "unknown field"},
		{"edit wrong field", "POST", "/approve", approverTok, `{"edit":{"field":"content","text":"git status"}}`, 409, `edits "command", not "content"`},
		{"edit and amend", "POST", "/approve", approverTok, `{"edit":{"text":"git status"},"amend":{"snippet":"x"}}`, 400, "exclude each other"},
		{"edit malformed", "POST", "/approve", approverTok, `{"edit":{"text":"git status"}`, 400, "malformed JSON"},
		{"edit bad ttl", "POST", "/approve", approverTok, `{"uses":0,"edit":{"text":"git status"},"ttl":"1s0"}`, 400, "ttl"},
		{"edit hook refused", "POST", "/approve", hookTok, `{"edit":{"text":"git status"}}`, 403, "hook role may not"},
		{"edit no token", "POST", "/approve", "", `{"edit":{"text":"git status"}}`, 401, "no token"},
		{"get edit hook refused", "GET", "/edit", hookTok, ``, 403, "hook role may not"},
		{"get edit no token", "GET", "/edit", "", ``, 401, "no token"},
		{"get edit unknown param", "GET", "/edit?x=1", approverTok, ``, 400, "unknown query parameter"},
		{"get edit wrong method", "POST", "/edit", approverTok, `{}`, 405, "not allowed"},
		{"get amend wrong method", "PUT", "/amend", approverTok, `{}`, 405, "not allowed"},
	}
	for _, tc := range cases {
		for _, provider := range []string{"claude-code", "codex"} {
			t.Run(provider+"/"+tc.name, func(t *testing.T) {
				f, in := newInboxFixture(t, false)
				r := in.record(t, f.st, provider, "s1", shellInput("git reset --hard HEAD~1"))
				path := "/v1/approvals/" + r.ID + tc.path
				w := f.do(t, tc.method, path, tc.token, tc.body)
				if w.Code != tc.status || !strings.Contains(errorOf(t, w), tc.want) {
					t.Fatalf("%s %s: %d %s, want %d and %q", tc.method, path, w.Code, w.Body, tc.status, tc.want)
				}
				if got, _ := f.st.Get(r.ID); got.Status != approval.StatusPending || got.Grant != nil {
					t.Fatalf("the refused edit decided the request: %+v", got)
				}
				if len(f.audited) > 0 {
					t.Fatalf("a refused edit was audited: %+v", f.audited)
				}
			})
		}
	}
	// ids: unknown, malformed; and requests that cannot be edited
	f, in := newInboxFixture(t, false)
	for _, tc := range []struct {
		id     string
		status int
		want   string
	}{
		{"req_aaaaaaaaaa", 404, "no approval request"},
		{"r%20x", 400, "invalid approval request id"},
		{f.id, 422, "holds no editable input"}, // recorded without a tool input
	} {
		for _, m := range []struct{ method, path, body string }{{"GET", "/edit", ""}, {"POST", "/approve", `{"edit":{"text":"git status"}}`}} {
			w := f.do(t, m.method, "/v1/approvals/"+tc.id+m.path, approverTok, m.body)
			if w.Code != tc.status || !strings.Contains(errorOf(t, w), tc.want) {
				t.Errorf("%s %s: %d %s, want %d and %q", m.method, tc.id, w.Code, w.Body, tc.status, tc.want)
			}
		}
	}
	// a request whose recorded input is not its call's (the file was
	// changed by someone who can write the state directory)
	r := in.record(t, f.st, "claude-code", "s2", shellInput("git reset --hard HEAD~1"))
	path := filepath.Join(f.st.Dir(), "requests", r.ID+".json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	swapped := strings.Replace(string(data), `git reset --hard HEAD~1\"`, `git reset --hard HEAD~9\"`, 1)
	if swapped == string(data) {
		t.Fatalf("no tool input to swap in %s", data)
	}
	if err := os.WriteFile(path, []byte(swapped), 0o600); err != nil {
		t.Fatal(err)
	}
	w := f.do(t, "POST", "/v1/approvals/"+r.ID+"/approve", approverTok, `{"edit":{"text":"git reset --hard HEAD~2"}}`)
	if w.Code != 422 || !strings.Contains(errorOf(t, w), "recorded input is not the input of its call") {
		t.Errorf("a swapped input: %d %s", w.Code, w.Body)
	}
	// a server without an editor refuses edits
	bare := newFixture(t)
	if w := bare.do(t, "GET", "/v1/approvals/"+bare.id+"/edit", approverTok, ""); w.Code != 403 || !strings.Contains(errorOf(t, w), "does not edit") {
		t.Errorf("no editor: %d %s", w.Code, w.Body)
	}
}

// TestApproveAmend: without --amend-file amending is refused with how to
// enable it and no file is written; with it, the rule shown is the rule
// written (another is refused), the file validates, and its rule allows
// the call; a decided request is a 409 and writes nothing.
func TestApproveAmend(t *testing.T) {
	off, in0 := newInboxFixture(t, false)
	r0 := in0.record(t, off.st, "claude-code", "s1", shellInput("terraform apply -auto-approve"))
	for _, m := range []struct{ method, path, body string }{{"GET", "/amend", ""}, {"POST", "/approve", `{"amend":{"snippet":"x"}}`}} {
		w := off.do(t, m.method, "/v1/approvals/"+r0.ID+m.path, approverTok, m.body)
		if w.Code != 403 || !strings.Contains(errorOf(t, w), "--amend-file FILE") {
			t.Fatalf("amend off, %s: %d %s", m.method, w.Code, w.Body)
		}
	}
	if got, _ := off.st.Get(r0.ID); got.Status != approval.StatusPending {
		t.Fatalf("a refused amend decided the request: %+v", got)
	}
	if ents, _ := os.ReadDir(filepath.Join(in0.home, ".config")); len(ents) != 0 {
		t.Fatalf("amend off wrote %v", ents)
	}

	f, in := newInboxFixture(t, true)
	cmd := "terraform apply -auto-approve"
	r := in.record(t, f.st, "claude-code", "s1", shellInput(cmd))
	if len(r.Rules) == 0 {
		t.Fatalf("the defaults did not ask about %q", cmd)
	}
	w := f.do(t, "GET", "/v1/approvals/"+r.ID+"/amend", approverTok, "")
	var at struct{ ID, File, Rule, Snippet string }
	if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &at) != nil || at.File != in.amendFile || at.Rule != "amend-"+r.ID ||
		!strings.Contains(at.Snippet, "regex = '^terraform apply -auto-approve$'") || !strings.Contains(at.Snippet, "[[test]]") {
		t.Fatalf("GET amend: %d %s", w.Code, w.Body)
	}
	for _, bad := range []struct {
		body   string
		status int
		want   string
	}{
		{`{"amend":{"snippet":` + quote(strings.Replace(at.Snippet, "-auto-approve", "", -1)) + `}}`, 409, "no longer the one shown"},
		{`{"amend":{}}`, 400, `"amend.snippet" is required`},
		{`{"amend":true}`, 400, `field "amend"`},
		{`{"amend":{"snippet":"x"},"uses":-2}`, 400, "uses must be"},
	} {
		w := f.do(t, "POST", "/v1/approvals/"+r.ID+"/approve", approverTok, bad.body)
		if w.Code != bad.status || !strings.Contains(errorOf(t, w), bad.want) {
			t.Fatalf("amend %s: %d %s", bad.body, w.Code, w.Body)
		}
		if _, err := os.Stat(in.amendFile); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("a refused amend wrote the file (%v)", err)
		}
	}
	w = f.do(t, "POST", "/v1/approvals/"+r.ID+"/approve", approverTok, `{"amend":{"snippet":`+quote(at.Snippet)+`}}`)
	if w.Code != 200 {
		t.Fatalf("approve and amend: %d %s", w.Code, w.Body)
	}
	data, err := os.ReadFile(in.amendFile)
	if err != nil || !strings.HasSuffix(string(data), at.Snippet) {
		t.Fatalf("the policy file: %v\n%s", err, data)
	}
	if fi, _ := os.Stat(in.amendFile); fi.Mode().Perm() != 0o600 {
		t.Errorf("policy file mode %v", fi.Mode().Perm())
	}
	// the hook's policy (the user's file now exists) allows the call by the rule
	set, err := in.e.Sys.Env.Load(workspace.Selection{}, in.home)
	if err != nil {
		t.Fatal(err)
	}
	decide := func(cmd string) *guard.Outcome {
		c := in.call(t, "claude-code", "s9", shellInput(cmd))
		codec, _ := protocol.Lookup("claude-code")
		return guard.Decide(context.Background(), in.e.Sys, guard.Request{Options: &guard.Options{DryRun: true}, Set: set, Codec: codec, Call: c, Project: in.home})
	}
	if out := decide(cmd); out.Res == nil || out.Res.Decision != call.Allow || out.Res.Rule == nil || out.Res.Rule.ID != at.Rule {
		t.Fatalf("the amended policy decides %+v", out.Res)
	}
	// and only it: a longer command is still asked
	if out := decide(cmd + " -lock=false"); out.Res == nil || out.Res.Decision == call.Allow {
		t.Fatalf("the rule allows a longer command: %+v", out.Res)
	}
	before := string(data)
	w = f.do(t, "POST", "/v1/approvals/"+r.ID+"/approve", approverTok, `{"amend":{"snippet":`+quote(at.Snippet)+`}}`)
	if w.Code != 409 {
		t.Fatalf("amend twice: %d %s", w.Code, w.Body)
	}
	if data, _ := os.ReadFile(in.amendFile); string(data) != before {
		t.Fatalf("a refused second amend changed the file:\n%s", data)
	}
	if len(f.audited) != 1 || f.audited[0].Action != "approve" {
		t.Fatalf("audited: %+v", f.audited)
	}
	// a call no rule can be proposed for: 422 with the reason
	r2 := in.record(t, f.st, "claude-code", "s1", shellInput("bash -c 'terraform destroy'"))
	if w := f.do(t, "GET", "/v1/approvals/"+r2.ID+"/amend", approverTok, ""); w.Code != 422 || !strings.Contains(errorOf(t, w), "no rule for request") {
		t.Fatalf("amend of an inexpressible call: %d %s", w.Code, w.Body)
	}
}

// TestInboxCSRF: the page's cookie reads the edit and the rule without a
// CSRF token, but approving with an edit or an amendment wants it.
func TestInboxCSRF(t *testing.T) {
	f, in := newInboxFixture(t, true)
	r := in.record(t, f.st, "claude-code", "s1", shellInput("terraform apply -auto-approve"))
	w := f.do(t, "GET", "/login?t=login-once", "", "")
	var cookie *http.Cookie
	for _, c := range w.Result().Cookies() {
		if c.Name == sessionCookie {
			cookie = c
		}
	}
	if cookie == nil {
		t.Fatalf("no session cookie: %v", w.Result().Header)
	}
	withCookie := func(method, path, body string, hdr ...string) *httptest.ResponseRecorder {
		return f.do(t, method, path, "", body, append([]string{"Cookie", cookie.Name + "=" + cookie.Value}, hdr...)...)
	}
	for _, p := range []string{"/edit", "/amend"} {
		if w := withCookie("GET", "/v1/approvals/"+r.ID+p, ""); w.Code != 200 {
			t.Fatalf("GET %s with the cookie: %d %s", p, w.Code, w.Body)
		}
	}
	for _, body := range []string{`{"edit":{"text":"terraform plan"}}`, `{"amend":{"snippet":"x"}}`} {
		for _, tok := range []string{"", "wrong"} {
			w := withCookie("POST", "/v1/approvals/"+r.ID+"/approve", body, "X-CSRF-Token", tok)
			if w.Code != 403 || !strings.Contains(errorOf(t, w), "X-CSRF-Token") {
				t.Fatalf("POST %s with CSRF %q: %d %s", body, tok, w.Code, w.Body)
			}
		}
	}
	if got, _ := f.st.Get(r.ID); got.Status != approval.StatusPending {
		t.Fatalf("a CSRF failure decided the request: %+v", got)
	}
	if _, err := os.Stat(in.amendFile); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a CSRF failure wrote the policy file (%v)", err)
	}
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// TestApproveEditLookalikes: edits that look like a denied command but are
// not one are approved as edited, in both dialects: the pre-validation is
// the policy's decision, not a word match.
func TestApproveEditLookalikes(t *testing.T) {
	for _, provider := range []string{"claude-code", "codex"} {
		for _, edited := range []string{"git push origin main", "echo git push --force origin main", "git log --grep=--force", "git push --dry-run --force origin main"} {
			t.Run(provider+"/"+edited, func(t *testing.T) {
				f, in := newInboxFixture(t, false)
				r := in.record(t, f.st, provider, "s1", shellInput("git reset --hard HEAD~1"))
				w := f.do(t, "POST", "/v1/approvals/"+r.ID+"/approve", approverTok, `{"edit":{"text":`+quote(edited)+`}}`)
				if w.Code != 200 || !strings.Contains(w.Body.String(), `"edit": {`) {
					t.Fatalf("approve edited to %q: %d %s", edited, w.Code, w.Body)
				}
				key := approval.Key(in.call(t, provider, "s1", shellInput(edited)))
				if out, err := f.st.Check(context.Background(), key, time.Now()); err != nil || out.Kind != approval.Granted {
					t.Fatalf("the edited call %q: %+v %v", edited, out, err)
				}
			})
		}
	}
}
