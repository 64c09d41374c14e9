// Package importer turns the permission rules users already keep in their
// agents — Claude Code's permissions.allow/ask/deny, Codex's .rules files
// (prefix_rule), Gemini CLI's policy TOML ([[rule]]) — into one toolguard
// policy layer that a person can review (`toolguard import`).
//
// Contract:
//
//   - The package does no I/O: the caller reads the files and passes them
//     as Sources (Discover lists where each agent keeps them). Import never
//     executes anything: Codex's Starlark is read by a small hand-written
//     parser of the subset rules files use (calls with keyword arguments,
//     string and list literals, names bound to them); anything else is an
//     error at file:line, never skipped in silence.
//   - The mapping is conservative. Every imported rule keeps priority 0, so
//     toolguard's stricter-wins order decides between them and the embedded
//     defaults: a deny or an ask is never weakened, and no imported allow
//     can out-vote a default. A source rule toolguard cannot express
//     exactly is carried broader when it asks or denies and narrower (or
//     not at all) when it allows; each such rule is listed in
//     Result.Inexact with the reason.
//   - Every imported rule gets at least one [[test]]: the source's own
//     examples where it has them (Codex match/not_match become the rule's
//     examples too), otherwise a synthesized call that hits the rule.
//     Import evaluates each test against the embedded defaults plus the
//     imported layer (policy.CheckEnv, the world `toolguard validate` uses)
//     and records what it finds: a test decided stricter by a default or by
//     another imported rule is kept with that expectation and reported; a
//     test that the imported rule does not decide at all is an error of the
//     import (a mapping bug), never written as passing.
//   - Result.Findings are what the source agent never tells its user: rules
//     it accepts but never consults (Claude Code's Write(path) and
//     NotebookEdit(path)), allows (and asks) that a stricter rule shadows
//     entirely, allows that a higher Gemini priority lets win over a deny
//     (toolguard keeps the deny), and prefix allows that a compound command
//     would defeat in a plain prefix reading (toolguard judges every command
//     of a compound, so each needs its own allow).
package importer
