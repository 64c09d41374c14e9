// Package audit writes and reads toolguard's decision log: one JSON object
// per line, one line per decision other than pass (README, "Audit log").
//
// # Contract
//
//   - [Append] (and [AppendContext], with the caller's deadline) writes one
//     [Record] as a single line. The file is opened with
//     O_APPEND|O_CREATE|O_RDWR|O_NONBLOCK (mode 0600, parent directories
//     0700) and must be a regular file: a FIFO, a device, a socket or a
//     directory at the path is refused at once (opening a FIFO for writing
//     would wait for a reader forever). The line is written with one write
//     call while an exclusive advisory lock (flock) is held, so concurrent
//     hook processes never interleave or lose lines, whatever the line
//     length. The lock is held only for the append.
//   - Every append is bounded: the wait for the lock gives up with
//     [ErrLockBusy] when the log has not grown for [LockTimeout] (500 ms: a
//     holder that appends nothing, such as `flock audit.jsonl sleep 600`),
//     at the caller's deadline, or after [MaxLockWait] (10 s) without one.
//     While other appends go through, it waits on (a queue of a hundred
//     hook processes on a loaded machine takes seconds). Appends of one
//     process take turns before the file lock.
//   - A failed or short write is rolled back under the lock (the file is
//     truncated to its size before the write); an append to a file whose
//     last byte is not a newline (a line cut by a crash) starts with one. So
//     one bad write never costs a neighbouring record.
//   - A failed append is returned as an error; the caller reports it and
//     never changes the decision because of it.
//   - The log is a hash chain: every line's prev is the SHA-256 (hex) of the
//     previous line's bytes, newline excluded, and a file's first line has
//     prev = [Genesis] (the SHA-256 of no bytes). Append reads back only the
//     file's tail to find the last line (in 4 KiB, 32 KiB, then at most
//     [MaxLineBack] = 256 KiB reads); a longer last line is chained with an
//     empty prev. [Verify] reports the first line where the chain does not
//     hold, a last line without newline (truncated), a line that is not
//     JSON, or an empty file. The chain has no key: it shows lines removed,
//     inserted, edited or cut, not a rewrite of the whole file, nor lines
//     removed from the end (a shorter valid chain) — for that, ship the log
//     off the machine.
//   - The package reads no environment variables and no clock (the caller
//     sets [Record.Time]) and prints nothing except through the io.Writer it
//     is given.
//   - [Redact] masks secrets in a command line; [Summarize] truncates it.
//     [CallSummary] does both for a call, in the right order (redact first,
//     so truncation cannot expose half a token). [Append] writes the record
//     as given: build Summary with [CallSummary] (or Redact then Summarize).
//   - [Read] is tolerant: it skips lines it cannot parse and reports each one
//     with its line number. [Aggregate] turns records into a [Summary] with a
//     deterministic order.
//
// # File format
//
// UTF-8 JSON Lines. Every line is one object with these fields (snake_case):
//
//	time         string  RFC 3339 with nanoseconds, UTC
//	event        string  "policy.decision" (the hook) or "approval.decision" (a human)
//	provider     string  agent codec name: claude-code, codex, gemini, …
//	session      string  the agent's session id, "" if none
//	tool         string  the tool name as the agent sent it
//	kind         string  shell, write, edit, read, search, web, mcp, agent, other
//	summary      string  redacted, truncated command, paths, mcp server/tool or URL
//	cwd          string  the call's working directory
//	workspace    string  workspace root, "" if unknown
//	decision     string  allow, ask, deny or pass
//	rule         string  id of the winning rule, "" if none (e.g. on_error)
//	layer        string  layer of the winning rule (builtin, platform, …)
//	source       string  file:line of the winning rule
//	reason       string  the reason given to the agent, "" for allow
//	approval_id  string  approval request id (omitted when none)
//	policy_hash  string  hash of the policy in force
//	bundle       string  hash of the managed policy bundle in force (omitted when none; docs/bundles.md)
//	duration_ms  number  time spent deciding, in milliseconds
//	mode         string  interactive or headless
//	error        string  internal error text (omitted when none)
//	prev         string  SHA-256 (hex) of the previous line, Genesis on the first
//
// An "approval.decision" record ([EventApproval]) is written when a human
// approves or rejects a request; besides time, event and session, tool,
// kind, summary, cwd and workspace of the call asked about, it uses:
//
//	decision      string  "approve" or "reject"
//	approval_id   string  the request id (req_…)
//	reason        string  the human's reason, if given
//	approver      string  who decided: the user name
//	approver_key  string  fingerprint of the key that signed the grant, if any
//	call_key      string  the key of the approved call
//	uses          number  uses granted (approve)
//	expires       string  RFC 3339, when the grant expires (approve)
//
// A "policy.bundle" record ([EventBundle]) is written when the hook
// refuses a managed policy bundle: decision "refuse", bundle the refused
// bytes' hash, error why, policy_hash the node's own policy.
//
// Example:
//
//	audit.Append(path, audit.Record{Time: now, Event: audit.EventApproval, Decision: "approve",
//		ApprovalID: id, Approver: user, ApproverKey: fp, CallKey: key, Uses: 1, Expires: exp})
//
// Example line:
//
//	{"time":"2026-03-01T12:00:00.123456789Z","event":"policy.decision","provider":"claude-code","session":"s-1","tool":"Bash","kind":"shell","summary":"GITHUB_TOKEN=*** git push --force origin main","cwd":"/home/u/repo","workspace":"/home/u/repo","decision":"deny","rule":"git-push-force","layer":"builtin","source":"internal/policy/defaults.toml:12","reason":"toolguard: denied by rule git-push-force: …","policy_hash":"sha256:4f2a…","duration_ms":0.42,"mode":"interactive"}
//
// Readers must ignore fields they do not know; new fields may be added.
// HTML characters are not escaped (a command's && stays &&).
//
// # Redaction
//
// [Redact] replaces each secret with *** and keeps a short recognizable
// prefix where the secret has one (ghp_***, AKIA***, sk-proj-***, xoxb-***).
// It knows token formats (GitHub, AWS key ids, Slack, OpenAI, Anthropic,
// Google, GitLab, npm, Stripe, Hugging Face, JWTs, private key blocks) and
// contexts (Authorization/Bearer and API-key headers, --password/--token
// style flags, NAME_TOKEN=… style assignments, "password": "…" in JSON,
// user:password@ in URLs). Two contexts are scoped to a command, to keep
// false positives low: a glued -pSECRET is masked only in a mysql/mariadb
// command segment (so mkdir -p and grep -p are untouched), and -u user:pass
// only in a curl segment (so docker -u 1000:1000 is untouched). A segment
// runs from the program name to the next ; & | or newline. Values that start
// with $ (a variable the shell expands) are left alone. Redaction is a best
// effort over text: it cannot see a secret that has no recognizable shape or
// context, and it never looks inside files.
//
// # Locking on other systems
//
// On Linux, macOS and the BSDs the lock is flock(2) on the log file itself.
// On Windows it is LockFileEx on a sidecar file "<path>.lock", because a
// handle opened for append-only access cannot be locked. On any other system
// there is no lock and the line relies on O_APPEND and a single write.
package audit
