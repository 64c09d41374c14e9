package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/hook"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/workspace"
)

type hookOptions struct {
	decideFlags
	provider  string
	server    string // --server: serve's hook endpoint decides (internal/hook/forward.go)
	tokenFile string // --token-file: the node token for --server
}

// nodeTokenEnv holds the node token for hook --server when no
// --token-file is given.
const nodeTokenEnv = "TOOLGUARD_NODE_TOKEN"

func newHookCmd(sys *system) *cobra.Command {
	var o hookOptions
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Answer one PreToolUse hook call: payload on stdin, reply on stdout",
		Long: `hook reads one hook payload on stdin, decides, and prints the reply in the
agent's dialect. Without --provider the agent is recognised from the payload's shape;
an unrecognised shape gets a reply that blocks in every agent when the call is denied.

A payload that cannot be read, or a policy that does not load, gets the on_error
decision (deny unless the policy says otherwise) — never a silent allow.

With --server, serve's hook endpoint (POST /v1/hooks/{agent}) is asked too: its reply
(and its audit line) wins when its decision is stricter than the local one — the server
can tighten, never loosen. The node token is read from --token-file (a file only its
owner can read: the token alone, or NAME:TOKEN) or $TOOLGUARD_NODE_TOKEN. When the
server cannot be reached or refuses, the local policy decides alone, and the hook says
why on stderr.`,
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
	cmd.Flags().StringVar(&o.server, "server", "", "serve's address (unix:///path or http://host:port): its hook endpoint's answer counts when stricter than the local one")
	cmd.Flags().StringVar(&o.tokenFile, "token-file", "", "with --server: the node token `FILE` (default: $"+nodeTokenEnv+")")
	o.register(cmd)
	return cmd
}

// runHook answers one hook call (internal/hook).
func runHook(ctx context.Context, sys *system, o *hookOptions) error {
	ho := hook.Options{Options: o.Options, Provider: o.provider, Decide: sys.decide, Server: o.server}
	if o.server != "" {
		// A token that cannot be read leaves NodeToken empty: the hook
		// then says so and decides locally (internal/hook/forward.go).
		tok, err := nodeToken(sys, o.tokenFile)
		if err != nil {
			fmt.Fprintf(sys.stderr, "toolguard: %v\n", err)
		}
		ho.NodeToken = tok
	}
	code := hook.Run(ctx, sys.hookIO(), ho)
	if code != 0 {
		return &exitError{code: code}
	}
	return nil
}

// nodeToken is hook --server's node token: --token-file's (the token
// alone, or serve's NAME:TOKEN line), else $TOOLGUARD_NODE_TOKEN.
func nodeToken(sys *system, file string) (string, error) {
	if file == "" {
		return strings.TrimSpace(sys.getenv(nodeTokenEnv)), nil
	}
	cwd, _ := sys.getwd()
	path := workspace.ArgPath(file, cwd, sys.home())
	data, err := readSecretFile(path)
	if err != nil {
		return "", fmt.Errorf("--token-file %s: %v", path, err)
	}
	f := strings.Fields(string(data))
	if len(f) != 1 {
		return "", fmt.Errorf("--token-file %s: want one token (or NAME:TOKEN), found %d words", path, len(f))
	}
	if _, tok, ok := strings.Cut(f[0], ":"); ok {
		return tok, nil
	}
	return f[0], nil
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
