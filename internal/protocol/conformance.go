package protocol

// The per-agent behaviour table: what each agent does with toolguard's
// replies and with a hook that fails. toolguard's behaviour reads from it
// (what an ask becomes: AskRoute, AskReachesHuman; which ask_fallback
// choices exist; whether continue:false ends a turn; whether a
// SessionStart answer reaches the model), the e2e suite measures the real
// CLIs against it (e2e/conformance_test.go, e2e/hitl_test.go) and writes
// docs/agents.md from it and its measurements.
//
// Every fact says where it comes from: a probe of the e2e suite on the
// versions in Conformance.Measured, or Documented (the agent's docs or an
// issue thread; "documented, not measured"). The table is built on first
// use (an ask, doctor, the docs), looked up by a linear scan.

import (
	"sync"

	"github.com/toolguard/toolguard/internal/call"
)

// AskRoute is what an ask of toolguard becomes for one agent and mode.
type AskRoute string

const (
	// AskNative: the agent's own ask reply; its prompt asks a human.
	AskNative AskRoute = "native"
	// AskDefer: Claude Code's permissionDecision "defer": in -p with a
	// single tool call the process ends with the call parked, and
	// `claude -p --resume` re-runs the hook. Only by ask_fallback.
	AskDefer AskRoute = "defer"
	// AskDenyEndTurn: a deny that records an approval request, with
	// continue:false, and the agent ends the turn.
	AskDenyEndTurn AskRoute = "deny+request+end-of-turn"
	// AskDenyRequest: a deny that records an approval request; the turn
	// goes on, so the pending-decision guard holds the session.
	AskDenyRequest AskRoute = "deny+request"
)

// Held reports whether r records an approval request instead of asking.
func (r AskRoute) Held() bool { return r == AskDenyEndTurn || r == AskDenyRequest }

// Outcomes of a failing hook: the tool runs anyway, or it is blocked.
const (
	OutcomeRuns    = "runs"
	OutcomeBlocked = "blocked"
)

// Documented marks a fact read in the agent's documentation or an issue
// thread, not measured by the e2e suite.
const Documented = "documented, not measured"

// Fact is one cell of the table: a value and where it comes from — the
// e2e probe that measured it (its subtest name) or Documented.
type Fact struct {
	Value  string
	Source string
	Note   string
}

// Measured reports whether an e2e probe backs f.
func (f Fact) Measured() bool { return f.Source != "" && f.Source != Documented }

// Mode is one agent's behaviour in one mode (interactive, headless).
type Mode struct {
	// Ask is what an ask becomes by default (an AskRoute); Choices are
	// the routes settings.ask_fallback may pick instead, the default
	// included. A route not in Choices is not offered: the default holds.
	Ask     Fact
	Choices []AskRoute
	// EndsTurn: does continue:false (sent with a held ask) end the turn?
	// "yes", "no", or "not sent" (the agent fails open on it).
	EndsTurn Fact
}

// Conformance is one agent's row.
type Conformance struct {
	Provider string // codec name (NameClaude, …)
	Label    string // the agent's name in docs
	// Measured lists the CLI versions the measured facts were measured
	// on (e2e/README.md pins them). Empty: nothing measured.
	Measured []string
	// VersionCmd is how doctor asks the installed CLI for its version
	// ("" = it does not ask); Versions are the version strings (prefix
	// match on the first line of its output) the table covers.
	VersionCmd []string

	Interactive, Headless Mode
	// NoAskPermissionModes are the payload's permission_mode values in
	// which a native ask reaches no one (the agent runs the tool or
	// hangs): an ask there is held as in headless mode.
	NoAskPermissionModes []string

	AllowSkipsPrompt Fact // "yes" / "no": an allow skips the agent's own prompt
	RewriteShell     Fact // updatedInput (or the agent's field) for shell: "honoured" / "ignored" / "no field"
	RewriteFile      Fact // the same for file tools

	// What a failing hook does to the call: OutcomeRuns or OutcomeBlocked.
	Exit1         Fact // exits 1, nothing on stdout
	Crash         Fact // killed by a signal (SIGSEGV)
	Exit2Garbage  Fact // garbage on stdout, exit 2
	Garbage0      Fact // garbage on stdout, exit 0
	Timeout       Fact // runs past the timeout in its hook entry
	FailClosedKey string
	FailClosed    Fact // does the fail-closed switch (FailClosedKey) block an exit-1 hook? "works", "ignored", "none"
	// FailClosedInstall: install writes the switch on toolguard's entries —
	// it blocks where the agent has it, and an agent without it ignores it
	// and still runs the hook (measured, not assumed).
	FailClosedInstall bool

	// Claude Code's defer, measured with a raw hook under bypassPermissions and
	// the default permission mode ("holds": parked, and --resume re-runs the
	// hook), and toolguard's round trip (ask_fallback = "defer").
	DeferBypass, DeferDefault, DeferRoundTrip Fact

	// SessionStartToModel: does a SessionStart hook's additionalContext
	// reach the model? "yes", "no" (answering it would mark decisions as
	// told that the model never hears), "no event".
	SessionStartToModel Fact
}

