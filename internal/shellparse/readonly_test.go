package shellparse

import (
	"slices"
	"strings"
	"testing"
)

func TestProveReadOnly(t *testing.T) {
	yes := []string{
		"git status && git diff | head",
		"ls src; grep -rn foo src | wc -l",
		"cat README.md | head -20",
		"git log --oneline -5",
		"git log -p -n 3 -- src",
		"git show HEAD:go.mod",
		"git branch", "git branch -a", "git branch --list 'feat*'", "git tag -l", "git remote -v",
		"git rev-parse --show-toplevel", "git ls-files | wc -l", "git diff --stat HEAD~1",
		"find . -name '*.go' -type f", "find src -maxdepth 2 -print0",
		"sed -n '1,20p' a.go", "sed 's/foo/bar/g' a.go", "sed -n '/start/,/end/p' f",
		"awk '{print $1}' f", "awk -F: '{ n += $3 } END { print n }' f",
		"sort -u f | uniq -c", "jq -r .name package.json", "yq '.a' x.yaml",
		"go list ./...", "go version", "go env GOPATH", "node --version",
		"which go", "file a.go", "stat a.go", "du -sh .", "df -h", "pwd", "echo hello", "echo $HOME",
		"printf '%s\\n' a", "date +%F", "uname -a", "id -u",
		"cd src && ls", "ls > /dev/null 2>&1", "grep foo a 2>/dev/null", "echo $(git rev-parse HEAD)",
		"diff <(ls a) <(ls b)", "cat <<'EOF'\nhi\nEOF", "wc -l < a.go", "ls src/*.go",
		"rg -n TODO src", "head -n 5 a b", "tail -20 log.txt", "test -f a && cat a",
		"if test -d src; then ls src; fi", "git -C sub status",
	}
	for _, s := range yes {
		if r := ProveReadOnly(s, Options{Cwd: "/ws", Home: "/home/u"}); !r.OK {
			t.Errorf("%q: not proven: %s", s, r.Why)
		}
	}
	no := map[string]string{
		"sed -i s/a/b/ f":             "sed -i writes f",
		"find . -delete":              "find -delete",
		"find . -exec rm {} +":        "find -exec",
		"find . -fprint out":          "writes a file",
		"git diff > out.txt":          "redirection writes out.txt",
		"echo $(curl x)":              "curl is not in the read-only table",
		"GIT_PAGER=sh git log":        "environment assignment",
		"awk 'BEGIN{system(\"id\")}'": "system",
		"ls --unknown-opt":            "unknown option ls --unknown-opt",
		"sed 's/a/b/w out' f":         "s///w",
		"sed 's/a/b/e' f":             "s///e",
		"sed 'w out' f":               "w writes",
		"sed '1e id' f":               "e runs",
		"sed -e p -i f":               "sed -i",
		"sort -o out f":               "unknown option sort -o",
		"yq -i '.a=1' f":              "yq -i",
		"git branch new":              "creates",
		"git tag v1":                  "creates",
		"git remote show origin":      "takes no operand",
		"git -c core.pager=sh log":    "unknown option git -c",
		"git diff --output=x":         "unknown option",
		"git push":                    "git push is not in",
		"git config --list":           "git config",
		"cat f | sh":                  "sh is not",
		"bash <<EOF\nls\nEOF":         "bash is not",
		"node <<'EOF'\nconst fs=require('fs'),os=require('os');fs.rmSync(os.homedir(),{recursive:true})\nEOF": "standard input",
		"echo 'import shutil; shutil.rmtree(\"/\")' | python3":                                                "standard input",
		"python <<< 'print(1)'":       "standard input",
		"cat x.js | node":             "standard input",
		"x=1; ls":                     "environment assignment",
		"f() { ls; }; f":              "function",
		"ls &":                        "background",
		"./ls":                        "a path",
		"cat $F":                      "only known at run time",
		"ls {-delete,x}":              "",
		"find * -name x":              "glob at the start",
		"awk '{print > \"x\"}' f":     ">",
		"awk -f prog.awk f":           "-f",
		"jq -n env":                   "env",
		"printf -v x %s y":            "printf -v",
		"date -s 2020-01-01":          "date -s",
		"uniq a b":                    "extra operand",
		"xxd -r a b":                  "unknown option",
		"tail -f log":                 "unknown option tail -f",
		"rg --pre cat x":              "unknown option",
		"tree -o out":                 "unknown option",
		"go env -w GOFLAGS=x":         "unknown option",
		"go build":                    "go build is not",
		"git stash":                   "without a subcommand",
		"ls >&out":                    "redirection writes out",
		"cat ~root/.ssh/id_rsa":       "",
		"echo >(cat)":                 "",
		"for f in *; do cat $f; done": "loop",
		"hostname evil":               "takes no operand",
		"command -v ls":               "command is not",
		"eval ls":                     "eval is not",
		"ls $(rm -rf x)":              "rm is not",
		"sed -n 'p;w x' f":            "w writes",
		"sed '$!N;s/\\n/ /;e' f":      "e runs",
		"test -v 'a[$(id)]'":          "test -v",
		"[ -R x ]":                    "[ -R",
		"test $x":                     "only known at run time",
		"awk 'BEGIN{ARGV[1]=\"/etc/shadow\";ARGC=2}{print}'": "ARGV",
		"jq -f prog.jq data.json":                            "unknown option jq -f",
	}
	for s, want := range no {
		r := ProveReadOnly(s, Options{Cwd: "/ws", Home: "/home/u"})
		if r.OK {
			t.Errorf("%q: proven read-only", s)
			continue
		}
		if !strings.Contains(r.Why, want) {
			t.Errorf("%q: why %q, want it to contain %q", s, r.Why, want)
		}
	}
}

