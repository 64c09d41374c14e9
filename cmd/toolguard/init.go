package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/policy"
)

type initOptions struct {
	preset string
	scope  string
	dir    string
	force  bool
}

func newInitCmd(sys *system) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init [--preset standard|strict|headless|allow-list] [--scope project|user]",
		Short: "Write a commented starter policy whose [[test]]s pass",
		Long: `init writes a starter policy: <project>/.toolguard/policy.toml (scope project) or
$XDG_CONFIG_HOME/toolguard/policy.toml (scope user) — the places the hook looks.

  standard    the embedded defaults and an example rule
  strict      unreadable or dynamic commands denied; MCP and unknown tools, and writes
              outside the workspace, asked about
  headless    for unattended agents: ask becomes a deny with an approval request
  allow-list  everything not explicitly allowed is asked about

It refuses to overwrite an existing file without --force.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInit(sys, &o) },
	}
	cmd.Flags().StringVar(&o.preset, "preset", "standard", "starter policy: "+strings.Join(policy.PresetNames(), ", "))
	cmd.Flags().StringVar(&o.scope, "scope", "project", "project or user")
	cmd.Flags().StringVar(&o.dir, "dir", "", "project directory (default: the git top level, else the current directory)")
	cmd.Flags().BoolVar(&o.force, "force", false, "overwrite an existing policy file")
	return cmd
}

func runInit(sys *system, o *initOptions) error {
	data, err := policy.Preset(o.preset)
	if err != nil {
		return usagef("%v", err)
	}
	var path string
	switch o.scope {
	case "project":
		dir := o.dir
		if dir == "" {
			dir = projectDir(sys)
		}
		cwd, _ := sys.getwd()
		path = filepath.Join(absFrom(cwd, dir), ".toolguard", "policy.toml")
	case "user":
		cfg := sys.getenv("XDG_CONFIG_HOME")
		if cfg == "" {
			if sys.home() == "" {
				return fmt.Errorf("no HOME or XDG_CONFIG_HOME for --scope user")
			}
			cfg = filepath.Join(sys.home(), ".config")
		}
		path = filepath.Join(cfg, "toolguard", "policy.toml")
	default:
		return usagef("--scope wants project or user, got %q", o.scope)
	}
	if _, err := os.Stat(path); err == nil && !o.force {
		return fmt.Errorf("%s exists; nothing written (use --force to overwrite)", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return err
	}
	fmt.Fprintf(sys.stdout, "wrote %s (preset %s); check it with: toolguard validate %s\n", path, o.preset, path)
	return nil
}
