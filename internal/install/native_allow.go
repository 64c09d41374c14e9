package install

import (
	"fmt"
	"strings"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
)

// Proven allows: `install --native` also writes into Claude Code's
// permissions.allow the allow rules whose Claude Code form lets through
// nothing toolguard would ask about or deny, so that they count where a
// hook's allow does not (auto mode, a permissions.ask rule).
//
// Only one form is written: Bash(<words>) with no wildcard, which Claude
// Code's documentation gives as "matches the exact command" (Bash(npm run
// build) matches npm run build). Never Bash(<prefix>:*) or Bash(<prefix> *):
// a prefix lets through every argument after it, and toolguard cannot prove
// a program read-only with ANY arguments (git log --output=FILE writes).
// Claude Code checks each subcommand of a compound command against its
// rules, so an exact rule allows `git status` as a subcommand too; a
// compound command then runs without a prompt only when each of its parts
// is an exact allow, and each of those parts is a command toolguard allows.
//
// A command is written only when
//   - it comes from an allow rule whose only condition is command (tool
//     shell or Bash at most), each pattern plain words: letters, digits and
//     - _ : @ + = , (no dot, path, glob, quote or shell character);
//   - the policy, evaluated as the hook does, allows exactly that command
//     (a pattern the rule does not match as written, such as flags after
//     the subcommand, is skipped), and neither asks about nor denies the
//     wrapped forms Claude Code may strip before matching (timeout, time,
//     nice, nohup, stdbuf);
//   - no ask or deny rule of the policy depends on something a native rule
//     cannot see (env, env_none, modes, via, fed_by, scope, input, code)
//     and could reach that command (no command condition, or one on the
//     same program): such a rule may ask where the evaluation here allowed.
// Paths (Read(path)) are not written: toolguard's read decisions depend on
// the guard surfaces and symlinks the hook resolves at call time, which a
// static Read() glob cannot follow. They stay with the hook.

// nativeWord is a character a written command word may hold.
func nativeWord(w string) bool {
	if w == "" {
		return false
	}
	for _, r := range w {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		case strings.ContainsRune("-_:@+=,", r):
		default:
			return false
		}
	}
	return true
}

// claudeWrappers are the forms of cmd Claude Code may match against an
// exact rule for cmd after stripping a process wrapper. The list is
// conservative (not read from Claude Code's docs): a wrapped form is only
// required not to be asked about or denied.
func claudeWrappers(cmd string) []string {
	return []string{cmd, "timeout 10 " + cmd, "time " + cmd, "nice " + cmd, "nohup " + cmd, "stdbuf -o0 " + cmd}
}

// ClaudeAllows compiles the allow rules of p that Claude Code can express
// exactly into exact Bash(...) rules for permissions.allow (module comment
// above); every other allow rule is reported with the reason. env is the
// evaluation environment (home, workspace, guard surfaces) the hook uses.
func ClaudeAllows(p *policy.Policy, env policy.Env) ([]NativeRule, []NativeSkip) {
	infos := p.Info()
	// The worst case for the guard surfaces: a word of the command that
	// names a file (a bare name in the working directory) is judged as if
	// every file were a protected secret, so a rule on @protected, @secret
	// or @binary that could ask at call time asks here.
	worst := []policy.Surface{{Path: "/", Tree: true, Secret: true, Binary: true}}
	env.Protected = func() []policy.Surface { return worst }
	var out []NativeRule
	var skips []NativeSkip
	seen := map[string]bool{}
	for _, in := range infos {
		if in.Decision != "allow" {
			continue
		}
		m := in.Matches
		if len(m.Command) == 0 {
			skips = append(skips, NativeSkip{From: in.ID, Why: "allow: only exact commands are written to permissions.allow (paths and MCP tools stay with the hook)"})
			continue
		}
		if why := claudeCannot(in); why != "" {
			skips = append(skips, NativeSkip{From: in.ID, Why: "allow: " + why})
			continue
		}
		for _, pat := range m.Command {
			words := strings.Fields(pat)
			cmd := strings.Join(words, " ")
			if why := provenExact(infos, p, env, in.ID, words, cmd); why != "" {
				skips = append(skips, NativeSkip{From: in.ID, Why: why})
				continue
			}
			text := "Bash(" + cmd + ")"
			if !seen[text] {
				seen[text] = true
				out = append(out, NativeRule{Text: text, From: in.ID, List: "allow"})
			}
		}
	}
	return out, skips
}