func doc(v string) Fact             { return Fact{Value: v, Source: Documented} }
func docN(v, note string) Fact      { return Fact{Value: v, Source: Documented, Note: note} }
func probe(v, p string) Fact        { return Fact{Value: v, Source: p} }
func probeN(v, p, note string) Fact { return Fact{Value: v, Source: p, Note: note} }

// conformance is the table. Probe names are the e2e subtests that
// measure a fact: TestAgents/<agent>/<scenario> or
// TestConformance/<agent>/<probe>. The e2e suite fails when a CLI
// disagrees with a measured fact here. Built on first use (an ask, doctor,
// the docs), not at every hook start.
var conformance = sync.OnceValue(func() []Conformance {
	return []Conformance{
		{
			Provider: NameClaude, Label: "Claude Code",
			Measured:   []string{"2.1.197"},
			VersionCmd: []string{"claude", "--version"},
			Interactive: Mode{
				Ask:     doc(string(AskNative)),
				Choices: []AskRoute{AskNative, AskDenyRequest},
			},
			Headless: Mode{
				Ask: probe(string(AskDenyRequest), "TestAgents/claude/pending-hold"),
				// defer is offered, never the default: it is honoured only in -p
				// with one tool call in the batch (otherwise ignored: the normal
				// permission flow runs the tool under bypassPermissions), and toolguard
				// does not defer under bypassPermissions (headless.go).
				Choices:  []AskRoute{AskDenyRequest, AskDefer},
				EndsTurn: probe("no", "TestAgents/claude/pending-hold"),
			},
			AllowSkipsPrompt: docN("yes", "the user's own permissions.ask rules still ask (anthropics/claude-code#82451)"),
			RewriteShell:     probeN("honoured", "TestConformance/claude/rewrite-shell", "measured in -p under bypassPermissions; reported ignored for Bash in anthropics/claude-code#79321 and #81340"),
			RewriteFile:      probe("honoured", "TestConformance/claude/rewrite-file"),
			Exit1:            probe(OutcomeRuns, "TestConformance/claude/exit-1"),
			Crash:            probe(OutcomeRuns, "TestConformance/claude/crash"),
			Exit2Garbage:     probe(OutcomeBlocked, "TestConformance/claude/exit-2-garbage"),
			Garbage0:         probe(OutcomeRuns, "TestConformance/claude/garbage-exit-0"),
			Timeout:          probe(OutcomeRuns, "TestConformance/claude/timeout"),
			FailClosedKey:    `"onFailure": "block" (from 2.1.295; install writes it)`,
			FailClosed: probeN("ignored", "TestConformance/claude/fail-closed",
				"the pinned 2.1.197 ignores the key and still runs the hook; 2.1.332, the latest release on 2026-12-01, blocks the exit-1 hook with it "+
					"(TestConformance/claude/fail-closed@alt with TOOLGUARD_E2E_ALT_CLI=claude=…; its other failure probes as 2.1.197's)"),
			FailClosedInstall:   true,
			DeferBypass:         probe("holds", "TestConformance/claude/defer-bypass"),
			DeferDefault:        probe("holds", "TestConformance/claude/defer-default"),
			DeferRoundTrip:      probe("holds", "TestConformance/claude/defer-roundtrip"),
			SessionStartToModel: probe("yes", "TestAgents/claude/reject-reason"),
		},
		{
			Provider: NameCodeBuddy, Label: "CodeBuddy Code",
			Measured:   []string{"2.117.0"},
			VersionCmd: []string{"codebuddy", "--version"},
			Interactive: Mode{
				Ask:     doc(string(AskNative)),
				Choices: []AskRoute{AskNative, AskDenyRequest},
			},
			Headless: Mode{
				Ask:      probe(string(AskDenyRequest), "TestAgents/codebuddy/pending-hold"),
				Choices:  []AskRoute{AskDenyRequest},
				EndsTurn: probe("no", "TestAgents/codebuddy/pending-hold"),
			},
			// CodeBuddy 2.117 runs the tool after an ask under these modes
			// (e2e workflow-ask, round 3).
			NoAskPermissionModes: []string{"bypassPermissions", "dontAsk"},
			AllowSkipsPrompt:     doc("yes"),
			RewriteShell:         probe("honoured", "TestConformance/codebuddy/rewrite-shell"),
			RewriteFile:          probe("honoured", "TestConformance/codebuddy/rewrite-file"),
			Exit1:                probe(OutcomeRuns, "TestConformance/codebuddy/exit-1"),
			Crash:                probe(OutcomeRuns, "TestConformance/codebuddy/crash"),
			Exit2Garbage:         probe(OutcomeBlocked, "TestConformance/codebuddy/exit-2-garbage"),
			Garbage0:             probe(OutcomeRuns, "TestConformance/codebuddy/garbage-exit-0"),
			Timeout:              probe(OutcomeBlocked, "TestConformance/codebuddy/timeout"),
			FailClosed:           doc("none"),
			SessionStartToModel:  probe("no", "TestAgents/codebuddy/reject-reason"),
		},
		{
			Provider: NameCodex, Label: "Codex CLI",
			Measured:   []string{"0.171.0"},
			VersionCmd: []string{"codex", "--version"},
			// Codex has no ask: PreToolUse "ask" is unsupported and fails open.
			Interactive: Mode{
				Ask:     probe(string(AskDenyRequest), "TestAgents/codex/workflow-ask"),
				Choices: []AskRoute{AskDenyRequest},
			},
			Headless: Mode{
				Ask:      probe(string(AskDenyRequest), "TestAgents/codex/pending-hold"),
				Choices:  []AskRoute{AskDenyRequest},
				EndsTurn: docN("not sent", "continue:false is unsupported for PreToolUse and fails open"),
			},
			AllowSkipsPrompt:    doc("yes"),
			RewriteShell:        probe("honoured", "TestConformance/codex/rewrite-shell"),
			RewriteFile:         docN("honoured", "apply_patch: not probed (the probe rewrites {file_path, content})"),
			Exit1:               probe(OutcomeRuns, "TestConformance/codex/exit-1"),
			Crash:               probe(OutcomeRuns, "TestConformance/codex/crash"),
			Exit2Garbage:        probeN(OutcomeRuns, "TestConformance/codex/exit-2-garbage", "garbage on stdout, nothing on stderr"),
			Garbage0:            probe(OutcomeRuns, "TestConformance/codex/garbage-exit-0"),
			Timeout:             probe(OutcomeRuns, "TestConformance/codex/timeout"),
			FailClosed:          docN("none", "requested in openai/codex#41979"),
			SessionStartToModel: probe("yes", "TestAgents/codex/reject-reason"),
		},
		{
			Provider: NameGemini, Label: "Gemini CLI",
			Measured:   []string{"0.61.0"},
			VersionCmd: []string{"gemini", "--version"},
			Interactive: Mode{
				Ask:     docN(string(AskNative), `{"decision":"ask"}: undocumented but implemented`),
				Choices: []AskRoute{AskNative, AskDenyRequest},
			},
			Headless: Mode{
				Ask:      probe(string(AskDenyEndTurn), "TestAgents/gemini/pending-hold"),
				Choices:  []AskRoute{AskDenyEndTurn},
				EndsTurn: probe("yes", "TestAgents/gemini/pending-hold"),
			},
			AllowSkipsPrompt: doc("yes"),
			RewriteShell:     probeN("honoured", "TestConformance/gemini/rewrite-shell", "hookSpecificOutput.tool_input"),
			RewriteFile:      probeN("honoured", "TestConformance/gemini/rewrite-file", "hookSpecificOutput.tool_input"),
			Exit1:            probe(OutcomeRuns, "TestConformance/gemini/exit-1"),
			Crash:            probe(OutcomeRuns, "TestConformance/gemini/crash"),
			Exit2Garbage:     probe(OutcomeBlocked, "TestConformance/gemini/exit-2-garbage"),
			Garbage0:         probe(OutcomeRuns, "TestConformance/gemini/garbage-exit-0"),
			Timeout: probeN(OutcomeRuns, "TestConformance/gemini/timeout",
				"Gemini stops the hook at its timeout but waits for its stdout to close: a child of the hook holding it open delays the call until that child exits"),
			FailClosed:          doc("none"),
			SessionStartToModel: probe("yes", "TestAgents/gemini/reject-reason"),
		},
		{
			Provider: NameCursor, Label: "Cursor",
			VersionCmd: []string{"cursor-agent", "--version"},
			Interactive: Mode{
				Ask:     docN(string(AskNative), "documented for shell and MCP hooks; beforeReadFile has no ask (a deny)"),
				Choices: []AskRoute{AskNative, AskDenyRequest},
			},
			Headless: Mode{
				Ask:      doc(string(AskDenyRequest)),
				Choices:  []AskRoute{AskDenyRequest},
				EndsTurn: doc("not sent"),
			},
			AllowSkipsPrompt:    docN("not documented", "toolguard sends every pass as an allow (failClosed)"),
			RewriteShell:        docN("honoured", "updated_input on preToolUse"),
			RewriteFile:         docN("honoured", "updated_input on preToolUse"),
			Exit1:               docN(OutcomeRuns, "blocked with failClosed"),
			Crash:               docN(OutcomeRuns, "blocked with failClosed"),
			Exit2Garbage:        doc(OutcomeBlocked),
			Garbage0:            docN(OutcomeBlocked, "invalid JSON blocks a permission hook"),
			Timeout:             docN(OutcomeRuns, "blocked with failClosed"),
			FailClosedKey:       `"failClosed": true (install sets it; empty output then blocks, so toolguard prints every pass as an allow)`,
			FailClosed:          doc("works"),
			FailClosedInstall:   true,
			SessionStartToModel: doc("no event"),
		},
		{
			Provider: NameCopilot, Label: "Copilot CLI",
			Measured:   []string{"1.0.102"},
			VersionCmd: []string{"copilot", "--version"},
			Interactive: Mode{
				Ask:     docN(string(AskNative), "autopilot and the cloud agent turn an ask into a deny themselves"),
				Choices: []AskRoute{AskNative, AskDenyRequest},
			},
			Headless: Mode{
				Ask:      probe(string(AskDenyRequest), "TestAgents/copilot/pending-hold"),
				Choices:  []AskRoute{AskDenyRequest},
				EndsTurn: probe("no", "TestAgents/copilot/pending-hold"),
			},
			AllowSkipsPrompt:    doc("yes"),
			RewriteShell:        docN("honoured", "modifiedArgs"),
			RewriteFile:         doc("honoured"),
			Exit1:               probe(OutcomeBlocked, "TestConformance/copilot/exit-1"),
			Crash:               probe(OutcomeBlocked, "TestConformance/copilot/crash"),
			Exit2Garbage:        probe(OutcomeBlocked, "TestConformance/copilot/exit-2-garbage"),
			Garbage0:            probe(OutcomeRuns, "TestConformance/copilot/garbage-exit-0"),
			Timeout:             probe(OutcomeRuns, "TestConformance/copilot/timeout"),
			FailClosed:          doc("none"),
			SessionStartToModel: doc("no event"),
		},
		{
			// Qwen Code speaks Claude Code's hook protocol (the claude codec under
			// the name qwen).
			Provider: NameQwen, Label: "Qwen Code",
			Measured:   []string{"0.24.4"},
			VersionCmd: []string{"qwen", "--version"},
			Interactive: Mode{
				Ask:     doc(string(AskNative)),
				Choices: []AskRoute{AskNative, AskDenyRequest},
			},
			Headless: Mode{
				Ask:      probe(string(AskDenyRequest), "TestAgents/qwen/pending-hold"),
				Choices:  []AskRoute{AskDenyRequest},
				EndsTurn: probe("no", "TestAgents/qwen/pending-hold"),
			},
			AllowSkipsPrompt:    doc("yes"),
			RewriteShell:        doc("not documented"),
			RewriteFile:         doc("not documented"),
			Exit1:               probe(OutcomeRuns, "TestConformance/qwen/exit-1"),
			Crash:               probe(OutcomeRuns, "TestConformance/qwen/crash"),
			Exit2Garbage:        probeN(OutcomeRuns, "TestConformance/qwen/exit-2-garbage", "Claude Code blocks here; Qwen Code 0.24.4 runs the tool"),
			Garbage0:            probe(OutcomeRuns, "TestConformance/qwen/garbage-exit-0"),
			Timeout:             probe(OutcomeRuns, "TestConformance/qwen/timeout"),
			FailClosed:          doc("none"),
			SessionStartToModel: probe("yes", "TestAgents/qwen/reject-reason"),
		},
		{
			// opencode has no hook: toolguard's plugin (hooks/opencode) runs the
			// hook and throws on a deny; it fails closed itself (a crash, garbage,
			// no decision or its 30 s timeout block the call).
			Provider: NameOpencode, Label: "opencode (plugin)",
			Measured:   []string{"1.18.33"},
			VersionCmd: []string{"opencode", "--version"},
			Interactive: Mode{
				Ask:     probe(string(AskDenyRequest), "TestAgents/opencode/workflow-ask"),
				Choices: []AskRoute{AskDenyRequest},
			},
			Headless: Mode{
				Ask:      probe(string(AskDenyRequest), "TestAgents/opencode/pending-hold"),
				Choices:  []AskRoute{AskDenyRequest},
				EndsTurn: doc("not sent"),
			},
			AllowSkipsPrompt:    doc("no prompt"),
			RewriteShell:        doc("no field"),
			RewriteFile:         doc("no field"),
			Exit1:               probeN(OutcomeBlocked, "TestConformance/opencode/exit-1", "toolguard's plugin (hooks/opencode) blocks on anything but a reply it can read"),
			Crash:               probe(OutcomeBlocked, "TestConformance/opencode/crash"),
			Exit2Garbage:        probe(OutcomeBlocked, "TestConformance/opencode/exit-2-garbage"),
			Garbage0:            probe(OutcomeBlocked, "TestConformance/opencode/garbage-exit-0"),
			Timeout:             probeN(OutcomeBlocked, "TestConformance/opencode/timeout", "the plugin's own timeout (30 s as installed)"),
			FailClosed:          docN("works", "the plugin is the switch: it fails closed by itself"),
			SessionStartToModel: doc("no event"),
		},
		// From the agents' documentation, not proven with the real clients
		// (docs/agents.md, "From documentation").
		docRow(NameAntigravity, "Antigravity CLI", AskNative, OutcomeBlocked), // force_ask; no or bad output is a deny
		docRow(NameKiro, "Kiro CLI", AskDenyRequest, OutcomeRuns),
		docRow(NameWindsurf, "Windsurf Cascade", AskDenyRequest, OutcomeRuns),
		docRow(NameDevin, "Devin CLI", AskDenyRequest, OutcomeRuns),
	}
})

