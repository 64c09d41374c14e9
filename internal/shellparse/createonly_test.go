package shellparse

import (
	"slices"
	"testing"
)

// TestCreateOnly: writes that cannot change what an existing file holds
// are creates (touch, cp/mv -n, a write guarded by a test that the file is
// absent); wc's operands are not reads. The look-alikes keep their writes
// and reads.
func TestCreateOnly(t *testing.T) {
	runCases(t, []analyzeCase{
		{"touch .env", []string{"touch .env paths=create:/w/.env"}},
		{"touch -r ref .env", []string{"touch -r ref .env paths=create:/w/.env"}},
		{"cp -n .env.example .env", []string{"cp -n .env.example .env paths=create:/w/.env,create:/w/.env/.env.example,read:/w/.env.example"}},
		{"cp --no-clobber a b", []string{"cp --no-clobber a b paths=create:/w/b,create:/w/b/a,read:/w/a"}},
		{"cp --update=none a b", []string{"cp --update=none a b paths=create:/w/b,create:/w/b/a,read:/w/a"}},
		{"mv -n a b", []string{"mv -n a b paths=create:/w/b,create:/w/b/a,delete:/w/a"}},
		{"[ -f .env ] || cp .env.example .env", []string{"[ -f .env ]", "cp .env.example .env paths=create:/w/.env,write:/w/.env/.env.example,read:/w/.env.example"}},
		{"test -e .env || touch .env", []string{"test -e .env", "touch .env paths=create:/w/.env"}},
		{"[ -s .env ] || echo A=1 > .env", []string{"[ -s .env ]", "echo A=1 paths=create:/w/.env"}},
		{"[ ! -f .env ] && cp .env.example .env", []string{"[ ! -f .env ]", "cp .env.example .env paths=create:/w/.env,write:/w/.env/.env.example,read:/w/.env.example"}},
		{"! test -f .env && cp t .env", []string{"test -f .env", "cp t .env paths=create:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"if [ ! -f .env ]; then cp t .env; fi", []string{"[ ! -f .env ]", "cp t .env paths=create:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"cd app && [ -f .env ] || cp t .env", []string{"cd app", "[ -f .env ]", "cp t .env paths=write:/w/app/.env,write:/w/app/.env/t,read:/w/app/t"}},
		{"[ -f /w/.env ] || cp t .env", []string{"[ -f /w/.env ]", "cp t .env paths=create:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"wc -l .env", []string{"wc -l .env"}},
		{"xargs -a .env echo", []string{"xargs -a .env echo paths=read:/w/.env", `echo "{xargs input}" <- xargs`}},
		{"xargs --arg-file=list rm", []string{"xargs --arg-file=list rm paths=read:/w/list", `rm "{xargs input}" <- xargs paths=delete:{xargs input}*`}},
		{"xargs grep -a x", []string{"xargs grep -a x", `grep -a x "{xargs input}" <- xargs paths=read:{xargs input}*`}},
		{"gzip -c .env", []string{"gzip -c .env paths=read:/w/.env"}},
		{"zstd -T0 -o out.zst big.log", []string{"zstd -T0 -o out.zst big.log paths=read:/w/big.log,write:/w/out.zst"}},
		{"rsync -an --delete src/ /", []string{"rsync -an --delete src/ / paths=read:/w/src"}},
		{"rsync --list-only src/ /srv", []string{"rsync --list-only src/ /srv paths=read:/w/src"}},
		{"rsync -a src/ /srv", []string{"rsync -a src/ /srv paths=write:/srv,write:/srv/src,read:/w/src"}},
		{"wc .env", []string{"wc .env"}},
		{"wc --files0-from=.env", []string{"wc --files0-from=.env paths=read:/w/.env"}},
		{"wc --files0-from=- < list", []string{"wc --files0-from=- paths=read:/w/list"}},
		{"wc -l < .env", []string{"wc -l"}},
		{"wc -l < .env > n.txt", []string{"wc -l paths=write:/w/n.txt"}},
		{"cat < .env | wc -l", []string{"cat paths=read:/w/.env", "wc -l src=cat:other:pipe"}},

		// Look-alikes: content reads and writes stay what they are.
		{"cp .env.example .env", []string{"cp .env.example .env paths=write:/w/.env,write:/w/.env/.env.example,read:/w/.env.example"}},
		{"cp -n -f a b", []string{"cp -n -f a b paths=write:/w/b,write:/w/b/a,read:/w/a"}},
		{"cp -n --update=all a b", []string{"cp -n --update=all a b paths=write:/w/b,write:/w/b/a,read:/w/a"}},
		{"[ -f .env ] && cp t .env", []string{"[ -f .env ]", "cp t .env paths=write:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"[ ! -f .env ] || cp t .env", []string{"[ ! -f .env ]", "cp t .env paths=write:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"[ -L .env ] || cp t .env", []string{"[ -L .env ]", "cp t .env paths=write:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"[ -f .env ] || cp t .env.local", []string{"[ -f .env ]", "cp t .env.local paths=write:/w/.env.local,write:/w/.env.local/t,read:/w/t"}},
		{"x && [ -f .env ] || cp t .env", []string{"x", "[ -f .env ]", "cp t .env paths=write:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"[ -f .env ] || cp t .env && echo y >> .env", []string{"[ -f .env ]", "cp t .env paths=create:/w/.env,write:/w/.env/t,read:/w/t", "echo y paths=write:/w/.env"}},
		{"if [ -f .env ]; then cp t .env; fi", []string{"[ -f .env ]", "cp t .env paths=write:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"if [ ! -f .env ]; then :; else cp t .env; fi", []string{"[ ! -f .env ]", ":", "cp t .env paths=write:/w/.env,write:/w/.env/t,read:/w/t"}},
		{"[ -f $F ] || cp t $F", []string{"[ -f $F ]", "cp t $F paths=write:$F*,write:$F/t*,read:/w/t"}},
		{"touch .env && cat .env", []string{"touch .env paths=create:/w/.env", "cat .env paths=read:/w/.env"}},
	})
}

// TestGitDiscardPaths: git clean -f, git stash -u/-a and git reset --hard
// write the tree they act on; the everyday forms name nothing.
func TestGitDiscardPaths(t *testing.T) {
	runCases(t, []analyzeCase{
		{"git clean -fdx", []string{"git clean -fdx paths=write:/w"}},
		{"git clean -f -- build dist", []string{"git clean -f -- build dist paths=write:/w/build,write:/w/dist"}},
		{"git clean -fd -e keep .", []string{"git clean -fd -e keep . paths=write:/w"}},
		{"git -C sub clean -f", []string{"git -C sub clean -f paths=write:/w/sub"}},
		{"git stash -u", []string{"git stash -u paths=write:/w"}},
		{"git stash push --all -m x", []string{"git stash push --all -m x paths=write:/w"}},
		{"git stash save -u wip", []string{"git stash save -u wip paths=write:/w"}},
		{"git stash push -u -- src", []string{"git stash push -u -- src paths=write:/w/src"}},
		{"git reset --hard HEAD~1", []string{"git reset --hard HEAD~1 paths=write:/w"}},
		{"git reset --keep", []string{"git reset --keep paths=write:/w"}},

		{"git clean -n", []string{"git clean -n"}},
		{"git clean -nfd", []string{"git clean -nfd"}},
		{"git clean -d", []string{"git clean -d"}},
		{"git -c clean.requireForce=false clean -dx", []string{"git -c clean.requireForce=false clean -dx paths=write:/w"}},
		{"git stash", []string{"git stash"}},
		{"git stash pop", []string{"git stash pop"}},
		{"git stash show -u", []string{"git stash show -u"}},
		{"git stash -u --no-include-untracked", []string{"git stash -u --no-include-untracked"}},
		{"git reset --soft HEAD~1", []string{"git reset --soft HEAD~1"}},
		{"git reset HEAD file", []string{"git reset HEAD file"}},
	})
}

// TestContentReaders: programs that print, load or stage a file's content
// read it; their look-alikes read nothing (or something else).
func TestContentReaders(t *testing.T) {
	cases := []struct {
		src  string
		want string // a read path, "" for none
	}{
		{"look A .env", "/w/.env"},
		{"join a .env", "/w/.env"},
		{"comm a .env", "/w/.env"},
		{"bat -p .env", "/w/.env"},
		{"batcat --style=plain .env", "/w/.env"},
		{"dotenv -f .env run env", "/w/.env"},
		{"dotenv -- printenv", "/w/.env"},
		{"dotenv -e .env.prod -- node x.js", "/w/.env.prod"},
		{"docker run --env-file .env alpine env", "/w/.env"},
		{"docker compose --env-file=.env up", "/w/.env"},
		{"node --env-file=.env app.js", "/w/.env"},
		{"git diff --no-index .env /dev/null", "/w/.env"},
		{"git add -f .env", "/w/.env"},
		{"git blame .env", "/w/.env"},
		{"emacs --batch -l x.el", "/w/x.el"},
		{"python3 -m json.tool .env", "/w/.env"},
		{"python3 -c 'import sys; print(open(sys.argv[1]).read())' .env", "/w/.env"},
		{"ruby -ne print .env", "/w/.env"},
		{"ruby -pe1 .env", "/w/.env"},
		{"node -e 'x' .env", "/w/.env"},
		{"uuencode .env x", "/w/.env"},
		{"shuf .env", "/w/.env"},
		{"csplit .env 1", "/w/.env"},
		{"base32 .env", "/w/.env"},
		{"basenc --base64 .env", "/w/.env"},
		{"pv .env", "/w/.env"},
		{"ag KEY .env", "/w/.env"},
		{"ack KEY .env", "/w/.env"},
		{"git grep --no-index KEY .env", "/w/.env"},
		{"git hash-object -w .env", "/w/.env"},
		{"unzip -p /tmp/x.zip .env", "/w/.env"},
		{"unzip -qc x.zip config/.env", "/w/config/.env"},
		{"unzip -l x.zip", "/w/x.zip"},
		{"uuencode x", ""},
		{"shuf -e a b", ""},
		{"git grep KEY", ""},
		{"python3 -c 'print(1)'", ""},
		{"python3 -m pytest -x", ""},

		{"look A", ""},
		{"git add .env", ""},
		{"git add -f -n .env", ""},
		{"git diff .env", ""},
		{"docker run alpine env", ""},
		{"node app.js", "/w/app.js"},
	}
	for _, c := range cases {
		t.Run(c.src, func(t *testing.T) {
			r, err := Analyze(c.src, testOpts)
			if err != nil {
				t.Fatal(err)
			}
			var reads []string
			for _, cmd := range r.Commands {
				for _, p := range cmd.Paths {
					if p.Op.String() == "read" {
						reads = append(reads, p.Path)
					}
				}
			}
			switch {
			case c.want == "" && len(reads) > 0:
				t.Errorf("reads %q, want none", reads)
			case c.want != "" && !slices.Contains(reads, c.want):
				t.Errorf("reads %q, want %s", reads, c.want)
			}
		})
	}
}
