package main

import (
	"fmt"

	"github.com/toolguard/toolguard/internal/install"
	"github.com/toolguard/toolguard/internal/protocol"
)

// runInstallHTTP is install --http: Claude Code's HTTP hook posting to
// toolguard serve's /v1/hooks/claude-code, the node token read from an
// environment variable (internal/install/httphook.go).
func runInstallHTTP(sys *system, o *installOptions, provider, dir string) error {
	if provider != protocol.NameClaude {
		return usagef("%v", install.ErrHTTPProvider)
	}
	if o.http == "" {
		return usagef("--token-env goes with --http")
	}
	if len(o.policies) > 0 || o.command != "" || o.portable || o.preToolOnly {
		return usagef("--http installs an HTTP hook: --policy, --command, --portable and --pre-tool-only are for the command hook (the server's policy decides)")
	}
	res, err := install.InstallHTTP(install.HTTPOptions{Scope: o.scope, Dir: dir, Home: sys.home(),
		URL: o.http, Env: o.tokenEnv, DryRun: o.dryRun})
	if err != nil {
		return usagef("%v", err)
	}
	printInstall(sys, o.dryRun, res, true)
	return nil
}

// uninstallHTTP removes Claude Code's toolguard HTTP hooks after the
// command hooks (uninstall removes every toolguard hook of the file).
func uninstallHTTP(sys *system, o *installOptions, dir string) error {
	res, err := install.UninstallHTTP(install.HTTPOptions{Scope: o.scope, Dir: dir, Home: sys.home(), DryRun: o.dryRun})
	if err != nil {
		return err
	}
	if res.Changed {
		printInstall(sys, o.dryRun, res, false)
	}
	return nil
}

func printInstall(sys *system, dryRun bool, res install.Result, notes bool) {
	prefix := ""
	if dryRun {
		prefix = "(dry run) "
	}
	fmt.Fprintf(sys.stdout, "%s%s\n", prefix, res.Summary)
	if res.Backup != "" {
		fmt.Fprintf(sys.stdout, "%sbackup: %s\n", prefix, res.Backup)
	}
	if notes {
		for _, n := range res.Notes {
			fmt.Fprintf(sys.stdout, "note: %s\n", n)
		}
	}
}
