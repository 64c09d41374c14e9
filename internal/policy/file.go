package policy

import (
	"fmt"
)

// The on-disk schema: one struct per TOML table, snake_case keys. The same
// structs decode the materialized JSON form.

// fileDoc is one policy file as written.
type fileDoc struct {
	Version  int           `toml:"version" json:"version"`
	Settings fileSettings  `toml:"settings" json:"settings"`
	Rules    []fileRule    `toml:"rule" json:"rules"`
	Tests    []fileTest    `toml:"test" json:"tests"`
	Meta     *materialMeta `toml:"-" json:"materialized,omitempty"`
}

// fileSettings holds every setting as a pointer so that "not set" differs
// from the zero value when layers are merged.
type fileSettings struct {
	Layer        *string           `toml:"layer" json:"layer,omitempty"`
	Builtin      *bool             `toml:"builtin" json:"builtin,omitempty"`
	Default      *string           `toml:"default" json:"default,omitempty"`
	DefaultFor   map[string]string `toml:"default_for" json:"default_for,omitempty"`
	Mode         *string           `toml:"mode" json:"mode,omitempty"`
	OnError      *string           `toml:"on_error" json:"on_error,omitempty"`
	OnUnparsable *string           `toml:"on_unparsable" json:"on_unparsable,omitempty"`
	OnDynamic    *string           `toml:"on_dynamic" json:"on_dynamic,omitempty"`
	Disable      []string          `toml:"disable" json:"disable,omitempty"`
	AuditLog     *string           `toml:"audit_log" json:"audit_log,omitempty"`
	Audit        *string           `toml:"audit" json:"audit,omitempty"`
	StateDir     *string           `toml:"state_dir" json:"state_dir,omitempty"`
	Workspace    *string           `toml:"workspace" json:"workspace,omitempty"`
	SafePrefixes []string          `toml:"safe_prefixes" json:"safe_prefixes,omitempty"`
	Approvers    []string          `toml:"approvers" json:"approvers,omitempty"`
	HoldSession  *bool             `toml:"hold_session_on_pending" json:"hold_session_on_pending,omitempty"`
	PendingTTL   *string           `toml:"pending_ttl" json:"pending_ttl,omitempty"`
	Locked       []string          `toml:"locked" json:"locked,omitempty"`
	// CaseInsensitivePaths: guard surfaces match case-insensitively (a
	// case-insensitive file system). Only switches on: true in any layer wins.
	CaseInsensitivePaths *bool `toml:"case_insensitive_paths" json:"case_insensitive_paths,omitempty"`
	// RequireEnforcement: `toolguard doctor` exits non-zero when an agent it
	// judges is not guarded, as with --require-enforcement. Only switches on.
	RequireEnforcement *bool `toml:"require_enforcement" json:"require_enforcement,omitempty"`
	// AutoAllow: "off" or "read-only" (docs/auto-allow.md). It loosens:
	// an untrusted layer may only set "off".
	AutoAllow *string `toml:"auto_allow" json:"auto_allow,omitempty"`
	// ShellFields names, per tool-name glob, more input fields that hold
	// a shell command (beyond command, cmd, script, shell_command). Adding
	// fields only adds what is judged: any layer may.
	ShellFields map[string][]string `toml:"shell_fields" json:"shell_fields,omitempty"`
	// AskFallback ("native", "defer" or "deny") says what an ask becomes
	// for every agent, AskFallbackFor per provider name (headless.go in
	// cmd/toolguard). An untrusted layer may only set "deny".
	AskFallback    *string           `toml:"ask_fallback" json:"ask_fallback,omitempty"`
	AskFallbackFor map[string]string `toml:"ask_fallback_for" json:"ask_fallback_for,omitempty"`
	// ApprovalURL: the toolguard serve the hook records headless asks
	// with and asks for grants (docs/approvals.md, "Remote approvals"):
	// unix:///path or http://host:port. Trusted layers only.
	ApprovalURL *string `toml:"approval_url" json:"approval_url,omitempty"`
	// ApprovalTokenFile: a file holding the hook token for ApprovalURL
	// (else $TOOLGUARD_APPROVAL_TOKEN). Trusted layers only.
	ApprovalTokenFile *string `toml:"approval_token_file" json:"approval_token_file,omitempty"`
	// PolicyPubkey: the pinned public key ("ed25519:<base64>") of the
	// policy bundle the hook fetches from ApprovalURL's server and lays
	// over its own layers, tighten-only (docs/bundles.md). Trusted layers
	// only.
	PolicyPubkey *string `toml:"policy_pubkey" json:"policy_pubkey,omitempty"`
	// Notify: webhooks toolguard serve posts approval events to. Trusted
	// layers only (an event carries the request's contents).
	Notify []fileNotify `toml:"notify" json:"notify,omitempty"`
}

