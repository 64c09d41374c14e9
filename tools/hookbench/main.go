// Command hookbench times the real toolguard binary end to end, the way an
// agent runs it: one `toolguard hook` process per tool call, payload on
// stdin, reply on stdout. In the same run it times a trivial static Go
// binary that reads stdin and exits, so that the figures come as ratios to
// what the OS needs to start a process, whatever the machine.
//
//	go run ./tools/hookbench            # 200 runs per case
//	go run ./tools/hookbench -n 500 -md # more runs, markdown table
//
// It builds both binaries with the release flags (CGO_ENABLED=0, -trimpath,
// -s -w) into a temporary directory, writes the payloads (shell `git
// status`, shell `git push --force`, Write, MCP, a 1 MiB command) and times
// them, in a home where toolguard is installed for Claude Code (`toolguard
// install --provider claude-code --scope user`, as every user of the hook
// has it), on every configuration the performance contract names:
//
//   - the default policy alone;
//   - the defaults + a project layer: a 15-line .toolguard/policy.toml
//     discovered at the workspace root and trusted in the bench setup
//     (`toolguard trust`), as its author runs it;
//   - a platform + project + agent materialized file (`toolguard
//     materialize` of three small layers over the defaults);
//   - the 10,000-rule materialized policy;
//
// with `toolguard version` (the binary's own floor: it decides nothing) and
// the trivial binary timed in the same rounds. Every case runs N times,
// interleaved in a shuffled order each round; it reports the median and p95
// wall time, the ratios and the peak RSS of each case (getrusage of every
// child), then checks the bars of SPEC §8 (see targets). The machine is usually shared: read the medians, and repeat
// a run before trusting a difference of a few percent.
//
// On a loaded machine (other builds and tests sharing the cores) wall time
// is mostly waiting for a core; -cpu times each run by the child's CPU
// time (user + system, from wait4) instead, which moves far less with the
// load, and is blind to what the process waits for (disk, a lock).
//
// To compare two commits in the same interleaved rounds, check the other
// one out (git worktree add /tmp/old COMMIT) and pass -against /tmp/old:
// its `version` and every configuration (not the 1 MiB command) are timed
// too, on files it materializes itself; "× version" is over its own floor,
// "× default policy" over this tree's binary.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/toolguard/toolguard/tools/hookbench/policygen"
)

// bigPrefix names the cases on the generated large policy ("10k-rule policy: ").
var bigPrefix string

// againstPrefix names the cases of the -against binary.
const againstPrefix = "-against, "

// The configurations every payload is timed on, and the binary's floor.
const (
	versionName = "toolguard version (floor)"
	defaultName = "default policy"
	projectName = "defaults + project layer"
	layeredName = "platform+project+agent file"
)

// deadline bounds one run: a case that exceeds it is reported as "> deadline".
var deadline time.Duration

// only, when set, keeps the cases whose name it matches (-only), with the
// floors every ratio needs: the trivial binary and each `toolguard version`.
var only *regexp.Regexp

// cpuTime times each run by the child's CPU time (user + system, from
// wait4) instead of wall time (-cpu).
var cpuTime bool

func main() {
	n := flag.Int("n", 200, "timed runs per case")
	warm := flag.Int("warmup", 10, "untimed runs per case first")
	rules := flag.Int("rules", 10000, "rules in the generated materialized policy")
	md := flag.Bool("md", false, "print the table as markdown")
	keep := flag.Bool("keep", false, "keep the temporary directory and print its path")
	against := flag.String("against", "", "also time, in the same interleaved rounds, the default-policy cases of a toolguard built from this source tree (a checkout of another commit)")
	strict := flag.Bool("strict", false, "exit 1 when a target is missed")
	budget := flag.Duration("budget", 30*time.Second, "stop timing a case once its runs add up to this (at least 3 runs)")
	flag.DurationVar(&deadline, "deadline", 60*time.Second, "kill a run that takes longer, and report the case as slower than this")
	onlyRE := flag.String("only", "", "time only the cases whose name matches this regular expression (and the floors: the trivial binary, each `toolguard version`); e.g. 'platform' for one configuration in more rounds")
	flag.BoolVar(&cpuTime, "cpu", false, "time each run by the child's CPU time (user + system) instead of wall time: steadier on a loaded machine, blind to what the process waits for")
	flag.Parse()
	if *onlyRE != "" {
		re, err := regexp.Compile(*onlyRE)
		if err != nil {
			fmt.Fprintln(os.Stderr, "hookbench: -only:", err)
			os.Exit(2)
		}
		only = re
	}

	bigPrefix = fmt.Sprintf("%d-rule policy: ", *rules)
	if *rules%1000 == 0 {
		bigPrefix = fmt.Sprintf("%dk-rule policy: ", *rules/1000)
	}
	code, err := bench(*n, *warm, *rules, *budget, *md, *keep, *against)
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookbench:", err)
		os.Exit(2)
	}
	if *strict {
		os.Exit(code)
	}
}

