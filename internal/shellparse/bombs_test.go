package shellparse

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bomb is a small input that makes a shell value (or the work done on it)
// grow without bound if the analysis folds it naively.
type bomb struct {
	name string
	src  string
}

// rep joins n copies of s with sep.
func rep(s string, n int, sep string) string {
	return strings.TrimSuffix(strings.Repeat(s+sep, n), sep)
}

// push is appended to every bomb: a literal command after the bomb must
// still be seen, whatever the bomb's values became.
const push = "\ngit push --force origin main"

// big is a prefix that builds a value of 2^16 bytes in a way the analysis
// folds (X of 64 KiB), used by the bombs that multiply a large value.
var big = "X=a; " + rep("X=$X$X", 16, "; ")

func bombs() []bomb {
	bs := []bomb{
		{"concat", "X=a; " + rep("X=$X$X", 40, "; ")},
		{"concat-func", "f() { X=a; " + rep("X=$X$X", 40, "; ") + "; }"},
		{"append", "X=a; " + rep("X+=$X", 40, "; ")},
		{"replace-all", "X=a; " + rep("X=${X//a/aa}", 40, "; ")},
		{"replace-self", "X=a; " + rep("X=${X/a/$X$X}", 40, "; ")},
		{"replace-wide", big + "; " + rep("Y=${X//a/"+strings.Repeat("b", 200)+"}", 10, "; ")},
		{"default", "X=a; " + rep("X=${X:-b}$X", 40, "; ")},
		{"assign-default", "X=a; " + rep("Y=${Y:=$X}; X=$X$X", 40, "; ")},
		{"printf-v", "X=a; " + rep(`printf -v X %s%s "$X" "$X"`, 40, "; ")},
		{"cmdsubst-echo", "X=a; " + rep(`X=$(echo "$X$X")`, 40, "; ")},
		{"cmdsubst-printf", "X=a; " + rep(`X=$(printf %s%s "$X" "$X")`, 40, "; ")},
		{"cmdsubst-heredoc", "X=a; " + rep("X=$(cat <<EOF\n$X$X\nEOF\n)", 40, "\n")},
		{"printf-reuse", big + `; printf "%s$X$X$X$X" ` + rep("1", 256, " ") + " | sh"},
		{"brace", "echo " + strings.Repeat("{a,b}", 40)},
		{"brace-assign", "X=a; " + rep("declare X={$X,$X}", 20, "; ")},
		{"loop", "X=a; " + rep("for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do X=$X$X; done", 4, "; ")},
		{"nested-loop", "X=a; for i in 1 2 3 4; do for j in 1 2 3 4; do for k in 1 2 3 4; do X=$X$X; done; done; done"},
		{"loop-args", big + "; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do echo " + rep("$X", 64, " ") + "; done"},
		{"read-heredoc", "X=a; " + rep("read -r X <<EOF\n$X$X\nEOF", 40, "\n")},
		{"array", "a=(x); " + rep(`a=("${a[@]}" "${a[@]}")`, 40, "; ")},
		{"array-elem", "a=(x); " + rep(`a[0]=${a[0]}${a[0]}`, 40, "; ")},
		{"array-append", "a=(x); " + rep(`a+=("${a[@]}")`, 40, "; ")},
		{"declare", "X=a; " + rep("declare X=$X$X", 40, "; ")},
		{"export", "X=a; " + rep("export X=$X$X", 40, "; ")},
		{"export-env", big + "; export X; " + rep(":", 1200, ";")},
		{"local", "f() { local X=a; " + rep("local X=$X$X", 40, "; ") + "; }"},
		{"readonly", "X=a; " + rep("readonly X=$X$X", 40, "; ")},
		{"eval", "X=a; " + rep("eval 'X=$X$X'", 40, "; ")},
		{"eval-grow", "X=a; " + rep(`eval "X=$X$X"`, 40, "; ")},
		{"eval-script", "X='echo a;'; " + rep("X=$X$X", 24, "; ") + `; eval "$X"`},
		{"eval-commands", "X='echo a;'; " + rep("X=$X$X", 13, "; ") + "; " + rep(`for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do eval "$X"; done`, 4, "; ")},
		{"eval-commands-4k", "X='echo a;'; " + rep("X=$X$X", 13, "; ") + "; : " + strings.Repeat("p", 3500) + "; " + rep(`for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do eval "$X"; done`, 4, "; ")},
		{"sh-commands", "X='echo a;'; " + rep("X=$X$X", 13, "; ") + "; { " + rep(`echo "$X"`, 64, "; ") + "; } | sh"},
		{"bash-c-commands", "X='echo a;'; " + rep("X=$X$X", 13, "; ") + "; " + rep(`bash -c "$X"`, 80, "; ")},
		{"recursion", "f() { X=$X$X; f; }; X=a; f"},
		{"alias-self", "shopt -s expand_aliases; " + rep("alias a='a a'", 2, "; ") + "; a"},
		{"alias-pair", "shopt -s expand_aliases; alias a='b b b b'; alias b='a a a a'\na\n"},
		{"alias-chain", "shopt -s expand_aliases; alias a0='echo x'\n" + aliasChain(30) + "a30\n"},
		{"heredoc-refs", big + "\ncat > f <<EOF\n" + rep("$X", 500, "") + "\nEOF\n"},
		{"args", big + "; echo " + rep("$X", 600, " ")},
		{"herestring", big + "; cat <<< " + rep("$X", 600, "")},
		{"pipe-sh", big + "; { " + rep("echo $X$X$X$X", 60, "; ") + "; } | sh"},
		{"xargs", `X="a a"; ` + rep(`X="$X $X"`, 18, "; ") + "; echo $X | xargs -n1 echo"},
		{"bash-c-params", big + `; bash -c 'echo "$@" "$@" "$@" "$@"' x ` + rep("$X", 300, " ")},
		{"positional", big + `; f() { :; }; set -- ` + rep("$X", 300, " ")},
		{"path-join", big + "; " + rep("cd $X", 300, "; ")},
		{"write-then-run", big + "; echo $X$X$X$X > c.sh; bash c.sh; sh c.sh; . c.sh"},
		{"script-self", "echo 'bash c.sh; bash c.sh' > c.sh; bash c.sh"},
		{"script-source-self", "echo '. ./c.sh; . ./c.sh' > c.sh; . ./c.sh"},
		{"script-exec-self", "printf './c.sh\n./c.sh\n' > c.sh; ./c.sh"},
		{"script-pair", "echo 'sh b.sh; sh b.sh; sh b.sh' > a.sh; echo 'sh a.sh; sh a.sh; sh a.sh' > b.sh; sh a.sh"},
		{"tee-grow", big + "; " + rep("echo $X | tee -a f", 100, "; ")},
		{"links", rep("ln -s /x$RANDOM l", 100, "; ") + "; " + rep("ln -s a/b/c/d l/", 100, "; ") + "; rm -rf l/x"},
		{"program-self", `echo "import os; os.system('python3 x.py; python3 x.py')" > x.py; python3 x.py`},
		{"eval-self", `X='eval "$X"'; eval "$X"`},
		{"eval-pair", `X='eval "$Y"'; Y='eval "$X"'; eval "$X"`},
		{"sh-c-self", `X='sh -c "$X"'; export X; sh -c "$X"`},
		{"eval-self-grow", `X='eval "$X$X"'; eval "$X"`},
		{"tilde", "HOME=a; " + rep("HOME=~/~$HOME$HOME", 40, "; ")},
		// A wrapper option the table cannot place gives two readings
		// (firstAlt); nested, each level doubles them up to the depth limit.
		{"wrapper-doubt", strings.Repeat("strace --a strace ", 8) + "rm -rf /"},
		{"parallel-doubt", strings.Repeat("parallel --a parallel ", 8) + "echo " + rep("{}", 16, " ") + " ::: " + rep("x", 16, " ")},
		{"parallel-known", strings.Repeat("parallel -j 1 parallel ", 8) + "echo " + rep("{}", 16, " ") + " ::: " + rep("x", 16, " ")},
	}
	for i := range bs {
		bs[i].src += push
	}
	return bs
}

