// Package workspace says where everything toolguard reads and writes is:
// the user's config and state directories (one XDG rule), the audit log,
// the approver key, serve's tokens, the trust records; the project and
// workspace root of a call; the policy files in effect (discovery) and the
// trust boundary between the user's files and a repository's. Everything
// is derived from an Env, the process's environment, so that tests and
// library users give their own.
package workspace

import (
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/policy"
)

// Env is what the locations are derived from: the process's environment,
// working directory and binary. A nil function is as if it returned "".
type Env struct {
	Getenv     func(string) string
	Getwd      func() (string, error)
	Executable func() (string, error)
	// Etc is where /etc/toolguard/policy.toml is looked for ("" for no
	// system policy); tests point it elsewhere.
	Etc string
}

// Var is the environment variable name, "" when unset.
func (e Env) Var(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// Home returns the user's home directory from the environment.
func (e Env) Home() string {
	if h := e.Var("HOME"); h != "" {
		return h
	}
	return e.Var("USERPROFILE")
}

// Cwd is the working directory, "" when unknown.
func (e Env) Cwd() string {
	if e.Getwd == nil {
		return ""
	}
	wd, _ := e.Getwd()
	return wd
}

// Path makes a path the user named (a flag, a setting) absolute against
// the working directory: ArgPath with this Env's cwd and home.
func (e Env) Path(p string) string { return ArgPath(p, e.Cwd(), e.Home()) }

// ProjectDirVars are the environment variables in which agents hand their
// hooks the project directory, in the order they are looked at.
var ProjectDirVars = []string{"CLAUDE_PROJECT_DIR", "CODEBUDDY_PROJECT_DIR", "GEMINI_PROJECT_DIR", "DEVIN_PROJECT_DIR"}

// HookCommandVars are the variables an installed hook command may name
// its binary by ("$CLAUDE_PROJECT_DIR"/bin/toolguard): ProjectDirVars
// and Cursor's, which Cursor sets for its hooks but toolguard does not
// take as the project (Cursor's payload names it).
var HookCommandVars = append(append([]string(nil), ProjectDirVars...), "CURSOR_PROJECT_DIR")

// xdg is the base directory an XDG variable names, else home/fallback.
// One rule for every base directory: the variable counts only when it is
// an absolute path (the XDG spec: a relative one is invalid and ignored).
func (e Env) xdg(name, fallback string) string {
	if x := e.Var(name); x != "" && filepath.IsAbs(x) {
		return x
	}
	if h := e.Home(); h != "" {
		return filepath.Join(h, fallback)
	}
	return ""
}

// ConfigDir is the user's toolguard config directory:
// $XDG_CONFIG_HOME/toolguard, else ~/.config/toolguard; "" when neither
// is known.
func (e Env) ConfigDir() string {
	if b := e.xdg("XDG_CONFIG_HOME", ".config"); b != "" {
		return filepath.Join(b, "toolguard")
	}
	return ""
}

// DefaultStateDir is the user's toolguard state directory:
// $XDG_STATE_HOME/toolguard, else ~/.local/state/toolguard; "" when
// neither is known.
func (e Env) DefaultStateDir() string {
	if b := e.xdg("XDG_STATE_HOME", filepath.Join(".local", "state")); b != "" {
		return filepath.Join(b, "toolguard")
	}
	return ""
}

// inConfig is name in the config directory, or "".
func (e Env) inConfig(name string) string {
	if d := e.ConfigDir(); d != "" {
		return filepath.Join(d, name)
	}
	return ""
}

// UserPolicyFile is the user layer's policy file.
func (e Env) UserPolicyFile() string { return e.inConfig("policy.toml") }

// KeyPath is the user's approver key.
func (e Env) KeyPath() string { return e.inConfig("approver.key") }

// TokenPath is serve's bearer token file.
func (e Env) TokenPath() string { return e.inConfig("serve.tokens") }

// TrustDir is where trust records live: the default state directory's
// trust/. Neither settings.state_dir nor --state-dir moves it: a policy
// cannot vouch for itself.
func (e Env) TrustDir() string {
	if d := e.DefaultStateDir(); d != "" {
		return filepath.Join(d, "trust")
	}
	return ""
}

// StateDir is where approvals (and by default the audit log) live: the
// flag, settings.state_dir, else the default state directory.
func (e Env) StateDir(flag string, pol *policy.Policy) string {
	if flag != "" {
		return e.Path(flag)
	}
	if pol != nil && pol.Settings.StateDir != "" {
		return e.Path(pol.Settings.StateDir)
	}
	return e.DefaultStateDir()
}

// AuditServer is the settings.audit_log value of system mode: the hook
// sends each audit line to the approval server (settings.approval_url,
// POST /v1/audit), whose own account keeps the hash-chained log; for the
// server itself it means the state directory's audit.jsonl.
const AuditServer = "server"

// AuditPath is the audit log file, or "" when auditing is off: the flag,
// settings.audit_log, else audit.jsonl in the state directory.
func (e Env) AuditPath(flag, stateFlag string, pol *policy.Policy) string {
	if flag != "" {
		return e.Path(flag)
	}
	if pol != nil && pol.Settings.Audit == "off" {
		return ""
	}
	if pol != nil && pol.Settings.AuditLog != "" && pol.Settings.AuditLog != AuditServer {
		return e.Path(pol.Settings.AuditLog)
	}
	dir := e.StateDir(stateFlag, pol)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "audit.jsonl")
}

// ArgPath makes a path typed on the command line or named in a setting
// absolute: "~" and "~/…" become home + the rest when home is known (else
// they stay relative and are joined), a relative path is joined to cwd
// (filepath.Join, which cleans it), "" stays "". Unlike protocol.Abs (the
// paths a tool names) an absolute path is kept exactly as typed, not
// cleaned, and a Windows-looking path is relative: the files the user
// names are opened, recorded and shown as given (abs_test.go pins the
// differences).
func ArgPath(p, cwd, home string) string { return AbsFrom(cwd, ExpandTilde(p, home)) }

// AbsFrom makes p absolute against dir.
func AbsFrom(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

// ExpandTilde replaces a leading "~" or "~/" with home, when known.
func ExpandTilde(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return home + p[1:]
	}
	return p
}
