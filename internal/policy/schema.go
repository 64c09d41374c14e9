package policy

//go:generate go run ../../tools/schemagen -out ../../schema

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/toolguard/toolguard/internal/call"
)

// JSON Schemas for the policy, generated from the on-disk structs
// (file.go) and their tags: FormTOML for policy.toml as TOML editors see
// it (tables [[rule]] and [[test]], a string or an array where a field
// takes either), FormJSON for the JSON form that `toolguard materialize`
// writes and the loader reads (keys "rules" and "tests", arrays only,
// the rules' provenance and the "materialized" header). The checked-in
// copies under schema/ are kept fresh by TestSchemaFresh; regenerate with
// `go generate ./internal/policy`.
const (
	FormTOML = "toml"
	FormJSON = "json"
)

// SchemaID is the $id of each form's schema: where it is published.
func SchemaID(form string) string {
	name := "policy.schema.json"
	if form == FormJSON {
		name = "policy-json.schema.json"
	}
	return "https://raw.githubusercontent.com/toolguard/toolguard/main/schema/" + name
}

// JSONSchema returns the schema of one form, indented, ending in a newline.
func JSONSchema(form string) []byte {
	g := schemaGen{form: form}
	root := g.object(reflect.TypeOf(fileDoc{}), "")
	root["$schema"] = "https://json-schema.org/draft/2020-12/schema"
	root["$id"] = SchemaID(form)
	root["title"] = "toolguard policy"
	if form == FormJSON {
		root["title"] = "toolguard policy (JSON form)"
		props := root["properties"].(map[string]any)
		props["index"] = map[string]any{"description": "the lazy loader's rule index (written by materialize)"}
	}
	root["description"] = "A toolguard policy layer. See docs/policy.md."
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(root); err != nil {
		panic(err) // maps of strings and slices only
	}
	return b.Bytes()
}

type schemaGen struct{ form string }

var (
	decisionEnum = []string{"pass", "allow", "ask", "deny"}
	ruleDecision = []string{"allow", "ask", "deny"}
)

// schemaEnums are the closed value sets, by TOML key path.
var schemaEnums = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"settings.default":       decisionEnum,
		"settings.on_error":      decisionEnum,
		"settings.on_unparsable": decisionEnum,
		"settings.on_dynamic":    decisionEnum,
		"settings.mode":          {"interactive", "headless"},
		"settings.audit":         {"decisions", "all", "off"},
		"settings.notify.format": {"json", "slack"},
		"rule.decision":          ruleDecision,
		"rule.scope":             {"inside", "outside", "outside-project"},
		"rule.op":                {"write", "modify", "create", "delete", "read"},
		"rule.modes":             {"default", "plan", "acceptEdits", "auto", "dontAsk", "bypassPermissions"},
		"test.expect":            decisionEnum,
	}
})