func aliasChain(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "alias a%d='a%d; a%d'\n", i, i-1, i-1)
	}
	return b.String()
}

// bombLimit is what one bomb may allocate in total.
const bombLimit = 64 << 20

// TestBombsBounded: every bomb of at most 4 KiB is analyzed with at most
// 64 MB allocated (in total, not live) and without hanging (a 10 s guard
// that only catches hangs; the figures are in the -v output), and the
// `git push --force` after it is still found.
func TestBombsBounded(t *testing.T) {
	for _, b := range bombs() {
		t.Run(b.name, func(t *testing.T) {
			if len(b.src) > 4<<10 {
				t.Fatalf("bomb is %d bytes, want at most 4 KiB", len(b.src))
			}
			alloc, took, res, err := measure(b.src)
			t.Logf("%d bytes in, %.1f MB allocated, %v", len(b.src), float64(alloc)/1e6, took.Round(time.Millisecond))
			if alloc > bombLimit {
				t.Errorf("allocated %d bytes, want at most %d", alloc, bombLimit)
			}
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			if !hasCommand(res, "git push --force origin main") {
				t.Errorf("git push --force not found; commands: %d", len(res.Commands))
			}
		})
	}
}

func hasCommand(r *Result, line string) bool {
	for i := range r.Commands {
		if !r.Commands[i].Dynamic && r.Commands[i].Line() == line {
			return true
		}
	}
	return false
}

// measure analyzes src once and reports the bytes allocated meanwhile. A
// hang fails after 10 s (a guard, not a timing assertion).
func measure(src string) (alloc uint64, took time.Duration, res *Result, err error) {
	type out struct {
		r   *Result
		err error
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	done := make(chan out, 1)
	go func() {
		r, err := Analyze(src, Options{Cwd: "/w", Home: "/home/u"})
		done <- out{r, err}
	}()
	select {
	case o := <-done:
		took = time.Since(start)
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc, took, o.r, o.err
	case <-time.After(10 * time.Second):
		panic("analysis hung for 10 s on a bomb")
	}
}
