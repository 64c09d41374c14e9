package e2e

// TestNativeRules (issue 35, docs/import.md "Write-through under real Claude Code"):
// `toolguard install` plus `toolguard install --native` under real Claude Code, then the
// hook taken away (its binary removed, or hooks disabled). The policy's proven exact allow
// (permissions.allow) runs without a prompt in a mode that otherwise refuses an unlisted Bash
// call (`-p --permission-mode default`; a control run without the native rules shows it
// refused); its locked deny (permissions.deny) is still refused by Claude Code itself, also
// under bypassPermissions, where an unlisted call runs; look-alikes of the allow do not run.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The policy: no embedded defaults (with them no allow is provable: write-outside-workspace
// depends on scope and reaches every command, native_allow.go), an allow native_allow can
// prove and a locked deny Claude Code can express. The allow is a make target with a visible
// effect: Claude Code has no built-in read-only pass for make, so only permissions.allow can
// let it run in default mode.
const nativePolicy = `version = 1

[settings]
builtin = false
mode = "interactive"
audit_log = %q
state_dir = %q

[[rule]]
id = "e2e-make-allowed"
decision = "allow"
justification = "The e2e-allowed target is harmless."
command = ["make e2e-allowed"]

[[rule]]
id = "e2e-no-tag"
decision = "deny"
locked = true
justification = "Tags are made by the release job."
command = ["git tag"]
`

const nativeMakefile = "e2e-allowed:\n\ttouch allowed-ran\ne2e-other:\n\ttouch other-ran\n"

const (
	nativeAllow    = "make e2e-allowed"
	nativeDeny     = "git tag v1"
	nativeOther    = "make e2e-other"                         // the same program, another target
	nativeCompound = "make e2e-allowed && touch compound-ran" // the allow, then a call nobody allowed
	nativeControl  = "touch bypass-ran"                       // unlisted: runs under bypassPermissions
)

var (
	wantNativeDeny  = []string{"Bash(git tag)", "Bash(git tag *)"}
	wantNativeAllow = []string{"Bash(make e2e-allowed)"}
	// What Claude Code tells the model on a permissions.deny match (measured on 2.1.197 and
	// 2.1.332).
	reClaudeDenyRule = regexp.MustCompile(`^Permission to use Bash with command git tag v1 has been denied\.`)
)

// nativeVariant is one Claude Code version and one way the hook is gone.
type nativeVariant struct {
	name    string
	pkg     [2]string
	envKey  string // where its npm prefix may be moved
	prefix  string
	gone    string // "removed": the hook binary deleted; "disabled": disableAllHooks
	scope   string // where the hook and the native rules go: "project" or "user"
	blocked bool   // measured: the installed onFailure "block" blocks every call once the binary is gone
}

var nativeVariants = []nativeVariant{
	// the suite's pin: onFailure is ignored, a missing binary is a non-blocking hook error
	{name: "2.1.197/binary-removed", pkg: [2]string{"@anthropic-ai/claude-code", "2.1.197"}, envKey: "TOOLGUARD_E2E_NODE", prefix: "node", gone: "removed", scope: "project"},
	// the same in the user's settings, which project trust does not govern
	{name: "2.1.197/user-scope/binary-removed", pkg: [2]string{"@anthropic-ai/claude-code", "2.1.197"}, envKey: "TOOLGUARD_E2E_NODE", prefix: "node", gone: "removed", scope: "user"},
	// 2.1.295 and later honour the onFailure "block" `toolguard install` writes: every call blocked
	{name: "2.1.332/binary-removed", pkg: httpClaude, envKey: "TOOLGUARD_E2E_SYSTEM_NODE", prefix: "node-system", gone: "removed", scope: "project", blocked: true},
	// hooks switched off (disableAllHooks in .claude/settings.local.json): onFailure does not apply
	{name: "2.1.332/hooks-disabled", pkg: httpClaude, envKey: "TOOLGUARD_E2E_SYSTEM_NODE", prefix: "node-system", gone: "disabled", scope: "project"},
}

func TestNativeRules(t *testing.T) {
	start := time.Now()
	base := claudeSuite(t, nativeVariants[0].pkg, nativeVariants[0].envKey, nativeVariants[0].prefix)
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatal("TOOLGUARD_E2E=1 but TestNativeRules cannot run: make is not in PATH (the proven allow is a make target)")
	}
	for _, v := range nativeVariants {
		t.Run(v.name, func(t *testing.T) {
			count(t, start)
			s := base.withClaude(t, v.pkg, v.envKey, v.prefix)
			t.Logf("Claude Code: %s", s.claudeVersion(t))
			runNative(t, s, v)
		})
	}
}

// withClaude is s with Claude Code pkg from prefix on PATH (installed if missing).
func (s *suite) withClaude(t *testing.T, pkg [2]string, envKey, prefix string) *suite {
	t.Helper()
	c := *s
	c.nodeDir = envOr(envKey, filepath.Join(os.TempDir(), "toolguard-e2e", prefix))
	if err := npmInstallPkgs(t, c.nodeDir, [][2]string{pkg}); err != nil {
		t.Fatalf("installing %s@%s into %s failed: %v", pkg[0], pkg[1], c.nodeDir, err)
	}
	c.path = filepath.Join(c.nodeDir, "node_modules", ".bin") + string(os.PathListSeparator) + os.Getenv("PATH")
	return &c
}

