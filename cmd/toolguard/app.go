package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/hook"
	"github.com/toolguard/toolguard/internal/workspace"
)

// system is everything toolguard takes from the process: streams,
// environment, clock and working directory. Tests give fakes.
type system struct {
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	getenv     func(string) string
	now        func() time.Time
	getwd      func() (string, error)
	executable func() (string, error)
	etc        string // where /etc/toolguard/policy.toml is looked for; tests point it elsewhere
	// isTerminal reports whether stdin is a terminal (approvals approve|reject want one).
	isTerminal func() bool

	// started is when the process started: the hook deadline counts from
	// it (zero: from the start of the hook command).
	started time.Time
	// exit ends the process when the hook deadline or memory cap is
	// passed; nil (tests) returns instead.
	exit func(code int)
	// limits are the hook's deadline and memory cap (zero: the defaults).
	limits hook.Limits
	// limitData sets the process's memory backstop (nil: none, in tests,
	// where it would bind the whole test binary).
	limitData func(max uint64)
	// decide replaces guard.Decide in the hook (nil: guard.Decide); tests
	// model a runaway decision with it.
	decide hook.DecideFunc
	// serve replaces the serve command, which runs toolguard-serve, with
	// one that serves in this process (tests; nil: run the binary).
	serve func(sys *system) *cobra.Command
}

func realSystem() *system {
	return &system{
		stdin:      os.Stdin,
		stdout:     os.Stdout,
		stderr:     os.Stderr,
		getenv:     os.Getenv,
		now:        time.Now,
		getwd:      os.Getwd,
		executable: os.Executable,
		etc:        "/etc",
		isTerminal: stdinIsTerminal,
		started:    processStart,
		exit:       os.Exit,
		limitData:  hook.LimitData,
	}
}

// env is where things are, for this process (internal/workspace).
func (s *system) env() workspace.Env {
	return workspace.Env{Getenv: s.getenv, Getwd: s.getwd, Executable: s.executable, Etc: s.etc}
}

// guardSys is what a decision takes from the process (internal/guard).
func (s *system) guardSys() guard.System {
	return guard.System{Env: s.env(), Now: s.now, Stderr: s.stderr}
}

// hookIO is what a hook process takes from the process (internal/hook).
func (s *system) hookIO() hook.IO {
	return hook.IO{System: s.guardSys(), Stdin: s.stdin, Stdout: s.stdout, Started: s.started,
		Exit: s.exit, LimitData: s.limitData, Limits: s.limits}
}

// home returns the user's home directory from the environment.
func (s *system) home() string { return s.env().Home() }

// run executes one toolguard command line and returns the exit code.
func run(ctx context.Context, args []string, sys *system) int {
	if o := hookArgs(args); o != nil {
		return finish(ctx, sys, args, nil, nil, runHook(ctx, sys, o))
	}
	var root *cobra.Command
	if len(args) > 0 && args[0] == "hook" {
		// The hook runs before every tool call: build only its command.
		// Parsing, help and errors are cobra's, as in the full tree.
		root = newRoot()
		root.AddCommand(newHookCmd(sys))
	} else {
		root = newRootCmd(sys)
	}
	return execute(ctx, root, args, sys)
}

// hookArgs reads the hook command lines install writes — `hook --provider
// P`, then any `--policy F` — without building a command: cobra's parse
// costs a hook process about 0.1 ms (hookbench, MCP on the defaults). Nil
// for every other form (another flag, --flag=value, a value that starts
// with "-", a repeated --provider, help), which the command tree parses.
func hookArgs(args []string) *hookOptions {
	if len(args) < 3 || args[0] != "hook" || len(args)%2 == 0 {
		return nil
	}
	o := &hookOptions{}
	for i := 1; i+1 < len(args); i += 2 {
		v := args[i+1]
		if v == "" || strings.HasPrefix(v, "-") {
			return nil
		}
		switch {
		case args[i] == "--provider" && o.provider == "":
			o.provider = v
		case args[i] == "--policy":
			o.Files = append(o.Files, v)
		default:
			return nil
		}
	}
	if o.provider == "" {
		return nil
	}
	return o
}

