package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

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
	if o.scope != install.ScopeProject || o.dir != "" || o.portable || len(o.policies) > 0 || o.preToolOnly {
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
		serveSrc = filepath.Join(filepath.Dir(src), serveBinary+filepath.Ext(src))
		if _, err := os.Stat(serveSrc); err != nil {
			return fmt.Errorf("--serve: %s: %v (build it with `go build -tags serve -o %s ./cmd/toolguard`)", serveSrc, err, serveSrc)
		}
	}
	res, err := install.SystemInstall(install.SystemOptions{Root: root, Source: src, ServeSource: serveSrc, Providers: providers,
		Sandbox: f.sandbox, Serve: f.serve, DryRun: o.dryRun})
	print(res)
	if err != nil {
		return err
	}
	if f.serve {
		serveSetup(sys, root, o.dryRun)
	}
	fmt.Fprintf(sys.stdout, "check it: toolguard doctor --system --user NAME\n")
	return nil
}

// serveSetup creates the toolguard account and the approver group and
// starts the server's socket unit when this is the real system and systemd
// runs it; otherwise it says what to do.
func serveSetup(sys *system, root string, dry bool) {
	type step struct {
		show  string
		need  func() bool
		argv  []string
		after string
	}
	missingGroup := func(name string) func() bool {
		return func() bool { _, err := user.LookupGroup(name); return err != nil }
	}
	missingUser := func(name string) func() bool {
		return func() bool { _, err := user.Lookup(name); return err != nil }
	}
	always := func() bool { return true }
	steps := []step{
		{"groupadd --system toolguard-approvers", missingGroup("toolguard-approvers"),
			[]string{"groupadd", "--system", "toolguard-approvers"}, "members of toolguard-approvers approve over the socket: usermod -aG toolguard-approvers ADMIN"},
		{"useradd --system --home-dir /var/lib/toolguard --shell /usr/sbin/nologin toolguard", missingUser("toolguard"),
			[]string{"useradd", "--system", "--home-dir", "/var/lib/toolguard", "--shell", "/usr/sbin/nologin", "toolguard"}, ""},
		{"systemctl daemon-reload", always, []string{"systemctl", "daemon-reload"}, ""},
		{"systemctl enable --now toolguard.socket", always, []string{"systemctl", "enable", "--now", "toolguard.socket"},
			"toolguard serve starts on the first connection to " + install.SystemSocket},
	}
	_, noSystemd := os.Stat("/run/systemd/system")
	if root != "/" || dry || noSystemd != nil {
		why := "no systemd"
		if root != "/" || dry {
			why = "not the live system"
		}
		fmt.Fprintf(sys.stdout, "note: toolguard serve was not set up (%s); as root:\n", why)
		for _, st := range steps {
			fmt.Fprintf(sys.stdout, "  %s\n", st.show)
		}
		fmt.Fprintf(sys.stdout, "  (without systemd: run the ExecStart line of /etc/systemd/system/toolguard.service as the toolguard account; packaging/container/README.md)\n")
		return
	}
	for _, st := range steps {
		if !st.need() {
			continue
		}
		if out, err := exec.Command(st.argv[0], st.argv[1:]...).CombinedOutput(); err != nil {
			fmt.Fprintf(sys.stderr, "toolguard: %s: %v: %s\n", st.show, err, strings.TrimSpace(string(out)))
			fmt.Fprintf(sys.stderr, "toolguard: the server is not set up; finish by hand from that step (docs/install.md, \"System mode\")\n")
			return
		}
		fmt.Fprintf(sys.stdout, "ran: %s\n", st.show)
		if st.after != "" {
			fmt.Fprintf(sys.stdout, "note: %s\n", st.after)
		}
	}
}
