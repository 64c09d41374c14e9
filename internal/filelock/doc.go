// Package filelock holds the exclusive advisory file locks that the audit
// log and the approval store take around their writes: flock(2) on Linux,
// macOS and the BSDs, LockFileEx on Windows, and nothing elsewhere (where
// the callers rely on O_APPEND and atomic renames alone).
package filelock
