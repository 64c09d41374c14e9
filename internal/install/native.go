package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolguard/toolguard/internal/policy"
)

// Native rules: `toolguard install --native --provider claude-code` writes
// the policy's locked deny rules that Claude Code can express into its own
// permissions.deny, so that they hold even when the hook does not run (a
// missing binary, a crash, hooks switched off). A native rule must deny
// only calls toolguard denies: it may be narrower than the toolguard rule
// (Claude Code's matching is simpler), never broader. A rule with a
// condition Claude Code has no counterpart for (args, args_none, regex,
// env, via, scope, path_none, modes, input, a named path set such as
// @protected) is left to the hook and reported.
//
// What was written is recorded in a marker file beside the settings file
// (NativeMarkerSuffix): the rule strings toolguard added, and only those
// (a string the user already had is neither added nor recorded).
// UninstallNative removes exactly the recorded strings and the marker; a
// re-install replaces the recorded set.

// NativeMarkerSuffix is appended to a settings file's name for the marker
// that records the native rules toolguard wrote into it.
const NativeMarkerSuffix = ".toolguard-native.json"

// NativeRule is one rule string for the agent's own permission list.
type NativeRule struct {
	Text string // "Bash(gemini hooks disable *)", "Edit(~/.claude/settings.json)"
	From string // the toolguard rule id
	List string // "deny" (the default when empty) or "allow" (native_allow.go)
}

func (r NativeRule) list() string {
	if r.List == "" {
		return "deny"
	}
	return r.List
}

// NativeSkip is a locked deny (or one of its patterns) left to the hook.
type NativeSkip struct {
	From string
	Why  string
}

// ClaudeDenies compiles the locked deny rules among infos into Claude Code
// permission rules for a settings file of the given scope (project: dir is
// the project; a workspace-relative path is written as that absolute
// path; user: such paths are left to the hook).
func ClaudeDenies(infos []policy.RuleInfo, scope, dir string) ([]NativeRule, []NativeSkip) {
	var out []NativeRule
	var skips []NativeSkip
	seen := map[string]bool{}
	add := func(id, text string) {
		if !seen[text] {
			seen[text] = true
			out = append(out, NativeRule{Text: text, From: id})
		}
	}
	for _, in := range infos {
		if !in.Locked || in.Decision != "deny" {
			continue
		}
		m := in.Matches
		if why := claudeCannot(in); why != "" {
			skips = append(skips, NativeSkip{From: in.ID, Why: why})
			continue
		}
		switch {
		case len(m.Command) > 0:
			var texts []string
			for _, p := range m.Command {
				if strings.ContainsAny(p, "*?[]{}\\\"'$;&|<>()`") {
					texts = nil
					skips = append(skips, NativeSkip{From: in.ID, Why: fmt.Sprintf("the command prefix %q holds a glob or shell character", p)})
					break
				}
				w := strings.Join(strings.Fields(p), " ")
				texts = append(texts, "Bash("+w+")", "Bash("+w+" *)")
			}
			for _, t := range texts {
				add(in.ID, t)
			}
		case len(m.Path) > 0:
			ops := []string(m.Op)
			read := len(ops) == 0 || slices.Contains(ops, "read")
			edit := len(ops) == 0 || slices.Contains(ops, "write")
			if !read && !edit {
				skips = append(skips, NativeSkip{From: in.ID, Why: fmt.Sprintf("op %v: Claude Code's Edit rules also cover writes the rule does not deny", ops)})
				continue
			}
			for _, p := range m.Path {
				cp, why := claudePath(p, scope, dir)
				if why != "" {
					skips = append(skips, NativeSkip{From: in.ID, Why: why})
					continue
				}
				if edit {
					add(in.ID, "Edit("+cp+")")
				}
				if read {
					add(in.ID, "Read("+cp+")")
				}
			}
		case len(m.MCP) > 0:
			for _, p := range m.MCP {
				server, tool, ok := strings.Cut(p, "/")
				switch {
				case !ok || server == "" || strings.ContainsAny(server, "*?[]{}") || strings.Contains(server, "__"):
					skips = append(skips, NativeSkip{From: in.ID, Why: fmt.Sprintf("the MCP pattern %q", p)})
				case tool == "*":
					add(in.ID, "mcp__"+server)
				case strings.ContainsAny(tool, "*?[]{}"):
					skips = append(skips, NativeSkip{From: in.ID, Why: fmt.Sprintf("the MCP pattern %q", p)})
				default:
					add(in.ID, "mcp__"+server+"__"+tool)
				}
			}
		default:
			skips = append(skips, NativeSkip{From: in.ID, Why: "no command, path or MCP condition Claude Code can express"})
		}
	}
	return out, skips
}

