package install

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/toolguard/toolguard/internal/protocol"
)

// VersionTimeout bounds one `<cli> --version` run of AgentVersion.
const VersionTimeout = 5 * time.Second

// reVersion is compiled on first use (doctor), not at every hook start.
var reVersion = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\d+\.\d+\.\d+`) })

// AgentVersion asks provider's CLI for its version, when the CLI named by
// the per-agent table (internal/protocol/conformance.go, VersionCmd) is
// found on PATH, and says whether the table covers it: the facts toolguard
// relies on (what an ask becomes, what a failing hook does) were measured
// on the versions in the row's Measured. found is false when there is no
// CLI to ask (nothing is reported then); warning is "" when the version is
// covered.
func AgentVersion(ctx context.Context, provider string) (version, warning string, found bool) {
	row, ok := protocol.ConformanceFor(provider)
	if !ok || len(row.VersionCmd) == 0 {
		return "", "", false
	}
	bin, err := exec.LookPath(row.VersionCmd[0])
	if err != nil {
		return "", "", false
	}
	ctx, cancel := context.WithTimeout(ctx, VersionTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, row.VersionCmd[1:]...).Output()
	version = reVersion().FindString(firstLine(string(out)))
	switch {
	case version == "":
		if err == nil {
			err = fmt.Errorf("no version in %q", capText(firstLine(string(out))))
		}
		return "", fmt.Sprintf("could not read %s's version (%s %s: %v): the conformance table (docs/agents.md) may not hold for it",
			row.Label, bin, strings.Join(row.VersionCmd[1:], " "), err), true
	case len(row.Measured) == 0:
		return version, fmt.Sprintf("%s %s: the conformance table has no measurements for %s (documented, not measured; docs/agents.md)",
			row.Label, version, row.Label), true
	case !slices.Contains(row.Measured, version):
		return version, fmt.Sprintf("%s %s is not a version the conformance table covers (measured on %s): what an ask becomes and what a failing hook does may differ (docs/agents.md)",
			row.Label, version, strings.Join(row.Measured, ", ")), true
	}
	return version, "", true
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
