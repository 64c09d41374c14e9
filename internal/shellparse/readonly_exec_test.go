package shellparse

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// roExec are commands the read-only table allows, at least one per
// program of the table: TestReadOnlyExec runs each for real.
var roExec = []string{
	"ls -la src", "ls -R", "cat README.md", "tac README.md", "nl README.md", "head -n 2 README.md", "tail -1 README.md",
	"wc -l src/a.go README.md", "grep -rn main src", "egrep -n 'ma+in' src/a.go", "fgrep -n main src/a.go",
	"rg -n main src", "ag main src", "find . -name '*.go' -type f", "find src -newer README.md -print",
	"sed -n '1,2p' src/a.go", "sed 's/main/niam/g' src/a.go", "sed -e '/package/r README.md' src/a.go",
	"awk '{print $1}' README.md", "gawk -F: '{n++} END {print n}' README.md", "mawk 'NR==1' README.md", "nawk 'NR==1' README.md",
	"sort -u README.md", "sort -k 2 README.md | uniq -c", "uniq README.md", "cut -c1-3 README.md", "tr a-z A-Z < README.md",
	"diff README.md src/a.go", "cmp README.md README.md", "comm README.md README.md", "column -t README.md",
	"fold -w 5 README.md", "rev README.md", "strings src/a.go", "od -c README.md | head -3", "hexdump -C README.md",
	"xxd README.md", "md5sum README.md", "sha1sum README.md", "sha256sum README.md", "sha512sum README.md",
	"file src/a.go", "stat README.md", "du -sh .", "df -h .", "tree -a", "basename src/a.go", "dirname src/a.go",
	"realpath src/a.go", "readlink -f src", "pwd", "echo hi $HOME", "printf '%s\\n' a b", "date +%F", "uname -a",
	"id -u", "whoami", "hostname", "which ls", "true", "false", ": x", "test -f README.md", "[ -d src ]", "cd src && ls",
	"jq -r .name data.json", "yq '.a' x.yaml", "node --version", "python --version", "python3 --version",
	"git status", "git status -sb", "git log --oneline -3", "git log -p -1", "git show HEAD", "git show HEAD:README.md",
	"git diff", "git diff --stat HEAD", "git blame README.md", "git branch -a", "git branch --list", "git tag -l",
	"git rev-parse --show-toplevel HEAD", "git remote -v", "git ls-files", "git ls-tree -r HEAD", "git shortlog -sn HEAD",
	"git describe --always", "git cat-file -p HEAD", "git grep -n main", "git show-ref", "git merge-base HEAD HEAD",
	"git for-each-ref", "git count-objects -v", "git check-ignore -v x.log; true", "git version", "git stash list",
	"git stash show; true", "git worktree list", "git rev-list --count HEAD", "git whatchanged -1",
	"go version", "go env GOPATH", "go list ./...",
	"git status && git diff | head", "ls src; grep -rn foo src | wc -l", "cat README.md > /dev/null 2>&1",
	"diff <(ls src) <(ls .)", "echo $(git rev-parse HEAD)",
}

var roBuiltins = set("cd", "echo", "printf", "pwd", "true", "false", ":", "test", "[")