// claudeCannot names a condition of the rule Claude Code has no
// counterpart for, or "".
func claudeCannot(in policy.RuleInfo) string {
	m := in.Matches
	conds := []struct {
		name string
		set  bool
	}{
		{"args", len(m.Args) > 0}, {"args_all", len(m.ArgsAll) > 0}, {"args_none", len(m.ArgsNone) > 0},
		{"path_none", len(m.PathNone) > 0}, {"scope", m.Scope != ""}, {"regex", m.Regex != ""},
		{"fed_by", len(m.FedBy) > 0}, {"via", len(m.Via) > 0}, {"env", len(m.Env) > 0}, {"env_none", len(m.EnvNone) > 0},
		{"code", m.Code != ""}, {"domain", len(m.Domain) > 0}, {"modes", len(m.Modes) > 0}, {"input", len(m.Input) > 0},
	}
	for _, c := range conds {
		if c.set {
			return c.name + ": Claude Code has no counterpart"
		}
	}
	n := 0
	for _, set := range []bool{len(m.Command) > 0, len(m.Path) > 0, len(m.MCP) > 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return "a rule on both a command and a path (or MCP tool)"
	}
	for _, t := range m.Tool {
		if !(len(m.Command) > 0 && (t == "shell" || t == "Bash")) {
			return fmt.Sprintf("tool %q: the native rule would not be limited to it", t)
		}
	}
	return ""
}

// claudePath writes a toolguard path pattern in Claude Code's syntax, or
// says why it cannot be.
func claudePath(p, scope, dir string) (string, string) {
	switch {
	case strings.HasPrefix(p, "@"):
		return "", fmt.Sprintf("the path set %s is known only to the hook", p)
	case p == "~" || p == "$HOME":
		return "", fmt.Sprintf("the whole home directory (%s)", p)
	case strings.HasPrefix(p, "$HOME/"):
		return "~/" + strings.TrimPrefix(p, "$HOME/"), ""
	case strings.HasPrefix(p, "~/"):
		return p, ""
	case strings.HasPrefix(p, "/"):
		return "/" + p, "" // //abs: absolute in Claude Code
	case strings.HasPrefix(p, "**/"):
		return p, ""
	case !strings.Contains(strings.TrimSuffix(p, "/"), "/"):
		return "**/" + strings.TrimSuffix(p, "/"), "" // a base name, anywhere
	}
	if scope != ScopeProject || dir == "" || !filepath.IsAbs(dir) {
		return "", fmt.Sprintf("the workspace-relative path %s in user settings (no project to anchor it)", p)
	}
	return "/" + filepath.ToSlash(filepath.Join(dir, strings.TrimPrefix(p, "./"))), ""
}

// nativeMarker is the marker file's content.
type nativeMarker struct {
	Deny  []string `json:"deny"`
	Allow []string `json:"allow,omitempty"`
}

// of gives the strings the marker records for one list.
func (m *nativeMarker) of(list string) *[]string {
	if list == "allow" {
		return &m.Allow
	}
	return &m.Deny
}

func readMarker(path string) (nativeMarker, bool, error) {
	var m nativeMarker
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return m, false, nil
	}
	if err != nil {
		return m, false, err
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return m, false, fmt.Errorf("%s: %v (remove it only if you know what it recorded)", path, err)
	}
	return m, true, nil
}

// InstallNative writes rules into permissions.deny and permissions.allow
// (NativeRule.List) of Claude Code's
// settings file for o.Scope, replacing what an earlier InstallNative
// wrote, and records them in the marker. Other keys and the user's own
// entries are left as they are; the settings file is backed up as by
// Install.
func InstallNative(o Options, rules []NativeRule) (Result, error) {
	res, doc, marker, old, _, err := openNative(o)
	if err != nil {
		return res, err
	}
	file := res.File
	root := doc.root
	if root == nil {
		root = &object{}
	}
	var log changeLog
	var mine nativeMarker
	for _, list := range []string{"deny", "allow"} {
		perms, cur, err := permList(root, file, list)
		if err != nil {
			return res, err
		}
		want := map[string]bool{}
		for _, r := range rules {
			if r.list() == list {
				want[r.Text] = true
			}
		}
		oldList := *old.of(list)
		// Drop what the last install wrote and this one does not.
		var kept []any
		for _, v := range cur {
			s, _ := v.(string)
			if slices.Contains(oldList, s) && !want[s] {
				why := "no longer a locked deny"
				if list == "allow" {
					why = "no longer a proven allow"
				}
				log.add("remove permissions.%s %s (%s)", list, s, why)
				continue
			}
			kept = append(kept, v)
		}
		n := len(log.lines)
		for _, r := range rules {
			if r.list() != list {
				continue
			}
			if slices.ContainsFunc(kept, func(v any) bool { s, _ := v.(string); return s == r.Text }) {
				if slices.Contains(oldList, r.Text) {
					*mine.of(list) = append(*mine.of(list), r.Text) // ours from before
				}
				continue // the user's own entry: neither added nor recorded
			}
			kept = append(kept, r.Text)
			*mine.of(list) = append(*mine.of(list), r.Text)
			log.add("add permissions.%s %s (rule %s)", list, r.Text, r.From)
		}
		if len(log.lines) == n && len(kept) == len(cur) {
			continue
		}
		if len(kept) == 0 {
			perms.del(list)
		} else {
			perms.set(list, kept)
		}
		if _, ok := root.get("permissions"); !ok && perms.len() > 0 {
			root.set("permissions", perms)
		}
	}
	if len(log.lines) == 0 {
		res.Summary = fmt.Sprintf("native rules already in %s (%d deny, %d allow)", file, len(mine.Deny), len(mine.Allow))
		return res, nil
	}
	if doc.data == nil {
		log.lines = append([]string{"create " + file}, log.lines...)
	}
	res.Changed = true
	res.Summary = log.String()
	if o.DryRun {
		return res, nil
	}
	if res.Backup, err = doc.write(root, false); err != nil {
		return res, err
	}
	data, err := json.MarshalIndent(mine, "", "  ")
	if err != nil {
		return res, err
	}
	if err := writeAtomic(marker, append(data, '\n'), 0o644); err != nil {
		return res, fmt.Errorf("%s: %v (the settings file was written; run uninstall --native to undo)", marker, err)
	}
	return res, nil
}