func runNative(t *testing.T, s *suite, v nativeVariant) {
	c := newCase(t, s, claudeAgent("default"), "native/"+v.name)
	if err := os.WriteFile(c.Policy, []byte(fmt.Sprintf(nativePolicy, c.Audit, c.StateDir)), 0o644); err != nil {
		t.Fatal(err)
	}
	// the hook runs a copy of toolguard that this case can remove
	c.hookBin = filepath.Join(c.W, "hookbin", "toolguard")
	if err := copyExecutable(s.toolguard, c.hookBin); err != nil {
		t.Fatal(err)
	}
	cs := *s
	cs.toolguard = c.hookBin
	c.s = &cs
	if v.scope == "project" {
		c.install(t)
	} else {
		if err := c.a.prepare(c); err != nil {
			t.Fatal(err)
		}
		if out, err := c.toolguardCmd("install", "--provider", "claude-code", "--scope", v.scope, "--policy", c.Policy); err != nil {
			t.Fatalf("toolguard install --scope %s: %v\n%s", v.scope, err, out)
		}
	}
	if err := writeFile(filepath.Join(c.Proj, "Makefile"), nativeMakefile); err != nil {
		t.Fatal(err)
	}
	// toolguard itself stays for the commands below; only the hook's copy goes
	c.s = s

	switch v.gone {
	case "removed":
		if err := os.Remove(c.hookBin); err != nil {
			t.Fatal(err)
		}
		c.noHookExec = "the hook binary was removed"
	case "disabled":
		if err := writeFile(filepath.Join(c.Proj, ".claude", "settings.local.json"), `{"disableAllHooks": true}`+"\n"); err != nil {
			t.Fatal(err)
		}
		c.noHookExec = "hooks are disabled (disableAllHooks)"
	}
	ran := func(name string) bool {
		_, err := os.Stat(filepath.Join(c.Proj, name))
		return err == nil
	}

	native := func(verb string) {
		t.Helper()
		args := []string{verb, "--native", "--provider", "claude-code", "--scope", v.scope, "--dir", c.Proj}
		if verb == "install" {
			args = append(args, "--policy", c.Policy)
		}
		out, err := c.toolguardCmd(args...)
		if err != nil {
			t.Fatalf("toolguard %s --native: %v\n%s", verb, err, out)
		}
		t.Logf("%s --native:\n%s", verb, out)
	}
	settings := filepath.Join(c.Proj, ".claude", "settings.json")
	if v.scope == "user" {
		settings = filepath.Join(c.Home, ".claude", "settings.json")
	}

	// 1. the native rules (written by the toolguard the hook no longer runs), the project not
	// trusted (nobody accepted Claude Code's trust dialog for it): measured, Claude Code
	// ignores a project's permissions.allow then and still applies its permissions.deny; the
	// user's settings count either way
	native("install")
	deny, allow := nativeLists(t, settings)
	if !slices.Equal(deny, wantNativeDeny) || !slices.Equal(allow, wantNativeAllow) {
		t.Fatalf("%s: permissions.deny %q allow %q, want %q and %q", settings, deny, allow, wantNativeDeny, wantNativeAllow)
	}
	r := c.run(t, "untrusted", fakeScript{Seq: []string{nativeAllow, nativeDeny}, Cwd: c.Proj}, "do it", "")
	res := resultTexts(t, r, 2)
	t.Logf("untrusted project: %q -> %q; %q -> %q", nativeAllow, truncate(res[0], 300), nativeDeny, truncate(res[1], 300))
	if c.tagExists(t) {
		t.Errorf("%q ran in an untrusted project with the hook %s: the tag exists", nativeDeny, v.gone)
	}
	switch {
	case v.scope == "user" && !v.blocked:
		if !ran("allowed-ran") {
			t.Errorf("the proven allow %q in the user's settings did not run in an untrusted project: %q", nativeAllow, truncate(res[0], 300))
		}
		os.Remove(filepath.Join(c.Proj, "allowed-ran"))
	case ran("allowed-ran"):
		t.Errorf("%q ran in an untrusted project (measured on 2.1.197 and 2.1.332: a project's permissions.allow counts only once the project is trusted): %q", nativeAllow, truncate(res[0], 300))
	}
	if !v.blocked && !reClaudeDenyRule.MatchString(res[1]) {
		t.Errorf("%q in an untrusted project was not refused by Claude Code's deny rule: %q", nativeDeny, truncate(res[1], 300))
	}

	// 2. control: the project trusted (as accepting the dialog records it), no native rules:
	// the allow's command is not run, so what runs it below is permissions.allow
	native("uninstall")
	if _, allow := nativeLists(t, settings); len(allow) > 0 {
		t.Fatalf("uninstall --native left permissions.allow %q", allow)
	}
	trustProject(t, c)
	r = c.run(t, "control", fakeScript{Shell: nativeAllow, Cwd: c.Proj}, "do it", "")
	res = resultTexts(t, r, 1)
	t.Logf("control (trusted, no native rules): %q -> %q", nativeAllow, truncate(res[0], 300))
	if ran("allowed-ran") {
		t.Fatalf("control: %q ran in default mode without a permissions.allow rule, so the runs below prove nothing: %q", nativeAllow, truncate(res[0], 300))
	}

	// 3. the native rules again, the project trusted
	native("install")
	if deny, allow := nativeLists(t, settings); !slices.Equal(deny, wantNativeDeny) || !slices.Equal(allow, wantNativeAllow) {
		t.Fatalf("%s: permissions.deny %q allow %q after re-install", settings, deny, allow)
	}

	// 4. default mode, -p: the proven allow, the locked deny, two look-alikes
	calls := []string{nativeAllow, nativeDeny, nativeOther, nativeCompound}
	r = c.run(t, "default", fakeScript{Seq: calls, Cwd: c.Proj}, "do it", "")
	res = resultTexts(t, r, len(calls))
	for i, cmd := range calls {
		t.Logf("default mode: %q -> %q", cmd, truncate(res[i], 300))
	}
	if c.tagExists(t) {
		t.Errorf("%q ran with the hook %s: the tag exists", nativeDeny, v.gone)
	}
	if ran("other-ran") {
		t.Errorf("the look-alike %q ran with the hook %s", nativeOther, v.gone)
	}
	if ran("compound-ran") {
		t.Errorf("the look-alike %q ran with the hook %s", nativeCompound, v.gone)
	}
	if v.blocked {
		// onFailure "block": nothing runs, the proven allow included (fail closed)
		if ran("allowed-ran") {
			t.Errorf("%q ran although the hook failed with onFailure block", nativeAllow)
		}
		for i, cmd := range calls {
			if !strings.Contains(res[i], "blocking because onFailure") {
				t.Errorf("%q with the hook binary removed: want the onFailure block, got %q", cmd, truncate(res[i], 300))
			}
		}
	} else {
		if !ran("allowed-ran") {
			t.Errorf("the proven allow %q did not run without a prompt (permissions.allow): %q", nativeAllow, truncate(res[0], 300))
		}
		if !reClaudeDenyRule.MatchString(res[1]) {
			t.Errorf("%q was not refused by Claude Code's deny rule: %q", nativeDeny, truncate(res[1], 300))
		}
	}

	// 5. bypassPermissions: an unlisted call runs (the control), the locked deny still does not
	c.a = claudeAgent("bypassPermissions")
	r = c.run(t, "bypass", fakeScript{Seq: []string{nativeDeny, nativeControl}, Cwd: c.Proj}, "do it", "")
	res = resultTexts(t, r, 2)
	t.Logf("bypassPermissions: %q -> %q; %q -> %q", nativeDeny, truncate(res[0], 300), nativeControl, truncate(res[1], 300))
	if c.tagExists(t) {
		t.Errorf("%q ran under bypassPermissions with the hook %s", nativeDeny, v.gone)
	}
	if v.blocked {
		if ran("bypass-ran") {
			t.Errorf("%q ran although the hook failed with onFailure block", nativeControl)
		}
	} else {
		if !reClaudeDenyRule.MatchString(res[0]) {
			t.Errorf("%q under bypassPermissions was not refused by Claude Code's deny rule: %q", nativeDeny, truncate(res[0], 300))
		}
		if !ran("bypass-ran") {
			t.Errorf("control: the unlisted %q did not run under bypassPermissions, so the deny above proves nothing: %q", nativeControl, truncate(res[1], 300))
		}
	}
}

