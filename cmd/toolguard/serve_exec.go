package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/toolguard/toolguard/internal/guard"
)

// toolguard has no HTTP server: net/http, crypto/tls and html/template
// cost every hook process about 0.3 ms of start-up (docs/performance.md),
// and a hook runs before every tool call. `toolguard serve` runs the
// toolguard-serve binary instead (cmd/toolguard-serve), shipped beside this
// one by every release archive and package. sys.serve, in tests, serves in
// this process instead.
func newServeCmd(sys *system) *cobra.Command {
	if sys.serve != nil {
		return sys.serve(sys)
	}
	return &cobra.Command{
		Use:                "serve [flags]",
		Short:              "Serve the check endpoint, policy validation and the approval inbox over HTTP (runs toolguard-serve)",
		Long:               "serve runs " + guard.ServeBinary + " serve with the same arguments: the HTTP server is a separate binary so that the hook starts fast. See docs/api.md.",
		DisableFlagParsing: true, // every flag is toolguard-serve's
		RunE: func(cmd *cobra.Command, args []string) error {
			return runServeBinary(sys, args)
		},
	}
}

// runServeBinary runs toolguard-serve serve ARGS with this process's
// standard streams, passes it SIGINT and SIGTERM, and exits as it does.
func runServeBinary(sys *system, args []string) error {
	bin, err := findServeBinary(sys)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, append([]string{"serve"}, args...)...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = sys.stdin, sys.stdout, sys.stderr
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("serve: %v", err)
	}
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		select {
		case s := <-sig:
			_ = cmd.Process.Signal(s)
		case err := <-done:
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				return &exitError{code: exit.ExitCode()}
			}
			return err
		}
	}
}

// findServeBinary is toolguard-serve beside this binary (as installed, or
// where its symbolic link points), else on PATH.
func findServeBinary(sys *system) (string, error) {
	var tried []string
	if exe, err := sys.executable(); err == nil && exe != "" {
		dirs := []string{filepath.Dir(exe)}
		if r, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(r) != dirs[0] {
			dirs = append(dirs, filepath.Dir(r))
		}
		for _, d := range dirs {
			p := filepath.Join(d, guard.ServeBinary+filepath.Ext(exe))
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
				return p, nil
			}
			tried = append(tried, p)
		}
	}
	if p, err := exec.LookPath(guard.ServeBinary); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("serve: this toolguard has no HTTP server built in and %s is not installed (looked at %v and PATH); "+
		"release archives and packages ship it beside toolguard; from source: go build -o %s ./cmd/toolguard-serve", guard.ServeBinary, tried, guard.ServeBinary)
}
