// Package autoallowdiff holds the differential test of the read-only
// proof (settings.auto_allow = "read-only", docs/auto-allow.md): every
// command the proof allows, from the shared corpora, the repo's payload
// testdata and an adversarial list, is run in a throwaway sandbox (a
// fresh network namespace, a fixture project with a git repo, a fake
// HOME, stdin /dev/null, 2 s per command) under strace, and the test fails
// on any write, create, delete, rename, chmod or network socket outside
// the per-command TMPDIR it allows.
//
// It is its own package under tools/ because it runs programs: nothing in
// internal/ may execute anything, and the test needs root (namespaces) and
// strace, which CI installs (.ci/run).
package autoallowdiff
