package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/call"
)

type rulesOptions struct {
	policyFlags
	json bool
}

func newRulesCmd(sys *system) *cobra.Command {
	var o rulesOptions
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the effective rules with decision, layer and file:line",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ps, err := o.load(sys, projectDir(sys))
			if err != nil {
				return err
			}
			info := ps.pol.Info()
			if o.json {
				enc := json.NewEncoder(sys.stdout)
				enc.SetIndent("", "  ")
				out := map[string]any{"rules": info, "layers": ps.pol.Layers, "hash": ps.pol.Hash()}
				if ig := ignoredParts(sys, ps.pol); len(ig) > 0 {
					out["ignored"] = ig
				}
				return enc.Encode(out)
			}
			tw := tabwriter.NewWriter(sys.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tDECISION\tPRIO\tLAYER\tSOURCE\tDESCRIPTION")
			for _, r := range info {
				d := r.Decision
				if r.Locked {
					d += " (locked)"
				}
				fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", r.ID, d, r.Priority, r.Layer, r.Source, r.Description)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			writeIgnored(sys.stdout, ignoredParts(sys, ps.pol))
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.json, "json", false, "print JSON")
	o.register(cmd)
	return cmd
}

// projectDir is the project of the current directory: its git top level,
// else the directory itself.
func projectDir(sys *system) string {
	wd, _ := sys.getwd()
	return projectOf(wd)
}

// projectOf is the project a directory belongs to: its git top level, else
// the directory itself.
func projectOf(dir string) string {
	if top := gitTop(dir); top != "" {
		return top
	}
	return dir
}

// callProject is the project whose policy a call is decided by — the
// workspace root, never the call's cwd itself: the agent's project
// directory (payload, then environment), else the git top level above the
// call's cwd, else that cwd (else toolguard's own). A .toolguard/ below
// the root (a planted sub/.toolguard/policy.toml, then `cd sub`) is not
// discovered.
func callProject(sys *system, c *call.Call) string {
	if c.ProjectDir != "" && filepath.IsAbs(c.ProjectDir) {
		return filepath.Clean(c.ProjectDir)
	}
	for _, name := range []string{"CLAUDE_PROJECT_DIR", "CODEBUDDY_PROJECT_DIR", "GEMINI_PROJECT_DIR", "DEVIN_PROJECT_DIR"} {
		if w := sys.getenv(name); w != "" && filepath.IsAbs(w) {
			return filepath.Clean(w)
		}
	}
	dir := c.ProjectDir
	if dir == "" {
		dir = c.Cwd
	}
	if dir == "" {
		dir, _ = sys.getwd()
	}
	return projectOf(dir)
}
