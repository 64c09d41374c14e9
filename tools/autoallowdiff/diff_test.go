package autoallowdiff

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/toolguard/toolguard/internal/call"
	"github.com/toolguard/toolguard/internal/policy"
)

// perCommand bounds one command; a timeout is recorded, not a failure.
const perCommand = 2 * time.Second

// adversarial are the attacker's "read-only" programs that can write or
// run something: each must either be refused by the proof or, when it is
// allowed, do nothing but read when run.
var adversarial = []string{
	// interpreters reading code
	"python3 -c 'open(\"x\",\"w\")'", "sh -c 'touch x'", "bash -c 'touch x'", "node -e 'require(\"fs\").writeFileSync(\"x\",\"\")'",
	"perl -e 'open F,\">x\"'", "sh <<'EOF'\ntouch x\nEOF", "python3 <<'EOF'\nopen('x','w')\nEOF", "echo 'touch x' | sh",
	"cat <<EOF | bash\ntouch x\nEOF", "sh script.sh", "bash < script.sh", ". ./script.sh", "source script.sh",
	// find, xargs, env
	"find . -exec touch x \\;", "find . -execdir touch x \\;", "find . -delete", "find . -fprint x", "find . -fls x", "find . -fprintf x %p",
	"find . -ok touch x \\;", "find . -name a.txt | xargs rm", "ls | xargs touch", "xargs -a list.txt rm", "env touch x", "env -i touch x",
	"command touch x", "exec touch x", "nice touch x", "timeout 1 touch x", "nohup touch x", "time touch x", "builtin echo x > x",
	// git's ways to run or write
	"git -c core.pager='touch x' log", "git -c core.fsmonitor='touch x' status", "git -c alias.x='!touch x' x", "git --exec-path=. status",
	"git diff --output=x", "git log --output=x", "git show --output=x", "git format-patch -1", "git log -p --ext-diff",
	"git -c diff.external='touch x' diff", "git diff --ext-diff", "git status --porcelain", "git status", "git branch x", "git tag x",
	"git remote add o https://example.com/x", "git config user.name x", "git stash", "git gc", "git log --no-pager", "git grep -O'touch x' a",
	"git grep --open-files-in-pager='touch x' a", "git blame a.txt", "git rev-parse HEAD", "git ls-files", "git diff HEAD~0",
	"git -C . log", "git --git-dir=.git log", "git fetch", "git ls-remote https://example.com/x", "git archive HEAD -o x.tar",
	"git bundle create x HEAD", "git log --show-signature", "git diff --no-index a.txt b.txt", "git worktree list", "git help log",
	// pagers and viewers
	"LESSOPEN='|touch x %s' less a.txt", "less a.txt", "more a.txt", "man -P 'touch x' ls", "man ls", "less +'!touch x' a.txt",
	"vi -c ':!touch x' a.txt", "view a.txt",
	// awk, sed
	"awk 'BEGIN{system(\"touch x\")}'", "awk 'BEGIN{print > \"x\"}'", "awk 'BEGIN{print | \"sh\"}'", "awk '{print}' a.txt",
	"awk -f prog.awk a.txt", "awk -i inplace '{print}' a.txt", "gawk -i inplace '{print}' a.txt", "awk 'BEGIN{\"touch x\" | getline}'",
	"sed 'e touch x' a.txt", "sed 'w x' a.txt", "sed 's/a/b/w x' a.txt", "sed -i s/a/b/ a.txt", "sed -n 1p a.txt", "sed -f prog.sed a.txt",
	"sed --in-place=bak s/a/b/ a.txt", "sed -ni s/a/b/p a.txt", "sed -s -i s/a/b/ a.txt", "sed '1e touch x' a.txt", "sed 'W x' a.txt",
	// sort, tar, rg, misc writers with options
	"sort -o x a.txt", "sort --output=x a.txt", "sort a.txt -o a.txt", "sort --compress-program='touch x' a.txt", "uniq a.txt x",
	"tar --to-command='touch x' -xf t.tar", "tar -tf t.tar", "tar -xf t.tar", "tar -cf x.tar a.txt", "tar --checkpoint-action=exec='touch x' -tf t.tar",
	"rg --pre 'touch' a", "rg --pre=./script.sh a", "rg -z a", "rg a", "grep -r a .", "grep a a.txt > x", "tee x < a.txt", "cat a.txt | tee x",
	"cp a.txt x", "mv a.txt x", "ln -s a.txt x", "mkdir x", "touch x", "rm a.txt", "truncate -s0 a.txt", "chmod 600 a.txt", "split a.txt",
	"dd if=a.txt of=x", "head -c1 a.txt > x", "jq -n 'input' a.json", "jq --rawfile x a.txt -n '$x'", "yq -i '.a=1' a.yaml", "yq e -i '.a=1' a.yaml",
	"diff a.txt b.txt", "diff --output=x a.txt b.txt", "cmp a.txt b.txt", "wc -l --files0-from=list0", "du -sh .", "df .",
	"ls -la", "ls > x", "ls >> x", "ls 2> x", "ls &> x", "ls >| x", "ls 3> x", "cat a.txt >/dev/null", "echo x > /dev/stdout",
	"echo $(touch x)", "echo `touch x`", "cat <(touch x)", "diff <(ls) >(touch x)", "ls $(echo -o x)", "date -s 2020-01-01", "date --set=x",
	"hostname x", "uname -a", "id", "stat a.txt", "file a.txt", "file -C -m x", "which ls", "pwd", "printf '%s' a > x", "printf -v x a",
	"cd /; touch x", "cd .. && ls", "test -f a.txt", "[ -f a.txt ]", "true", "cat a.txt", "head a.txt", "tail -f a.txt", "tail a.txt",
	"go env", "go list ./...", "go version", "go env -w GOFLAGS=x", "go run .", "go generate", "go vet ./...", "go build ./...", "go test ./...",
	"make", "make -n", "npm ls", "npm test", "cargo check", "curl https://example.com", "wget https://example.com", "nc -z 127.0.0.1 80",
	"ping -c1 127.0.0.1", "ssh host", "getent hosts example.com", "nslookup example.com", "host example.com", "dig example.com",
	"openssl s_client -connect example.com:443", "python3 -m http.server", "ls /dev/tcp/127.0.0.1/80", "cat < /dev/tcp/127.0.0.1/80",
	"xxd a.txt", "xxd -r a.txt x", "od a.txt", "strings a.txt", "base64 a.txt", "md5sum a.txt", "sha256sum a.txt", "sha256sum -c sums",
	"tr a b < a.txt", "cut -d, -f1 a.txt", "paste a.txt b.txt", "column -t a.txt", "nl a.txt", "fold a.txt", "tac a.txt", "rev a.txt",
	"comm a.txt b.txt", "join a.txt b.txt", "basename x", "dirname x", "realpath a.txt", "readlink -f a.txt", "tree", "ls -R | head",
	"git log | less", "git -c core.editor='touch x' commit", "git -c core.hooksPath=. status", "git -c core.sshCommand='touch x' fetch",
	"git -c protocol.ext.allow=always ls-remote 'ext::touch x'", "git -c core.gitProxy='touch x' ls-remote git://x/y", "git submodule status",
	"git log --format=%x", "git log --pretty=format:%H -1 > x", "git shortlog -sn HEAD", "git describe --always", "git cat-file -p HEAD",
	"git check-ignore a.txt", "git reflog", "git notes list", "git diff --stat", "git grep a", "git show HEAD:a.txt",
}

