package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/hook"
	"github.com/toolguard/toolguard/internal/workspace"
)

type checkOptions struct {
	decideFlags
	json     bool
	exitCode bool
	command  string // -c
	tool     string
	paths    []string
	mcp      string
	url      string
	payload  string
	provider string
	cwd      string
	input    string // --input: the tool input JSON of an --mcp call
}

func newCheckCmd(sys *system) *cobra.Command {
	var o checkOptions
	cmd := &cobra.Command{
		Use:   "check [flags] [-- COMMAND ARGS...]",
		Short: "Show the decision for a command, a file-tool call, an MCP call or a whole payload",
		Long: `check shows what the policy in effect decides, and why, without running anything.

  toolguard check -- git push --force origin main     an argv, quoted for the shell
  toolguard check -c 'cd x && git push -f'            a shell string
  toolguard check --tool write --path .github/workflows/ci.yml
  toolguard check --mcp github/delete_repository
  toolguard check --payload payload.json [--provider codex]   the exact hook reply

With --exit-code the exit status is 0 for allow or pass, 3 for ask, 4 for deny.`,
		RunE: func(cmd *cobra.Command, args []string) error { return runCheck(sys, &o, args) },
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.json, "json", false, "print the decision as JSON")
	fl.BoolVar(&o.exitCode, "exit-code", false, "exit 3 for ask and 4 for deny")
	fl.StringVarP(&o.command, "command", "c", "", "a shell string to check")
	fl.StringVar(&o.tool, "tool", "", "a tool kind (write, edit, read, search, web, agent, other) or a tool name of any agent (Write, write_file, mcp__fs__write_file), decoded as the hook decodes it")
	fl.StringArrayVar(&o.paths, "path", nil, "a path the tool names (repeatable)")
	fl.StringVar(&o.mcp, "mcp", "", "an MCP call as server/tool")
	fl.StringVar(&o.url, "url", "", "a URL for a web call")
	fl.StringVar(&o.payload, "payload", "", "a whole hook payload file (- for stdin)")
	fl.StringVar(&o.provider, "provider", "", "the payload's agent dialect (default: detected)")
	fl.StringVar(&o.cwd, "cwd", "", "working directory of the call (default: the current one)")
	fl.StringVar(&o.input, "input", "", "the tool input of an --mcp call, as JSON")
	o.register(cmd)
	return cmd
}

// checkResult decides the call check describes (guard.Check: the hook's
// decision, as a dry run).
func checkResult(sys *system, o *checkOptions, args []string) (*guard.Report, error) {
	q := guard.CheckRequest{Args: args, Command: o.command, Tool: o.tool, Paths: o.paths, MCP: o.mcp,
		Input: o.input, URL: o.url, Provider: o.provider, Cwd: o.cwd}
	if o.payload != "" {
		q.Payload = func() ([]byte, error) { return readFileOrStdin(sys, o.payload) }
	}
	return guard.Check(sys.guardSys(), o.Options, nil, q)
}

func readFileOrStdin(sys *system, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(io.LimitReader(sys.stdin, hook.MaxPayload+1))
	}
	return os.ReadFile(name)
}

func runCheck(sys *system, o *checkOptions, args []string) error {
	j, err := checkResult(sys, o, args)
	if err != nil {
		return err
	}
	return printCheck(sys, o, j)
}

func printCheck(sys *system, o *checkOptions, j *guard.Report) error {
	if o.json {
		if err := writeJSON(sys, j); err != nil {
			return err
		}
	} else {
		writeCheckText(sys.stdout, j)
	}
	if o.exitCode {
		switch j.Decision {
		case call.Ask:
			return &exitError{code: exitAsk}
		case call.Deny:
			return &exitError{code: exitDeny}
		}
	}
	return nil
}

func writeCheckText(w io.Writer, j *guard.Report) {
	fmt.Fprintf(w, "decision: %s\n", j.Decision)
	if j.Reason != "" {
		fmt.Fprintf(w, "reason:   %s\n", j.Reason)
	}
	if j.Error != "" {
		fmt.Fprintf(w, "error:    %s\n", j.Error)
	}
	if j.Workspace != "" {
		fmt.Fprintf(w, "workspace: %s\n", j.Workspace)
	}
	if j.Auto != "" {
		fmt.Fprintf(w, "auto-read-only: %s\n", j.Auto)
	}
	if len(j.Targets) > 0 {
		fmt.Fprintln(w, "targets:")
	}
	for _, t := range j.Targets {
		what := t.Kind
		switch t.Kind {
		case "command":
			what = "command " + strings.Join(t.Argv, " ")
			if len(t.Wrappers) > 0 {
				what += "   (inside " + strings.Join(t.Wrappers, " > ") + ")"
			}
		case "path":
			what = fmt.Sprintf("%s %s", t.Op, t.Path)
		case "call":
			what = "call " + t.Tool
		}
		by := ""
		if t.Rule != "" {
			by = " by " + t.Rule
		}
		if t.Note != "" {
			by += " (" + t.Note + ")"
		}
		fmt.Fprintf(w, "  %-5s %s%s\n", t.Decision, what, by)
	}
	if len(j.Matches) > 0 {
		fmt.Fprintln(w, "rules matched:")
	}
	for _, m := range j.Matches {
		lock := ""
		if m.Locked {
			lock = ", locked"
		}
		fmt.Fprintf(w, "  %-5s %s (layer %s, %s%s)\n", m.Decision, m.Rule, m.Layer, m.Source, lock)
	}
	writeIgnored(w, j.Ignored)
	if j.Reply != nil {
		fmt.Fprintf(w, "reply (%s, exit %d):\n", j.Reply.Provider, j.Reply.ExitCode)
		if j.Reply.Stdout == "" {
			fmt.Fprintln(w, "  (no output)")
		} else {
			fmt.Fprintf(w, "  %s", j.Reply.Stdout)
		}
	}
}

// writeIgnored prints the ignored parts of untrusted policies, if any.
func writeIgnored(w io.Writer, parts []workspace.IgnoredPart) {
	if len(parts) == 0 {
		return
	}
	fmt.Fprintln(w, "ignored (untrusted project policy, it can only tighten):")
	for _, p := range parts {
		fmt.Fprintf(w, "  %s\n", p)
	}
}
