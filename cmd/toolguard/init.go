package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/policy"
	"github.com/toolguard/toolguard/internal/workspace"
)

type initOptions struct {
	preset string
	scope  string
	dir    string
	force  bool
	dryRun bool
}

// schemaURL is where the policy's JSON Schema is published (the checked-in
// schema/policy.schema.json); init names it in a #:schema comment, which
// TOML editors (taplo, Even Better TOML) read for completion and checks.
var schemaURL = policy.SchemaID(policy.FormTOML)

func newInitCmd(sys *system) *cobra.Command {
	var o initOptions
	cmd := &cobra.Command{
		Use:   "init [--preset standard|strict|headless|allow-list] [--scope project|user]",
		Short: "Write a commented starter policy whose [[test]]s pass",
		Long: `init writes a starter policy: <project>/.toolguard/policy.toml (scope project) or
$XDG_CONFIG_HOME/toolguard/policy.toml (scope user) — the places the hook looks.

  standard    the embedded defaults and an example rule
  strict      unreadable or dynamic commands denied; MCP and unknown tools, and deletes
              outside the workspace, asked about
  headless    for unattended agents: ask becomes a deny with an approval request
  allow-list  everything not explicitly allowed is asked about

It refuses to overwrite an existing file without --force; --dry-run prints the
file and where it would go, and writes nothing. The file is written whole (a
temporary file renamed into place) and starts with a #:schema comment naming the
policy's JSON Schema, for editors.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runInit(sys, &o) },
	}
	cmd.Flags().StringVar(&o.preset, "preset", "standard", "starter policy: "+strings.Join(policy.PresetNames(), ", "))
	cmd.Flags().StringVar(&o.scope, "scope", "project", "project or user")
	cmd.Flags().StringVar(&o.dir, "dir", "", "project directory (default: the git top level, else the current directory)")
	cmd.Flags().BoolVar(&o.force, "force", false, "overwrite an existing policy file")
	cmd.Flags().BoolVar(&o.dryRun, "dry-run", false, "print what would be written, and where; write nothing")
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
			dir = sys.env().CurrentProject()
		}
		cwd, _ := sys.getwd()
		path = filepath.Join(workspace.AbsFrom(cwd, dir), ".toolguard", "policy.toml")
	case "user":
		if path = sys.env().UserPolicyFile(); path == "" {
			return fmt.Errorf("no HOME or XDG_CONFIG_HOME for --scope user")
		}
	default:
		return usagef("--scope wants project or user, got %q", o.scope)
	}
	data = append([]byte("#:schema "+schemaURL+"\n"), data...)
	_, statErr := os.Lstat(path)
	exists := statErr == nil
	if o.dryRun {
		verb := "would write"
		if exists && !o.force {
			verb = "exists; would not overwrite (without --force)"
		} else if exists {
			verb = "would overwrite"
		}
		fmt.Fprintf(sys.stdout, "# %s %s (preset %s); nothing written (--dry-run)\n", path, verb, o.preset)
		_, err := sys.stdout.Write(data)
		return err
	}
	if exists && !o.force {
		return fmt.Errorf("%s exists; nothing written (use --force to overwrite)", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := workspace.WritePolicyFile(path, data, o.force); err != nil {
		return err
	}
	fmt.Fprintf(sys.stdout, "wrote %s (preset %s); check it with: toolguard validate %s\n", path, o.preset, path)
	if o.scope == "project" {
		// A project policy is untrusted until trusted: it can only tighten
		// (docs/trust.md). Say so, or the user believes its allows count.
		fmt.Fprintf(sys.stdout, "the hook treats it as untrusted (its allows and loosened settings do not count) until you run: toolguard trust %s\n", path)
	}
	return nil
}