// docRow is the row of an agent known only from its documentation: what an
// interactive ask becomes (headless: deny + request), exit 2 blocks, and
// what a hook that exits 1, crashes or prints garbage does (failed).
func docRow(provider, label string, ask AskRoute, failed string) Conformance {
	choices := []AskRoute{AskDenyRequest}
	if ask == AskNative {
		choices = []AskRoute{AskNative, AskDenyRequest}
	}
	return Conformance{
		Provider: provider, Label: label,
		Interactive:         Mode{Ask: doc(string(ask)), Choices: choices},
		Headless:            Mode{Ask: doc(string(AskDenyRequest)), Choices: []AskRoute{AskDenyRequest}, EndsTurn: doc("not sent")},
		AllowSkipsPrompt:    doc("not documented"),
		RewriteShell:        doc("no field"),
		RewriteFile:         doc("no field"),
		Exit1:               doc(failed),
		Crash:               doc(failed),
		Exit2Garbage:        doc(OutcomeBlocked),
		Garbage0:            doc(failed),
		Timeout:             doc("not documented"),
		FailClosed:          doc("none"),
		SessionStartToModel: doc("no event"),
	}
}

// Table returns the per-agent behaviour table (a copy of the slice; the
// rows share their string slices and must not be changed).
func Table() []Conformance { return append([]Conformance(nil), conformance()...) }