// execute runs a command tree on args and returns the exit code.
func execute(ctx context.Context, root *cobra.Command, args []string, sys *system) int {
	root.SetArgs(args)
	root.SetIn(sys.stdin)
	root.SetOut(sys.stdout)
	root.SetErr(sys.stderr)
	cmd, err := root.ExecuteContextC(ctx)
	return finish(ctx, sys, args, cmd, root, err)
}

// finish reports a command's error and returns the exit code: a hook
// usage error is answered in the agent's dialect (hookUsage).
func finish(ctx context.Context, sys *system, args []string, cmd, root *cobra.Command, err error) int {
	var hu *hookUsageError
	if errors.As(err, &hu) {
		return hook.Usage(ctx, sys.hookIO(), providerArg(args), hu)
	}
	if err != nil && (cmd == nil || cmd == root) && exitCode(err) == exitFailure && sys.isTerminal != nil && !sys.isTerminal() {
		// A mistyped hook line (`toolguard hok --provider codex`, a stray
		// root flag) fails before any command runs. When stdin holds a JSON
		// object — a hook payload — the agent is waiting for a reply: a bare
		// exit 1 reads as "run the tool" to most agents, so answer the
		// agent's deny instead.
		payload, _ := hook.ReadPayload(sys.stdin)
		if p := bytes.TrimLeft(payload, " \t\r\n\xef\xbb\xbf"); len(p) > 0 && p[0] == '{' {
			return hook.UsagePayload(ctx, sys.hookIO(), providerArg(args), err, payload)
		}
	}
	if err != nil {
		var ee *exitError
		if !errors.As(err, &ee) || ee.msg != "" {
			fmt.Fprintf(sys.stderr, "toolguard: %v\n", err)
		}
		var ue *usageError
		if errors.As(err, &ue) {
			help := "toolguard hook" // hookArgs' command line
			if root != nil {
				help = helpPath(cmd, root)
			}
			fmt.Fprintf(sys.stderr, "Run '%s --help' for usage.\n", help)
		}
	}
	return exitCode(err)
}

func newRootCmd(sys *system) *cobra.Command {
	root := newRoot()
	root.Version = versionString()
	root.SetVersionTemplate("{{.Version}}\n")
	root.AddCommand(
		newHookCmd(sys),
		newCheckCmd(sys),
		newValidateCmd(sys),
		newRulesCmd(sys),
		newMaterializeCmd(sys),
		newInitCmd(sys),
		newImportCmd(sys),
		newInstallCmd(sys, false),
		newInstallCmd(sys, true),
		newDoctorCmd(sys),
		newApprovalsCmd(sys),
		newTrustCmd(sys),
		newAuditCmd(sys),
		newServeCmd(sys),
		newVersionCmd(sys),
	)
	root.CompletionOptions.DisableDefaultCmd = false // cobra's `completion bash|zsh|fish|powershell`
	return root
}

// newRoot is the root command without its subcommands and version.
func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "toolguard",
		Short: "A policy guard for coding agents' tool calls",
		Long: `toolguard is the PreToolUse hook that coding agents (Claude Code, CodeBuddy Code,
Codex CLI, Gemini CLI, Cursor, Copilot CLI) run before every tool call. It reads the
hook payload on stdin, sees every command a shell string would run, evaluates a
layered TOML policy and answers allow, ask or deny in the agent's own dialect.

Try a policy by hand:
  toolguard check -- git push --force origin main
  toolguard check -c 'curl -fsSL https://x.sh | sh'
  toolguard check --tool write --path .github/workflows/ci.yml

Exit codes (commands other than hook): 0 success, 1 usage or validation failure;
check --exit-code: 0 allow or pass, 3 ask, 4 deny.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{Msg: err.Error()} })
	root.CompletionOptions.DisableDefaultCmd = true
	return root
}

// helpPath is the command whose --help a usage error points at: the
// subcommand that failed, else the root.
func helpPath(cmd, root *cobra.Command) string {
	if cmd == nil {
		return root.CommandPath()
	}
	return cmd.CommandPath()
}

// noArgs rejects positional arguments with a usage error.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments (got %q)", cmd.CommandPath(), strings.Join(args, " "))
	}
	return nil
}

func writeJSON(sys *system, v any) error {
	enc := json.NewEncoder(sys.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func exactArgs(n int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s wants %d argument(s), got %d", cmd.CommandPath(), n, len(args))
		}
		return nil
	}
}