// fixture writes the project (files, scripts, a git repo with two
// commits) and a fake HOME under root.
func fixture(t *testing.T, root string) {
	t.Helper()
	files := map[string]string{
		"project/a.txt":         "a\nb\nc\n",
		"project/b.txt":         "b\nc\nd\n",
		"project/a.json":        "{\"a\":1}\n",
		"project/a.yaml":        "a: 1\n",
		"project/list.txt":      "a.txt\n",
		"project/list0":         "a.txt\x00",
		"project/sums":          "",
		"project/script.sh":     "touch x\n",
		"project/prog.awk":      "BEGIN{system(\"touch x\")}\n",
		"project/prog.sed":      "w x\n",
		"project/go.mod":        "module example.com/p\n\ngo 1.21\n",
		"project/main.go":       "package main\n\nfunc main() {}\n",
		"project/src/a.go":      "package main\n",
		"project/Makefile":      "all:\n\ttouch x\n",
		"home/.bashrc":          "touch $HOME/bashrc-ran\n",
		"home/.profile":         "touch $HOME/profile-ran\n",
		"home/notes.txt":        "n\n",
		"home/.gitconfig":       "[user]\n\tname = t\n\temail = t@example.com\n",
		"home/.config/git/xx":   "",
		"project/.git-keep/ign": "",
	}
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proj := filepath.Join(root, "project")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-qm", "one"}, {"commit", "-q", "--allow-empty", "-m", "two"}, {"tar", "-cf", "t.tar", "a.txt"}} {
		name := "git"
		if args[0] == "tar" {
			name, args = "tar", args[1:]
		}
		cmd := exec.Command(name, args...)
		cmd.Dir, cmd.Env = proj, sandboxEnv(root, filepath.Join(root, "tmp"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("fixture: %s %v: %v\n%s", name, args, err, out)
		}
	}
	// git status refreshes .git/index the first time it runs after a
	// checkout; do it here so the fixture is at rest.
	cmd := exec.Command("git", "status")
	cmd.Dir, cmd.Env = proj, sandboxEnv(root, filepath.Join(root, "tmp"))
	_ = cmd.Run()
}

