package hook

import (
	"fmt"

	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/protocol"
)

// runEvent answers a prompt or session event (UserPromptSubmit,
// SessionStart, Gemini's BeforeAgent): the model is told, once, of each
// approval request of this session decided since it was last told —
// approved (it may now retry exactly that call), rejected (with the
// human's reason), expired — and of the session's requests still pending.
//
// The event carries no tool call, so nothing is allowed or denied here: a
// policy that does not load or a store that cannot be read adds nothing
// to the context (the cause goes to stderr) and the prompt goes on. The
// approve command is never in the text (docs/approvals.md).
func runEvent(sys IO, o *Options, ev protocol.TurnEvent, payload []byte) (int, error) {
	if protocol.IsResultEvent(ev.Name) {
		if err := guard.RecordResult(sys.System, &o.Options, o.Provider, ev, payload); err != nil {
			fmt.Fprintf(sys.Stderr, "toolguard: %s: %v\n", ev.Name, err)
		}
		return 0, nil // no reply: the call ran already
	}
	if ev.Name == protocol.EventSessionStart && sessionStartDropsContext(o.Provider, payload) {
		// CodeBuddy 2.117 runs SessionStart hooks but drops their
		// additionalContext (e2e reject-reason): telling it there would mark
		// the decisions told and the model would never hear them. Its
		// UserPromptSubmit carries them.
		return 0, nil
	}
	text, err := guard.TurnContext(sys.System, &o.Options, ev)
	if err != nil {
		fmt.Fprintf(sys.Stderr, "toolguard: %s: %v\n", ev.Name, err)
	}
	reply := protocol.EncodeTurnContext(ev, text)
	if _, err := sys.Stdout.Write(reply.Stdout); err != nil {
		return 2, fmt.Errorf("writing the reply: %v", err)
	}
	return 0, nil
}

// sessionStartDropsContext reports an agent whose SessionStart answer is
// not shown to the model (measured by the e2e suite: docs/agents.md).
func sessionStartDropsContext(provider string, payload []byte) bool {
	if provider == "" {
		if c := protocol.Detect(payload); c != nil {
			provider = c.Name()
		}
	}
	return !protocol.SessionStartReachesModel(provider)
}
