// Package e2e is toolguard's end-to-end suite: it runs the real Claude Code, Codex CLI,
// Gemini CLI and CodeBuddy Code headless against a fake model server on loopback, inside a
// network namespace that has nothing but loopback, with toolguard installed as their
// PreToolUse (BeforeTool) hook by `toolguard install`.
//
// The suite only runs with TOOLGUARD_E2E=1; see README.md in this directory.
package e2e