func sandboxEnv(root, tmp string) []string {
	return []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + filepath.Join(root, "home"), "TMPDIR=" + tmp,
		"LANG=C", "GIT_AUTHOR_DATE=2020-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2020-01-01T00:00:00Z"}
}

// entry is what a snapshot knows of one path.
type entry struct {
	mode       fs.FileMode
	size       int64
	mtime      int64
	uid, gid   uint32
	sum        [32]byte
	linkTarget string
}

func snapshot(root string) (map[string]entry, error) {
	out := map[string]entry{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		e := entry{mode: fi.Mode(), size: fi.Size(), mtime: fi.ModTime().UnixNano(), uid: st.Uid, gid: st.Gid}
		if fi.Mode().IsDir() {
			e.mtime = 0 // atime-like noise from readdir does not move mtime, but a create does: kept below via names
		}
		switch {
		case fi.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			e.sum = sha256.Sum256(b)
		case fi.Mode()&fs.ModeSymlink != 0:
			e.linkTarget, _ = os.Readlink(p)
		}
		rel, _ := filepath.Rel(root, p)
		out[rel] = e
		return nil
	})
	return out, err
}

func changes(before, after map[string]entry) []string {
	var out []string
	for p, a := range after {
		b, ok := before[p]
		switch {
		case !ok:
			out = append(out, "created "+p)
		case a != b:
			out = append(out, "changed "+p)
		}
	}
	for p := range before {
		if _, ok := after[p]; !ok {
			out = append(out, "deleted "+p)
		}
	}
	sort.Strings(out)
	return out
}

// traced are the system calls strace reports: every way to write, create,
// delete, rename, link, chmod, chown or touch a path, and every socket.
const traced = "trace=open,openat,?openat2,creat,truncate,ftruncate,unlink,unlinkat,rename,renameat,?renameat2,mkdir,mkdirat,rmdir," +
	"link,linkat,symlink,symlinkat,chmod,fchmod,fchmodat,?fchmodat2,chown,fchown,lchown,fchownat,utime,utimes,utimensat,futimesat,mknod,mknodat," +
	"socket,connect,sendto,sendmsg,bind"

var (
	pathArg   = regexp.MustCompile(`^\d+\s+(\w+)\((?:AT_FDCWD|\d+(?:<[^>]*>)?)?,?\s*"([^"]*)"(.*)$`)
	writeOpen = regexp.MustCompile(`O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|O_APPEND`)
	inetSock  = regexp.MustCompile(`AF_INET|AF_INET6|AF_PACKET`)
)

// allowedWrite is a path a write may name: the command's TMPDIR, the
// null and terminal devices, and its own descriptors.
func allowedWrite(p, tmp string) bool {
	switch {
	case p == "/dev/null", p == "/dev/tty", strings.HasPrefix(p, "/dev/pts/"), strings.HasPrefix(p, "/dev/std"),
		strings.HasPrefix(p, "/proc/self/fd/"), p == tmp, strings.HasPrefix(p, tmp+"/"):
		return true
	}
	return false
}