// fileNotify is one [[settings.notify]] webhook.
type fileNotify struct {
	URL    string   `toml:"url" json:"url"`
	Events []string `toml:"events" json:"events,omitempty"`
	Format string   `toml:"format" json:"format,omitempty"`
}

type fileExamples struct {
	Match    []string `toml:"match" json:"match,omitempty"`
	NotMatch []string `toml:"not_match" json:"not_match,omitempty"`
}

// fileRule is one [[rule]] table.
type fileRule struct {
	ID            string       `toml:"id" json:"id"`
	Description   string       `toml:"description" json:"description,omitempty"`
	Decision      string       `toml:"decision" json:"decision"`
	Justification string       `toml:"justification" json:"justification,omitempty"`
	Priority      int          `toml:"priority" json:"priority,omitempty"`
	Locked        bool         `toml:"locked" json:"locked,omitempty"`
	Tool          stringList   `toml:"tool" json:"tool,omitempty"`
	Command       stringList   `toml:"command" json:"command,omitempty"`
	Args          stringList   `toml:"args" json:"args,omitempty"`
	ArgsAll       stringList   `toml:"args_all" json:"args_all,omitempty"`
	ArgsNone      stringList   `toml:"args_none" json:"args_none,omitempty"`
	Path          stringList   `toml:"path" json:"path,omitempty"`
	PathNone      stringList   `toml:"path_none" json:"path_none,omitempty"`
	Op            stringList   `toml:"op" json:"op,omitempty"`
	Scope         string       `toml:"scope" json:"scope,omitempty"`
	MCP           stringList   `toml:"mcp" json:"mcp,omitempty"`
	Regex         string       `toml:"regex" json:"regex,omitempty"`
	FedBy         stringList   `toml:"fed_by" json:"fed_by,omitempty"`
	Via           stringList   `toml:"via" json:"via,omitempty"`
	Env           stringList   `toml:"env" json:"env,omitempty"`
	EnvNone       stringList   `toml:"env_none" json:"env_none,omitempty"`
	Code          string       `toml:"code" json:"code,omitempty"`
	Effect        stringList   `toml:"effect" json:"effect,omitempty"`
	Domain        stringList   `toml:"domain" json:"domain,omitempty"`
	Modes         stringList   `toml:"modes" json:"modes,omitempty"`
	Input         []fileInput  `toml:"input" json:"input,omitempty"`
	Examples      fileExamples `toml:"examples" json:"examples,omitempty"`

	// Provenance, filled by the loader (and carried by materialized JSON).
	Layer  string `toml:"-" json:"layer,omitempty"`
	Source string `toml:"-" json:"source,omitempty"`
}

// fileInput is one condition on a field of the tool's JSON input.
type fileInput struct {
	Field  string  `toml:"field" json:"field"`
	Exact  *string `toml:"exact" json:"exact,omitempty"`
	Prefix *string `toml:"prefix" json:"prefix,omitempty"`
	Glob   *string `toml:"glob" json:"glob,omitempty"`
	Regex  *string `toml:"regex" json:"regex,omitempty"`
	Not    bool    `toml:"not" json:"not,omitempty"`
}

// fileTest is one [[test]] table: an expectation on the merged policy.
type fileTest struct {
	Name    string         `toml:"name" json:"name,omitempty"`
	Command string         `toml:"command" json:"command,omitempty"`
	Tool    string         `toml:"tool" json:"tool,omitempty"`
	Path    string         `toml:"path" json:"path,omitempty"`
	MCP     string         `toml:"mcp" json:"mcp,omitempty"`
	URL     string         `toml:"url" json:"url,omitempty"`
	Mode    string         `toml:"mode" json:"mode,omitempty"`
	Input   map[string]any `toml:"input" json:"input,omitempty"`
	Cwd     string         `toml:"cwd" json:"cwd,omitempty"`
	Expect  string         `toml:"expect" json:"expect"`
}

type materialMeta struct {
	Hash   string   `json:"hash"`
	Layers []string `json:"layers"`
}

// stringList accepts a string or an array of strings.
type stringList []string

func (l *stringList) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*l = stringList{v}
		return nil
	case []any:
		out := make(stringList, 0, len(v))
		for i, e := range v {
			s, ok := e.(string)
			if !ok {
				return fmt.Errorf("element %d is %T, want a string", i, e)
			}
			out = append(out, s)
		}
		*l = out
		return nil
	}
	return fmt.Errorf("got %T, want a string or an array of strings", v)
}