// provenExact says why the exact command cmd cannot be written as an
// allow, or "".
func provenExact(infos []policy.RuleInfo, p *policy.Policy, env policy.Env, id string, words []string, cmd string) string {
	if len(words) == 0 {
		return "allow: an empty command pattern"
	}
	for _, w := range words {
		if !nativeWord(w) {
			return fmt.Sprintf("allow: the command %q holds a path, glob, quote or shell character", cmd)
		}
	}
	for _, in := range infos {
		if in.Decision == "allow" || in.Decision == "pass" {
			continue
		}
		if cond := contextCond(in); cond != "" && reaches(in, words[0]) {
			return fmt.Sprintf("allow %q: the %s rule %s depends on %s, which a native rule cannot see", cmd, in.Decision, in.ID, cond)
		}
	}
	for i, form := range claudeWrappers(cmd) {
		c := call.Call{Provider: "claude-code", Event: "PreToolUse", Tool: "Bash", Kind: call.KindShell, Shell: "bash", Command: form, Cwd: env.Workspace}
		res := p.Evaluate(c, env)
		// The command itself must be allowed (the rule proven to match it);
		// a wrapped form must not be asked about or denied.
		if (i == 0 && res.Decision != call.Allow) || res.Decision > call.Allow {
			return fmt.Sprintf("allow %q: toolguard decides %s for %q, so an exact native allow could let through what the hook would not", cmd, res.Decision, form)
		}
	}
	return ""
}

// contextCond names a condition of in that depends on more than the
// command string, or "".
func contextCond(in policy.RuleInfo) string {
	m := in.Matches
	for _, c := range []struct {
		name string
		set  bool
	}{
		{"env", len(m.Env) > 0}, {"env_none", len(m.EnvNone) > 0}, {"modes", len(m.Modes) > 0},
		{"via", len(m.Via) > 0}, {"fed_by", len(m.FedBy) > 0}, {"scope", m.Scope != ""},
		{"input", len(m.Input) > 0}, {"code", m.Code != ""},
	} {
		if c.set {
			return c.name
		}
	}
	return ""
}

// reaches reports whether in could match a shell command run as prog:
// it has no command condition, or one whose program is prog or a pattern.
func reaches(in policy.RuleInfo, prog string) bool {
	m := in.Matches
	if len(m.Path) > 0 || len(m.MCP) > 0 || len(m.Domain) > 0 {
		if len(m.Command) == 0 {
			return len(m.Path) > 0 // a path rule may reach a command's targets
		}
	}
	if len(m.Command) == 0 {
		return true
	}
	for _, pat := range m.Command {
		f := strings.Fields(pat)
		if len(f) == 0 || f[0] == prog || strings.ContainsAny(f[0], "*?[]{}\\") {
			return true
		}
	}
	return false
}

// ClaudeRules are the permission rules install --native writes for p into
// a settings file of the given scope: the locked denies (ClaudeDenies) and
// the allows proven exact (ClaudeAllows), checked against the policy as
// the hook evaluates it in this project (env: home, workspace); with
// every rule left to the hook and why.
func ClaudeRules(p *policy.Policy, scope string, env policy.Env) ([]NativeRule, []NativeSkip) {
	rules, skips := ClaudeDenies(p.Info(), scope, env.Workspace)
	allows, askips := ClaudeAllows(p, env)
	return append(rules, allows...), append(skips, askips...)
}