// schemaDocs are the descriptions, by TOML key path.
var schemaDocs = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"version":                   "policy format version (1)",
		"settings":                  "settings; later layers override earlier ones unless locked",
		"settings.layer":            "this layer's name (default: the file's)",
		"settings.builtin":          "false leaves out the embedded default rules",
		"settings.default":          "decision when no rule matches",
		"settings.default_for":      "decision when no rule matches, by call kind",
		"settings.mode":             "interactive, or headless (ask becomes deny with an approval request)",
		"settings.on_error":         "decision when toolguard fails (keep deny)",
		"settings.on_unparsable":    "decision for a shell string that does not parse",
		"settings.on_dynamic":       "decision for a command whose program is known only at run time",
		"settings.disable":          "ids of earlier layers' rules to remove",
		"settings.audit_log":        "audit log file",
		"settings.audit":            "what the audit log records",
		"settings.state_dir":        "state directory (approvals, grants)",
		"settings.workspace":        "workspace root (default: the agent's project, else the git top level)",
		"settings.safe_prefixes":    "path prefixes outside the workspace that writes may go to",
		"settings.approvers":        "public keys whose signed grants the hook trusts",
		"settings.locked":           "settings later layers may not change",
		"settings.ask_fallback":     "what an ask becomes for every agent: native, defer (Claude Code -p) or deny (deny + approval request); default: the per-agent table (docs/agents.md)",
		"settings.ask_fallback_for": "ask_fallback by agent (provider name), e.g. { codex = \"deny\" }",
		"rule":                      "rules; every field a rule sets must match",
		"rule.id":                   "unique id, lowercase: letters, digits, '-', '_', '.'",
		"rule.decision":             "allow, ask or deny",
		"rule.tool":                 "call kinds or tool-name globs; tool = \"*\" matches every call",
		"rule.command":              "command prefixes: the program and its leading words (globs), no options",
		"rule.args":                 "any of these globs matches some argument",
		"rule.args_all":             "each of these globs matches some argument",
		"rule.args_none":            "none of these globs matches any argument",
		"rule.path":                 "path globs (~, @workspace, @protected)",
		"rule.mcp":                  "MCP server/tool globs",
		"rule.domain":               "URL host globs",
		"rule.examples":             "calls this rule must and must not match, checked by validate",
		"test":                      "expectations on the merged policy, checked by validate",
		"test.expect":               "the decision the merged policy must reach",

		// remote approvals and notifications (docs/approvals.md, docs/api.md)
		"settings.approval_url":        "toolguard serve for headless asks and grants: unix:///path or http://host:port (trusted layers only)",
		"settings.approval_token_file": "file holding the hook token for approval_url (default: $TOOLGUARD_APPROVAL_TOKEN)",
		"settings.policy_pubkey":       "pinned ed25519 key of the policy bundle fetched from approval_url; tighten-only (trusted layers only)",
		"settings.notify":              "webhooks toolguard serve posts approval events to (trusted layers only)",
		"settings.notify.url":          "webhook URL, http:// or https://",
		"settings.notify.events":       "approval.request, approval.decision, approval.result (default: approval.request)",
		"settings.notify.format":       "json, or slack (an incoming webhook's shape)",
	}
})

func (g schemaGen) name(f reflect.StructField) string {
	tag := f.Tag.Get(g.form)
	if tag == "-" {
		return ""
	}
	return strings.Split(tag, ",")[0]
}

// object is the schema of a struct type; path is its TOML key path.
func (g schemaGen) object(t reflect.Type, path string) map[string]any {
	props := map[string]any{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name := g.name(f)
		if name == "" {
			continue
		}
		// The TOML key path names the field whatever the form calls it.
		tomlName := strings.Split(f.Tag.Get("toml"), ",")[0]
		if tomlName == "-" {
			tomlName = name
		}
		sub := tomlName
		if path != "" {
			sub = path + "." + tomlName
		}
		s := g.value(f.Type, sub)
		if d, ok := schemaDocs()[sub]; ok {
			s["description"] = d
		}
		props[name] = s
	}
	o := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if r, ok := schemaRequired()[path]; ok {
		o["required"] = r
	}
	return o
}

// schemaRequired are the keys a table must have, by TOML key path.
var schemaRequired = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"rule":       {"id", "decision"},
		"rule.input": {"field"},
		"test":       {"expect"},
	}
})

var stringListType = reflect.TypeOf(stringList(nil))

func (g schemaGen) value(t reflect.Type, path string) map[string]any {
	str := func() map[string]any {
		s := map[string]any{"type": "string"}
		if e, ok := schemaEnums()[path]; ok {
			s["enum"] = e
		}
		return s
	}
	if t == stringListType {
		arr := map[string]any{"type": "array", "items": str()}
		if g.form == FormJSON {
			return arr
		}
		return map[string]any{"anyOf": []any{str(), arr}}
	}
	switch t.Kind() {
	case reflect.Pointer:
		return g.value(t.Elem(), path)
	case reflect.String:
		return str()
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int:
		return map[string]any{"type": "integer"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": g.value(t.Elem(), path)}
	case reflect.Map:
		if path == "settings.default_for" {
			kinds := map[string]any{}
			for _, k := range call.Kinds() {
				kinds[k] = map[string]any{"type": "string", "enum": decisionEnum}
			}
			return map[string]any{"type": "object", "properties": kinds, "additionalProperties": false}
		}
		return map[string]any{"type": "object"} // test.input: free-form
	case reflect.Struct:
		return g.object(t, path)
	}
	return map[string]any{}
}
