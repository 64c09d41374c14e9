package approval

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/toolguard/toolguard/internal/filelock"
)

// Status is where a request stands.
type Status string

const (
	StatusPending  Status = "pending"  // waiting for a human
	StatusApproved Status = "approved" // has a grant with uses left
	StatusRejected Status = "rejected" // denies every later identical call
	StatusConsumed Status = "consumed" // its grant's last use was taken
	StatusExpired  Status = "expired"  // its grant expired unused

	// Never stored; List reports these in place of a file's own status.
	StatusTampered Status = "tampered" // a grant that does not verify, or a file that cannot be read
	StatusLeftover Status = "leftover" // a temporary file a killed writer left
)

func (s Status) String() string { return string(s) }

func (s Status) valid() bool {
	switch s {
	case StatusPending, StatusApproved, StatusRejected, StatusConsumed, StatusExpired:
		return true
	}
	return false
}

// Request is one approval request and what became of it.
type Request struct {
	ID       string    `json:"id"`
	Key      string    `json:"key"` // Key of the call
	Created  time.Time `json:"created"`
	Status   Status    `json:"status"`
	Summary  string    `json:"summary"` // redacted, as shown to the human
	Tool     string    `json:"tool"`
	Kind     string    `json:"kind"`
	Cwd      string    `json:"cwd"`
	Session  string    `json:"session"`
	Provider string    `json:"provider"`
	Rules    []string  `json:"rules,omitempty"` // the rules that asked
	Reason   string    `json:"reason"`          // the ask reason
	// Preview is what the human sees of the call (redacted), if recorded.
	Preview *Preview `json:"preview,omitempty"`
	// ToolInput is the call's tool input as the agent sent it (JSON text,
	// not redacted), kept for approve --edit: the editor starts from it and
	// the edited call is built from it. Only for shell, write and edit
	// calls, up to MaxToolInput bytes.
	ToolInput string `json:"tool_input,omitempty"`
	// Approve is the command a human runs to approve it (for the human:
	// the hook never puts it in a reply the model reads). Create replaces
	// "{id}" in it with the new request's id.
	Approve string `json:"approve,omitempty"`
	// Decided is when the request was last approved or rejected.
	Decided      time.Time `json:"decided,omitzero"`
	Grant        *Grant    `json:"grant,omitempty"`
	RejectReason string    `json:"reject_reason,omitempty"`
	// Stop: rejected with --stop; the session's next call ends the turn.
	// StopDelivered is when that call came (the stop is given once).
	Stop          bool      `json:"stop,omitempty"`
	StopDelivered time.Time `json:"stop_delivered,omitzero"`
	// Told is when the model was told of the decision, at the start of a
	// turn (prompt or session event); each decision is told once.
	Told time.Time `json:"told,omitzero"`
	// Results are what the agent reported after the approved call ran
	// (PostToolUse), one per use, the last maxResults kept.
	Results []Result `json:"results,omitempty"`
	// Problem is why List reports the request tampered; never stored.
	Problem string `json:"problem,omitempty"`
}

// Preview is what a human sees of a call before deciding: what it would
// run or write, and why toolguard asked. Every text is redacted and cut by
// the hook before it is stored.
type Preview struct {
	Command     string `json:"command,omitempty"`     // shell: the command
	Description string `json:"description,omitempty"` // shell: the agent's own description of it
	Workspace   string `json:"workspace,omitempty"`
	// PermissionMode is the agent's permission mode, if the payload says.
	PermissionMode string `json:"permission_mode,omitempty"`

	Path string `json:"path,omitempty"` // file calls: the first path
	// Size is the length in bytes of a Write's content; Content is that
	// content, cut in the middle (first and last 200 characters) when longer.
	Size    int    `json:"size,omitempty"`
	Content string `json:"content,omitempty"`
	// Edits are the old -> new strings of an Edit, MultiEdit or notebook edit.
	Edits []EditPreview `json:"edits,omitempty"`
	// Diff is the unified diff the edit makes to the file, when the hook
	// could compute it from a file the agent may read (else only Edits).
	Diff  string `json:"diff,omitempty"`
	Patch string `json:"patch,omitempty"` // apply_patch: the patch

	MCPServer string `json:"mcp_server,omitempty"`
	MCPTool   string `json:"mcp_tool,omitempty"`
	Input     string `json:"input,omitempty"` // MCP and other tools: the input JSON

	Rules []RulePreview `json:"rules,omitempty"` // the rules that asked
}