func TestProveReadOnlyReads(t *testing.T) {
	for s, want := range map[string][]string{
		"cat .env":                         {"/ws/.env"},
		"grep -rn foo src":                 {"/ws/foo", "/ws/src"},
		"cd sub && cat x":                  {"/ws/sub", "/ws/x", "/ws/sub/x"},
		"(cd /etc) ; cat passwd":           {"/etc", "/ws/passwd"},
		"git show HEAD:.env":               {"/ws/HEAD:.env", "/ws/.env"},
		"sed 'r /etc/shadow' f":            {"/etc/shadow", "/ws/f"},
		"wc -l < ~/.ssh/id_rsa":            {"/home/u/.ssh/id_rsa"},
		"find . -newer ~/.aws/credentials": {"/ws", "/home/u/.aws/credentials"},
		"git -C ../other log":              {"/other"},
	} {
		r := ProveReadOnly(s, Options{Cwd: "/ws", Home: "/home/u"})
		if !r.OK {
			t.Errorf("%q: not proven: %s", s, r.Why)
			continue
		}
		for _, w := range want {
			if !slices.Contains(r.Reads, w) {
				t.Errorf("%q: reads %q, want %q among them", s, r.Reads, w)
			}
		}
	}
}

func TestProveReadOnlyBounds(t *testing.T) {
	s := strings.Repeat("cd a || cd b; ", 40) + "cat x"
	if r := ProveReadOnly(s, Options{Cwd: "/ws"}); r.OK || !strings.Contains(r.Why, "too many cd") {
		t.Errorf("40 alternating cds: %v %q", r.OK, r.Why)
	}
	s = "cat" + strings.Repeat(" x", 5000)
	if r := ProveReadOnly(s, Options{Cwd: "/ws"}); r.OK {
		t.Errorf("5000 operands proven")
	}
}

func TestProveReadOnlyNoFollowNoHidden(t *testing.T) {
	for _, s := range []string{"grep -R key .", "rg -L key", "rg --hidden key", "rg -uu key", "rg --no-ignore key", "ag --hidden key", "ag -f key", "rg --pre cat key", "rg -z key"} {
		if r := ProveReadOnly(s, Options{Cwd: "/ws"}); r.OK {
			t.Errorf("%q proven read-only", s)
		}
	}
}

// FuzzProveReadOnly: no input panics, and a proven string's reads are
// clean paths.
func FuzzProveReadOnly(f *testing.F) {
	for _, s := range []string{"git status && git diff | head", "sed -n '1,2p;/x/r f' a", "find . -newer x -print", "awk -F: '{print $1}' f", "cd a || cat b", "echo $(ls <(cat x))", "jq --arg a b . f", "test -f x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r := ProveReadOnly(s, Options{Cwd: "/ws", Home: "/h"})
		if r.OK && r.Why != "" {
			t.Fatalf("%q: OK with a reason %q", s, r.Why)
		}
	})
}