type benchCase struct {
	name    string
	exe     string
	args    []string
	stdin   string // payload file
	want    string // substring the first reply must contain ("" = empty reply)
	times   []time.Duration
	maxRSS  int64 // bytes
	payload string
	total   time.Duration
	killed  bool // a run exceeded the deadline: times holds the deadline
}

func bench(n, warm, nrules int, budget time.Duration, md, keep bool, against string) (int, error) {
	repo, err := moduleRoot()
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "hookbench-")
	if err != nil {
		return 0, err
	}
	if keep {
		fmt.Fprintln(os.Stderr, "hookbench: files in", dir)
	} else {
		defer os.RemoveAll(dir)
	}

	tg := filepath.Join(dir, "toolguard")
	triv := filepath.Join(dir, "trivial")
	fmt.Fprintln(os.Stderr, "hookbench: building toolguard and the trivial binary with the release flags")
	if err := goBuild(repo, "./cmd/toolguard", tg); err != nil {
		return 0, err
	}
	trivDir := filepath.Join(dir, "trivialsrc")
	if err := writeFiles(trivDir, map[string]string{
		"go.mod":  "module trivial\n\ngo 1.22\n",
		"main.go": "package main\n\nimport (\n\t\"io\"\n\t\"os\"\n)\n\nfunc main() { io.Copy(io.Discard, os.Stdin) }\n",
	}); err != nil {
		return 0, err
	}
	if err := goBuild(trivDir, ".", triv); err != nil {
		return 0, err
	}
	other := filepath.Join(dir, "toolguard-against")
	if against != "" {
		fmt.Fprintln(os.Stderr, "hookbench: building toolguard from", against)
		if err := goBuild(against, "./cmd/toolguard", other); err != nil {
			return 0, err
		}
	}

	// A project with .git, a home and a state directory of its own: no
	// policy of the machine's user leaks in.
	proj := filepath.Join(dir, "proj")
	home := filepath.Join(dir, "home")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(proj, "src"), home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, err
		}
	}
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TMPDIR=" + os.TempDir(),
	}

	payloads := []struct{ name, file, wantDefault string }{
		{"shell git status", "git-status.json", ""},
		{"shell git push --force", "push-force.json", `"deny"`},
		{"Write src/main.go", "write.json", ""},
		{"MCP create_issue", "mcp.json", ""},
		{"shell 1 MiB command", "big.json", ""},
	}
	files := map[string]string{"shell-git-status": "git-status.json", "shell-push-force": "push-force.json",
		"write": "write.json", "mcp": "mcp.json", "shell-1MiB": "big.json"}
	// The project-layer configuration runs in a second project whose
	// .toolguard/policy.toml is discovered at the workspace root, as a
	// user's repository would; its payloads (cwd) are prefixed "p-".
	projP := filepath.Join(dir, "projp")
	for _, d := range []string{filepath.Join(projP, ".git"), filepath.Join(projP, "src"), filepath.Join(projP, ".toolguard")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return 0, err
		}
	}
	for _, set := range []struct{ root, prefix string }{{proj, ""}, {projP, "p-"}} {
		for _, p := range policygen.Payloads(set.root) {
			if err := os.WriteFile(filepath.Join(dir, set.prefix+files[p.Name]), p.Data, 0o644); err != nil {
				return 0, err
			}
		}
	}
	if err := writeFiles(dir, map[string]string{
		filepath.Join("projp", ".toolguard", "policy.toml"): policygen.ProjectTOML,
		"platform.toml": policygen.PlatformTOML, "project.toml": policygen.ProjectTOML, "agent.toml": policygen.AgentTOML,
		"org.toml": policygen.TOML(nrules),
	}); err != nil {
		return 0, err
	}

	// toolguard installed for Claude Code in the user's settings, as
	// every user of the hook has it: a call that tests a path reads the
	// hook commands of the installed settings files (the guard's own
	// surfaces).
	install := exec.Command(tg, "install", "--provider", "claude-code", "--scope", "user")
	install.Env, install.Dir = env, dir
	if out, err := install.CombinedOutput(); err != nil {
		return 0, fmt.Errorf("toolguard install: %v\n%s", err, out)
	}

	// Each binary materializes its own files (the format may differ
	// between commits), and trusts the discovered project file: a project
	// file is untrusted (tightening only) until the user trusts it, and a
	// trusted one is what a user who wrote it runs.
	type built struct{ exe, big, layered string }
	bins := []built{{exe: tg}}
	if against != "" {
		bins = append(bins, built{exe: other})
	}
	var bigSize int64
	for i := range bins {
		b := &bins[i]
		sfx := fmt.Sprint(i)
		b.big, b.layered = filepath.Join(dir, "policy"+sfx+".json"), filepath.Join(dir, "layered"+sfx+".json")
		fmt.Fprintf(os.Stderr, "hookbench: materializing a %d-rule policy and a platform+project+agent file with %s\n", nrules, filepath.Base(b.exe))
		for _, args := range [][]string{
			{"materialize", "--layer", "org=org.toml", "-o", b.big},
			{"materialize", "--layer", "platform=platform.toml", "--layer", "project=project.toml", "--layer", "agent=agent.toml", "-o", b.layered},
			{"trust", filepath.Join(projP, ".toolguard", "policy.toml")},
		} {
			cmd := exec.Command(b.exe, args...)
			cmd.Env, cmd.Dir = env, dir
			if out, err := cmd.CombinedOutput(); err != nil {
				if args[0] == "trust" && bytes.Contains(out, []byte(`unknown command "trust"`)) {
					continue // a toolguard from before trust existed reads every project policy
				}
				return 0, fmt.Errorf("%s %s: %v\n%s", filepath.Base(b.exe), args[0], err, out)
			}
		}
		if i == 0 {
			st, err := os.Stat(b.big)
			if err != nil {
				return 0, err
			}
			bigSize = st.Size()
		}
	}

	hook := []string{"hook", "--provider", "claude-code"}
	cases := []*benchCase{
		{name: "trivial static Go binary", exe: triv, stdin: "git-status.json", payload: "small"},
		{name: "trivial static Go binary", exe: triv, stdin: "big.json", payload: "1 MiB"},
	}
	for i, b := range bins {
		pre := ""
		if i > 0 {
			pre = againstPrefix
		}
		cases = append(cases, &benchCase{name: pre + versionName, exe: b.exe, args: []string{"version"}, stdin: "git-status.json", want: "toolguard"})
		configs := []struct {
			name, stdinPrefix string
			args              []string
			big               bool // also time the 1 MiB command
		}{
			{defaultName, "", hook, true},
			{projectName, "p-", hook, false},
			{layeredName, "", append(slices.Clone(hook), "--policy", b.layered), false},
			{bigPrefix[:len(bigPrefix)-2], "", append(slices.Clone(hook), "--policy", b.big), true},
		}
		for _, cf := range configs {
			for _, p := range payloads {
				if p.file == "big.json" && (!cf.big || i > 0) {
					continue
				}
				cases = append(cases, &benchCase{name: pre + cf.name + ": " + p.name, exe: b.exe, args: cf.args,
					stdin: cf.stdinPrefix + p.file, want: p.wantDefault})
			}
		}
	}

	// The children's peak RSS comes from wait4, and Linux carries the
	// parent's peak over into a child started with vfork (as os/exec does)
	// at its exec: shrink this process and reset its peak first, and report
	// what is left as the floor of the measurement.
	if only != nil {
		cases = slices.DeleteFunc(cases, func(c *benchCase) bool {
			return c.exe != triv && !strings.HasSuffix(c.name, versionName) && !only.MatchString(c.name)
		})
	}
	floor := shrinkSelf()

	// Check every case's reply once, then warm up, then time.
	for _, c := range cases {
		out, d, rss, err := runOnce(c, dir, env, true)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", c.name, err)
		}
		if c.killed {
			fmt.Fprintf(os.Stderr, "hookbench: %s: killed after %s; not timed further\n", c.name, deadline)
			c.times, c.maxRSS = []time.Duration{d}, rss
			continue
		}
		if c.exe != triv && (c.want == "" && len(out) != 0 || c.want != "" && !bytes.Contains(out, []byte(c.want))) {
			return 0, fmt.Errorf("%s: unexpected reply %q (want %q)", c.name, truncate(out), c.want)
		}
	}
	fmt.Fprintf(os.Stderr, "hookbench: %d cases × (%d warm-up + %d timed) runs, interleaved\n", len(cases), warm, n)
	order := make([]int, len(cases))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < warm+n; round++ {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			c := cases[i]
			if c.killed || c.total > budget && len(c.times) >= 3 {
				continue // a slow case: enough runs to report a median
			}
			_, d, rss, err := runOnce(c, dir, env, false)
			if err != nil {
				return 0, fmt.Errorf("%s: %v", c.name, err)
			}
			c.total += d
			if round >= warm || c.total > budget {
				c.times = append(c.times, d)
				c.maxRSS = max(c.maxRSS, rss)
			}
		}
	}

	report(os.Stdout, cases, md, bigSize, nrules, n)
	if floor > 0 {
		fmt.Printf("Peak RSS is the child's, but never below hookbench's own RSS (about %.1f MB; Linux hands the parent's peak down through vfork+exec, so hookbench resets its peak before every run).\n", float64(floor)/(1<<20))
	}
	return targets(os.Stdout, cases), nil
}