// ConformanceFor returns the row of provider ("claude" is Claude Code),
// or false for an agent the table does not cover (the universal reply).
func ConformanceFor(provider string) (*Conformance, bool) {
	if provider == "claude" {
		provider = NameClaude
	}
	rows := conformance()
	for i := range rows {
		if rows[i].Provider == provider {
			return &rows[i], true
		}
	}
	return nil, false
}

// ModeOf returns the row's behaviour in interactive or headless mode.
func (c *Conformance) ModeOf(headless bool) *Mode {
	if headless {
		return &c.Headless
	}
	return &c.Interactive
}

// Offers reports whether m lets ask_fallback pick r.
func (m *Mode) Offers(r AskRoute) bool {
	for _, x := range m.Choices {
		if x == r {
			return true
		}
	}
	return false
}

// DefaultAskRoute is the table's route for an ask of call cl by codec c
// in headless or interactive mode, before settings.ask_fallback: a native
// ask only where the mode's default is native and the call's permission
// mode does not switch the agent's prompts off. An agent the table does
// not cover gets a native ask in interactive mode if its codec has one
// (the universal reply has none), else deny + request.
func DefaultAskRoute(c Codec, cl call.Call, headless bool) AskRoute {
	if c == nil {
		if headless {
			return AskDenyRequest
		}
		return AskNative
	}
	row, ok := ConformanceFor(c.Name())
	if !ok {
		// A codec the table has no row for (the universal reply, an agent
		// just added): its own SupportsAsk, as before the table.
		if headless || !c.SupportsAsk() {
			return AskDenyRequest
		}
		return AskNative
	}
	r := AskRoute(row.ModeOf(headless).Ask.Value)
	if r == AskNative && !c.SupportsAsk() {
		return AskDenyRequest
	}
	if r == AskNative {
		for _, m := range row.NoAskPermissionModes {
			if cl.PermissionMode == m {
				return AskDenyRequest
			}
		}
	}
	return r
}