// effects reads an strace -f log and lists every write and network use.
func effects(log []byte, tmp string) []string {
	var out []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(log))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		// -f interleaves processes: a call's arguments are on its
		// "<unfinished ...>" line, its "<... resumed>" line has the result.
		if len(fields) < 2 || strings.Contains(line, " resumed>") {
			continue
		}
		call := fields[1]
		if i := strings.IndexByte(call, '('); i >= 0 {
			call = call[:i]
		}
		var what string
		switch call {
		case "socket", "connect", "sendto", "sendmsg", "bind":
			if inetSock.MatchString(line) {
				what = "network: " + line[len(fields[0])+1:]
			}
		case "open", "openat", "openat2":
			m := pathArg.FindStringSubmatch(line)
			if m != nil && writeOpen.MatchString(m[3]) && !allowedWrite(m[2], tmp) {
				what = "write-open " + m[2] + m[3]
			}
		case "ftruncate", "fchmod", "fchown":
			if !strings.Contains(line, tmp) && !strings.Contains(line, "/dev/") {
				what = line[len(fields[0])+1:]
			}
		default:
			m := pathArg.FindStringSubmatch(line)
			if m == nil {
				what = line[len(fields[0])+1:]
			} else if !allowedWrite(m[2], tmp) {
				what = m[1] + " " + m[2] + m[3]
			}
		}
		if what != "" && !seen[what] {
			seen[what] = true
			out = append(out, what)
		}
	}
	return out
}

type outcome struct {
	cmd      string
	timedOut bool
	// indexRefresh: git rewrote .git/index's stat cache (see gitIndexRefresh).
	indexRefresh bool
	found        []string
}

// runOne copies the fixture, runs cmd under strace in a fresh network
// namespace and reports what it wrote or reached.
func runOne(t *testing.T, base, cmd string) outcome {
	root, err := os.MkdirTemp("", "autoallowdiff-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(root)
	if out, err := exec.Command("cp", "-a", base+"/.", root).CombinedOutput(); err != nil {
		t.Fatalf("cp: %v %s", err, out)
	}
	tmp := filepath.Join(root, "tmp")
	if err := os.MkdirAll(tmp, 0o777); err != nil {
		t.Fatal(err)
	}
	before, err := snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	logf := filepath.Join(root, "strace.log")
	ctx, cancel := context.WithTimeout(context.Background(), perCommand)
	defer cancel()
	c := exec.CommandContext(ctx, "strace", "-f", "-qq", "-s", "256", "-e", traced, "-e", "signal=none", "-o", logf,
		"unshare", "--net", "--", "/bin/sh", "-c", cmd)
	c.Dir, c.Env, c.Stdin = filepath.Join(root, "project"), sandboxEnv(root, tmp), nil
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
	c.WaitDelay = time.Second
	_ = c.Run()
	o := outcome{cmd: cmd, timedOut: ctx.Err() != nil}
	log, _ := os.ReadFile(logf)
	os.Remove(logf)
	after, err := snapshot(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, ch := range changes(before, after) {
		if gitIndexRefresh(ch) {
			o.indexRefresh = true
			continue
		}
		if !strings.HasPrefix(ch, "created tmp/") && !strings.HasPrefix(ch, "deleted tmp/") && ch != "changed tmp" && ch != "changed strace.log" && ch != "created strace.log" {
			o.found = append(o.found, ch)
		}
	}
	for _, e := range effects(log, tmp) {
		if gitIndexRefresh(e) {
			o.indexRefresh = true
			continue
		}
		if !strings.Contains(e, logf) {
			o.found = append(o.found, e)
		}
	}
	return o
}

// gitIndexRefresh is the one write the test accepts, and logs: git
// status and git diff refresh the stat data cached in .git/index (through
// .git/index.lock, renamed over it) when the files' stat data moved, here
// because the fixture is copied. The index's entries stay the same; it is
// git's cache, not the project (GIT_OPTIONAL_LOCKS=0 turns it off;
// docs/auto-allow.md lists it as a known limit). Any other path under
// .git is a finding.
func gitIndexRefresh(what string) bool {
	for _, suf := range []string{"/.git/index.lock, O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0666) = 3", "/.git/index.lock, O_RDWR|O_CREAT|O_EXCL|O_CLOEXEC, 0666) = 4"} {
		if strings.HasPrefix(what, "write-open ") && strings.HasSuffix(what, suf) {
			return true
		}
	}
	if what == "changed project/.git/index" {
		return true
	}
	return strings.HasPrefix(what, "rename ") && strings.Contains(what, "/.git/index.lock, ") && strings.HasSuffix(what, "/.git/index\") = 0")
}

// candidates gathers every command to try: the corpora, the payload
// testdata, the adversarial list; deduplicated.
func candidates(t *testing.T) []string {
	var cmds []string
	corpus := filepath.Join("..", "..", "..", "shared", "corpus")
	files, _ := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	switch {
	case len(files) == 0 && os.Getenv("CI") == "true":
		t.Fatalf("no shared corpus at %s (CI=true: it must be there)", corpus)
	case len(files) == 0:
		t.Logf("no shared corpus at %s (a user's clone has none): the corpora are not run", corpus)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var r struct {
				Command *string `json:"command"`
			}
			if json.Unmarshal(line, &r) == nil && r.Command != nil {
				cmds = append(cmds, *r.Command)
			}
		}
	}
	_ = filepath.WalkDir(filepath.Join("..", "..", "testdata", "payloads"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".json") {
			return nil
		}
		data, _ := os.ReadFile(p)
		var v any
		if json.Unmarshal(data, &v) == nil {
			cmds = append(cmds, commandsIn(v)...)
		}
		return nil
	})
	cmds = append(cmds, adversarial...)
	seen := map[string]bool{}
	out := cmds[:0]
	for _, c := range cmds {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// commandsIn finds the shell strings of a payload: any "command" or
// "cmd" string field.
func commandsIn(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && (k == "command" || k == "cmd") {
				out = append(out, s)
			} else {
				out = append(out, commandsIn(x)...)
			}
		}
	case []any:
		for _, x := range v {
			out = append(out, commandsIn(x)...)
		}
	}
	return out
}