// runOnce runs one case and returns its stdout (when asked), its wall time
// and its peak RSS.
func runOnce(c *benchCase, dir string, env []string, capture bool) ([]byte, time.Duration, int64, error) {
	in, err := os.Open(filepath.Join(dir, c.stdin))
	if err != nil {
		return nil, 0, 0, err
	}
	defer in.Close()
	cmd := exec.Command(c.exe, c.args...)
	cmd.Env, cmd.Dir, cmd.Stdin = env, dir, in
	var out, errb bytes.Buffer
	if capture {
		cmd.Stdout, cmd.Stderr = &out, &errb
	} else {
		devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			return nil, 0, 0, err
		}
		defer devnull.Close()
		cmd.Stdout, cmd.Stderr = devnull, devnull
	}
	resetPeak()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, 0, 0, err
	}
	timer := time.AfterFunc(deadline, func() { cmd.Process.Kill() })
	err = cmd.Wait()
	d := time.Since(start)
	if !timer.Stop() {
		c.killed = true
		return nil, deadline, maxRSS(cmd.ProcessState), nil
	}
	if err != nil {
		return nil, 0, 0, fmt.Errorf("%v: %s", err, truncate(errb.Bytes()))
	}
	if cpuTime {
		d = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	return out.Bytes(), d, maxRSS(cmd.ProcessState), nil
}