// TurnEnds reports whether provider's agent ends the turn on a held ask
// (continue:false) in headless mode: the table's measured fact.
func TurnEnds(provider string) bool {
	row, ok := ConformanceFor(provider)
	return ok && row.Headless.EndsTurn.Value == "yes"
}

// SessionStartReachesModel reports whether provider's agent shows a
// SessionStart answer to the model. An agent the table does not cover is
// assumed to (the universal reply is answered as Claude's).
func SessionStartReachesModel(provider string) bool {
	row, ok := ConformanceFor(provider)
	return !ok || row.SessionStartToModel.Value != "no"
}

// Behaviour is one row of what an agent build does with one of
// toolguard's answers, as doctor prints it: read from the row's facts,
// the same ones the e2e suite measures (e2e/conformance_test.go), so
// doctor and the suite cannot disagree.
type Behaviour struct {
	Answer string `json:"answer"` // "allow", "ask (interactive)", "no answer (exit 1)", …
	Does   string `json:"does"`
	Source string `json:"source"` // the e2e probe that measured it, or Documented
	Note   string `json:"note,omitempty"`
}

// Behaviours lists c's answers and what the agent does with each: allow,
// ask (interactive and headless), no answer (exit 1, timeout), a crash,
// garbage, and a rewrite of a shell and of a file tool. A fact the table
// lacks is left out, not guessed.
func (c *Conformance) Behaviours() []Behaviour {
	var out []Behaviour
	add := func(answer string, f Fact, render func(string) string) {
		if f.Value == "" {
			return
		}
		does := f.Value
		if render != nil {
			does = render(f.Value)
		}
		out = append(out, Behaviour{Answer: answer, Does: does, Source: f.Source, Note: f.Note})
	}
	add("allow", c.AllowSkipsPrompt, func(v string) string {
		if v == "yes" {
			return "skips the agent's own prompt"
		}
		return "does not skip the agent's own prompt (" + v + ")"
	})
	add("ask (interactive)", c.Interactive.Ask, nil)
	add("ask (headless)", c.Headless.Ask, nil)
	failed := func(v string) string {
		if v == OutcomeBlocked {
			return "the tool is blocked"
		}
		return "the tool " + v
	}
	add("no answer (exit 1)", c.Exit1, failed)
	add("no answer (timeout)", c.Timeout, failed)
	add("crash (SIGSEGV)", c.Crash, failed)
	add("garbage, exit 0", c.Garbage0, failed)
	add("garbage, exit 2", c.Exit2Garbage, failed)
	add("rewrite (shell)", c.RewriteShell, nil)
	add("rewrite (file tool)", c.RewriteFile, nil)
	return out
}
