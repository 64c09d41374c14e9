package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/doctor"
	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/workspace"
)

type doctorOptions struct {
	policyFlags
	json    bool
	require bool
	agent   string
	noProbe bool
	dir     string
	sys     doctorSystemFlags // --system (doctor_system.go)
}

func newDoctorCmd(sys *system) *cobra.Command {
	var o doctorOptions
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Show which agents are guarded by toolguard, proved by running each hook",
		Long: `doctor looks for each agent's settings (user and project) and runs every pre-tool hook
command that is (or looks like) toolguard's exactly as the agent would — sh -c LINE, the
payload on stdin in that agent's dialect — once with a call that must be denied (` + install.DenyProbeCommand + `)
and once with one that must pass (` + install.PassProbeCommand + `), and reports what came back. It also
asks the hook's binary whether it is toolguard, loads the --policy files on the hook line,
reports Codex's trust state, settings that switch hooks off, and commands found through PATH.
An agent is guarded when a hook proved itself and nothing switches it off.
--require-enforcement exits 1 when an agent judged (only --agent X when given) is not guarded.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runDoctor(sys, &o) },
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	cmd.Flags().BoolVar(&o.require, "require-enforcement", false, "exit 1 if an agent judged is not guarded")
	cmd.Flags().StringVar(&o.agent, "agent", "", "judge only this agent (claude-code, codex, …): what a platform runs before starting it")
	cmd.Flags().BoolVar(&o.noProbe, "no-probe", false, "read the settings only; do not run the hooks (nothing is proved)")
	cmd.Flags().StringVar(&o.dir, "dir", "", "project directory (default: the current git top level)")
	o.register(cmd)
	o.sys.register(cmd)
	return cmd
}

func runDoctor(sys *system, o *doctorOptions) error {
	if o.sys.on || o.sys.probe {
		return runDoctorSystem(sys, o)
	}
	project := o.dir
	cwd, _ := sys.getwd()
	if project == "" {
		project = sys.env().CurrentProject()
	}
	project = workspace.AbsFrom(cwd, project)
	if o.agent != "" {
		if o.agent == "claude" {
			o.agent = "claude-code"
		}
		if _, err := install.SettingsPath(o.agent, install.ScopeUser, project, "/"); err != nil {
			return usagef("--agent: %v", err)
		}
	}
	rep := doctor.Run(context.Background(), &doctor.Options{Sys: sys.guardSys(), Selection: o.Selection,
		Project: project, Agent: o.agent, NoProbe: o.noProbe})
	if rep.RequireEnforcement {
		o.require = true // settings.require_enforcement: the policy asks for it
	}
	if o.json {
		if err := writeJSON(sys, rep); err != nil {
			return err
		}
	} else {
		printDoctor(sys.stdout, rep)
		printNative(sys.stdout, rep)
	}
	if o.require && len(rep.Unguarded) > 0 {
		msg := "not guarded: " + strings.Join(rep.Unguarded, ", ")
		if rep.RequireEnforcement {
			msg += " (settings.require_enforcement is on)"
		}
		return &exitError{code: exitFailure, msg: msg}
	}
	if o.require && rep.Policy.Error != "" && o.agent == "" {
		return &exitError{code: exitFailure, msg: "the policy does not load"}
	}
	return nil
}

// printNative prints what doctor read of Claude Code's own rules.
func printNative(w io.Writer, rep *doctor.Report) {
	nr := rep.ClaudeNative
	if nr == nil {
		return
	}
	fmt.Fprintln(w, "Claude Code's own rules and HTTP hooks:")
	for _, m := range nr.Missing {
		fmt.Fprintf(w, "  changed: %s: %s\n", m.File, m.Text)
	}
	for _, c := range nr.Conflicts {
		fmt.Fprintf(w, "  conflict: %s: %s\n", c.File, c.Text)
	}
	for _, h := range rep.HTTP {
		kind := "an HTTP hook"
		if h.Toolguard {
			kind = "toolguard's HTTP hook"
		}
		fail := h.OnFailure
		if fail == "" {
			fail = "unset: the call runs when the server does not answer"
		}
		fmt.Fprintf(w, "  %s: %s → %s (onFailure %s): %s\n", kind, h.File, h.URL, fail, h.Reach)
	}
	for _, n := range nr.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

func printDoctor(w io.Writer, rep *doctor.Report) {
	for _, a := range rep.Agents {
		state := "not detected"
		switch {
		case a.Detected && !a.Enforceable:
			state = "policy not enforced"
		case a.IsGuarded() && a.Checks != nil:
			state = "guarded (proved: the hook denied the deny probe and passed the pass probe)"
		case a.IsGuarded():
			state = "guarded (configured; not probed)"
		case a.Detected:
			state = "NOT GUARDED"
		}
		fmt.Fprintf(w, "%-12s %s\n", a.Agent, state)
		if len(a.Checks) == 0 {
			for _, c := range a.Commands {
				fmt.Fprintf(w, "    hook: %s\n", c)
			}
		}
		for _, c := range a.Checks {
			fmt.Fprintf(w, "    hook: %s\n", c.Command)
			fmt.Fprintf(w, "      in: %s\n", strings.Join(c.Files, ", "))
			if c.Version != "" {
				fmt.Fprintf(w, "      binary: %s\n", c.Version)
			}
			for _, p := range c.Policies {
				if p.Loads {
					fmt.Fprintf(w, "      policy %s: loads, %d rules, %s\n", p.File, p.Rules, p.Hash)
				} else {
					fmt.Fprintf(w, "      policy %s: DOES NOT LOAD: %s\n", p.File, p.Error)
				}
			}
			for _, p := range c.Probes {
				mark := "ok"
				if !p.OK() {
					mark = "FAILED"
				}
				fmt.Fprintf(w, "      probe %q (must %s): %s, exit %d — %s\n", p.Call, p.Want, p.Got, p.Exit, mark)
			}
			for _, p := range c.Problems {
				fmt.Fprintf(w, "      problem: %s\n", p)
			}
		}
		if a.AgentVersion != "" && a.Detected {
			fmt.Fprintf(w, "    agent version: %s\n", a.AgentVersion)
			printBehaviour(w, a)
		}
		for _, x := range a.Warnings {
			fmt.Fprintf(w, "    warning: %s\n", x)
		}
		if a.CodexTrust != "" && a.Detected {
			fmt.Fprintf(w, "    codex trust: %s\n", a.CodexTrust)
		}
		if a.Note != "" && a.Detected {
			fmt.Fprintf(w, "    %s\n", a.Note)
		}
		if a.Detected && a.Enforceable && !a.IsGuarded() {
			for _, p := range a.Problems {
				fmt.Fprintf(w, "    problem: %s\n", p)
			}
		}
	}
	if rep.Policy.Error != "" {
		fmt.Fprintf(w, "policy: does not load: %s\n", rep.Policy.Error)
	} else {
		fmt.Fprintf(w, "policy: %d rules, %s\n", rep.Policy.Rules, rep.Policy.Hash)
		if rep.Policy.Bundle != "" {
			fmt.Fprintf(w, "policy bundle: %s (managed, tighten-only)\n", rep.Policy.Bundle)
		}
		for _, l := range rep.Policy.Layers {
			trust := ""
			if l.Untrusted {
				trust = " (untrusted: it can only tighten)"
			}
			fmt.Fprintf(w, "    %-10s %s %s%s\n", l.Name, l.File, l.Hash, trust)
		}
		writeIgnored(w, rep.Policy.Ignored)
		printGuardGaps(w, rep.Policy.GuardGaps)
	}
	for _, n := range rep.Policy.Nested {
		fmt.Fprintf(w, "    not read: %s (below the workspace root; only <root>/.toolguard/policy.toml is)\n", n)
	}
}

// printGuardGaps says which locked default rules are off, grouped by why.
func printGuardGaps(w io.Writer, gaps []policy.GuardGap) {
	var whys []string
	byWhy := map[string][]string{}
	for _, g := range gaps {
		if byWhy[g.Why] == nil {
			whys = append(whys, g.Why)
		}
		byWhy[g.Why] = append(byWhy[g.Why], g.Rule)
	}
	for _, why := range whys {
		fmt.Fprintf(w, "self-protection OFF: %d locked default rule(s) %s: %s\n", len(byWhy[why]), why, strings.Join(byWhy[why], ", "))
	}
}

// printBehaviour prints what the agent does with each answer, from the
// conformance table (protocol.Conformance.Behaviours), with where each row
// comes from: an e2e probe on the measured versions, or the agent's docs.
func printBehaviour(w io.Writer, a doctor.Agent) {
	if len(a.Behaviour) == 0 {
		return
	}
	on := "nothing measured"
	if len(a.MeasuredOn) > 0 {
		on = "measured on " + strings.Join(a.MeasuredOn, ", ")
	}
	fmt.Fprintf(w, "    what %s does with each answer (conformance table, %s):\n", a.AgentVersion, on)
	for _, b := range a.Behaviour {
		src := "measured"
		if b.Source == protocol.Documented {
			src = "documented, not measured"
		}
		note := ""
		if b.Note != "" {
			note = "; " + b.Note
		}
		fmt.Fprintf(w, "      %-20s %s (%s%s)\n", b.Answer+":", b.Does, src, note)
	}
}
