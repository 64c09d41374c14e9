package install

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// hookRef is one command line found under one event of a hook file.
type hookRef struct {
	event   string
	matcher string // the group's or handler's matcher, "" when none
	command string
}

// ExtractCommands returns every hook command line in a settings or hook file
// of provider (claude-code/claude, codebuddy, codex, gemini, cursor, copilot, windsurf),
// for every event, each once, in file order. Handlers nested in matcher
// groups and flat handler lists are both understood, as are Copilot's
// bash/powershell/exec fields and exec-form "args" (joined with shell
// quoting). For codex, data may be hooks.json or config.toml (its [hooks]
// tables). Comments in JSON are tolerated. Parse errors start with line:col.
func ExtractCommands(provider string, data []byte) ([]string, error) {
	if isPlugin(provider) {
		return pluginCommands(data) // opencode.go: the plugin file's COMMAND
	}
	refs, err := extractHooks(provider, data)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, r := range refs {
		if !slices.Contains(out, r.command) {
			out = append(out, r.command)
		}
	}
	return out, nil
}

func extractHooks(provider string, data []byte) ([]hookRef, error) {
	if _, err := lookup(provider); err != nil {
		return nil, err
	}
	root, err := parseSettings(provider, data)
	if err != nil {
		return nil, err
	}
	return hooksIn(root), nil
}

// parseSettings decodes a settings file leniently for reading: JSON with
// comments, or (for codex, when it does not start with "{") TOML.
func parseSettings(provider string, data []byte) (*object, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return &object{}, nil
	}
	if provider == "codex" && trimmed[0] != '{' {
		var m map[string]any
		if _, err := toml.Decode(string(data), &m); err != nil {
			var perr toml.ParseError
			if errors.As(err, &perr) {
				return nil, fmt.Errorf("%d:%d: %s", perr.Position.Line, perr.Position.Col, perr.Message)
			}
			return nil, err
		}
		root, _ := fromTOML(m).(*object)
		return root, nil
	}
	v, err := decodeJSON(stripComments(data))
	if err != nil {
		return nil, err
	}
	root, ok := v.(*object)
	if !ok {
		return nil, fmt.Errorf("1:1: top-level value is %s, want an object", kindOf(v))
	}
	return root, nil
}

// fromTOML turns decoded TOML into the JSON value model (keys sorted).
func fromTOML(v any) any {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		o := &object{}
		for _, k := range keys {
			o.set(k, fromTOML(t[k]))
		}
		return o
	case []map[string]any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = fromTOML(e)
		}
		return a
	case []any:
		a := make([]any, len(t))
		for i, e := range t {
			a[i] = fromTOML(e)
		}
		return a
	default:
		return v
	}
}

// hooksIn lists the handlers' command lines under root["hooks"].
func hooksIn(root *object) []hookRef {
	if root == nil {
		return nil
	}
	v, _ := root.get("hooks")
	hooks, ok := v.(*object)
	if !ok {
		return nil
	}
	var refs []hookRef
	add := func(event string, h *object, matcher string) {
		if m, ok := stringField(h, "matcher"); ok {
			matcher = m
		}
		for _, c := range handlerCommands(h) {
			refs = append(refs, hookRef{event, matcher, c})
		}
	}
	for _, m := range hooks.members {
		arr, ok := m.val.([]any)
		if !ok {
			continue
		}
		for _, e := range arr {
			o, ok := e.(*object)
			if !ok {
				continue
			}
			inner, isGroup := groupHandlers(o)
			if !isGroup {
				add(m.key, o, "")
				continue
			}
			gm, _ := stringField(o, "matcher")
			for _, he := range inner {
				if h, ok := he.(*object); ok {
					add(m.key, h, gm)
				}
			}
		}
	}
	return refs
}

// codexTOMLNotes warns when the config.toml beside a Codex hooks.json also
// holds [hooks] handlers: Codex then warns at start, and a toolguard hook
// there would run twice.
func codexTOMLNotes(configTOML string) []string {
	data, err := readFileIfExists(configTOML)
	if err != nil || data == nil {
		return nil
	}
	refs, err := extractHooks("codex", data)
	if err != nil || len(refs) == 0 {
		return nil
	}
	n := []string{fmt.Sprintf("%s also defines [hooks]; Codex warns when hooks.json and config.toml hooks are both set in one layer.", configTOML)}
	for _, r := range refs {
		if r.event == "PreToolUse" && IsToolguardCommand(r.command) {
			n = append(n, fmt.Sprintf("%s already runs toolguard (%s): remove that entry so the hook does not run twice.", configTOML, strings.TrimSpace(r.command)))
			break
		}
	}
	return n
}