// UninstallNative removes from permissions.deny exactly the strings the
// marker records, then the marker. A deny list or permissions object left
// empty by that removal is removed too; a file left empty is deleted.
func UninstallNative(o Options) (Result, error) {
	res, doc, marker, old, found, err := openNative(o)
	if err != nil {
		return res, err
	}
	file := res.File
	if !found {
		res.Summary = fmt.Sprintf("no native rules recorded for %s", file)
		return res, nil
	}
	var log changeLog
	root := doc.root
	if root != nil {
		pv, ok := root.get("permissions")
		perms, isObj := pv.(*object)
		if ok && isObj {
			for _, list := range []string{"deny", "allow"} {
				dv, _ := perms.get(list)
				cur, ok := dv.([]any)
				if !ok {
					continue
				}
				var kept []any
				for _, v := range cur {
					s, _ := v.(string)
					if slices.Contains(*old.of(list), s) {
						log.add("remove permissions.%s %s", list, s)
						continue
					}
					kept = append(kept, v)
				}
				switch {
				case len(kept) == len(cur):
				case len(kept) == 0:
					perms.del(list)
				default:
					perms.set(list, kept)
				}
			}
			if perms.len() == 0 {
				root.del("permissions")
			}
		}
	}
	if root != nil && len(log.lines) > 0 && root.len() == 0 {
		log.add("delete %s (nothing else left in it)", file)
	}
	log.add("remove %s", marker)
	res.Changed = true
	res.Summary = log.String()
	if o.DryRun {
		return res, nil
	}
	if root != nil && len(log.lines) > 1 {
		remove := root.len() == 0
		if doc.restores(root, remove) {
			// Back to what install's backup holds (or to no file): that
			// backup has served, as in Uninstall.
			os.Remove(doc.path + BackupSuffix)
			if err := doc.replace(root, remove); err != nil {
				return res, err
			}
		} else if res.Backup, err = doc.write(root, remove); err != nil {
			return res, err
		}
	}
	if err := os.Remove(marker); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	}
	return res, nil
}

// permList finds (or makes) root.permissions and its list (deny, allow).
func permList(root *object, file, list string) (*object, []any, error) {
	pv, ok := root.get("permissions")
	if !ok {
		return &object{}, nil, nil
	}
	perms, isObj := pv.(*object)
	if !isObj {
		return nil, nil, fmt.Errorf("%s: permissions is %s, want an object; nothing was changed", file, kindOf(pv))
	}
	dv, ok := perms.get(list)
	if !ok {
		return perms, nil, nil
	}
	cur, isArr := dv.([]any)
	if !isArr {
		return nil, nil, fmt.Errorf("%s: permissions.%s is %s, want a list; nothing was changed", file, list, kindOf(dv))
	}
	return perms, cur, nil
}

// openNative reads what InstallNative and UninstallNative start from: Claude
// Code's settings file of o's scope, its marker's path, and the strings the
// marker records (found: the marker exists).
func openNative(o Options) (res Result, doc *document, marker string, old nativeMarker, found bool, err error) {
	if o.Provider != "claude-code" && o.Provider != "claude" {
		return Result{}, nil, "", nativeMarker{}, false, fmt.Errorf("native rules are written for claude-code only, not %s", o.Provider)
	}
	file, err := SettingsPath("claude-code", o.Scope, o.Dir, o.Home)
	if err != nil {
		return Result{}, nil, "", nativeMarker{}, false, err
	}
	res = Result{File: file}
	if doc, err = readDoc(file); err != nil {
		return res, nil, "", nativeMarker{}, false, err
	}
	marker = doc.path + NativeMarkerSuffix
	old, found, err = readMarker(marker)
	return res, doc, marker, old, found, err
}
