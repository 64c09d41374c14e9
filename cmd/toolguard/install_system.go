package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/install"
)

// install --system and uninstall --system (internal/install/system.go;
// docs/install.md, "System mode").
type systemInstallFlags struct {
	on      bool
	root    string
	sandbox bool
	serve   bool
}

func (f *systemInstallFlags) register(cmd *cobra.Command, uninstall bool) {
	fl := cmd.Flags()
	fl.BoolVar(&f.on, "system", false, "system mode (as root): root-owned binary, platform policy and each agent's managed settings (docs/install.md)")
	fl.StringVar(&f.root, "root", "/", "with --system: install into this directory tree instead of / (image builds, tests)")
	if !uninstall {
		fl.BoolVar(&f.sandbox, "sandbox", false, "with --system: also force the agents' own sandboxes on (Claude Code sandbox, Codex allowed_sandbox_modes)")
		fl.BoolVar(&f.serve, "serve", false, "with --system: approvals and audit through toolguard serve on "+install.SystemSocket+", run as the toolguard account")
	}
}

// geteuid is the effective uid (a variable: tests).
var geteuid = os.Geteuid

func runSystemInstall(sys *system, o *installOptions, uninstall bool) error {
	f := &o.sys
	if o.scope != install.ScopeProject || o.dir != "" || o.portable || len(o.policies) > 0 || o.preToolOnly || o.native {
		return usagef("--system goes with --provider, --root, --sandbox, --serve, --command and --dry-run only")
	}
	root := f.root
	if root == "" {
		root = "/"
	}
	if !filepath.IsAbs(root) {
		return usagef("--root %q: want an absolute directory", root)
	}
	if root == "/" && geteuid() != 0 && !o.dryRun {
		return errors.New("install --system changes root-owned files: run it as root (sudo toolguard install --system); " +
			"--root DIR writes the same tree under DIR for an image build")
	}
	prefix := ""
	if o.dryRun {
		prefix = "(dry run) "
	}
	print := func(res install.SystemResult) {
		for _, l := range res.Lines {
			fmt.Fprintf(sys.stdout, "%s%s\n", prefix, l)
		}
		for _, n := range res.Notes {
			fmt.Fprintf(sys.stdout, "note: %s\n", n)
		}
	}
	if uninstall {
		res, err := install.SystemUninstall(root, o.dryRun)
		print(res)
		return err
	}
	o.command = strings.TrimSpace(o.command)
	src, err := installBinary(sys, o)
	if err != nil {
		return err
	}
	var providers []string
	if o.provider != "" {
		providers = strings.Split(o.provider, ",")
	}
	serveSrc := ""
	if f.serve {
		// toolguard serve runs toolguard-serve from beside the binary (serve_exec.go).
		serveSrc = filepath.Join(filepath.Dir(src), guard.ServeBinary+filepath.Ext(src))
		if _, err := os.Stat(serveSrc); err != nil {
			return fmt.Errorf("--serve: %s: %v (build it with `go build -o %s ./cmd/toolguard-serve`)", serveSrc, err, serveSrc)
		}
	}
	var approvers []string
	if f.serve {
		pub, line, err := install.ServerKey(root, o.dryRun)
		if err != nil {
			return err
		}
		if line != "" {
			fmt.Fprintln(sys.stdout, line)
		}
		if pub != "" {
			approvers = append(approvers, pub)
		}
	}
	res, err := install.SystemInstall(install.SystemOptions{Root: root, Source: src, ServeSource: serveSrc, Providers: providers,
		Sandbox: f.sandbox, Serve: f.serve, Approvers: approvers, DryRun: o.dryRun})
	print(res)
	if err != nil {
		return err
	}
	if f.serve && len(approvers) > 0 {
		if pol, _ := os.ReadFile(filepath.Join(root, install.SystemPolicy)); !strings.Contains(string(pol), approvers[0]) {
			fmt.Fprintf(sys.stdout, "note: %s was kept as it was: add the server's key to its [settings] so that the hook honours the server's grants:\n  approvers = [%q]\n", install.SystemPolicy, approvers[0])
		}
	}
	if f.serve {
		serveSetup(sys, root, o.dryRun)
	}
	fmt.Fprintf(sys.stdout, "check it: toolguard doctor --system --user NAME\n")
	return nil
}

// serveSetup sets the server up on the live system, or says how
// (install.ServeSetup).
func serveSetup(sys *system, root string, dry bool) {
	lines, failed := install.ServeSetup(root, dry)
	for _, l := range lines {
		fmt.Fprintln(sys.stdout, l)
	}
	fmt.Fprint(sys.stderr, failed)
}
