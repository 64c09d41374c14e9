package install

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"
)

// Claude Code's HTTP hook (`type: "http"`): the agent POSTs the hook
// payload to toolguard serve's POST /v1/hooks/claude-code and applies the
// JSON it answers, as it applies a command hook's stdout. The fields, as
// checked 2026-12-04 (the settings schema as the claude-code-settings
// crate documents it on docs.rs, HttpHook; the same fields quoted from
// Claude Code's docs in public issue threads): an http handler has "url",
// "headers" (values interpolate $VAR and ${VAR}, only for the variables
// listed in "allowedEnvVars"; an unlisted one becomes an empty string),
// "timeout" (seconds) and "onFailure". "onFailure": "block" (2.1.295 and
// later) blocks the call when the hook cannot answer — measured live for
// http hooks with a refused connection (/work/shared/PROTOCOLS.md §11.1) —
// instead of letting it run. The token never goes into the file: the
// header names an environment variable.

// HTTPOptions are what InstallHTTP writes.
type HTTPOptions struct {
	Scope  string // "project" (default) or "user"
	Dir    string // project directory, for the project scope
	Home   string // home directory, for the user scope
	URL    string // serve's base address, or the full /v1/hooks/claude-code address
	Env    string // the environment variable holding the node token (default TOOLGUARD_NODE_TOKEN)
	DryRun bool
}

// DefaultTokenEnv is the environment variable the installed header reads.
const DefaultTokenEnv = "TOOLGUARD_NODE_TOKEN"

// hookPath is the endpoint of Claude Code's hook calls.
const hookPath = "/v1/hooks/claude-code"

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// HookURL returns the hook endpoint for raw: an http(s) address with no
// path (the endpoint is added), or the endpoint itself. Plain http is for
// a loopback host only: the bearer token would cross the network in clear.
func HookURL(raw string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return "", fmt.Errorf("--http %q: want http(s)://HOST[:PORT]", raw)
	}
	if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("--http %q: no user, query or fragment (the token goes in a header)", raw)
	}
	if u.Scheme == "http" && !loopback(u.Hostname()) {
		return "", fmt.Errorf("--http %q: plain http to a host that is not loopback would send the node token in clear; use https", raw)
	}
	switch strings.TrimSuffix(u.Path, "/") {
	case "":
		u.Path = hookPath
	case hookPath:
	default:
		return "", fmt.Errorf("--http %q: want the server's address, or its %s endpoint", raw, hookPath)
	}
	return u.String(), nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// httpHandler is toolguard's HTTP handler for endpoint, the token read
// from env.
func httpHandler(endpoint, env string) *object {
	return obj("type", "http", "url", endpoint,
		"headers", obj("Authorization", "Bearer ${"+env+"}"),
		"allowedEnvVars", []any{env},
		"timeout", num(timeoutSeconds),
		"onFailure", "block")
}

// isToolguardHTTP reports whether h is an HTTP handler pointed at a
// toolguard hook endpoint.
func isToolguardHTTP(h *object) bool {
	t, _ := stringField(h, "type")
	u, _ := stringField(h, "url")
	return t == "http" && strings.Contains(u, "/v1/hooks/")
}

