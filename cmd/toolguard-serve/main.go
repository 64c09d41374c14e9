// Command toolguard-serve is toolguard's HTTP server: the check endpoint,
// policy validation, the approval inbox and the approval API the hooks of
// sandboxed agents use (docs/api.md). It is its own binary so that the
// hook, which starts before every tool call, does not link net/http,
// crypto/tls and html/template; `toolguard serve` runs it from beside the
// toolguard binary.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/toolguard/toolguard/internal/guard"
	"github.com/toolguard/toolguard/internal/serve"
	"github.com/toolguard/toolguard/internal/workspace"
)

// Set by the release build: -ldflags "-X main.version=… -X main.commit=… -X main.date=…".
var version, commit, date string

func main() {
	sys := guard.System{
		Env:    workspace.Env{Getenv: os.Getenv, Getwd: os.Getwd, Executable: os.Executable, Etc: "/etc"},
		Now:    time.Now,
		Stderr: os.Stderr,
	}
	os.Exit(run(context.Background(), os.Args[1:], sys))
}

// run executes one toolguard-serve command line and returns the exit code:
// 0, or 1 for a usage or runtime failure.
func run(ctx context.Context, args []string, sys guard.System) int {
	root := &cobra.Command{
		Use:           "toolguard-serve",
		Short:         "toolguard's HTTP server: `toolguard-serve serve` (what `toolguard serve` runs)",
		Version:       versionString(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return workspace.Usagef("%v", err) })
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(serve.NewCommand(sys))
	root.SetArgs(args)
	root.SetOut(os.Stdout)
	root.SetErr(sys.Stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return 0
	}
	fmt.Fprintf(sys.Stderr, "toolguard: %v\n", err)
	var ue *workspace.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(sys.Stderr, "Run '%s --help' for usage.\n", cmd.CommandPath())
	}
	return 1
}

// versionString is the release version, else the module's (go install
// …@vX), with the commit.
func versionString() string {
	v, c := version, commit
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && c == "" {
				c = s.Value
			}
		}
	}
	if v == "" {
		v = "devel"
	}
	if c != "" {
		v += " (" + c + ")"
	}
	if date != "" {
		v += " " + date
	}
	return "toolguard-serve " + v
}
