package main

import (
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
)

// deferPermissionModes are the permission modes in which Claude Code's
// defer is used when ask_fallback asks for it. Claude ignores defer with
// more than one tool call in the batch, and in an interactive session,
// and then runs its normal permission flow: in these modes that flow does
// not run the tool unasked (in -p it is refused), so an ignored defer
// does not become a run. Under bypassPermissions, acceptEdits, auto or
// dontAsk it might, so toolguard holds the call as it would without the
// setting (deny + request). docs/agents.md.
var deferPermissionModes = []string{"default", "plan"}

// askRoute says what an ask of o's call becomes: the per-agent table's
// route for the agent and mode (protocol.DefaultAskRoute), unless
// settings.ask_fallback / ask_fallback_for pick another one the table
// offers for this agent and mode:
//
//   - "deny": the call is held (deny + approval request) even where a
//     native ask would reach a human;
//   - "native": a native ask where it reaches a human (interactive mode,
//     an agent with ask, its prompts on); elsewhere the default;
//   - "defer": Claude Code in headless mode, in a permission mode where
//     an ignored defer does not run the tool; elsewhere the default.
func askRoute(o *outcome) protocol.AskRoute {
	headless := o.mode == policy.Headless
	def := protocol.DefaultAskRoute(o.codec, o.call, headless)
	if o.ps == nil || o.ps.pol == nil || o.codec == nil {
		return def
	}
	row, ok := protocol.ConformanceFor(o.codec.Name())
	if !ok {
		return def // the universal reply: no choice
	}
	mode := row.ModeOf(headless)
	switch o.ps.pol.Settings.AskFallbackFor(o.codec.Name()) {
	case policy.AskFallbackDeny:
		if def == protocol.AskNative {
			return protocol.AskDenyRequest
		}
	case policy.AskFallbackNative:
		if mode.Offers(protocol.AskNative) && protocol.DefaultAskRoute(o.codec, o.call, false) == protocol.AskNative {
			return protocol.AskNative
		}
	case policy.AskFallbackDefer:
		if mode.Offers(protocol.AskDefer) && contains(deferPermissionModes, o.call.PermissionMode) {
			return protocol.AskDefer
		}
	}
	return def
}

// deferIfChosen marks a held call's deny to be sent as a defer when that
// is its route: only a call waiting on its own pending request (not a
// rejection, a stop, another request's hold or a store error).
func deferIfChosen(o *outcome) {
	if o.held && o.verdict.Decision == call.Deny && askRoute(o) == protocol.AskDefer {
		o.verdict.Defer = true
		o.verdict.StopTurn = false
	}
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}
