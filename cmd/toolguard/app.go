package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/approval"
	"github.com/toolguard/toolguard/internal/audit"
	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/protocol"
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
	limits hookLimits
	// limitData sets the process's memory backstop (nil: none, in tests,
	// where it would bind the whole test binary).
	limitData func(max uint64)
	// decide replaces decideCall in the hook (nil: decideCall); tests
	// model a runaway decision with it.
	decide decideFunc
	// openApprovals opens the approval store of a state directory (nil:
	// approval.Open); serve --database points the hook calls it decides
	// at PostgreSQL (approval_store.go).
	openApprovals func(dir string) (*approval.Store, error)
	// appendAudit appends an audit record to the log at path (nil:
	// audit.AppendContext); serve --database appends to PostgreSQL's chain.
	appendAudit func(ctx context.Context, path string, rec audit.Record) error
}

// decideFunc is the signature of decideCall.
type decideFunc func(ctx context.Context, sys *system, f *decideFlags, ps *policySet, codec protocol.Codec, c call.Call, project string) *outcome

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
		limitData:  limitData,
	}
}

// home returns the user's home directory from the environment.
func (s *system) home() string {
	if h := s.getenv("HOME"); h != "" {
		return h
	}
	return s.getenv("USERPROFILE")
}

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
			o.files = append(o.files, v)
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
		return hookUsage(ctx, sys, args, hu)
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

// serveBinary is the name of toolguard built with `-tags serve`: the
// same program with the HTTP server (serve.go) linked in, which
// `toolguard serve` runs (serve_exec.go).
const serveBinary = "toolguard-serve"

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
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err.Error()} })
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

// argPath makes a path typed on the command line or named in a setting
// absolute: "~" and "~/…" become home + the rest when home is known (else
// they stay relative and are joined), a relative path is joined to cwd
// (filepath.Join, which cleans it), "" stays "". Unlike protocol.Abs (the
// paths a tool names) an absolute path is kept exactly as typed, not
// cleaned, and a Windows-looking path is relative: the files the user
// names are opened, recorded and shown as given (abs_test.go pins the
// differences).
func argPath(p, cwd, home string) string { return absFrom(cwd, expandTilde(p, home)) }

// absFrom makes p absolute against dir.
func absFrom(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
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

// stdinIsTerminal reports whether the process's stdin is a character
// device (a terminal), with the standard library only.
func stdinIsTerminal() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
