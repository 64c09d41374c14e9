package install

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"

	"github.com/toolguard/toolguard/internal/approval"
)

// ServerStateDir is the server's state directory (the unit's
// StateDirectory) and ServerKeyPath its approver key (XDG_CONFIG_HOME is
// the state directory in the unit).
const (
	ServerStateDir = "/var/lib/toolguard"
	ServerKeyPath  = ServerStateDir + "/toolguard/approver.key"
)

// ServerKey makes sure the server's approver key exists under root (0600
// in 0700 directories; ServeSetup hands them to the toolguard account)
// and returns its public text, which the platform policy lists in
// settings.approvers: the hook verifies every grant the server hands it.
// line says what was done ("" when the key existed); a dry run creates
// nothing and returns no key.
func ServerKey(root string, dry bool) (pub, line string, err error) {
	path := filepath.Join(root, ServerKeyPath)
	key, err := approval.LoadKey(path)
	if err == nil {
		return approval.PublicText(key.Public().(ed25519.PublicKey)), "", nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return "", "", fmt.Errorf("the server's approver key: %v", err)
	}
	if dry {
		return "", "(dry run) create the server's approver key " + ServerKeyPath, nil
	}
	// /var/lib stays traversable; the state and key directories are 0700.
	if err := os.MkdirAll(filepath.Join(root, filepath.Dir(ServerStateDir)), 0o755); err != nil {
		return "", "", err
	}
	for _, d := range []string{ServerStateDir, filepath.Dir(ServerKeyPath)} {
		if err := os.Mkdir(filepath.Join(root, d), 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", "", err
		}
	}
	key, err = approval.GenerateKey(path)
	if err != nil {
		return "", "", fmt.Errorf("creating the server's approver key: %v", err)
	}
	pk := key.Public().(ed25519.PublicKey)
	return approval.PublicText(pk), fmt.Sprintf("create the server's approver key %s (%s)", ServerKeyPath, approval.Fingerprint(pk)), nil
}

// ServeSetup creates the toolguard account and the approver group and
// starts the server's socket unit when this is the real system (root "/",
// not a dry run) and systemd runs it; otherwise its lines say what to do.
// lines go to stdout; failed, when a step fails, says which (for stderr)
// and that the rest is to be done by hand.
func ServeSetup(root string, dry bool) (lines []string, failed string) {
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
		{"chown -R toolguard:toolguard " + ServerStateDir, always, []string{"chown", "-R", "toolguard:toolguard", ServerStateDir}, ""},
		{"systemctl daemon-reload", always, []string{"systemctl", "daemon-reload"}, ""},
		{"systemctl enable --now toolguard.socket", always, []string{"systemctl", "enable", "--now", "toolguard.socket"},
			"toolguard serve starts on the first connection to " + SystemSocket},
	}
	_, noSystemd := os.Stat("/run/systemd/system")
	if root != "/" || dry || noSystemd != nil {
		why := "no systemd"
		if root != "/" || dry {
			why = "not the live system"
		}
		lines = append(lines, fmt.Sprintf("note: toolguard serve was not set up (%s); as root:", why))
		for _, st := range steps {
			lines = append(lines, "  "+st.show)
		}
		lines = append(lines, "  (without systemd: run the ExecStart line of /etc/systemd/system/toolguard.service as the toolguard account; packaging/container/README.md)")
		return lines, ""
	}
	for _, st := range steps {
		if !st.need() {
			continue
		}
		if out, err := exec.Command(st.argv[0], st.argv[1:]...).CombinedOutput(); err != nil {
			return lines, fmt.Sprintf("toolguard: %s: %v: %s\n", st.show, err, strings.TrimSpace(string(out))) +
				"toolguard: the server is not set up; finish by hand from that step (docs/install.md, \"System mode\")\n"
		}
		lines = append(lines, "ran: "+st.show)
		if st.after != "" {
			lines = append(lines, "note: "+st.after)
		}
	}
	return lines, ""
}