// trustProject records in ~/.claude.json that the user accepted Claude Code's trust dialog
// for the case's project, as the interactive CLI does.
func trustProject(t *testing.T, c *caseEnv) {
	t.Helper()
	p := filepath.Join(c.Home, ".claude.json")
	doc := map[string]any{}
	if data, err := os.ReadFile(p); err == nil {
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	projects, _ := doc["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	entry, _ := projects[c.Proj].(map[string]any)
	if entry == nil {
		entry = map[string]any{}
	}
	entry["hasTrustDialogAccepted"] = true
	projects[c.Proj] = entry
	doc["projects"] = projects
	data, _ := json.MarshalIndent(doc, "", "  ")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// resultTexts wants n tool results (one per scripted call) and returns their texts.
func resultTexts(t *testing.T, r *runOut, n int) []string {
	t.Helper()
	if len(r.toolResults) != n {
		t.Fatalf("%d tool results, want %d (one per scripted call)", len(r.toolResults), n)
	}
	var out []string
	for _, tr := range r.toolResults {
		out = append(out, tr.Text)
	}
	return out
}

// nativeLists reads permissions.deny and permissions.allow of a Claude Code settings file.
func nativeLists(t *testing.T, path string) (deny, allow []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Permissions struct {
			Deny  []string `json:"deny"`
			Allow []string `json:"allow"`
		} `json:"permissions"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc.Permissions.Deny, doc.Permissions.Allow
}

func copyExecutable(from, to string) error {
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