// EditPreview is one replacement of an edit.
type EditPreview struct {
	Old        string `json:"old"`
	New        string `json:"new"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// RulePreview is a rule that matched the call.
type RulePreview struct {
	ID            string `json:"rule"`
	Decision      string `json:"decision"`
	Justification string `json:"justification,omitempty"`
	Layer         string `json:"layer,omitempty"`
	Source        string `json:"source,omitempty"` // file:line
}

// Grant is what an approval allows.
type Grant struct {
	Approved time.Time `json:"approved"`
	Expires  time.Time `json:"expires"` // the grant allows nothing from this instant on
	Uses     int       `json:"uses"`    // uses granted
	UsesLeft int       `json:"uses_left"`
	LastUsed time.Time `json:"last_used,omitzero"`
	// Approver and Signature: an Ed25519 signature over the canonical
	// encoding of the request id and key, Uses, Expires, Approved and
	// Approver (package documentation). UsesLeft and LastUsed are not
	// signed: they change as the grant is used.
	Approver  Approver `json:"approver"`
	Signature string   `json:"signature"`
	// Edit, when set, is the call as the human edited it (approve --edit):
	// the grant then allows only that. It is signed with the rest
	// (encoding toolguard-grant/2).
	Edit *Edit `json:"edit,omitempty"`
}

// Edit is a call as a human edited it before approving it.
type Edit struct {
	// Field is the tool input field the human edited (command, content,
	// new_string, …).
	Field string `json:"field"`
	// Input is the complete edited tool input, JSON text: what the agent
	// is handed in place of its own (updatedInput, tool_input).
	Input string `json:"input"`
	// Key is the call key of the edited call: the call a model makes when
	// told to run the edited text itself.
	Key string `json:"key"`
}

// MaxToolInput bounds Request.ToolInput.
const MaxToolInput = 256 << 10

// OutcomeKind is what Check found for a key.
type OutcomeKind int

const (
	None     OutcomeKind = iota // nothing applies: make a new request
	Granted                     // a grant was consumed: allow the call
	Rejected                    // a human rejected this call
	Pending                     // a request waits for a human
	// Redirect: a human approved an edited version of this call (Edit)
	// and the caller cannot hand the agent the edited input: deny, and
	// tell the model to run the edited call instead. Nothing is consumed.
	Redirect
)

var outcomeNames = [...]string{None: "none", Granted: "granted", Rejected: "rejected", Pending: "pending", Redirect: "redirect"}

func (k OutcomeKind) String() string {
	if k >= 0 && int(k) < len(outcomeNames) {
		return outcomeNames[k]
	}
	return fmt.Sprintf("OutcomeKind(%d)", int(k))
}

// Outcome is the answer of Check.
type Outcome struct {
	Kind     OutcomeKind
	ID       string // the request that applies; empty for None
	Reason   string // Rejected: the human's reason (may be empty)
	UsesLeft int    // Granted: uses left after this one
	// Edit is the human's edit of the call, for Granted and Redirect from
	// a grant made with approve --edit. With Rewrite set (Granted) the
	// caller must allow with Edit.Input as the agent's new input; without
	// it the call is the edited one already.
	Edit    *Edit
	Rewrite bool
}

var (
	// ErrDecided is wrapped by the error of an approve or a reject of a
	// request a decision already holds (a *DecidedError).
	ErrDecided = errors.New("approval request already decided")
	// ErrNotFound is wrapped by errors about an id with no request.
	ErrNotFound = errors.New("no such approval request")
	// ErrInvalidID is wrapped by errors about a malformed id.
	ErrInvalidID = errors.New("invalid approval request id")
)

// Store is the approval state: a directory of request files (Open), or
// another Backend (OpenBackend: PostgreSQL, internal/approval/pgstore).
type Store struct {
	dir        string // the directory of a file store; "" for another backend
	be         Backend
	trusted    Keyring
	grantsDir  string        // see UseGrants
	pendingTTL time.Duration // see ExpirePending
}

const (
	requestsDir = "requests"
	lockName    = "lock"
	idPrefix    = "req_"
	maxIDLen    = 64
)

// Open returns the store in dir, creating dir and its requests directory
// (0700) if needed.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("approval store: empty directory")
	}
	if err := os.MkdirAll(filepath.Join(dir, requestsDir), 0o700); err != nil {
		return nil, fmt.Errorf("approval store: %v", err)
	}
	return &Store{dir: dir, be: &fileBackend{dir: dir}}, nil
}

// OpenBackend returns a store keeping its requests in be.
func OpenBackend(be Backend) *Store { return &Store{be: be} }

// Trust sets the keys whose signed grants Check honours and List accepts.
// With none, no grant verifies: every approved request is reported
// tampered and allows nothing.
func (s *Store) Trust(k Keyring) { s.trusted = k }

// Dir returns the store's directory.
func (s *Store) Dir() string { return s.dir }

// ValidID reports whether id is well formed: 1 to 64 of [A-Za-z0-9_-].
func ValidID(id string) bool {
	if id == "" || len(id) > maxIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func checkID(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("%w %q (want 1 to %d letters, digits, _ or -)", ErrInvalidID, id, maxIDLen)
	}
	return nil
}

// Check answers for the call with key, in one step under the store lock:
// a usable grant is consumed (Granted), else a rejection applies
// (Rejected), else a pending request is reported (Pending), else None.
// A rejection wins over a grant, should both exist. Expired grants are
// marked expired on the way. Unreadable request files, and approved ones
// whose grant does not verify against the trusted keys, are skipped.
//
// ctx is the caller's decision deadline. Once it is done Check consumes
// nothing: it checks ctx before taking the lock and again just before the
// rename that records the use, and returns ctx's error instead of Granted.
// A Granted outcome means the use was recorded before ctx was done; the
// caller must then reply allow, or, if its own deadline fired meanwhile,
// accept that one use is gone.
func (s *Store) Check(ctx context.Context, key string, now time.Time) (Outcome, error) {
	return s.CheckCall(ctx, key, now, false)
}

// CheckCall is Check for a caller that says whether it can hand the agent
// an edited input (rewrite). A grant made with approve --edit (Grant.Edit)
// answers two keys: the request's own — Granted with Rewrite when rewrite
// is set, else Redirect, consuming nothing — and the edited call's
// (Edit.Key), Granted as the call is. A caller that ignores Redirect and
// Rewrite never allows the unedited call: Check passes rewrite false.
func (s *Store) CheckCall(ctx context.Context, key string, now time.Time, rewrite bool) (Outcome, error) {
	var out Outcome
	if err := ctx.Err(); err != nil {
		return out, fmt.Errorf("approval store: %w", err)
	}
	err := s.locked(func(t Tx) error {
		reqs, _, err := s.load(t, false)
		if err != nil {
			return err
		}
		for i := range reqs {
			if reqs[i].Key == key || editKey(&reqs[i]) == key {
				s.check(&reqs[i])
			}
		}
		reqs = s.importGrants(t, reqs, key, now)
		if err := s.settle(t, reqs, now); err != nil {
			return err
		}
		var rejected, granted, pending *Request
		for i := range reqs {
			r := &reqs[i]
			if r.Key != key {
				// the edited call of an approve --edit grant
				if editKey(r) == key && r.Status == StatusApproved && r.Problem == "" &&
					(granted == nil || r.Grant.Expires.Before(granted.Grant.Expires)) {
					granted = r
				}
				continue
			}
			switch r.Status {
			case StatusRejected:
				rejected = latest(rejected, r)
			case StatusApproved:
				if r.Problem != "" {
					continue // tampered: grants nothing
				}
				if granted == nil || r.Grant.Expires.Before(granted.Grant.Expires) {
					granted = r // the one that expires first
				}
			case StatusPending:
				pending = latest(pending, r)
			}
		}
		switch {
		case rejected != nil:
			out = Outcome{Kind: Rejected, ID: rejected.ID, Reason: rejected.RejectReason}
		case granted != nil && granted.Grant.Edit != nil && granted.Key == key && !rewrite:
			out = Outcome{Kind: Redirect, ID: granted.ID, Edit: granted.Grant.Edit, UsesLeft: granted.Grant.UsesLeft}
		case granted != nil:
			g := granted.Grant
			g.UsesLeft--
			g.LastUsed = now
			if g.UsesLeft <= 0 {
				granted.Status = StatusConsumed
			}
			if err := t.Write(ctx, *granted); err != nil {
				return err
			}
			out = Outcome{Kind: Granted, ID: granted.ID, UsesLeft: g.UsesLeft, Edit: g.Edit, Rewrite: g.Edit != nil && granted.Key == key}
		case pending != nil:
			out = Outcome{Kind: Pending, ID: pending.ID}
		}
		return nil
	})
	return out, err
}

// editKey is the call key of r's edited call, or "".
func editKey(r *Request) string {
	if r.Grant == nil || r.Grant.Edit == nil {
		return ""
	}
	return r.Grant.Edit.Key
}

func latest(cur, r *Request) *Request {
	if cur == nil || r.Created.After(cur.Created) || r.Created.Equal(cur.Created) && r.ID > cur.ID {
		return r
	}
	return cur
}

// settle marks, in memory and on disk, the approved requests of reqs whose
// grant has expired at now, or has no use left, and the pending ones that
// waited past the pending TTL (ExpirePending).
func (s *Store) settle(t Tx, reqs []Request, now time.Time) error {
	for i := range reqs {
		r := &reqs[i]
		if s.pendingExpired(r, now) {
			r.Status = StatusExpired
			if err := t.Write(context.Background(), *r); err != nil {
				return err
			}
			continue
		}
		if r.Status != StatusApproved || r.Problem != "" {
			continue
		}
		switch {
		case !now.Before(r.Grant.Expires):
			r.Status = StatusExpired
		case r.Grant.UsesLeft <= 0:
			r.Status = StatusConsumed
		default:
			continue
		}
		if err := t.Write(context.Background(), *r); err != nil {
			return err
		}
	}
	return nil
}

// Create records r as a new pending request and returns it with its ID,
// Created and Status set; any Grant and RejectReason in r are dropped. If a
// pending request with the same Key exists, Create returns that one
// instead, unchanged, so a retried call makes no duplicate.
func (s *Store) Create(r Request, now time.Time) (Request, error) {
	if r.Key == "" {
		return Request{}, errors.New("approval request: empty key")
	}
	var out Request
	err := s.locked(func(t Tx) error {
		reqs, _, err := s.load(t, true)
		if err != nil {
			return err
		}
		if err := s.settle(t, reqs, now); err != nil {
			return err
		}
		var pending *Request
		for i := range reqs {
			if reqs[i].Key == r.Key && reqs[i].Status == StatusPending {
				pending = latest(pending, &reqs[i])
			}
		}
		if pending != nil {
			out = *pending
			return nil
		}
		id, err := s.newID(t)
		if err != nil {
			return err
		}
		r.ID, r.Created, r.Status = id, now, StatusPending
		r.Approve = strings.ReplaceAll(r.Approve, "{id}", id)
		r.Decided, r.Grant, r.RejectReason = time.Time{}, nil, ""
		r.Stop, r.StopDelivered, r.Told = false, time.Time{}, time.Time{}
		if err := t.Write(context.Background(), r); err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

// newID returns an id with no request yet.
func (s *Store) newID(t Tx) (string, error) {
	for range 10 {
		id := idPrefix + strings.ToLower(rand.Text()[:10])
		exists, err := t.Exists(id)
		if err != nil {
			return "", err
		}
		if !exists {
			return id, nil
		}
	}
	return "", errors.New("approval request: cannot find a free id")
}

// List returns every request, oldest first, after marking expired grants.
// An approved request whose grant does not verify comes with Status
// StatusTampered and the reason in Problem (the file keeps its own
// status). Request files that cannot be used — unreadable, garbage, a
// symlink, not private — come as StatusTampered entries with the file's
// id, its modification time as Created and the reason in Problem; stale
// temporary files as StatusLeftover. Prune removes those a day old.
func (s *Store) List(now time.Time) ([]Request, error) {
	var reqs, bad []Request
	err := s.locked(func(t Tx) error {
		var err error
		if reqs, bad, err = s.load(t, true); err != nil {
			return err
		}
		return s.settle(t, reqs, now)
	})
	if err != nil {
		return nil, err
	}
	for i := range reqs {
		if reqs[i].Problem != "" {
			reqs[i].Status = StatusTampered
		}
	}
	reqs = append(reqs, bad...)
	reqs = append(reqs, s.leftovers(now)...)
	slices.SortFunc(reqs, func(a, b Request) int {
		if c := a.Created.Compare(b.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return reqs, nil
}

// leftoverAge is how old a temporary file must be before List reports it:
// younger ones may belong to a write in progress.
const leftoverAge = time.Minute

// staleAge is how old an unusable request file or a temporary file must be
// before Prune removes it.
const staleAge = 24 * time.Hour

// leftovers lists the temporary files older than leftoverAge (a file
// store's only).
func (s *Store) leftovers(now time.Time) []Request {
	fb, ok := s.be.(*fileBackend)
	if !ok {
		return nil
	}
	var out []Request
	for _, t := range fb.temps(now.Add(-leftoverAge)) {
		out = append(out, Request{ID: t.name, Created: t.mod, Status: StatusLeftover,
			Problem: "temporary file left by an interrupted write"})
	}
	return out
}

type tempFile struct {
	name string
	mod  time.Time
}

// temps returns the temporary files in requests/ last modified before
// before.
func (s *fileBackend) temps(before time.Time) []tempFile {
	entries, _ := os.ReadDir(filepath.Join(s.dir, requestsDir))
	var out []tempFile
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tmpPrefix) {
			continue
		}
		fi, err := e.Info()
		if err != nil || !fi.ModTime().Before(before) {
			continue
		}
		out = append(out, tempFile{e.Name(), fi.ModTime()})
	}
	return out
}

// Get returns the request id as stored, without the lock and without
// marking an expired grant (compare Grant.Expires with the time yourself).
// An approved request whose grant does not verify has Problem set.
func (s *Store) Get(id string) (Request, error) {
	if err := checkID(id); err != nil {
		return Request{}, err
	}
	r, err := s.be.Get(id)
	if err != nil {
		return Request{}, err
	}
	s.check(&r)
	return r, nil
}

// check sets r.Problem when r has a grant (approved, or consumed or
// expired since) that does not verify: a forged "consumed" must not read
// as a decision either.
func (s *Store) check(r *Request) {
	if r.Status == StatusApproved || r.Grant != nil {
		if err := r.verify(s.trusted); err != nil {
			r.Problem = err.Error()
		}
	}
}

// DecidedError is the answer to a second decision on a request: a
// decision is final once. Approve after reject, reject after approve (the
// grant used or not), and a second approve or reject all get it, naming
// the decision that won.
type DecidedError struct {
	ID      string
	Action  string // what was asked: "approve" or "reject"
	Won     Status // the decision that holds: StatusApproved or StatusRejected
	Decided time.Time
	// Status is the request's status now (consumed: the grant was used).
	Status Status
}

func (e *DecidedError) Error() string {
	at := ""
	if !e.Decided.IsZero() {
		at = " at " + e.Decided.UTC().Format(time.RFC3339)
	}
	now := ""
	if e.Status != e.Won && e.Status != "" {
		now = ", now " + string(e.Status)
	}
	return fmt.Sprintf("cannot %s %s: it was already %s%s%s, and a decision is final", e.Action, e.ID, e.Won, at, now)
}

func (e *DecidedError) Unwrap() error { return ErrDecided }

// decision is the decision that holds r, if any: rejected, or approved
// (a grant was signed: approved, consumed, or expired with its grant). A
// pending request, and one that expired pending (no grant), are undecided.
func decision(r *Request) (Status, bool) {
	switch {
	case r.Status == StatusRejected:
		return StatusRejected, true
	case r.Status == StatusApproved || r.Status == StatusConsumed || r.Grant != nil:
		return StatusApproved, true
	}
	return "", false
}

// Undecided returns a *DecidedError when a decision already holds r (for
// action, "approve" or "reject"), else nil. Approve and Reject check it
// under the store lock; a caller may check it early, before work that
// would be wasted on a decided request (approve --amend).
func Undecided(r *Request, action string) error {
	if won, ok := decision(r); ok {
		return &DecidedError{ID: r.ID, Action: action, Won: won, Decided: r.Decided, Status: r.Status}
	}
	return nil
}

// Approve grants the request id uses calls (at least 1) until now+ttl (ttl
// positive), signed by signer. A decision is final once: a request
// already approved (its grant used, expired or not) or rejected is not
// approved again — the error is a *DecidedError (ErrDecided) naming the
// decision that won. A pending request, or one that expired pending, is
// approved. A request file that cannot be read, or is not a private
// regular file, is not approved.
func (s *Store) Approve(id string, ttl time.Duration, uses int, now time.Time, signer Signer) (Request, error) {
	return s.ApproveEdited(id, ttl, uses, now, signer, nil)
}

// ApproveEdited is Approve for the call as a human edited it: the grant
// carries edit, signed, and allows only the edited call (Check). A nil
// edit is Approve.
func (s *Store) ApproveEdited(id string, ttl time.Duration, uses int, now time.Time, signer Signer, edit *Edit) (Request, error) {
	if ttl <= 0 {
		return Request{}, fmt.Errorf("approve %s: ttl %v is not positive", id, ttl)
	}
	if uses < 1 {
		return Request{}, fmt.Errorf("approve %s: %d uses (want at least 1)", id, uses)
	}
	return s.update(id, func(r *Request) error {
		if err := Undecided(r, "approve"); err != nil {
			return err
		}
		gf, err := NewEditedGrant(*r, ttl, uses, now, signer, edit)
		if err != nil {
			return err
		}
		r.Status = StatusApproved
		r.Decided = now
		r.RejectReason = ""
		r.Grant = &gf.Grant
		r.Stop, r.StopDelivered, r.Told = false, time.Time{}, time.Time{}
		return nil
	})
}

// Reject rejects the request id with reason, which reaches the model on
// every later identical call. Like Approve it decides an undecided request
// only: a request already approved or rejected gets a *DecidedError.
func (s *Store) Reject(id, reason string, now time.Time) (Request, error) {
	return s.update(id, func(r *Request) error {
		if err := Undecided(r, "reject"); err != nil {
			return err
		}
		r.Status = StatusRejected
		r.Decided = now
		r.RejectReason = reason
		r.Grant = nil
		r.Stop, r.StopDelivered, r.Told = false, time.Time{}, time.Time{}
		return nil
	})
}

func (s *Store) update(id string, change func(*Request) error) (Request, error) {
	if err := checkID(id); err != nil {
		return Request{}, err
	}
	var out Request
	err := s.locked(func(t Tx) error {
		r, err := t.Read(id)
		if err != nil {
			return err
		}
		if err := change(&r); err != nil {
			return err
		}
		r.Problem = ""
		if err := t.Write(context.Background(), r); err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

// Remove deletes the request id, whatever its status. Removing a rejected
// request lifts the rejection.
func (s *Store) Remove(id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	return s.locked(func(t Tx) error { return t.Remove(id) })
}

// Pruned counts what Prune deleted.
type Pruned struct {
	Finished int // consumed or expired requests
	Damaged  int // request files that could not be used, a day old
	Temp     int // temporary files, a day old
}

// Prune deletes the finished requests (consumed or expired) created before
// before, and the unusable request files and temporary files last modified
// more than a day before now. Pending and rejected requests, live grants
// and tampered grants are kept.
func (s *Store) Prune(before, now time.Time) (Pruned, error) {
	var n Pruned
	err := s.locked(func(t Tx) error {
		reqs, bad, err := s.load(t, true)
		if err != nil {
			return err
		}
		if err := s.settle(t, reqs, now); err != nil {
			return err
		}
		remove := func(id string) error {
			if err := t.Remove(id); err != nil && !errors.Is(err, ErrNotFound) {
				return err
			}
			return nil
		}
		for _, r := range reqs {
			if (r.Status == StatusConsumed || r.Status == StatusExpired) && r.Created.Before(before) {
				if err := remove(r.ID); err != nil {
					return err
				}
				n.Finished++
			}
		}
		stale := now.Add(-staleAge)
		for _, r := range bad {
			if r.Created.Before(stale) {
				if err := remove(r.ID); err != nil {
					return err
				}
				n.Damaged++
			}
		}
		fb, ok := s.be.(*fileBackend)
		if !ok {
			return nil
		}
		for _, tmp := range fb.temps(stale) {
			if err := os.Remove(filepath.Join(fb.dir, requestsDir, tmp.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			n.Temp++
		}
		return nil
	})
	return n, err
}

func (s *fileBackend) path(id string) string {
	return filepath.Join(s.dir, requestsDir, id+".json")
}

// maxRequestFile bounds what read loads: requests are a few KiB.
const maxRequestFile = 1 << 20

// read loads and validates one request file, which must be a regular file
// (not a symlink) with no access for group or others.
func (s *fileBackend) read(id string) (Request, error) {
	path := s.path(id)
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%s: %s", path, fmt.Sprintf(format, a...))
	}
	f, err := openPrivate(path, bad)
	if errors.Is(err, fs.ErrNotExist) {
		return Request{}, fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	if err != nil {
		return Request{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRequestFile+1))
	if err != nil {
		return Request{}, bad("%v", err)
	}
	if len(data) > maxRequestFile {
		return Request{}, bad("larger than %d bytes", maxRequestFile)
	}
	var r Request
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&r); err != nil {
		return Request{}, bad("%v", err)
	}
	if dec.More() {
		return Request{}, bad("data after the request object")
	}
	if err := r.validate(id); err != nil {
		return Request{}, bad("%v", err)
	}
	r.Problem = ""
	return r, nil
}

func (r *Request) validate(id string) error {
	switch {
	case r.ID != id:
		return fmt.Errorf("id %q does not match the file name", r.ID)
	case r.Key == "":
		return errors.New("empty key")
	case !r.Status.valid():
		return fmt.Errorf("unknown status %q (want pending, approved, rejected, consumed or expired)", r.Status)
	case r.Status == StatusApproved && r.Grant == nil:
		return errors.New("approved without a grant")
	}
	return nil
}

// load reads every request of t, and checks the grant of each approved
// one (Problem) if verify is set: Check checks those of its own key only
// (an Ed25519 verification is tens of microseconds, and finished requests
// keep their grants). The requests that cannot be used are returned in
// bad as StatusTampered entries; err is set only when nothing can be read.
func (s *Store) load(t Tx, verify bool) (reqs, bad []Request, err error) {
	reqs, bad, err = t.Load()
	if err != nil {
		return nil, nil, err
	}
	if verify {
		for i := range reqs {
			s.check(&reqs[i])
		}
	}
	return reqs, bad, nil
}

// loadFiles reads every request file. The files that cannot be used are
// returned in bad as StatusTampered entries; err is set only when the
// directory cannot be read.
func (s *fileBackend) loadFiles() (reqs, bad []Request, err error) {
	entries, err := os.ReadDir(filepath.Join(s.dir, requestsDir))
	if err != nil {
		return nil, nil, fmt.Errorf("approval store: %v", err)
	}
	for _, e := range entries {
		name := e.Name()
		id, ok := strings.CutSuffix(name, ".json")
		if !ok || !ValidID(id) {
			continue // temporary files start with a dot; see temps
		}
		r, err := s.read(id)
		if err != nil {
			if !errors.Is(err, ErrNotFound) { // removed meanwhile
				var mod time.Time
				if fi, err := e.Info(); err == nil {
					mod = fi.ModTime()
				}
				bad = append(bad, Request{ID: id, Created: mod, Status: StatusTampered, Problem: err.Error()})
			}
			continue
		}
		reqs = append(reqs, r)
	}
	return reqs, bad, nil
}

// tmpPrefix starts the name of every temporary file write makes.
const tmpPrefix = ".tmp-"

// write stores r atomically: temporary file, sync, rename, directory sync.
func (s *fileBackend) write(r Request) error { return s.writeCtx(context.Background(), r) }

// writeCtx is write that gives up, leaving the old file, if ctx is done
// before the rename.
func (s *fileBackend) writeCtx(ctx context.Context, r Request) (err error) {
	r.Problem = ""
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encode request %s: %v", r.ID, err)
	}
	data = append(data, '\n')
	dir := filepath.Join(s.dir, requestsDir)
	f, err := os.CreateTemp(dir, tmpPrefix+"*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("approval store: %w", err)
	}
	if err := os.Rename(tmp, s.path(r.ID)); err != nil {
		return err
	}
	filelock.SyncDir(dir)
	return nil
}

// locked runs fn while holding the store's exclusive lock.
func (s *fileBackend) lock(fn func() error) error {
	f, err := os.OpenFile(filepath.Join(s.dir, lockName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("approval store: %v", err)
	}
	defer f.Close()
	if err := filelock.Lock(f); err != nil {
		return fmt.Errorf("approval store: lock: %v", err)
	}
	ferr := fn()
	if err := filelock.Unlock(f); err != nil && ferr == nil {
		ferr = fmt.Errorf("approval store: unlock: %v", err)
	}
	return ferr
}