// TestReadOnlyDifferential: every command the read-only proof allows only
// reads when it runs.
func TestReadOnlyDifferential(t *testing.T) {
	ci := os.Getenv("CI") == "true"
	need := func(why string) {
		if ci {
			t.Fatalf("cannot run the differential test under CI=true: %s", why)
		}
		t.Skipf("skipped: %s", why)
	}
	if testing.Short() {
		t.Skip("skipped in -short: runs every auto-allowed command under strace (20-40 s); go test without -short runs it")
	}
	if runtime.GOOS != "linux" || os.Geteuid() != 0 {
		need("needs root on Linux (network namespaces)")
	}
	if _, err := exec.LookPath("strace"); err != nil {
		need("strace is not installed (apt-get install strace)")
	}
	if err := exec.Command("unshare", "--net", "true").Run(); err != nil {
		need(fmt.Sprintf("cannot make a network namespace: %v", err))
	}
	if err := exec.Command("strace", "-f", "-qq", "-o", "/dev/null", "true").Run(); err != nil {
		need(fmt.Sprintf("strace cannot trace here: %v", err))
	}
	if _, err := exec.LookPath("git"); err != nil {
		need("git is not installed")
	}

	base := t.TempDir()
	fixture(t, base)
	pol, err := policy.Load(nil, policy.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pol.Settings.AutoAllow = policy.AutoAllowReadOnly
	proj, home := filepath.Join(base, "project"), filepath.Join(base, "home")

	// The detector itself must see a write, a delete and a socket.
	for _, probe := range []struct{ cmd, want string }{
		{"touch x", "created project/x"},
		{"rm a.txt", "deleted project/a.txt"},
		{"echo y >> b.txt", "changed project/b.txt"},
		{"bash -c 'exec 3<>/dev/tcp/127.0.0.1/9'", "network: "},
	} {
		o := runOne(t, base, probe.cmd)
		if !strings.Contains(strings.Join(o.found, "\n"), probe.want) {
			t.Fatalf("the sandbox did not see %q run %q: found %q", probe.want, probe.cmd, o.found)
		}
	}

	var allowed []string
	all := candidates(t)
	for _, c := range all {
		res := pol.Evaluate(call.Call{Kind: call.KindShell, Tool: "Bash", Command: c, Cwd: proj}, policy.Env{Home: home, Workspace: proj})
		if res.Decision == call.Allow && res.Cause == policy.AutoReadOnly {
			allowed = append(allowed, c)
		}
	}
	t.Logf("%d candidates, %d auto-allowed", len(all), len(allowed))
	if len(allowed) == 0 {
		t.Fatal("the proof allowed nothing: the test would prove nothing")
	}

	results := make([]outcome, len(allowed))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(2, runtime.NumCPU()))
	for i, c := range allowed {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = runOne(t, base, c)
		}()
	}
	wg.Wait()
	timeouts := 0
	for _, o := range results {
		if o.indexRefresh {
			t.Logf("git refreshed .git/index's stat cache (accepted, docs/auto-allow.md): %q", o.cmd)
		}
		if o.timedOut {
			timeouts++
			t.Logf("timed out (not a failure): %q", o.cmd)
		}
		if len(o.found) > 0 {
			t.Errorf("auto-allowed %q but running it:\n\t%s", o.cmd, strings.Join(o.found, "\n\t"))
		}
	}
	t.Logf("%d run, %d timed out", len(results), timeouts)
}
