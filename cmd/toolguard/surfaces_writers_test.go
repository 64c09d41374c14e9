package main

import "testing"

// TestRoutesSurfaceWriters: programs that write a guard surface without
// naming it as a plain write — a hard link made with link(1), patch
// rewriting its ORIGFILE (or -o, or under -d), split and csplit writing
// PREFIX+suffix (split -a 1 -n 14 x settings.jso makes settings.json) —
// through the real hook path for Claude Code and Gemini CLI. Each deny
// passed before; the look-alikes must pass.
func TestRoutesSurfaceWriters(t *testing.T) {
	runRoutes(t, []routeCase{
		{cmd: "link ~/.claude/settings.json x", want: "deny", rule: "toolguard-self-protect-ln"},
		{cmd: "link .claude/settings.json /tmp/x", want: "deny", rule: "toolguard-self-protect-ln"},
		{cmd: "patch ~/.claude/settings.json p.diff", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "patch .toolguard/policy.toml < p.diff", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "patch -o .claude/settings.local.json src/a.json p.diff", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "patch -d .claude -p0 settings.json p.diff", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "patch --dir=.claude settings.json p.diff", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "split -a 1 -n 14 evil.json ~/.claude/settings.jso", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "split -b 100 evil .claude/x", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "csplit -f ~/.claude/settings.jso evil /x/", want: "deny", rule: "toolguard-self-protect"},
		{cmd: "csplit --prefix=.toolguard/policy.tom evil /x/", want: "deny", rule: "toolguard-self-protect"},
		// Look-alikes.
		{cmd: "link build/a build/b", want: "pass"},
		{cmd: "patch -p1 < fix.diff", want: "pass"}, // the files the patch names are not read (known limit)
		{cmd: "patch src/main.go fix.diff", want: "pass"},
		{cmd: "patch --dry-run .claude/settings.json p.diff", want: "pass"},
		{cmd: "patch -i fix.diff src/main.go", want: "pass"},
		{cmd: "split -l 1000 big.csv parts/chunk-", want: "pass"},
		{cmd: "split big.csv", want: "pass"},
		{cmd: "split -b 1M build.tar /tmp/parts/p-", want: "pass"},
		{cmd: "csplit -f parts/sec- notes.md '/^#/' '{*}'", want: "pass"},
		{cmd: "csplit notes.md /x/", want: "pass"},
	})
}
