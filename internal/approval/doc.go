// Package approval keeps toolguard's approval requests and grants (docs/approvals.md).
//
// When a call is asked about and no human can answer in the agent (headless
// mode, or an agent without ask), the hook records a request and denies the
// call with the request id. A human then approves or rejects the request
// with `toolguard approvals`. The next identical call — same [Key] — finds
// the answer through [Store.Check]:
//
//   - approved: the grant is consumed atomically, exactly once per use, even
//     when many hook processes race; Check reports [Granted]. When its last
//     use is taken the request is marked consumed, and the next identical
//     call finds nothing ([None]) and makes a new request.
//   - rejected: Check reports [Rejected] with the human's reason, for every
//     later identical call, until the request is removed ([Store.Remove]) or
//     approved after all.
//   - still pending: Check reports [Pending] with the id, so the hook can
//     repeat the same id instead of making a new request.
//
// An approved grant carries an expiry and a number of uses. An expired grant
// never allows anything; Check and List mark it expired.
//
// # Signed grants
//
// A grant counts only if it is signed: [Store.Approve] takes a [Signer] (an
// Ed25519 private key and the approver's user name) and signs the grant;
// [Store.Check] honours an approved request only when the signature
// verifies against a key of the [Keyring] given to [Store.Trust]. With no
// trusted key, nothing verifies and every ask stays an ask.
//
// The signature covers this encoding, which starts with its version and
// gives every field as "name len:value\n" (the length makes it
// unambiguous), in this order:
//
//	toolguard-grant/1
//	id <n>:<request id>
//	key <n>:<call key>
//	uses <n>:<decimal>
//	expires <n>:<RFC 3339, nanoseconds, UTC>
//	approved <n>:<RFC 3339, nanoseconds, UTC>
//	approver_key <n>:ed25519:<base64 public key>
//	approver_fingerprint <n>:SHA256:<unpadded base64 of its SHA-256>
//	approver_user <n>:<user name>
//
// A grant with an [Edit] (approvals approve --edit) starts with
// "toolguard-grant/2" instead and adds edit_field, edit_input and edit_key
// after approver_user. The version follows from whether the grant has an
// edit, so an edit added to or removed from a grant does not verify; a
// grant without one is encoded as version 1, as before. [Store.CheckCall]
// answers an edited grant's request key with Granted and Rewrite (the
// caller hands the agent Edit.Input) or, for a caller that cannot, with
// [Redirect] (nothing consumed), and the edited call's own key (Edit.Key)
// with Granted.
//
// uses_left and last_used are not signed: they change as the grant is
// used. A grant whose signature does not verify, whose approver key is not
// trusted or does not match its fingerprint, whose uses_left exceeds its
// uses, or that has no signature grants nothing; List reports the request
// with [StatusTampered] and the reason in Problem (the file is left as it
// is, as evidence).
//
// Key files ([LoadKey], [GenerateKey]) are two lines,
// "toolguard-approver-key/1" and the base64 of the 32-byte Ed25519 seed,
// in a regular file of mode 0600. A symlink, a file that group or others
// may access, garbage or a truncated seed is refused with a [KeyFileError].
//
// # The identity of a call
//
// [Key] is the hex SHA-256 of a canonical, length-prefixed encoding of:
//
//   - a format version ("toolguard-approval-key/1");
//   - the kind (shell, write, …) and the tool name as the agent sent it;
//   - shell: the command with surrounding white space trimmed, and the
//     shell (bash, powershell);
//   - write, edit, read, search: every path with its op ("write /a/b"),
//     sorted and without duplicates, then the search patterns, sorted;
//   - write and edit, also: the raw input canonicalized (as for mcp), so
//     what the call puts in the file — Write's content, Edit's old and new
//     strings and replace_all, every edit of a MultiEdit, a notebook cell's
//     new source, an apply_patch patch — is part of what the human
//     approves: a different edit of the same file is a different call;
//   - mcp: server, tool, and the raw input canonicalized (decoded and
//     encoded again, so object key order and white space do not matter;
//     numbers keep their text);
//   - web: the URL; when there is none (a web search), the canonical input;
//   - agent and other: the canonical input;
//   - the working directory, cleaned;
//   - the session id, when the call has one.
//
// The provider, the hook event, the permission mode and the project dir are
// not part of it. Two calls that differ in any part above have different
// keys.
//
// # Files
//
// The state directory given to [Open] (created 0700) holds:
//
//	lock                   empty; locked exclusively around every change
//	requests/<id>.json     one request, mode 0600
//	requests/.tmp-*        a write in progress (or left by a killed one)
//
// Each request file is written whole to a temporary file in requests/,
// synced and renamed over the old one, so a reader sees the old or the new
// version and never a mix. Every read-modify-write (Check, Create, Approve,
// Reject, List, Remove, Prune) holds the lock for its whole duration; [Store.Get]
// reads without it.
//
// A request file is one JSON object (field names snake_case):
//
//	{
//	  "id": "req_k3j5q2m7xa",
//	  "key": "<64 hex digits>",
//	  "created": "2026-03-01T12:00:00Z",
//	  "status": "approved",          // pending|approved|rejected|consumed|expired
//	  "summary": "git push origin main",
//	  "tool": "Bash", "kind": "shell", "cwd": "/home/u/repo",
//	  "session": "s-1", "provider": "codex",
//	  "rules": ["git-push"],
//	  "reason": "toolguard: approval required by rule git-push: …",
//	  "decided": "2026-03-01T12:05:00Z",
//	  "approve": "toolguard approvals approve req_k3j5q2m7xa",
//	  "grant": {"approved": "2026-03-01T12:05:00Z", "expires": "2026-03-01T13:05:00Z",
//	            "uses": 1, "uses_left": 1,
//	            "approver": {"key": "ed25519:…", "fingerprint": "SHA256:…", "user": "alice"},
//	            "signature": "<base64 of 64 bytes>"},
//	  "reject_reason": "",
//	  "stop": false, "stop_delivered": "…",  // reject --stop, and when the stop was given
//	  "told": "…"                            // when the model was told of the decision
//	}
//
// # Sessions
//
// [Store.SessionHold] says what holds a session's calls: a rejection made
// with stop ([Store.RejectStop]) not yet delivered — delivered by that
// call, once — else the oldest pending request of the session. The hook
// denies the session's other calls while a request is pending (the
// pending-decision guard). [Store.ExpirePending] makes pending requests
// expire after a TTL (status expired, no grant): they hold nothing and
// Create makes a new request for the same key. [Store.Told] reports the
// session's decisions the model has not been told yet, and marks them
// told; a new decision clears the mark. [SessionUses] is the use count of
// a grant for every identical call of a session until expiry.
//
// Ids are "req_" and 10 lowercase base32 characters from crypto/rand. An id
// given by a user must match [A-Za-z0-9_-]{1,64}; anything else is rejected
// with [ErrInvalidID] before it comes near a path.
//
// # Limits
//
// Check reads every request file; finished requests (consumed, expired)
// stay until [Store.Prune] or [Store.Remove] deletes them. A request file
// that cannot be used — unreadable, not one JSON object, a symlink, not a
// regular file, accessible to group or others — is skipped by Check (it can
// hold no grant that Check could trust) and listed by List as tampered;
// Prune removes such files, and temporary files, a day after their last
// change.
//
// Check takes the caller's deadline as a context: once it is done, no use
// is consumed (it is checked before the lock and just before the rename
// that records the use).
//
// The signature fixes what a grant allows (this call, this many uses, until
// then), not how many uses are left: an agent that can write the state
// directory can put back an earlier copy of a request file and replay the
// identical call until the grant expires. Writes to the state directory
// are guard surfaces of the policy; a platform that needs more keeps the
// state outside the sandbox.
//
// On Linux, macOS and the BSDs the lock is flock(2); on Windows it is
// LockFileEx (untested there; on Windows a rename over a request file that
// a lock-free Get holds open can fail, and the change is then reported as an
// error). On any other system there is no lock, and concurrent hooks can
// consume one use twice.
//
// The package reads no environment variables and no clock: every operation
// that needs the time takes it from the caller. It prints nothing.
package approval