// resetPeak resets this process's peak RSS to its current RSS (Linux).
func resetPeak() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// shrinkSelf returns memory to the OS and resets this process's peak RSS
// (Linux: "5" into /proc/self/clear_refs), then returns the peak left.
func shrinkSelf() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	if !resetPeak() {
		return 0
	}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(v), " kB"), &kb)
			return kb * 1024
		}
	}
	return 0
}

func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return int64(ru.Maxrss) // bytes on macOS
	}
	return int64(ru.Maxrss) * 1024 // KiB on Linux
}

func quantile(ts []time.Duration, q float64) time.Duration {
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[int(q*float64(len(s)-1)+0.5)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }

func report(w io.Writer, cases []*benchCase, md bool, policySize int64, nrules, n int) {
	base := map[string]time.Duration{}
	floor := map[string]time.Duration{} // exe → its `toolguard version` median
	defaults := map[string]time.Duration{}
	for _, c := range cases {
		if c.payload != "" {
			base[c.payload] = quantile(c.times, 0.5)
		}
		if strings.HasSuffix(c.name, versionName) {
			floor[c.exe] = quantile(c.times, 0.5)
		}
		if p, ok := strings.CutPrefix(c.name, defaultName+": "); ok {
			defaults[p] = quantile(c.times, 0.5)
		}
	}
	trivial := base["small"]
	clock := "wall time"
	if cpuTime {
		clock = "CPU time (user + system) of each child"
	}
	fmt.Fprintf(w, "hookbench: %s/%s, %d CPUs, %s; %d runs per case; policy.json %d rules, %.1f MiB; %s\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), n, nrules, float64(policySize)/(1<<20), clock)
	header := []string{"case", "runs", "median ms", "p95 ms", "× trivial", "× version", "× default policy", "peak RSS MB"}
	var tw *tabwriter.Writer
	row := func(cells ...string) {
		if md {
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		} else {
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
	}
	if md {
		row(header...)
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|")
	} else {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		row(header...)
	}
	ratio := func(a, b time.Duration) string {
		if b <= 0 {
			return ""
		}
		return fmt.Sprintf("%.2f", float64(a)/float64(b))
	}
	for _, c := range cases {
		med := quantile(c.times, 0.5)
		name := c.name
		if c.payload != "" {
			name += " (" + c.payload + " stdin)"
		}
		vsDefault, vsVersion := "", ""
		if _, p, ok := strings.Cut(c.name, ": "); ok && c.name != defaultName+": "+p && !strings.Contains(p, "1 MiB") {
			vsDefault = ratio(med, defaults[p])
		}
		if c.exe != "" && !strings.HasSuffix(c.name, versionName) && !strings.Contains(c.name, "1 MiB") && c.payload == "" {
			vsVersion = ratio(med, floor[c.exe])
		}
		vsTrivial := ratio(med, trivial)
		if strings.Contains(c.name, "1 MiB") {
			vsTrivial = ratio(med, base["1 MiB"])
		}
		if c.killed {
			row(name, "killed", "> "+ms(deadline), "", "", "", "", fmt.Sprintf("≥ %.1f", float64(c.maxRSS)/(1<<20)))
			continue
		}
		row(name, fmt.Sprint(len(c.times)), ms(med), ms(quantile(c.times, 0.95)), vsTrivial, vsVersion, vsDefault, fmt.Sprintf("%.1f", float64(c.maxRSS)/(1<<20)))
	}
	if tw != nil {
		tw.Flush()
	}
	fmt.Fprintln(w, "\n× trivial: median over the trivial binary's median with the same stdin size; × version: over `toolguard version` of the same binary (its floor); × default policy: over the same payload on the default policy of this tree's binary.")
}

// targets checks the figures against SPEC §8 and docs/performance.md and
// returns 1 when one is missed: the default policy at most 1.3× this
// binary's own `toolguard version` (same run), every other configuration
// at most 1.5×, a 1 MiB command under 0.5 s, every case's peak RSS under
// 64 MB, and — with -against — no case more than 10 % slower than the
// same case of the other tree.
func targets(w io.Writer, cases []*benchCase) int {
	med := func(c *benchCase) time.Duration { return quantile(c.times, 0.5) }
	code := 0
	check := func(ok bool, format string, a ...any) {
		verdict := "met   "
		if !ok {
			verdict, code = "MISSED", 1
		}
		fmt.Fprintf(w, "  %s  %s\n", verdict, fmt.Sprintf(format, a...))
	}
	fmt.Fprintln(w, "\ntargets:")
	byName := map[string]*benchCase{}
	var floor *benchCase
	for _, c := range cases {
		byName[c.name] = c
		if c.name == versionName {
			floor = c
		}
	}
	for _, c := range cases {
		if c == floor || c.payload != "" || strings.HasPrefix(c.name, againstPrefix) || strings.Contains(c.name, "1 MiB") {
			continue
		}
		bar := 1.5
		if strings.HasPrefix(c.name, defaultName+":") {
			bar = 1.3
		}
		r := float64(med(c)) / float64(med(floor))
		check(r <= bar, "%s: %.2f× toolguard version (≤ %.1f×)", c.name, r, bar)
	}
	for _, c := range cases {
		if strings.Contains(c.name, "1 MiB") && c.payload == "" {
			check(med(c) < 500*time.Millisecond, "%s: %s ms whole process (< 500 ms)", c.name, ms(med(c)))
		}
	}
	for _, c := range cases {
		old, ok := byName[againstPrefix+c.name]
		if !ok || c.name == versionName {
			continue
		}
		r := float64(med(c)) / float64(med(old))
		check(r <= 1.10, "%s: %.2f× the -against tree (≤ 1.10×)", c.name, r)
	}
	var worst *benchCase
	for _, c := range cases {
		if worst == nil || c.maxRSS > worst.maxRSS {
			worst = c
		}
	}
	check(worst.maxRSS < 64<<20, "peak RSS < 64 MB in every case: worst %.1f MB (%s)", float64(worst.maxRSS)/(1<<20), worst.name)
	return code
}

func goBuild(dir, pkg, out string) error {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, pkg)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v", pkg, err)
	}
	return nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %v", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("run hookbench inside the toolguard module")
	}
	return filepath.Dir(mod), nil
}

func writeFiles(dir string, files map[string]string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func truncate(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "…"
	}
	return string(b)
}
