package install

import (
	"fmt"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
)

// What doctor reads of Claude Code's own permission rules (docs/native.md):
// the rules `install --native` wrote that are gone from the settings file
// (the user removed or edited them), the agent's allow rules that let
// through a command toolguard denies (with the hook dead, or skipped, the
// agent's allow decides), and the HTTP hooks (`install --http`).

// NativeFinding is one thing doctor reports about a settings file.
type NativeFinding struct {
	File string `json:"file"`
	Text string `json:"text"`
}

// HTTPHook is one PreToolUse handler of type "http".
type HTTPHook struct {
	File      string `json:"file"`
	URL       string `json:"url"`
	OnFailure string `json:"on_failure,omitempty"`
	Toolguard bool   `json:"toolguard"` // its URL is a toolguard hook endpoint (/v1/hooks/)
}

// NativeReport is what ClaudeNative found.
type NativeReport struct {
	Missing   []NativeFinding `json:"missing,omitempty"`
	Conflicts []NativeFinding `json:"conflicts,omitempty"`
	HTTP      []HTTPHook      `json:"http,omitempty"`
	Notes     []string        `json:"notes,omitempty"` // unreadable files, markers
}

// ClaudeNative reads Claude Code's user, project and local settings files
// (home, project; "" skips one) against pol, evaluated with env.
func ClaudeNative(home, project string, pol *policy.Policy, env policy.Env) NativeReport {
	var rep NativeReport
	var files []string
	if home != "" {
		files = append(files, join(home, ".claude/settings.json"))
	}
	if project != "" {
		files = append(files, join(project, ".claude/settings.json"), join(project, ".claude/settings.local.json"))
	}
	var infos []policy.RuleInfo
	if pol != nil {
		infos = pol.Info()
	}
	for _, file := range files {
		doc, err := readDoc(file)
		if err != nil {
			rep.Notes = append(rep.Notes, err.Error())
			continue
		}
		marker, found, err := readMarker(file + NativeMarkerSuffix)
		if err != nil {
			rep.Notes = append(rep.Notes, err.Error())
		}
		if doc.data == nil && !found {
			continue
		}
		root := doc.root
		if root == nil {
			root = &object{}
		}
		lists := map[string][]string{}
		if pv, ok := root.get("permissions"); ok {
			if perms, ok := pv.(*object); ok {
				for _, list := range []string{"allow", "ask", "deny"} {
					v, _ := perms.get(list)
					arr, _ := v.([]any)
					for _, e := range arr {
						if s, ok := e.(string); ok {
							lists[list] = append(lists[list], s)
						}
					}
				}
			}
		}
		if found {
			for _, list := range []string{"deny", "allow"} {
				for _, s := range *marker.of(list) {
					if !slices.Contains(lists[list], s) {
						rep.Missing = append(rep.Missing, NativeFinding{file, fmt.Sprintf("permissions.%s %s: written by install --native, no longer there (removed or edited; install --native again to restore it)", list, s)})
					}
				}
			}
		}
		if pol != nil {
			for _, a := range lists["allow"] {
				if why := allowConflict(a, pol, infos, env); why != "" {
					rep.Conflicts = append(rep.Conflicts, NativeFinding{file, why})
				}
			}
		}
		for _, r := range httpHooksIn(root) {
			r.File = file
			rep.HTTP = append(rep.HTTP, r)
		}
	}
	return rep
}

// allowConflict says how the agent's allow rule a lets through a command
// toolguard denies, or "". Only Bash rules are judged: the command the
// rule names (its prefix, for a prefix rule) is evaluated, and a prefix
// rule is also checked against every deny rule on a command it covers.
func allowConflict(a string, pol *policy.Policy, infos []policy.RuleInfo, env policy.Env) string {
	if a == "Bash" || a == "Bash(*)" || a == "Bash(:*)" {
		for _, in := range infos {
			if in.Decision == "deny" && len(in.Matches.Command) > 0 {
				return fmt.Sprintf("permissions.allow %s allows every command, toolguard denies some (rule %s): with the hook not running, the agent's allow decides", a, in.ID)
			}
		}
		return ""
	}
	inner, ok := strings.CutPrefix(a, "Bash(")
	if !ok || !strings.HasSuffix(inner, ")") {
		return ""
	}
	inner = strings.TrimSuffix(inner, ")")
	prefix, wild := inner, false
	for _, suf := range []string{":*", " *", "*"} {
		if p, ok := strings.CutSuffix(inner, suf); ok {
			prefix, wild = p, true
			break
		}
	}
	if i := strings.IndexAny(prefix, "*"); i >= 0 {
		prefix, wild = prefix[:i], true
	}
	prefix = strings.TrimSpace(prefix)
	if prefix != "" {
		c := call.Call{Provider: "claude-code", Event: "PreToolUse", Tool: "Bash", Kind: call.KindShell, Shell: "bash", Command: prefix, Cwd: env.Workspace}
		if res := pol.Evaluate(c, env); res.Decision == call.Deny {
			id := ""
			if res.Rule != nil {
				id = " (rule " + res.Rule.ID + ")"
			}
			return fmt.Sprintf("permissions.allow %s: toolguard denies %q%s; with the hook not running, the agent's allow decides", a, prefix, id)
		}
	}
	if !wild {
		return ""
	}
	pw := strings.Fields(prefix)
	for _, in := range infos {
		if in.Decision != "deny" {
			continue
		}
		for _, pat := range in.Matches.Command {
			f := strings.Fields(pat)
			if len(f) >= len(pw) && slices.Equal(f[:len(pw)], pw) || len(pw) == 0 {
				return fmt.Sprintf("permissions.allow %s covers %q, which toolguard denies (rule %s): with the hook not running, the agent's allow decides", a, pat, in.ID)
			}
		}
	}
	return ""
}

// httpHooksIn lists the PreToolUse handlers of type "http" in root.
func httpHooksIn(root *object) []HTTPHook {
	v, _ := root.get("hooks")
	hooks, ok := v.(*object)
	if !ok {
		return nil
	}
	ev, _ := hooks.get("PreToolUse")
	arr, _ := ev.([]any)
	var out []HTTPHook
	for _, e := range arr {
		g, ok := e.(*object)
		if !ok {
			continue
		}
		handlers, isGroup := groupHandlers(g)
		if !isGroup {
			handlers = []any{g}
		}
		for _, h := range handlers {
			o, ok := h.(*object)
			if !ok {
				continue
			}
			if t, _ := stringField(o, "type"); t != "http" {
				continue
			}
			u, _ := stringField(o, "url")
			f, _ := stringField(o, "onFailure")
			out = append(out, HTTPHook{URL: u, OnFailure: f, Toolguard: isToolguardHTTP(o)})
		}
	}
	return out
}
