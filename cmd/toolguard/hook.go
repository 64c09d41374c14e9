package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/hook"
	"github.com/toolguard/toolguard/internal/protocol"
)

type hookOptions struct {
	decideFlags
	provider string
}

func newHookCmd(sys *system) *cobra.Command {
	var o hookOptions
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Answer one PreToolUse hook call: payload on stdin, reply on stdout",
		Long: `hook reads one hook payload on stdin, decides, and prints the reply in the
agent's dialect. Without --provider the agent is recognised from the payload's shape;
an unrecognised shape gets a reply that blocks in every agent when the call is denied.

A payload that cannot be read, or a policy that does not load, gets the on_error
decision (deny unless the policy says otherwise) — never a silent allow.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return &hookUsageError{fmt.Sprintf("%s takes no arguments (got %q)", cmd.CommandPath(), strings.Join(args, " "))}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runHook(cmd.Context(), sys, &o) },
	}
	// A flag error is answered with a deny, not a bare exit 1 (which most
	// agents treat as "go ahead"): see hook.Usage.
	cmd.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &hookUsageError{err.Error()} })
	cmd.Flags().StringVar(&o.provider, "provider", "", "agent dialect: claude-code (claude), codebuddy, codex, gemini, cursor, copilot, antigravity (agy), kiro, windsurf (cascade), devin")
	o.register(cmd)
	return cmd
}

// runHook answers one hook call (internal/hook).
func runHook(ctx context.Context, sys *system, o *hookOptions) error {
	code := hook.Run(ctx, sys.hookIO(), hook.Options{Options: o.Options, Provider: o.provider, Decide: sys.decide})
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// providerArg returns the codec named by the last well-formed --provider
// of a hook command line (before "--"), or nil.
func providerArg(args []string) protocol.Codec {
	var name string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--provider="); ok {
			name = v
		} else if a == "--provider" && i+1 < len(args) {
			name = args[i+1]
			i++
		}
	}
	if name == "" {
		return nil
	}
	c, err := protocol.Lookup(name)
	if err != nil {
		return nil
	}
	return c
}