// TestReadOnlyExec runs every command of roExec for real, in a network
// namespace (unshare -r -n), over a fresh copy of a small git repository
// with a fixed HOME, and checks that it is proven read-only, that no file
// of the repository or HOME changed and that nothing reached a network.
// Commands whose program is not installed are skipped and counted.
func TestReadOnlyExec(t *testing.T) {
	if testing.Short() {
		t.Skip("runs commands")
	}
	if err := exec.Command("unshare", "-r", "-n", "true").Run(); err != nil {
		if err2 := exec.Command("unshare", "-n", "-m", "true").Run(); err2 != nil {
			t.Skipf("no network namespace available (unshare -r -n: %v; -n -m: %v)", err, err2)
		}
	}
	for _, tool := range []string{"bash", "git", "cp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	// Every program of the table has a command here.
	covered := map[string]bool{}
	for _, c := range roExec {
		an, err := Analyze(c, Options{})
		if err != nil {
			t.Fatalf("%q: %v", c, err)
		}
		for _, cmd := range an.Commands {
			covered[cmd.Name] = true
		}
	}
	for _, p := range ReadOnlyPrograms() {
		if !covered[p] {
			t.Errorf("program %s of the read-only table has no command in roExec", p)
		}
	}

	base := t.TempDir()
	fixture := filepath.Join(base, "fixture")
	home := filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(fixture, "src"), home, filepath.Join(base, "run")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		"README.md":  "hello world\nfoo bar\nfoo bar\n",
		"src/a.go":   "package main\n\nfunc main() {}\n",
		"go.mod":     "module example.com/fx\n\ngo 1.21\n",
		"data.json":  `{"name": "fx"}`,
		"x.yaml":     "a: 1\n",
		".gitignore": "*.log\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(fixture, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C", "LC_ALL=C", "TERM=dumb",
		"GIT_CONFIG_NOSYSTEM=1", "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "GOPROXY=off",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com",
		"GOCACHE=" + filepath.Join(base, "gocache"), "GOPATH=" + filepath.Join(base, "gopath")}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-qm", "init"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = fixture, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	os.WriteFile(filepath.Join(fixture, "README.md"), []byte(files["README.md"]+"changed\n"), 0o644) // git diff has something to show
	homeHash := treeHash(t, home)

	ran, skipped := 0, map[string]bool{}
	for i, c := range roExec {
		if ro := ProveReadOnly(c, Options{Cwd: "/ws", Home: home}); !ro.OK {
			t.Errorf("%q: not proven read-only: %s", c, ro.Why)
			continue
		}
		an, _ := Analyze(c, Options{})
		missing := ""
		for _, cmd := range an.Commands {
			if _, err := exec.LookPath(cmd.Name); err != nil && !roBuiltins[cmd.Name] {
				missing = cmd.Name
			}
		}
		if missing != "" {
			skipped[missing] = true
			continue
		}
		dir := filepath.Join(base, "run", fmt.Sprintf("%03d", i))
		if out, err := exec.Command("cp", "-a", fixture, dir).CombinedOutput(); err != nil {
			t.Fatalf("cp: %v %s", err, out)
		}
		before, index := treeHash(t, dir), gitIndex(t, dir, env)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		cmd := exec.CommandContext(ctx, "unshare", "-r", "-n", "bash", "--noprofile", "--norc", "-c", c)
		cmd.Dir, cmd.Env = dir, env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if ctx.Err() == context.DeadlineExceeded {
			t.Errorf("%q: timed out", c)
		}
		cancel()
		ran++
		for _, netErr := range []string{"Network is unreachable", "Could not resolve", "dial tcp", "Temporary failure in name resolution", "getaddrinfo"} {
			if strings.Contains(out.String(), netErr) {
				t.Errorf("%q tried the network: %s", c, out.String())
			}
		}
		if after := treeHash(t, dir); after != before {
			t.Errorf("%q changed the repository (exit %v): %s", c, err, out.String())
		}
		if after := gitIndex(t, dir, env); after != index {
			t.Errorf("%q changed the git index entries", c)
		}
		if h := treeHash(t, home); h != homeHash {
			t.Errorf("%q changed HOME", c)
			homeHash = h
		}
	}
	names := make([]string, 0, len(skipped))
	for n := range skipped {
		names = append(names, n)
	}
	sort.Strings(names)
	t.Logf("ran %d commands in a network namespace; skipped the commands of %d programs not installed: %s", ran, len(names), strings.Join(names, " "))
}

// treeHash hashes every path, mode, link target and content below dir.
// .git/index is left out: git status refreshes its stat cache (an
// optional lock; gitIndex compares the entries themselves); so is
// ~/.config/go/telemetry, where every go command counts its own use.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == filepath.Join(".git", "index") {
			return nil
		}
		if rel == ".config" || rel == filepath.Join(".config", "go") {
			return nil // the telemetry's parents: what is below them is still hashed
		}
		if rel == filepath.Join(".config", "go", "telemetry") {
			return fs.SkipDir // the go command's local telemetry counters (docs/auto-allow.md)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Write([]byte(rel + "\x00" + info.Mode().String() + "\x00"))
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			h.Write([]byte(l))
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		h.Write([]byte{0})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func gitIndex(t *testing.T, dir string, env []string) string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-s")
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}