// InstallHTTP writes Claude Code's PreToolUse HTTP hook pointing at
// toolguard serve, or brings an existing one (found by its /v1/hooks/
// address) up to date. Other hooks are left as they are; a toolguard
// command hook there too is named in a note (both then run; any deny wins).
func InstallHTTP(o HTTPOptions) (Result, error) {
	endpoint, err := HookURL(o.URL)
	if err != nil {
		return Result{}, err
	}
	env := o.Env
	if env == "" {
		env = DefaultTokenEnv
	}
	if !envName.MatchString(env) {
		return Result{}, fmt.Errorf("--token-env %q: want an environment variable name", env)
	}
	a, err := lookup("claude-code")
	if err != nil {
		return Result{}, err
	}
	file, err := a.path(o.Scope, o.Dir, o.Home)
	if err != nil {
		return Result{}, err
	}
	res := Result{File: file, Notes: []string{
		fmt.Sprintf("set %s to this node's token (a NAME:TOKEN line of serve's --node-tokens file) in the environment Claude Code starts in; without it every call is refused (401, and onFailure blocks)", env),
		"onFailure \"block\" needs Claude Code 2.1.295 or later; older versions let a call run when the server cannot be reached.",
	}}
	res.Notes = append(res.Notes, a.notes(o.Scope)...)
	doc, root, hooks, log, err := openHooks(file)
	if err != nil {
		return res, err
	}
	const event = "PreToolUse"
	var arr []any
	if v, ok := hooks.get(event); ok {
		var isArr bool
		if arr, isArr = v.([]any); !isArr {
			return res, fmt.Errorf("%s: \"hooks\".%s is %s, want an array; nothing was changed", file, event, kindOf(v))
		}
	}
	want := httpHandler(endpoint, env)
	found, command := false, ""
	kept, touched := filterEvent(arr, func(h *object) (any, bool) {
		if c := toolguardCommand(h, IsToolguardCommand); c != "" {
			command = c
		}
		if !isToolguardHTTP(h) {
			return h, false
		}
		if found {
			u, _ := stringField(h, "url")
			log.add("remove duplicate %s HTTP hook: %s", event, u)
			return nil, true
		}
		found = true
		if equalJSON(h, want) {
			return h, false
		}
		u, _ := stringField(h, "url")
		log.add("replace %s HTTP hook: %s -> %s", event, u, endpoint)
		return want, true
	})
	if !found {
		kept = append(kept, obj("matcher", "*", "hooks", []any{want}))
		log.add("add %s HTTP hook: %s (token from $%s, onFailure block)", event, endpoint, env)
		touched = true
	}
	if touched {
		hooks.set(event, kept)
	}
	if command != "" {
		res.Notes = append(res.Notes, fmt.Sprintf("a toolguard command hook is installed there too (%s): both run, and any deny wins; `toolguard uninstall` removes the command hook", command))
	}
	if len(log.lines) == 0 {
		res.Summary = fmt.Sprintf("toolguard HTTP hook already installed in %s", file)
		return res, nil
	}
	res.Changed = true
	res.Summary = log.String()
	if o.DryRun {
		return res, nil
	}
	res.Backup, err = doc.write(root, false)
	return res, err
}

// ErrHTTPProvider is the error of --http with an agent that has no HTTP
// hooks.
var ErrHTTPProvider = errors.New("--http is for claude-code only: the other agents run command hooks")

// UninstallHTTP removes toolguard's HTTP hooks (handlers of type "http"
// whose address is a /v1/hooks/ endpoint) from Claude Code's settings
// file, leaving all other content in place. A file left empty is deleted,
// as Uninstall deletes it.
func UninstallHTTP(o HTTPOptions) (Result, error) {
	a, err := lookup("claude-code")
	if err != nil {
		return Result{}, err
	}
	file, err := a.path(o.Scope, o.Dir, o.Home)
	if err != nil {
		return Result{}, err
	}
	res := Result{File: file, Summary: fmt.Sprintf("toolguard HTTP hook not installed in %s", file)}
	doc, err := readDoc(file)
	if err != nil || doc.root == nil {
		return res, err
	}
	hooks, err := hooksObject(doc.root, file, false)
	if err != nil || hooks == nil {
		return res, err
	}
	var log changeLog
	for _, m := range append([]member(nil), hooks.members...) {
		arr, ok := m.val.([]any)
		if !ok {
			continue
		}
		kept, touched := filterEvent(arr, func(h *object) (any, bool) {
			if isToolguardHTTP(h) {
				u, _ := stringField(h, "url")
				log.add("remove %s HTTP hook: %s", m.key, u)
				return nil, true
			}
			return h, false
		})
		switch {
		case !touched:
		case len(kept) == 0:
			hooks.del(m.key)
		default:
			hooks.set(m.key, kept)
		}
	}
	if len(log.lines) == 0 {
		return res, nil
	}
	if hooks.len() == 0 {
		doc.root.del("hooks")
	}
	remove := doc.root.len() == 0
	if remove {
		log.add("delete %s (nothing else left in it)", file)
	}
	res.Changed, res.Summary = true, log.String()
	if o.DryRun {
		return res, nil
	}
	res.Backup, err = doc.write(doc.root, remove)
	return res, err
}
