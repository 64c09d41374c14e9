package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/importer"
	"github.com/toolguard/toolguard/internal/workspace"
)

type importOptions struct {
	claude, codex, gemini []string
	output                string
	force                 bool
}

func newImportCmd(sys *system) *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import [--claude FILE] [--codex FILE] [--gemini FILE] [-o FILE]",
		Short: "Turn Claude Code, Codex and Gemini CLI permission rules into one toolguard policy",
		Long: `import reads the permission rules your agents already have and writes one
toolguard policy layer for you to review: Claude Code's permissions.allow/ask/deny
(~/.claude/settings.json, .claude/settings.json, .claude/settings.local.json),
Codex's prefix_rule files (~/.codex/rules/*.rules, .codex/rules/*.rules) and
Gemini CLI's policy TOML (~/.gemini/policies/*.toml, .gemini/policies/*.toml).
With no --claude/--codex/--gemini it reads every one of those that exists.

Each rule is written with a comment naming its source file:line and a [[test]];
the head of the file (and stderr) lists every rule that could not be carried
exactly, and findings: rules an agent accepts but never consults, allows that a
stricter rule shadows, prefix allows a compound command would defeat. The
mapping only ever errs toward asking: see docs/import.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runImport(sys, &o) },
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.claude, "claude", nil, "a Claude Code settings file (repeatable)")
	f.StringArrayVar(&o.codex, "codex", nil, "a Codex .rules file (repeatable)")
	f.StringArrayVar(&o.gemini, "gemini", nil, "a Gemini CLI policy TOML file (repeatable)")
	f.StringVarP(&o.output, "output", "o", "", "write the policy to FILE instead of stdout")
	f.BoolVar(&o.force, "force", false, "overwrite an existing --output file")
	return cmd
}

func runImport(sys *system, o *importOptions) error {
	wd, _ := sys.getwd()
	home := sys.home()
	var named []importer.Location
	for _, l := range []struct {
		a     importer.Agent
		files []string
	}{{importer.Claude, o.claude}, {importer.Codex, o.codex}, {importer.Gemini, o.gemini}} {
		for _, p := range l.files {
			named = append(named, importer.Location{Agent: l.a, Path: workspace.ArgPath(p, wd, home)})
		}
	}
	srcs, err := importer.Collect(home, sys.env().CurrentProject(), named)
	if err != nil {
		return err
	}
	if len(srcs) == 0 {
		return &exitError{code: exitFailure, msg: "import: no agent rule file found (name one with --claude, --codex or --gemini)"}
	}
	res, err := importer.Import(srcs)
	if err != nil {
		return err
	}
	if err := res.Check(); err != nil {
		return err
	}
	fmt.Fprint(sys.stderr, res.NotesText())
	out := res.Policy()
	if o.output == "" {
		_, err := sys.stdout.Write(out)
		return err
	}
	path := workspace.ArgPath(o.output, wd, home)
	flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	if !o.force {
		flags |= os.O_EXCL
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if err != nil {
		if os.IsExist(err) {
			return usagef("%s exists (--force overwrites it)", path)
		}
		return err
	}
	if _, err := f.Write(out); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	fmt.Fprintf(sys.stderr, "wrote %s: run `toolguard validate %s` after editing it\n", path, o.output)
	return nil
}
