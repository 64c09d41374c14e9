package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/protocol"
	"github.com/toolguard/toolguard/internal/shellparse"
	"github.com/toolguard/toolguard/internal/workspace"
)

type installOptions struct {
	provider    string
	scope       string
	dir         string
	policies    []string
	dryRun      bool
	command     string
	portable    bool
	preToolOnly bool
	sys         systemInstallFlags // --system (install_system.go)
	native      bool               // the policy's locked denies into the agent's own deny list (install_native.go)
	http        string             // --http URL: Claude Code's HTTP hook at serve (install_http.go)
	tokenEnv    string
}

func newInstallCmd(sys *system, uninstall bool) *cobra.Command {
	var o installOptions
	use, short := "install", "Add toolguard as an agent's PreToolUse hook (idempotent, keeps a backup)"
	if uninstall {
		use, short = "uninstall", "Remove toolguard's hook entries from an agent's settings, and nothing else"
	}
	cmd := &cobra.Command{
		Use:   use + " --provider P [--scope project|user] [--dir D]",
		Short: short,
		Long: short + `.

Settings files written (project scope / user scope):
  claude-code  .claude/settings.json      ~/.claude/settings.json
  codebuddy    .codebuddy/settings.json   ~/.codebuddy/settings.json
  codex        .codex/hooks.json          ~/.codex/hooks.json
  gemini       .gemini/settings.json      ~/.gemini/settings.json
  cursor       .cursor/hooks.json         ~/.cursor/hooks.json
  copilot      .github/hooks/toolguard.json  ~/.copilot/hooks/toolguard.json

The project is the git top level of --dir (default: the current directory), as for
init and doctor. Other keys and other hooks are left as they are; a file that does not
parse is not touched. Besides the pre-tool event, the same command goes on the agent's
prompt, session and post-tool events (docs/agents.md) unless --pre-tool-only.

The hook command is the path this binary was run by (a package manager's symlink on
PATH is kept, not its versioned target), after asking it ("version") that it is
toolguard, with "hook --provider P" and any --policy files (made absolute; each must
load, or nothing is written). A binary in the Go build cache (go run) is refused.
--portable writes a bare "toolguard" instead, looked up on PATH when the hook runs:
for files a team commits; see docs/install.md for what that trusts.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInstall(sys, &o, uninstall) },
	}
	fl := cmd.Flags()
	fl.StringVar(&o.provider, "provider", "", "agent: claude-code (claude), codebuddy, codex, gemini, cursor, copilot, windsurf")
	fl.StringVar(&o.scope, "scope", install.ScopeProject, "project or user")
	fl.StringVar(&o.dir, "dir", "", "project directory (default: the git top level of the current directory)")
	fl.BoolVar(&o.dryRun, "dry-run", false, "show what would change; write nothing")
	o.sys.register(cmd, uninstall)
	fl.BoolVar(&o.native, "native", false, "claude-code: write (uninstall: remove) the locked deny rules Claude Code can express into its permissions.deny")
	if uninstall {
		fl.StringVar(&o.command, "command", "", "also remove hooks running this binary when it is not named toolguard (default: this one)")
	} else {
		fl.StringArrayVar(&o.policies, "policy", nil, "policy file the hook should load (repeatable; must load)")
		fl.StringVar(&o.command, "command", "", "the toolguard binary to run (default: this one)")
		fl.BoolVar(&o.portable, "portable", false, "write a bare `toolguard` (found on PATH when the hook runs) instead of an absolute path")
		fl.BoolVar(&o.preToolOnly, "pre-tool-only", false, "add only the pre-tool hook, not the prompt, session and post-tool ones")
		fl.StringVar(&o.http, "http", "", "claude-code: write an HTTP hook posting to toolguard serve at `URL` (onFailure block) instead of a command hook")
		fl.StringVar(&o.tokenEnv, "token-env", "", "with --http: the environment variable holding the node token (default TOOLGUARD_NODE_TOKEN)")
	}
	return cmd
}

func runInstall(sys *system, o *installOptions, uninstall bool) error {
	if o.sys.on {
		return runSystemInstall(sys, o, uninstall)
	}
	if o.provider == "" {
		return usagef("--provider is required (one of %s)", strings.Join(protocol.Names(), ", "))
	}
	codec, err := protocol.Lookup(o.provider)
	if err != nil || codec.Name() == "universal" {
		return usagef("unknown provider %q (want %s)", o.provider, strings.Join(protocol.Names(), ", "))
	}
	if o.scope != install.ScopeProject && o.scope != install.ScopeUser {
		return usagef("--scope wants project or user, got %q", o.scope)
	}
	if o.native {
		return runNative(sys, o, codec.Name(), uninstall)
	}
	if o.portable && o.command != "" {
		return usagef("--portable and --command exclude each other")
	}
	cwd, _ := sys.getwd()
	dir := sys.env().CurrentProject()
	if o.dir != "" {
		dir = workspace.ProjectOf(workspace.ArgPath(o.dir, cwd, sys.home()))
	}
	if o.http != "" || o.tokenEnv != "" {
		return runInstallHTTP(sys, o, codec.Name(), dir)
	}
	opts := install.Options{Provider: codec.Name(), Scope: o.scope, Dir: dir, Home: sys.home(),
		DryRun: o.dryRun, PreToolOnly: o.preToolOnly}
	if !uninstall {
		// --policy first: a hook whose policy does not load denies every call.
		var abs []string
		for _, p := range o.policies {
			abs = append(abs, workspace.ArgPath(p, cwd, sys.home()))
		}
		if len(abs) > 0 {
			pf := policyFlags{workspace.Selection{Files: abs}}
			if _, err := pf.load(sys, dir); err != nil {
				return fmt.Errorf("--policy does not load, nothing was written: %w", err)
			}
		}
		bin, err := installBinary(sys, o)
		if err != nil {
			return err
		}
		opts.Program = bin
		parts := []string{shellparse.Quote(bin), "hook", "--provider", codec.Name()}
		for _, p := range abs {
			parts = append(parts, "--policy", shellparse.Quote(p))
		}
		opts.Command = strings.Join(parts, " ")
	} else if o.command != "" {
		opts.Program = workspace.ArgPath(o.command, cwd, sys.home())
	} else if exe, err := sys.executable(); err == nil {
		opts.Program = install.StableBinary(exe, argv0(), cwd)
	}
	var res install.Result
	if uninstall {
		res, err = install.Uninstall(opts)
	} else {
		res, err = install.Install(opts)
	}
	if err != nil {
		return err
	}
	printInstall(sys, o.dryRun, res, !uninstall)
	if uninstall && codec.Name() == protocol.NameClaude {
		return uninstallHTTP(sys, o, dir) // install_http.go
	}
	return nil
}

// installBinary is the program the hook command runs (install.Binary).
func installBinary(sys *system, o *installOptions) (string, error) {
	cwd, _ := sys.getwd()
	var caches []string
	if c := sys.getenv("GOCACHE"); c != "" && c != "off" {
		caches = append(caches, c)
	}
	if d, err := os.UserCacheDir(); err == nil {
		caches = append(caches, filepath.Join(d, "go-build"))
	}
	return install.Binary(install.BinaryOptions{Portable: o.portable, Command: o.command, Cwd: cwd, Home: sys.home(),
		Executable: sys.executable, Argv0: argv0(), Caches: caches})
}

// argv0 is the name this process was started by (tests replace it).
var argv0 = func() string {
	if len(os.Args) == 0 {
		return ""
	}
	return os.Args[0]
}
